/**
 * Opening a Redis connection the way every part of gatehouse wants it: reconnecting with exponential backoff
 * forever, its errors going through the (redacting) logger instead of ioredis's "Unhandled error event"
 * printout, one clear line when the server becomes unreachable (naming host:port, never credentials) and one
 * when it is back, and the password registered as a secret so no log line or error can show it.
 */
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import { registerSecret } from './redact.js';

/** The part of a pino logger this needs. */
export interface RedisConnectionLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface OpenRedisOptions {
  /** What the connection is for, in log lines ("cache", "cluster"). */
  name: string;
  logger?: RedisConnectionLogger;
  /** More ioredis options (timeouts, retries per request). */
  redisOptions?: RedisOptions;
  /** Backoff bounds between reconnection attempts. Default 100 ms doubling to 5 s. */
  minRetryMs?: number;
  maxRetryMs?: number;
}

/** `host:port` of a redis:// URL, without credentials (for log lines). */
export function redisEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || '127.0.0.1'}:${u.port || '6379'}`;
  } catch {
    return '(unparseable Redis URL)';
  }
}

/** Whether a connection is usable now (connected and past its handshake). */
export function redisReachable(redis: Redis): boolean {
  return redis.status === 'ready';
}

let RedisClass: typeof Redis | null = null;

/**
 * ioredis, loaded on the first connection: it adds about 20 MiB to the resident size of a process that
 * runs on the memory cache and never opens one.
 */
function redisClass(): typeof Redis {
  return (RedisClass ??= (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis);
}

export function openRedis(url: string, options: OpenRedisOptions): Redis {
  try {
    const u = new URL(url);
    registerSecret(decodeURIComponent(u.password));
    registerSecret(u.password);
  } catch {
    // ioredis reports an unusable URL itself.
  }
  const endpoint = redisEndpoint(url);
  const min = options.minRetryMs ?? 100;
  const max = options.maxRetryMs ?? 5_000;
  const log = options.logger;
  const redis = new (redisClass())(url, {
    lazyConnect: false,
    maxRetriesPerRequest: 2,
    ...options.redisOptions,
    // Never give up: the service recovers by itself when Redis returns.
    retryStrategy: (times: number) => Math.min(max, min * 2 ** Math.min(times - 1, 16)) + Math.floor(Math.random() * min),
  });
  // 'up' until the first failure is seen, so that a server missing from the start is reported as well. A
  // server that goes away is seen as the error of the first reconnection attempt.
  let down = false;
  redis.on('error', (err: Error & { code?: string }) => {
    if (!down) {
      down = true;
      log?.warn(
        { redis: endpoint, connection: options.name, code: err.code },
        `Redis at ${endpoint} is unreachable (${options.name} connection: ${err.code ?? err.message}); retrying with backoff`,
      );
    } else {
      log?.debug({ redis: endpoint, connection: options.name, code: err.code }, 'Redis still unreachable');
    }
  });
  redis.on('ready', () => {
    if (down) {
      down = false;
      log?.info({ redis: endpoint, connection: options.name }, `Redis at ${endpoint} is reachable again (${options.name} connection)`);
    }
  });
  return redis;
}
