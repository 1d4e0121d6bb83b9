/**
 * Redis suites run against a real server at REDIS_URL (default redis://127.0.0.1:6379).
 * In CI a missing Redis fails the run; on a developer's machine those suites skip with a message.
 * Suites share one database: each uses its own key prefix (`uniquePrefix`) and never flushes.
 */
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function probe(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname.replace(/^\[|\]$/g, ''));
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export const redisAvailable = await probe(REDIS_URL);

if (!redisAvailable) {
  if (process.env.CI) {
    throw new Error(`Redis is required in CI, but nothing answers at ${REDIS_URL}`);
  }
  console.warn(
    `[gatehouse] Redis suites skipped: nothing answers at ${REDIS_URL}. ` +
      'Start redis-server or set REDIS_URL to run them.',
  );
}

/** `describe` when Redis answers, `describe.skip` otherwise (never in CI: see above). */
export const describeWithRedis = describe.skipIf(!redisAvailable);

/** A key prefix no other suite or run uses. */
export function uniquePrefix(name: string): string {
  return `gh-test:${name}:${randomBytes(4).toString('hex')}`;
}
