/**
 * Configuration comes from files and the environment: keys such as `__proto__` are keys like any other (never
 * a write into Object.prototype), plugin sections are looked up by their own keys, and URL credentials never
 * appear in a configuration error (and are known to the redactor from the moment the configuration is read).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PluginHost } from '../../src/plugins/host.js';
import { ConfigError, loadConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { clearSecrets, redact } from '../../src/util/redact.js';
import { prototypeSnapshot, restorePrototypes } from '../helpers/prototypes.js';

const before = prototypeSnapshot();
afterEach(() => {
  restorePrototypes(before);
  clearSecrets();
});

function configDir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
  mkdirSync(join(root, 'config'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, 'config', name), text);
  return root;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('hostile keys in configuration files', () => {
  it('__proto__ and constructor in local.json are unknown keys, and nothing reaches Object.prototype', () => {
    const cwd = configDir({
      'default.json': '{"log":{"level":"info"}}',
      'local.json': '{"__proto__":{"polluted":true,"log":{"level":"debug"}},"constructor":{"prototype":{"polluted":true}},"log":{"__proto__":{"polluted":true}}}',
    });
    const err = configError(() => loadConfig({ cwd, env: {} }));
    expect(err.problems.join('\n')).toMatch(/__proto__ \(from config\/local\.json\): unknown key/);
    expect(err.problems.join('\n')).toMatch(/constructor \(from config\/local\.json\): unknown key/);
    expect(prototypeSnapshot()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('plugin sections are the config of the plugin of that very name, prototype keys included', () => {
    const cwd = configDir({
      'local.json': '{"plugins":{"config":{"constructor":{"greeting":"hi"},"dice":{"__proto__":{"admin":true},"sides":6}}}}',
    });
    const config = loadConfig({ cwd, env: {} });
    expect(prototypeSnapshot()).toEqual(before);
    const host = new PluginHost({ log: silentLogger(), services: {} as never, pluginConfig: config.plugins.config });
    const source = { file: 'x.ts', label: 'x.ts' };
    for (const name of ['constructor', 'dice', 'toString', 'hasOwnProperty']) host.add({ name }, source);
    const configOf = (name: string) => host.loaded.find((p) => p.name === name)!.context.config as Record<string, unknown>;
    expect(configOf('constructor')).toEqual({ greeting: 'hi' });
    expect(configOf('dice').sides).toBe(6);
    expect(configOf('dice').admin).toBeUndefined();
    expect(Object.hasOwn(configOf('dice'), '__proto__')).toBe(true);
    // No section: an empty config, not a function inherited from Object.prototype.
    expect(configOf('toString')).toEqual({});
    expect(configOf('hasOwnProperty')).toEqual({});
    expect(configOf('toString').toString).toBeUndefined();
  });
});

describe('URL credentials in configuration errors', () => {
  const REDIS_PASSWORD = 'r3dis-pa55word-xyz';
  const API_PASSWORD = 'api-pa55word-0123';

  it('a rejected value shows its URL without the credentials', () => {
    const err = configError(() =>
      loadConfig({
        cwd: configDir({}),
        env: {
          REDIS_URL: `redis//:${REDIS_PASSWORD}@127.0.0.1:6379`,
          DISCORD_API_URL: `ftp://user:${API_PASSWORD}@api.example.com/api/v10`,
        },
      }),
    );
    const text = [err.message, ...err.problems, err.stack ?? ''].join('\n');
    expect(text).toContain('redisUrl (from environment variable REDIS_URL)');
    expect(text).toContain('apiUrl (from environment variable DISCORD_API_URL)');
    expect(text).toContain('@127.0.0.1:6379');
    expect(text).not.toContain(REDIS_PASSWORD);
    expect(text).not.toContain(API_PASSWORD);
  });

  it('valid URLs with credentials register their passwords with the redactor at once', () => {
    loadConfig({
      cwd: configDir({}),
      env: { REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:6379`, DISCORD_API_URL: `https://user:${encodeURIComponent(API_PASSWORD + '@')}@api.example.com/api/v10` },
    });
    // Redis echoes a wrong AUTH password without the URL around it.
    expect(redact(`ERR AUTH ${REDIS_PASSWORD} called without any password configured`)).not.toContain(REDIS_PASSWORD);
    expect(redact(`decoded: ${API_PASSWORD}@`)).not.toContain(API_PASSWORD);
  });

  it('the OAuth client secret (DISCORD_CLIENT_SECRET) is known to the redactor from loading, and never printed', () => {
    const secret = 'client-secret-for-plugins-42';
    const err = configError(() => loadConfig({ cwd: configDir({ 'local.json': `{"clientSecret":${JSON.stringify(secret)},"http":{"port":-1}}` }), env: {} }));
    expect(err.message).toContain('http.port');
    expect(err.message).not.toContain(secret);
    expect(redact(`exchange failed with ${secret}`)).not.toContain(secret);
    clearSecrets();
    expect(loadConfig({ cwd: configDir({}), env: { DISCORD_CLIENT_SECRET: secret } }).clientSecret).toBe(secret);
    expect(redact(secret)).toBe('[redacted]');
  });

  it('a file that is not JSON is reported without quoting its text (it may hold a secret)', () => {
    const unquoted = configError(() => loadConfig({ cwd: configDir({ 'local.json': '{"token": supersecretvalue123}' }), env: {} }));
    expect(unquoted.message).toContain('config/local.json: not valid JSON');
    expect(unquoted.message).not.toContain('supersecre');
    const trailing = configError(() => loadConfig({ cwd: configDir({ 'local.json': '{\n  "token": "supersecretvalue123",\n}' }), env: {} }));
    expect(trailing.message).toMatch(/not valid JSON \(.* at line 3, column 1\)/);
    expect(trailing.message).not.toContain('supersecre');
  });

  it('refuses a token with whitespace or a trailing \\r at configuration time, in one line, without showing it', () => {
    const token = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.tokentokentokentokentokentoken';
    for (const bad of [`${token}\r`, ` ${token}`, `${token}\n`]) {
      const err = configError(() => loadConfig({ cwd: configDir({}), env: { DISCORD_TOKEN: bad } }));
      expect(err.problems).toEqual([
        'token (from environment variable DISCORD_TOKEN): has whitespace or a line break in it (a Windows .env leaves a trailing \\r): remove it; got a secret value',
      ]);
      expect(err.message).not.toContain(token);
    }
  });

  it('the token stays hidden even when another key of the same layer is wrong', () => {
    const token = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.tokentokentokentokentokentoken';
    const err = configError(() => loadConfig({ cwd: configDir({}), env: { DISCORD_TOKEN: token, GATEHOUSE_SHARD_TOTAL: '0' } }));
    expect(err.message).toContain('shards.total');
    expect(err.message).not.toContain(token);
  });
});
