/** The shared Redis connection: outages logged once through the logger, credentials never shown, backoff. */
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openRedis, redisEndpoint, redisReachable } from '../../src/util/redis-connection.js';
import { redact } from '../../src/util/redact.js';
import { redisProxy } from '../helpers/redis-proxy.js';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';

interface Line {
  level: 'warn' | 'info' | 'debug';
  obj: Record<string, unknown>;
  msg: string;
}

function collector(): { lines: Line[]; logger: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void; debug: (o: object, m: string) => void } } {
  const lines: Line[] = [];
  const at = (level: Line['level']) => (obj: object, msg: string) => lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, logger: { warn: at('warn'), info: at('info'), debug: at('debug') } };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const open: Array<{ disconnect(): void }> = [];
afterEach(() => {
  for (const r of open.splice(0)) r.disconnect();
});

describe('openRedis', () => {
  it('names host:port of a URL without its credentials', () => {
    expect(redisEndpoint('redis://user:pa55word@cache.internal:6380/2')).toBe('cache.internal:6380');
    expect(redisEndpoint('rediss://:secret@[::1]')).toBe('[::1]:6379');
  });

  it('with nothing listening: one warn line naming host:port, never the password, and retries with backoff', async () => {
    const port = await freePort();
    const { lines, logger } = collector();
    const redis = openRedis(`redis://:supersecretpassword@127.0.0.1:${port}`, { name: 'cache', logger, minRetryMs: 20, maxRetryMs: 80 });
    open.push(redis);
    redis.on('error', () => undefined);
    await until(() => lines.filter((l) => l.level === 'debug').length >= 3);
    const warns = lines.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]!.msg).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} is unreachable \\(cache connection: ECONNREFUSED\\)`));
    expect(warns[0]!.obj).toMatchObject({ redis: `127.0.0.1:${port}`, connection: 'cache' });
    expect(JSON.stringify(lines)).not.toContain('supersecretpassword');
    // Registered as a secret: any text that would carry it is scrubbed.
    expect(redact('auth supersecretpassword failed')).not.toContain('supersecretpassword');
    expect(redisReachable(redis)).toBe(false);
  });
});

describeWithRedis('openRedis against a Redis that goes away', () => {
  it('says once that it is gone and once that it is back, and serves commands again', async () => {
    const proxy = await redisProxy(REDIS_URL);
    const { lines, logger } = collector();
    const redis = openRedis(proxy.url, { name: 'cluster', logger, minRetryMs: 20, maxRetryMs: 100 });
    open.push(redis);
    try {
      expect(await redis.ping()).toBe('PONG');
      await proxy.cut();
      await until(() => lines.some((l) => l.level === 'warn'));
      await until(() => lines.filter((l) => l.level === 'debug').length >= 2);
      expect(redisReachable(redis)).toBe(false);
      await proxy.restore();
      await until(() => lines.some((l) => l.level === 'info'));
      expect(await redis.ping()).toBe('PONG');
      expect(redisReachable(redis)).toBe(true);
      expect(lines.filter((l) => l.level !== 'debug').map((l) => l.msg)).toEqual([
        expect.stringMatching(/^Redis at 127\.0\.0\.1:\d+ is unreachable \(cluster connection: (ECONNREFUSED|ECONNRESET)\); retrying with backoff$/),
        expect.stringMatching(/^Redis at 127\.0\.0\.1:\d+ is reachable again \(cluster connection\)$/),
      ]);
    } finally {
      await proxy.close();
    }
  });
});
