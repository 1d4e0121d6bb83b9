/** Configuration of the transport and the signed endpoint: defaults, environment variables, clear errors. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/runtime/config.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const KEY = 'ab'.repeat(32);

describe('transport and endpoint configuration', () => {
  it('defaults to the gateway, with the endpoint on loopback', () => {
    const c = loadConfig({ cwd: process.cwd(), env: {} });
    expect(c.transport).toBe('gateway');
    expect(c.endpoint).toEqual({
      host: '127.0.0.1',
      port: 8080,
      interactionsPath: '/interactions',
      eventsPath: '/events',
      timestampWindowSeconds: 30,
      maxBodyBytes: 1024 * 1024,
      deadlineMs: 2500,
    });
  });

  it('reads every endpoint variable', () => {
    const c = loadConfig({
      cwd: process.cwd(),
      env: {
        GATEHOUSE_TRANSPORT: 'http',
        DISCORD_PUBLIC_KEY: ` ${KEY} `,
        GATEHOUSE_ENDPOINT_HOST: '0.0.0.0',
        GATEHOUSE_ENDPOINT_PORT: '3000',
        GATEHOUSE_INTERACTIONS_PATH: '/discord/interactions',
        GATEHOUSE_EVENTS_PATH: 'off',
        GATEHOUSE_ENDPOINT_TIMESTAMP_WINDOW: '10',
        GATEHOUSE_ENDPOINT_MAX_BODY_BYTES: '65536',
      },
    });
    expect(c.transport).toBe('http');
    expect(c.endpoint).toMatchObject({
      publicKey: KEY,
      host: '0.0.0.0',
      port: 3000,
      interactionsPath: '/discord/interactions',
      eventsPath: null,
      timestampWindowSeconds: 10,
      maxBodyBytes: 65536,
    });
  });

  it('names the key and the source of every problem', () => {
    const problems = problemsOf(() =>
      loadConfig({
        cwd: process.cwd(),
        env: { GATEHOUSE_TRANSPORT: 'webhooks', DISCORD_PUBLIC_KEY: 'not-a-key', GATEHOUSE_EVENTS_PATH: 'events' },
      }),
    );
    expect(problems.find((p) => p.startsWith('transport (from environment variable GATEHOUSE_TRANSPORT)'))).toMatch(/"gateway"\|"both"\|"http"|gateway/);
    expect(problems.find((p) => p.startsWith('endpoint.publicKey (from environment variable DISCORD_PUBLIC_KEY)'))).toMatch(/64 hexadecimal characters/);
    expect(problems.find((p) => p.startsWith('endpoint.eventsPath'))).toMatch(/absolute path/);
  });

  it('refuses one path for both routes, and deadlines at or past the service\'s 3 s', () => {
    const problems = problemsOf(() =>
      loadConfig({ cwd: process.cwd(), env: {}, overrides: { endpoint: { interactionsPath: '/hook', eventsPath: '/hook', deadlineMs: 3_000 } } }),
    );
    expect(problems.some((p) => p.startsWith('endpoint.eventsPath') && p.includes('must differ from endpoint.interactionsPath'))).toBe(true);
    expect(problems.some((p) => p.startsWith('endpoint.deadlineMs'))).toBe(true);
  });
});
