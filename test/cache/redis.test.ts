import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisCache, type Cache } from '../../src/cache/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { channelConformance } from './channels-conformance.js';
import { cacheConformance, type CacheBackendFactory } from './conformance.js';
import { dropPrefix } from './redis-cleanup.js';

let redis: Redis;
const made: { cache: Cache; prefix: string }[] = [];

describeWithRedis('redis backend', () => {
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    await redis.quit();
  });

  const factory: CacheBackendFactory = {
    persistent: true,
    async create(options) {
      const prefix = uniquePrefix('cache');
      const cache = new RedisCache(redis, { ...options, prefix });
      made.push({ cache, prefix });
      return cache;
    },
    async restart(cache, options) {
      const old = made.find((m) => m.cache === cache)!;
      await cache.close();
      const next = new RedisCache(redis, { ...cache.options, ...options, prefix: old.prefix });
      made.push({ cache: next, prefix: old.prefix });
      return next;
    },
    async cleanup() {
      for (const { cache, prefix } of made.splice(0)) {
        await cache.close();
        await dropPrefix(redis, prefix);
      }
    },
  };
  cacheConformance('redis', factory);
  channelConformance('redis', factory);
});
