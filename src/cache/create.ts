import { Redis } from 'ioredis';
import { MemoryCache } from './memory/memory-cache.js';
import type { CacheHooks } from './shared.js';
import { RedisCache, type RedisCacheOptions } from './redis/redis-cache.js';
import type { Cache, CacheOptions } from './types.js';

/** The `cache` section of the configuration (src/runtime/config.ts). */
export interface CacheConfig extends CacheOptions {
  backend: 'auto' | 'memory' | 'redis';
  redisPrefix: string;
}

export interface CreateCacheDeps {
  /** Used by "redis", and by "auto" when present. */
  redisUrl?: string;
  /** An existing connection to use instead of opening one (it is not closed by the cache). */
  redis?: Redis;
  hooks?: RedisCacheOptions['hooks'] & CacheHooks;
}

/** The backend the configuration asks for: "auto" is Redis when a Redis URL (or client) is given. */
export function createCache(config: CacheConfig, deps: CreateCacheDeps = {}): Cache {
  const { backend, redisPrefix, ...options } = config;
  const useRedis = backend === 'redis' || (backend === 'auto' && (deps.redis !== undefined || deps.redisUrl !== undefined));
  if (!useRedis) return new MemoryCache(options, deps.hooks);
  if (deps.redis) return new RedisCache(deps.redis, { ...options, prefix: redisPrefix, ...(deps.hooks ? { hooks: deps.hooks } : {}) });
  if (!deps.redisUrl) throw new Error('cache.backend is "redis" but no redisUrl (REDIS_URL) is configured');
  const redis = new Redis(deps.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  return new RedisCache(redis, { ...options, prefix: redisPrefix, ownsConnection: true, ...(deps.hooks ? { hooks: deps.hooks } : {}) });
}
