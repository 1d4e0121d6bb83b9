/**
 * Entitlement tombstones (issue 33): a deleted entitlement's stamp keeps an interaction's older copy from bringing
 * it back, but only for ENTITLEMENT_TOMBSTONE_MS and at most MAX_ENTITLEMENT_TOMBSTONES of them, in both
 * backends; before, a bot with steady deletions grew about 120 bytes per deleted entitlement without end.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENTITLEMENT_TOMBSTONE_MS,
  MAX_ENTITLEMENT_TOMBSTONES,
  MemoryCache,
  RedisCache,
  type Cache,
  type CacheHooks,
} from '../../src/cache/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { GUILD_A, USER_1, entitlement, interaction } from './fixtures.js';
import { dropPrefix } from './redis-cleanup.js';

const id = (i: number): string => String(800000000000000000n + BigInt(i));

interface Backend {
  create(hooks: CacheHooks): Promise<Cache>;
  /** Stamps (live entitlements and tombstones) the backend holds, or null when it cannot tell. */
  stamps(cache: Cache): Promise<number>;
}

function tombstoneSuite(name: string, backend: () => Backend): void {
  describe(`entitlement tombstones: ${name}`, () => {
    it('an interaction copy cannot bring back a deleted entitlement within the window, and can after it', async () => {
      let now = 1_000_000;
      const cache = await backend().create({ now: () => now });
      cache.apply('ENTITLEMENT_CREATE', entitlement(id(1)));
      cache.apply('ENTITLEMENT_DELETE', entitlement(id(1), { deleted: true }));
      now += ENTITLEMENT_TOMBSTONE_MS - 1;
      cache.apply('ENTITLEMENT_DELETE', entitlement(id(2), { deleted: true }));
      cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(id(1))]));
      expect(await cache.getEntitlement(id(1))).toBeUndefined();
      // Past the window the next deletion forgets the first tombstone: a copy that old is no reordering any more.
      now += 1;
      cache.apply('ENTITLEMENT_DELETE', entitlement(id(3), { deleted: true }));
      cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(id(1))]));
      expect(await cache.getEntitlement(id(1))).toBeDefined();
      // id(2) was deleted 1 ms later: still guarded.
      cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(id(2))]));
      expect(await cache.getEntitlement(id(2))).toBeUndefined();
      expect(await backend().stamps(cache)).toBe(3);
    });

    it(`keeps at most ${MAX_ENTITLEMENT_TOMBSTONES} tombstones: the oldest go first`, async () => {
      const now = 1_000_000;
      const cache = await backend().create({ now: () => now });
      const n = MAX_ENTITLEMENT_TOMBSTONES + 5;
      for (let i = 0; i < n; i++) cache.apply('ENTITLEMENT_DELETE', entitlement(id(i), { deleted: true }));
      expect(await backend().stamps(cache)).toBe(MAX_ENTITLEMENT_TOMBSTONES);
      cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(id(4)), entitlement(id(5))]));
      expect(await cache.getEntitlement(id(4))).toBeDefined();
      expect(await cache.getEntitlement(id(5))).toBeUndefined();
    });

    it('a live entitlement keeps its stamp; one created again is no tombstone', async () => {
      let now = 1_000_000;
      const cache = await backend().create({ now: () => now });
      cache.apply('ENTITLEMENT_CREATE', entitlement(id(1)));
      cache.apply('ENTITLEMENT_DELETE', entitlement(id(1), { deleted: true }));
      cache.apply('ENTITLEMENT_CREATE', entitlement(id(1)));
      now += ENTITLEMENT_TOMBSTONE_MS;
      cache.apply('ENTITLEMENT_DELETE', entitlement(id(2), { deleted: true }));
      expect(await cache.getEntitlement(id(1))).toBeDefined();
      // id(1)'s stamp (live) and id(2)'s tombstone.
      expect(await backend().stamps(cache)).toBe(2);
    });
  });
}

const memoryMade: Cache[] = [];
tombstoneSuite('memory', () => ({
  async create(hooks) {
    const cache = new MemoryCache({}, hooks);
    memoryMade.push(cache);
    return cache;
  },
  async stamps(cache) {
    // The one private read of this file: the memory backend has no other way to show its stamps.
    return (cache as unknown as { entitlementStamps: Map<string, number> }).entitlementStamps.size;
  },
}));

let redis: Redis;
const redisMade: Array<{ cache: Cache; prefix: string }> = [];
describeWithRedis('redis', () => {
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    for (const { cache, prefix } of redisMade.splice(0)) {
      await cache.close();
      await dropPrefix(redis, prefix);
    }
    await redis.quit();
  });
  tombstoneSuite('redis', () => ({
    async create(hooks) {
      const prefix = uniquePrefix('tombstones');
      const cache = new RedisCache(redis, { prefix, hooks });
      redisMade.push({ cache, prefix });
      return cache;
    },
    async stamps(cache) {
      await cache.flush();
      const { prefix } = redisMade.find((m) => m.cache === cache)!;
      const [stamps, tombstones] = await Promise.all([redis.hlen(`${prefix}:es`), redis.zcard(`${prefix}:et`)]);
      expect(tombstones).toBeLessThanOrEqual(stamps);
      return stamps;
    },
  }));
});
