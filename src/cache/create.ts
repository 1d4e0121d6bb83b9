import type { Redis } from 'ioredis';
import { openRedis, type RedisConnectionLogger } from '../util/redis-connection.js';
import { MemoryCache } from './memory/memory-cache.js';
import type { CacheHooks } from './shared.js';
import { RedisCache } from './redis/redis-cache.js';
import type { Cache, CacheOptions } from './types.js';

/** The `cache` section of the configuration (src/runtime/config.ts); options left out take their defaults. */
export interface CacheConfig extends Omit<CacheOptions, 'channels' | 'voiceStates'>, Partial<Pick<CacheOptions, 'channels' | 'voiceStates'>> {
  backend: 'auto' | 'memory' | 'redis';
  redisPrefix: string;
}

export interface CreateCacheDeps {
  /** Used by "redis", and by "auto" when present. */
  redisUrl?: string;
  /** An existing connection to use instead of opening one (it is not closed by the cache). */
  redis?: Redis;
  /**
   * Appended to `redisPrefix` (`<prefix>:{<application id>}`, as the cluster keys are), so bots sharing one
   * Redis never share cache keys. Without it the prefix is used as is.
   */
  applicationId?: string;
  hooks?: CacheHooks;
  /** Where the connection this opens reports outages. */
  logger?: RedisConnectionLogger;
}

/** The namespace of one bot's cache keys. */
export function cacheNamespace(prefix: string, applicationId: string | undefined): string {
  return applicationId === undefined ? prefix : `${prefix}:{${applicationId}}`;
}

/** The backend the configuration asks for: "auto" is Redis when a Redis URL (or client) is given. */
export function createCache(config: CacheConfig, deps: CreateCacheDeps = {}): Cache {
  const { backend, redisPrefix, ...options } = config;
  const useRedis = backend === 'redis' || (backend === 'auto' && (deps.redis !== undefined || deps.redisUrl !== undefined));
  if (!useRedis) return new MemoryCache(options, deps.hooks);
  const prefix = cacheNamespace(redisPrefix, deps.applicationId);
  const hooks = deps.hooks ? { hooks: deps.hooks } : {};
  if (deps.redis) return new RedisCache(deps.redis, { ...options, prefix, ...hooks });
  if (!deps.redisUrl) throw new Error('cache.backend is "redis" but no redisUrl (REDIS_URL) is configured');
  const redis = openRedis(deps.redisUrl, { name: 'cache', ...(deps.logger ? { logger: deps.logger } : {}) });
  return new RedisCache(redis, { ...options, prefix, ownsConnection: true, ...hooks });
}
