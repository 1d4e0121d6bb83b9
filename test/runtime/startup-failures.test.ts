/**
 * Startup failures say what to do: a rejected token names the API URL (no stack), a busy health port names
 * the setting to change (on the embedded sandbox another port is taken instead); and the ready line names
 * the bot, its id, its guilds and shards.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, ROOT, startBot } from '../plugins/helpers.js';
import { runToEnd, type Finished } from '../helpers/process.js';

let sandbox: Sandbox;
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  sandbox = await newSandbox();
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  await sandbox.close();
});

/** `gatehouse start` in its own process, until it exits (bounded). */
function start(env: NodeJS.ProcessEnv): Promise<Finished> {
  return runToEnd(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-source', 'src/cli.ts', 'start'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', GATEHOUSE_PLUGIN_DIRS: 'test/fixtures/plugins/mixed', REDIS_URL: '', FORCE_COLOR: '0', ...env },
    timeoutMs: 60_000,
    what: 'gatehouse start',
  });
}

describe('startup failures', () => {
  it('a rejected token says so and names the API URL, without a stack or the token', async () => {
    const token = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.rejected.not-a-real-token-at-all';
    const r = await start({ DISCORD_TOKEN: token, DISCORD_API_URL: sandbox.restUrl, GATEHOUSE_HTTP_PORT: '0' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `gatehouse start: the token was rejected: GET ${sandbox.restUrl}/applications/@me answered 401 Unauthorized. Check DISCORD_TOKEN`,
    );
    const all = r.stdout + r.stderr;
    expect(all).not.toMatch(/\n\s+at /);
    expect(all).not.toContain(token);
  }, 70_000);

  it('a busy health port with a real token names the setting to change', async () => {
    const r = await start({ DISCORD_TOKEN: sandbox.botToken, DISCORD_API_URL: sandbox.restUrl, GATEHOUSE_HTTP_PORT: String(busyPort) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `gatehouse start: the health and metrics port 127.0.0.1:${busyPort} is in use (is another gatehouse running?). Set http.port in config/local.json or GATEHOUSE_HTTP_PORT to a free port (0 picks one), or http.enabled to false`,
    );
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  }, 70_000);

  it('on the embedded sandbox a busy port is replaced by a free one, and the ready line names the bot', async () => {
    const { runtime, logs } = await startBot(sandbox, ['test/fixtures/plugins/mixed'], { overrides: { http: { enabled: true, port: busyPort } } });
    try {
      expect(runtime.opsAddress?.port).not.toBe(busyPort);
      expect(logs.messages(40)).toContain(`port 127.0.0.1:${busyPort} is in use; health and metrics moved to port ${runtime.opsAddress!.port} (set GATEHOUSE_HTTP_PORT to choose)`);
      const ready = logs.messages(30).find((m) => m.startsWith('ready: '));
      expect(ready).toBe(`ready: logged in as sandbox-bot (id ${sandbox.applicationId}), 2 guilds on 1 shard`);
    } finally {
      await runtime.stop({ graceMs: 500 });
    }
  });
});
