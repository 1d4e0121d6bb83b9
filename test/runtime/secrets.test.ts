/**
 * No secret in any output: a bot process (test/runtime/fixtures/secrets-driver.ts) is driven through every
 * error path with secrets of every kind (bot token, OAuth client secret, Redis password, API URL password, OAuth
 * access and refresh tokens): bad configuration, REST 401 / 403 / 5xx and an API URL with credentials, a fatal
 * gateway close, plugin throws (setup, command, event), an OAuth token exchange and its failures, Redis down.
 * Its stdout and stderr, which hold the product's logs, CLI messages and every error the product threw, must
 * contain none of them. The service side (sandbox, a failing fake API) runs here, in the parent, so that the
 * bot process learns its secrets only the way a bot owner's process does.
 *
 * The secrets are not token-shaped on purpose: the redactor's shape nets would hide a real-looking token even
 * if nobody had registered it, and this test is about every secret being known where it must be.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startFakeApi, type FakeApi } from '../rest/helpers/fake-api.js';
import { runToEnd } from '../helpers/process.js';
import { redisUrlVia, redisUrlWith } from '../helpers/redis-url.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DRIVER = 'test/runtime/fixtures/secrets-driver.ts';

const BOT_TOKEN = 'bot-token-secret-7f3a91c2e4b6';
const CLIENT_SECRET = 'client-secret-value-1d9e8c7b';
const REDIS_PASSWORD = 'redis-password-4c2b9e1f';
const API_PASSWORD = 'api-password-8a7b6c5d';
const APP = '1300000000000000001';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runDriver(scenarios: string, vars: Record<string, string>, timeoutMs: number): Promise<Run> {
  // Only what the bot needs: no secret of this process, and nothing of the test runner's own set-up.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, FORCE_COLOR: '0', SECRETS_SCENARIOS: scenarios, ...vars };
  return runToEnd(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-source', DRIVER], { cwd: ROOT, env, timeoutMs, what: 'the driver' });
}

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function expectNoSecret(run: Run, secrets: readonly string[]): void {
  const everything = `${run.stdout}\n${run.stderr}`;
  for (const secret of secrets) {
    const at = everything.indexOf(secret);
    expect(at, `secret found: …${everything.slice(Math.max(0, at - 300), at + 100)}…`).toBe(-1);
  }
}

let sandbox: Sandbox;
let api: FakeApi;
let dir: string;
let vars: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-secrets-'));
  sandbox = await createSandbox({ botToken: BOT_TOKEN, clientSecret: CLIENT_SECRET, applicationId: APP, seed: { guilds: 1, membersPerGuild: 3 }, gateway: { identifyWindowMs: 50 } });
  api = await startFakeApi();
  api.onAny((req) => {
    if (req.path.startsWith('/unauthorized/')) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
    if (req.path === '/failing/api/v10/applications/@me') return { status: 200, body: { id: APP, name: 'bot', flags: 0 } };
    if (req.path.startsWith(`/failing/api/v10/applications/${APP}/`)) return { status: 403, body: { message: 'Missing Access', code: 50001 } };
    return { status: 502, body: { message: 'Bad Gateway' } };
  });
  const base = `http://127.0.0.1:${new URL(api.baseUrl).port}`;
  vars = {
    SECRETS_TEST_TOKEN: BOT_TOKEN,
    SECRETS_TEST_CLIENT_SECRET: CLIENT_SECRET,
    SECRETS_TEST_REDIS_PASSWORD: REDIS_PASSWORD,
    SECRETS_TEST_API_PASSWORD: API_PASSWORD,
    // The suite's Redis and database (REDIS_URL), with a password of this test's own.
    SECRETS_TEST_REDIS_URL: redisUrlWith({ password: REDIS_PASSWORD }),
    SECRETS_TEST_REDIS_DOWN_URL: redisUrlVia(await closedPort(), redisUrlWith({ username: 'default', password: REDIS_PASSWORD })),
    SECRETS_TEST_API_URL_WITH_CREDENTIALS: `http://gatehouse:${API_PASSWORD}@127.0.0.1:${new URL(api.baseUrl).port}/api/v10`,
    SECRETS_TEST_FAKE_API: base,
    SECRETS_TEST_SANDBOX_REST: sandbox.restUrl,
    SECRETS_TEST_ADMIN_URL: sandbox.adminUrl,
    SECRETS_TEST_GUILD: sandbox.state.guildIds[0]!,
    SECRETS_TEST_TOKENS_FILE: join(dir, 'tokens.json'),
    GATEHOUSE_SANDBOX_STATE: join(dir, 'sandbox-state.json'),
  };
});

afterAll(async () => {
  await api?.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('secrets', () => {
  it('no token, client secret, password or OAuth token in stdout, stderr or thrown errors on any error path', async () => {
    const run = await runDriver('config,rest,runtime', vars, 90_000);
    const out = run.stdout;

    // Every path was really taken.
    expect(out, run.stderr.slice(-3000)).toContain('SCENARIO done: all scenarios ran');
    expect(out).toContain('SCENARIO config-values: exit 2');
    expect(out).toContain('SCENARIO config-urls: exit 2');
    expect(run.stderr).toContain('shards.total (from environment variable GATEHOUSE_SHARD_TOTAL)');
    expect(run.stderr).toContain('redisUrl (from environment variable REDIS_URL)');
    expect(run.stderr).toContain('apiUrl (from environment variable DISCORD_API_URL)');
    expect(out).toContain('SCENARIO rest-url-credentials: exit 1');
    expect(out).toContain('SCENARIO rest-401: exit 1');
    expect(out).toContain('SCENARIO rest-403-5xx: exit 1');
    expect(api.requests.some((r) => r.path.startsWith('/unauthorized/') && r.headers.authorization === `Bot ${BOT_TOKEN}`)).toBe(true);
    expect(api.requests.some((r) => r.status === 403)).toBe(true);
    expect(api.requests.filter((r) => r.status === 502).length).toBeGreaterThanOrEqual(2);
    // A rejected token (401) is said in one line without a stack; the other failures are logged with theirs.
    expect(out.match(/"msg":"startup failed"/g)?.length).toBeGreaterThanOrEqual(2);
    expect(run.stderr).toContain('gatehouse start: the token was rejected');
    expect(out).toContain('SCENARIO runtime-start: running');
    expect(out).toContain('"msg":"plugin setup failed; the plugin is disabled"');
    expect(out).toContain('"msg":"command handler failed"');
    expect(out).toContain('"msg":"plugin event handler failed"');
    expect(out).toContain('SCENARIO oauth-exchange: ok');
    expect(out).toContain('SCENARIO oauth-403: threw ApiError');
    expect(out).toContain('SCENARIO oauth-invalid-grant: threw ApiError');
    expect(out).toContain('SCENARIO gateway-fatal-close: stopped');
    expect(out.split('\n').some((l) => l.includes('"msg":"shard stopped"') && l.includes('"code":4004'))).toBe(true);
    expect(out).toContain('SCENARIO runtime-stop: stopped');
    expect(existsSync(vars.SECRETS_TEST_TOKENS_FILE!)).toBe(true);
    const tokens = JSON.parse(readFileSync(vars.SECRETS_TEST_TOKENS_FILE!, 'utf8')) as { access: string; refresh: string };
    expect(tokens.access.length).toBeGreaterThan(8);

    expectNoSecret(run, [BOT_TOKEN, CLIENT_SECRET, REDIS_PASSWORD, API_PASSWORD, tokens.access, tokens.refresh]);
    // The masks are there instead.
    expect(`${out}\n${run.stderr}`).toContain('[redacted]');
  }, 120_000);

  it('no secret in any output while Redis is down', async () => {
    const run = await runDriver('redis', vars, 90_000);
    expect(run.stdout, run.stderr.slice(-3000)).toContain('SCENARIO done: all scenarios ran');
    expect(run.stdout).toContain('SCENARIO redis-down: exit 1');
    expect(`${run.stdout}\n${run.stderr}`).toContain('ECONNREFUSED');
    expectNoSecret(run, [BOT_TOKEN, REDIS_PASSWORD]);
  }, 120_000);

  // ioredis prints "[ioredis] Unhandled error event" to stderr itself, past the redacting logger, for a client
  // without an error listener: every client is opened through src/util/redis-connection.ts, which routes them.
  it('Redis client errors reach the output only through the redacting logger', async () => {
    const run = await runDriver('redis', vars, 90_000);
    expect(run.stdout).toContain('SCENARIO redis-down: exit 1');
    expect(run.stderr).not.toContain('[ioredis]');
    expect(run.stdout).toContain('ECONNREFUSED');
  }, 120_000);
});
