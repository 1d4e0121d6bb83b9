/**
 * Redis suites run against a real server at REDIS_URL (default redis://127.0.0.1:6379).
 * In CI a missing Redis fails the run; on a developer's machine those suites skip with a message.
 * Suites share one database, the one REDIS_URL names (`/9` is database 9; none is database 0): every connection
 * and URL a test builds keeps it (and the credentials), through proxies too (`redisUrlVia`). Each suite uses its
 * own key prefix (`uniquePrefix`) and never flushes.
 */
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { REDIS_URL, redisDb } from './redis-url.js';

export { REDIS_URL, REDIS_DB, redisDb, redisUrlVia, redisUrlWith } from './redis-url.js';

/** A RESP command, for the probe. */
function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/** Whether a Redis answers at `url`, with its credentials, in its database. */
function probe(url: string, timeoutMs = 1000): Promise<boolean> {
  const u = new URL(url);
  const commands: string[] = [];
  if (u.password !== '') commands.push(u.username !== '' ? command('AUTH', decodeURIComponent(u.username), decodeURIComponent(u.password)) : command('AUTH', decodeURIComponent(u.password)));
  commands.push(command('SELECT', String(redisDb(url))), command('PING'));
  return new Promise((resolve) => {
    const socket = connect(Number(u.port || 6379), u.hostname.replace(/^\[|\]$/g, ''));
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(commands.join('')));
    socket.on('data', (d) => {
      answer += d.toString();
      if (answer.startsWith('-')) done(false);
      else if (answer.includes('+PONG')) done(!answer.includes('\r\n-'));
    });
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
