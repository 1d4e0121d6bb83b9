/**
 * An embedder tells a rejected token from every other startup failure by type, not by parsing the message:
 * StartupError carries the REST ApiError (status 401) as `cause`. Through the Runtime as `gatehouse/runtime`
 * exports it, against the sandbox with a token it does not know. And the REST errors that wrap a failure keep it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { ApiError, NetworkError, RequestAbortedError, StartupError } from 'gatehouse';
import { createLogger, loadConfig, RestClient, Runtime } from 'gatehouse/runtime';
import { getCurrentApplication } from 'gatehouse/rest';
import { createSandbox, type Sandbox } from 'gatehouse/sandbox';
import { ROOT } from '../plugins/helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 1 } });
});
afterAll(async () => {
  await sandbox.close();
});

describe('StartupError', () => {
  it('for a rejected token has the ApiError (401) as cause, and a stable name', async () => {
    const config = loadConfig({
      cwd: ROOT,
      env: { DISCORD_TOKEN: 'MTIzNDU2Nzg5MDEyMzQ1Njc4.rejected.not-a-real-token', DISCORD_API_URL: sandbox.restUrl },
      overrides: { plugins: { dirs: ['test/fixtures/plugins/mixed'] }, http: { enabled: false } },
    });
    const runtime = new Runtime({ config, cwd: ROOT, log: createLogger({ level: 'silent', pretty: false }) });
    let caught: unknown;
    try {
      await runtime.start();
    } catch (err) {
      caught = err;
    } finally {
      await runtime.stop({ graceMs: 100 });
    }
    expect(caught).toBeInstanceOf(StartupError);
    const error = caught as StartupError;
    expect(error.name).toBe('StartupError');
    expect(error.cause).toBeInstanceOf(ApiError);
    expect((error.cause as ApiError).status).toBe(401);
    expect((error.cause as ApiError).name).toBe('ApiError');
  }, 30_000);
});

describe('REST errors that wrap another', () => {
  it('NetworkError has the last connection failure as cause; RequestAbortedError the abort reason', async () => {
    // A port that was just free: nothing listens there, so the connection is refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const client = new RestClient({ token: 'x.y.z', baseUrl: `http://127.0.0.1:${port}/api/v10`, retries: 0 });
    try {
      const refused = await getCurrentApplication(client).then(() => null, (err: unknown) => err);
      expect(refused).toBeInstanceOf(NetworkError);
      expect((refused as NetworkError).name).toBe('NetworkError');
      expect((refused as NetworkError).cause).toBeInstanceOf(Error);
      const reason = new Error('shutting down');
      const aborted = await getCurrentApplication(client, { signal: AbortSignal.abort(reason) }).then(() => null, (err: unknown) => err);
      expect(aborted).toBeInstanceOf(RequestAbortedError);
      expect((aborted as RequestAbortedError).cause).toBe(reason);
    } finally {
      client.close();
    }
  }, 30_000);
});
