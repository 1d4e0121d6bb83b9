/**
 * The Redis of the test suite (REDIS_URL, default redis://127.0.0.1:6379) and URLs derived from it, without side
 * effects (test/helpers/redis.ts probes the server). Every URL a test builds keeps REDIS_URL's database and
 * credentials: the suite writes to the database it is given, and only there.
 */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The database a Redis URL names: its path (`/9`), else `?db=9`, else 0 (what ioredis reads from a URL). */
export function redisDb(url: string): number {
  const u = new URL(url);
  const fromPath = u.pathname.replace(/^\//, '');
  const raw = fromPath !== '' ? fromPath : (u.searchParams.get('db') ?? '0');
  const db = Number(raw);
  if (!Number.isInteger(db) || db < 0) throw new Error(`REDIS_URL names no database a test can use: ${JSON.stringify(raw)}`);
  return db;
}

/**
 * The URL of a proxy on 127.0.0.1:`port` standing in for `target`: the same scheme, credentials, database and
 * options, so that going through a proxy never moves a test to another database (or drops its password).
 */
export function redisUrlVia(port: number, target: string = REDIS_URL): string {
  const u = new URL(target);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** REDIS_URL with other credentials (for tests of what is done with a password), database and host kept. */
export function redisUrlWith(credentials: { username?: string; password: string }, target: string = REDIS_URL): string {
  const u = new URL(target);
  u.username = encodeURIComponent(credentials.username ?? '');
  u.password = encodeURIComponent(credentials.password);
  return u.toString();
}

/** The database of REDIS_URL: every Redis suite writes there, and only there. */
export const REDIS_DB = redisDb(REDIS_URL);
