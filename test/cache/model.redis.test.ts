/**
 * Model-based randomized test of the Redis backend (see model.memory.test.ts); a restart is a new cache
 * instance on the same Redis prefix, resuming (with a replay of recent dispatches, as after a crash) or
 * identifying afresh. Seeds run four at a time, each under its own prefix.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, it } from 'vitest';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';
import { check, redisBackend, SEEDS, STEPS } from './model/check.js';

describeWithRedis('cache model-based test', () => {
  let redis: Redis;
  beforeAll(async () => {
    // The reads of one step go out together.
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableAutoPipelining: true });
    await redis.connect();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it(`redis backend answers like the model (${SEEDS.length} seeds x ${STEPS} steps)`, async () => {
    await check('redis', () => redisBackend(redis), 4);
  }, 600_000);
});
