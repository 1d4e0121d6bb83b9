import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, afterEach } from 'vitest';
import { ConfigError, intentBits, loadConfig, usesEmbeddedSandbox } from '../../src/runtime/config.js';
import { clearSecrets, redact } from '../../src/util/redact.js';

function configDir(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
  mkdirSync(join(root, 'config'));
  for (const [name, value] of Object.entries(files)) {
    writeFileSync(join(root, 'config', name), typeof value === 'string' ? value : JSON.stringify(value));
  }
  return root;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

afterEach(() => clearSecrets());

describe('loadConfig', () => {
  it('loads the checked-in default and fills every section', () => {
    const config = loadConfig({ cwd: process.cwd(), env: {} });
    expect(config.apiUrl).toBe('https://discord.com/api/v10');
    expect(config.shards).toMatchObject({ total: 'auto', ids: 'auto' });
    expect(config.shards.reshard).toEqual({ on4011: true, checkMs: 0, settleMs: 500, dedupeWindowMs: 60_000, warmTimeoutMs: 600_000 });
    expect(config.token).toBeUndefined();
    expect(intentBits(config)).toBe(1 | 2);
  });

  it('layers default <- local <- environment', () => {
    const cwd = configDir({
      'default.json': { log: { level: 'info' }, http: { port: 9000 }, shards: { total: 4 } },
      'local.json': { log: { level: 'debug' }, shards: { ids: [0, 1] } },
    });
    const config = loadConfig({ cwd, env: { LOG_LEVEL: 'warn', GATEHOUSE_SHARD_IDS: '2-3' } });
    expect(config.log.level).toBe('warn');
    expect(config.http.port).toBe(9000);
    expect(config.shards).toMatchObject({ total: 4, ids: [2, 3] });
  });

  it('reads every documented environment variable', () => {
    const config = loadConfig({
      cwd: configDir({}),
      env: {
        DISCORD_TOKEN: 'abc.def.ghi-token-value',
        DISCORD_API_URL: 'http://127.0.0.1:1234/api/v10',
        REDIS_URL: 'redis://127.0.0.1:6379',
        GATEHOUSE_INTENTS: 'GUILDS,GUILD_MESSAGES',
        GATEHOUSE_SHARD_TOTAL: '8',
        GATEHOUSE_PLUGIN_DIRS: 'plugins, more-plugins',
        GATEHOUSE_HTTP_PORT: '0',
        GATEHOUSE_DEV_GUILD_ID: '123456789012345678',
        GATEHOUSE_COMMAND_SYNC: 'false',
      },
    });
    expect(config.token).toBe('abc.def.ghi-token-value');
    expect(config.apiUrl).toBe('http://127.0.0.1:1234/api/v10');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(intentBits(config)).toBe(1 | 512);
    expect(config.shards.total).toBe(8);
    expect(config.plugins.dirs).toEqual(['plugins', 'more-plugins']);
    expect(config.http.port).toBe(0);
    expect(config.commands).toEqual({ sync: false, devGuildId: '123456789012345678' });
  });

  it('names the bad key, where it came from and what was expected, listing every problem', () => {
    const cwd = configDir({
      'default.json': { shards: { total: 0 }, http: { port: 70000 } },
      'local.json': { cache: { backend: 'disk' }, logg: {} },
    });
    const problems = problemsOf(() => loadConfig({ cwd, env: { GATEHOUSE_SHARD_IDS: 'x' } }));
    expect(problems).toHaveLength(5);
    expect(problems.find((p) => p.startsWith('shards.total'))).toMatch(/config\/default\.json.*got 0/);
    expect(problems.find((p) => p.startsWith('http.port'))).toMatch(/got 70000/);
    expect(problems.find((p) => p.startsWith('cache.backend'))).toMatch(/config\/local\.json.*"disk"/);
    expect(problems).toContain('logg (from config/local.json): unknown key; did you mean "log"?');
    expect(problems.find((p) => p.startsWith('shards.ids'))).toMatch(/GATEHOUSE_SHARD_IDS/);
  });

  it('suggests what was meant: misspelt keys at every level, intents and closed values', () => {
    const cwd = configDir({ 'local.json': { shard: { total: 1 }, plugins: { dirz: ['x'] }, cluster: { leaseMS: 1000 }, cache: { backend: 'redsi' } } });
    const problems = problemsOf(() => loadConfig({ cwd, env: { GATEHOUSE_INTENTS: 'GUILDS,GUILD_MEMBRES' } }));
    expect(problems).toEqual(
      expect.arrayContaining([
        'shard (from config/local.json): unknown key; did you mean "shards"?',
        'plugins.dirz (from config/local.json): unknown key; did you mean "dirs"?',
        'cluster.leaseMS (from config/local.json): unknown key; did you mean "leaseMs"?',
        'intents.1 (from environment variable GATEHOUSE_INTENTS): unknown intent "GUILD_MEMBRES"; did you mean "GUILD_MEMBERS"?',
        expect.stringMatching(/^cache\.backend \(from config\/local\.json\): .*; got "redsi"; did you mean "redis"\?$/),
      ]),
    );
    expect(problems).toHaveLength(5);
    // A name far from every intent lists them instead.
    const far = problemsOf(() => loadConfig({ cwd: configDir({}), env: { GATEHOUSE_INTENTS: 'EVERYTHING' } }));
    expect(far[0]).toMatch(/^intents\.0 .*unknown intent "EVERYTHING" \(intents: GUILDS, /);
    // Names that exist on Object.prototype are not intents either.
    expect(problemsOf(() => loadConfig({ cwd: configDir({}), env: { GATEHOUSE_INTENTS: 'constructor' } }))[0]).toMatch(/unknown intent "constructor"/);
  });

  it('binds the health and metrics endpoint to loopback unless every interface is asked for by name', () => {
    const cwd = configDir({});
    expect(loadConfig({ cwd, env: {} }).http.host).toBe('127.0.0.1');
    expect(loadConfig({ cwd, env: { GATEHOUSE_HTTP_HOST: '::1' } }).http.host).toBe('::1');
    expect(loadConfig({ cwd, env: { GATEHOUSE_HTTP_HOST: '0.0.0.0' } }).http.host).toBe('0.0.0.0');
    const problems = problemsOf(() => loadConfig({ cwd, env: { GATEHOUSE_HTTP_HOST: '10.0.0.5' } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^http\.host \(from environment variable GATEHOUSE_HTTP_HOST\): .*127\.0\.0\.1.*got "10\.0\.0\.5"/);
  });

  it('decides on the embedded sandbox: without a token in development, never silently in production', () => {
    const at = (env: NodeJS.ProcessEnv) => loadConfig({ cwd: process.cwd(), env });
    expect(at({}).sandbox.mode).toBe('auto');
    expect(usesEmbeddedSandbox(at({}), false)).toBe(true);
    expect(usesEmbeddedSandbox(at({ DISCORD_TOKEN: 'a.b.c' }), true)).toBe(false);
    expect(problemsOf(() => usesEmbeddedSandbox(at({}), true))).toEqual([
      expect.stringMatching(/^token: DISCORD_TOKEN is not set\. In production \(NODE_ENV=production\) .* GATEHOUSE_SANDBOX=embedded/),
    ]);
    expect(usesEmbeddedSandbox(at({ GATEHOUSE_SANDBOX: 'embedded' }), true)).toBe(true);
    expect(problemsOf(() => usesEmbeddedSandbox(at({ GATEHOUSE_SANDBOX: 'embedded', DISCORD_TOKEN: 'a.b.c' }), false))).toEqual([
      expect.stringMatching(/^sandbox\.mode: "embedded" .* unset one of them$/),
    ]);
    expect(problemsOf(() => usesEmbeddedSandbox(at({ GATEHOUSE_SANDBOX: 'off' }), false))).toEqual([
      expect.stringMatching(/^token: DISCORD_TOKEN is not set and sandbox\.mode is "off"/),
    ]);
    expect(problemsOf(() => at({ GATEHOUSE_SANDBOX: 'yes' }))).toEqual([
      expect.stringMatching(/^sandbox\.mode \(from environment variable GATEHOUSE_SANDBOX\): .*"auto".*"embedded".*"off".*; got "yes"$/),
    ]);
  });

  it('gateway.compress takes zlib-stream, zstd-stream, true or false (also from GATEHOUSE_GATEWAY_COMPRESS), and names the choices otherwise', () => {
    const cwd = configDir({});
    expect(loadConfig({ cwd, env: {} }).gateway.compress).toBe(true);
    expect(loadConfig({ cwd, env: { GATEHOUSE_GATEWAY_COMPRESS: 'zstd-stream' } }).gateway.compress).toBe('zstd-stream');
    expect(loadConfig({ cwd, env: { GATEHOUSE_GATEWAY_COMPRESS: 'false' } }).gateway.compress).toBe(false);
    expect(loadConfig({ cwd, env: {}, overrides: { gateway: { compress: 'zlib-stream' } } }).gateway.compress).toBe('zlib-stream');
    const problems = problemsOf(() => loadConfig({ cwd, env: { GATEHOUSE_GATEWAY_COMPRESS: 'brotli' } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^gateway\.compress \(from environment variable GATEHOUSE_GATEWAY_COMPRESS\): .*zstd-stream.*got "brotli"/);
  });

  it('reports unreadable JSON with the file name', () => {
    const cwd = configDir({ 'local.json': '{ nope' });
    expect(problemsOf(() => loadConfig({ cwd, env: {} }))[0]).toMatch(/^config\/local\.json: not valid JSON/);
  });

  it('never echoes the token, even when it is the invalid value', () => {
    const cwd = configDir({ 'local.json': { token: '' } });
    const problems = problemsOf(() => loadConfig({ cwd, env: {} }));
    expect(problems[0]).toMatch(/^token/);
    const secret = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123';
    const config = loadConfig({ cwd: configDir({}), env: { DISCORD_TOKEN: secret } });
    expect(config.token).toBe(secret);
    expect(redact(`connecting with ${secret}`)).toBe('connecting with [redacted]');
  });
});
