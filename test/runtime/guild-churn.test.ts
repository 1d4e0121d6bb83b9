/**
 * A Runtime's cache while the bot leaves guilds and joins them again (the sandbox's state view, as a soak churns
 * guilds): GUILD_DELETE without `unavailable` drops the guild and its members, GUILD_CREATE brings them back.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { LogSink } from '../helpers/log-sink.js';

const ROOT = resolve(import.meta.dirname, '../..');

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('guild churn through a Runtime', () => {
  let sandbox: Sandbox;
  let runtime: Runtime;

  beforeAll(async () => {
    sandbox = await createSandbox({ seed: { guilds: 3, membersPerGuild: 8 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
    const config = loadConfig({ cwd: ROOT, env: {}, overrides: { plugins: { dirs: ['plugins'] }, http: { enabled: false } } });
    runtime = new Runtime({ config, sandbox, cwd: ROOT, log: createLogger({ level: 'warn', pretty: false, destination: new LogSink() }), gateway: { identifyWindowMs: 50 } });
    await runtime.start();
  });

  afterAll(async () => {
    await runtime?.stop({ graceMs: 1_000 });
    await sandbox?.close();
  });

  it('drops a guild the bot leaves and caches it again when it joins, twice over', async () => {
    const [g0, g1] = sandbox.state.guildIds as [string, string];
    for (const id of sandbox.state.guildIds) await until(async () => (await runtime.cache.getGuild(id)) !== undefined, `guild ${id} cached`);
    for (let round = 0; round < 2; round++) {
      sandbox.state.leaveGuild(g1);
      await until(async () => (await runtime.cache.getGuild(g1)) === undefined, 'the left guild dropped');
      expect(await runtime.cache.getMember(g1, sandbox.applicationId)).toBeUndefined();
      expect(await runtime.cache.getGuild(g0)).toBeDefined();
      sandbox.state.joinGuild(g1);
      await until(async () => (await runtime.cache.getGuild(g1)) !== undefined, 'the guild cached again');
      expect(await runtime.cache.getMember(g1, sandbox.applicationId)).toBeDefined();
    }
    // The joined guild is live: its member events reach the cache again.
    const id = sandbox.state.addMember(g1, { username: 'back-again' });
    await until(async () => (await runtime.cache.getMember(g1, id)) !== undefined, 'a new member of the rejoined guild');
  });
});
