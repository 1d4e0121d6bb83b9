/** Shared pieces of the cluster suites: real Redis connections under a unique prefix, cleaned up after. */
import { Redis } from 'ioredis';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { dropPrefix } from '../cache/redis-cleanup.js';

export interface RedisScope {
  prefix: string;
  /** A new connection (one per simulated process); closed by `close()`. */
  connect(): Redis;
  /** The first connection, for assertions. */
  readonly admin: Redis;
  close(): Promise<void>;
}

export function redisScope(name: string): RedisScope {
  const prefix = uniquePrefix(name);
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    r.on('error', () => undefined);
    connections.push(r);
    return r;
  };
  const admin = connect();
  return {
    prefix,
    connect,
    admin,
    async close() {
      await dropPrefix(admin, prefix).catch(() => undefined);
      for (const r of connections) r.disconnect();
    },
  };
}

/** Poll `check` every 20 ms until it holds; throw after `timeoutMs` naming `what`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 100_000 && Date.now() < deadline; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (!(await check())) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
