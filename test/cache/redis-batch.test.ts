/**
 * The Redis backend writes the member records of a tick together (one MEMBERS call per batch, with index
 * entries, user records and sync marks written once a run). Random runs of joins, updates and leaves over a
 * few users and two guilds, applied without waiting between events, must leave Redis holding what the memory
 * backend holds: members, nicknames, roles, member counts, users, with and without a member cap.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryCache, RedisCache, type Cache } from '../../src/cache/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { BOT_ID, GUILD_A, GUILD_B, ROLE_MOD, ROLE_VIP, guildCreate, member, ready, user } from './fixtures.js';
import { dropPrefix } from './redis-cleanup.js';

const USERS = Array.from({ length: 8 }, (_, n) => `3${String(n + 1).padStart(17, '0')}`);
const GUILDS = [GUILD_A, GUILD_B];
const ROLES = [[], [ROLE_MOD], [ROLE_VIP], [ROLE_MOD, ROLE_VIP]];

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

async function snapshot(cache: Cache): Promise<unknown> {
  const guilds = [];
  for (const g of GUILDS) {
    const page = await cache.getMembers(g, { limit: 1000 });
    const members = page.members.map((m) => [m.userId, m.nick, [...m.roles].sort(), m.user?.username ?? null]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    guilds.push({ g, members, count: await cache.memberCount(g) });
  }
  const users = [];
  for (const u of USERS) users.push([u, (await cache.getUser(u))?.username ?? null]);
  return { guilds, users };
}

let redis: Redis;
const prefixes: string[] = [];

describeWithRedis('redis backend: member records written a batch at a time', () => {
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    for (const p of prefixes) await dropPrefix(redis, p);
    await redis.quit();
  });

  for (const cap of [0, 3]) {
    it(`ends where the memory backend ends, over random batches (cap ${cap})`, async () => {
      for (let seed = 1; seed <= 12; seed++) {
        const random = rng(seed * 7919 + cap);
        const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
        const prefix = uniquePrefix('cache-batch');
        prefixes.push(prefix);
        const options = { maxMembersPerGuild: cap };
        const memory = new MemoryCache(options);
        const stored = new RedisCache(redis, { ...options, prefix });
        const both = (t: string, d: unknown): void => {
          memory.apply(t, d);
          stored.apply(t, d);
        };
        both('READY', ready(GUILDS));
        for (const g of GUILDS) both('GUILD_CREATE', guildCreate(g, [member(BOT_ID), member(USERS[0]!), member(USERS[1]!)]));
        await stored.flush();
        let k = 0;
        for (let batch = 0; batch < 15; batch++) {
          const size = 1 + Math.floor(random() * 60);
          for (let e = 0; e < size; e++, k++) {
            const g = pick(GUILDS);
            const u = pick(USERS);
            const profile = user(u, { username: `name${k % 5}` });
            const kind = random();
            if (kind < 0.35) both('GUILD_MEMBER_ADD', { guild_id: g, ...member(u, { user: profile, nick: `n${k}`, roles: pick(ROLES) }) });
            else if (kind < 0.7) both('GUILD_MEMBER_UPDATE', { guild_id: g, user: profile, ...(random() < 0.5 ? { nick: random() < 0.2 ? null : `u${k}` } : { roles: pick(ROLES) }) });
            else both('GUILD_MEMBER_REMOVE', { guild_id: g, user: profile });
          }
          await stored.flush();
          expect(await snapshot(stored), `seed ${seed}, batch ${batch}`).toEqual(await snapshot(memory));
        }
        await stored.close();
        await memory.close();
      }
    });
  }
});
