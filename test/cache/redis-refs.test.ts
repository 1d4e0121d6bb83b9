/**
 * The MEMBERS script's bookkeeping, read straight from Redis after random ticks: user reference counts (added
 * a run at a time, with one HMGET and one HSET, and released one by one) must equal the memberships the
 * member indexes hold (plus the bot's own reference), no user record may outlive its last reference, and a
 * whole member written over a cached one (GUILD_MEMBER_ADD again, a GUILD_CREATE after an outage) must hold
 * exactly the fields the memory backend holds. Many users shared by three guilds, the same user several
 * times in one tick, removals and re-adds in one tick, outages, guild removals and re-creations; with and
 * without a cap.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryCache, RedisCache, type Cache } from '../../src/cache/index.js';
import { MEMBER_FIELDS } from '../../src/cache/redis/codec.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { AVATAR, BOT_ID, GUILD_A, GUILD_B, ROLE_MOD, ROLE_VIP, guildCreate, member, ready, user } from './fixtures.js';
import { dropPrefix } from './redis-cleanup.js';

const GUILD_C = '200000000000000003';
const GUILDS = [GUILD_A, GUILD_B, GUILD_C];
const USERS = [BOT_ID, ...Array.from({ length: 11 }, (_, n) => `3${String(n + 1).padStart(17, '0')}`)];
const ROLES = [[], [ROLE_MOD], [ROLE_VIP], [ROLE_MOD, ROLE_VIP]];
const OWN_FIELDS = new Set(['k', 'e', ...MEMBER_FIELDS]);

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

let redis: Redis;
const prefixes: string[] = [];

describeWithRedis('redis backend: user references and whole members, read from Redis', () => {
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    for (const p of prefixes) await dropPrefix(redis, p);
    await redis.quit();
  });

  /** Every reference count against the member indexes; every user record against the counts; every member hash's fields. */
  async function checkRedis(stored: RedisCache, where: string): Promise<void> {
    const k = stored.keys;
    const want = new Map<string, number>();
    const self = await redis.get(k.self);
    if (self !== null) want.set(self, 1);
    for (const g of await redis.smembers(k.guilds)) {
      const gen = await redis.hget(`${k.prefix}:g:${g}`, 'gen');
      if (gen === null) continue;
      for (const padded of await redis.zrange(`${k.prefix}:g:${g}:${gen}:mi`, 0, -1)) {
        const u = padded.replace(/^0+(\d)/, '$1');
        want.set(u, (want.get(u) ?? 0) + 1);
        const fields = await redis.hkeys(`${k.prefix}:g:${g}:${gen}:m:${u}`);
        expect(fields, `${where}: member ${u} of ${g} has a hash`).toContain('k');
        expect(fields.filter((f) => !OWN_FIELDS.has(f)), `${where}: member ${u} of ${g}`).toEqual([]);
      }
    }
    const refs = await redis.hgetall(k.userRefs);
    const got = new Map(Object.entries(refs).map(([u, n]) => [u, Number(n)]));
    expect([...got].sort(), `${where}: user references`).toEqual([...want].sort());
    const users = (await redis.hkeys(k.users)).sort();
    expect(users, `${where}: user records`).toEqual([...want.keys()].sort());
  }

  async function compare(stored: Cache, memory: Cache, where: string): Promise<void> {
    for (const g of GUILDS) {
      expect(await stored.memberCount(g), `${where}: count of ${g}`).toEqual(await memory.memberCount(g));
      const page = await stored.getMembers(g, { limit: 1000 });
      const mem = await memory.getMembers(g, { limit: 1000 });
      expect(page.members.map((m) => m.userId).sort(), `${where}: members of ${g}`).toEqual(mem.members.map((m) => m.userId).sort());
      for (const u of USERS) {
        const a = await stored.getMember(g, u);
        const b = await memory.getMember(g, u);
        const norm = (m: typeof a) => (m === undefined ? undefined : { ...m, roles: [...m.roles].sort() });
        expect(norm(a), `${where}: member ${u} of ${g}`).toEqual(norm(b));
      }
    }
    for (const u of USERS) expect(await stored.getUser(u), `${where}: user ${u}`).toEqual(await memory.getUser(u));
  }

  for (const cap of [0, 4]) {
    it(`reference counts, user records and member fields stay exact over random ticks (cap ${cap})`, async () => {
      for (let seed = 1; seed <= 8; seed++) {
        const random = rng(seed * 104_729 + cap);
        const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
        const prefix = uniquePrefix('cache-refs');
        prefixes.push(prefix);
        const options = { maxMembersPerGuild: cap };
        const memory = new MemoryCache(options);
        const stored = new RedisCache(redis, { ...options, prefix });
        const both = (t: string, d: unknown): void => {
          memory.apply(t, d);
          stored.apply(t, d);
        };
        let k = 0;
        // A whole member with a random selection of the optional fields.
        const whole = (u: string): Record<string, unknown> => {
          const r = (): boolean => random() < 0.5;
          return member(u, {
            user: user(u, { username: `name${k % 7}` }),
            nick: r() ? `n${k}` : null,
            roles: pick(ROLES),
            avatar: r() ? AVATAR : null,
            banner: r() ? AVATAR : null,
            pending: r(),
            flags: r() ? 2 : 0,
            communication_disabled_until: r() ? '2030-01-01T00:00:00.000000+00:00' : null,
            joined_at: r() ? '2021-03-13T19:19:14.040000+00:00' : null,
          });
        };
        const some = (): Record<string, unknown>[] => {
          const chosen = USERS.filter(() => random() < 0.6);
          return chosen.map((u) => whole(u));
        };
        both('READY', ready(GUILDS));
        for (const g of GUILDS) both('GUILD_CREATE', guildCreate(g, some()));
        await stored.flush();
        for (let tick = 0; tick < 12; tick++) {
          const size = 1 + Math.floor(random() * 80);
          for (let e = 0; e < size; e++, k++) {
            const g = pick(GUILDS);
            const u = pick(USERS);
            const kind = random();
            if (kind < 0.3) both('GUILD_MEMBER_ADD', { guild_id: g, ...whole(u) });
            else if (kind < 0.55) {
              const d: Record<string, unknown> = { guild_id: g, user: user(u, { username: `name${k % 7}` }) };
              if (random() < 0.5) d.nick = random() < 0.3 ? null : `u${k}`;
              if (random() < 0.5) d.roles = pick(ROLES);
              if (random() < 0.3) d.avatar = random() < 0.5 ? null : AVATAR;
              if (random() < 0.3) d.pending = random() < 0.5;
              if (random() < 0.3) d.communication_disabled_until = random() < 0.5 ? null : '2031-01-01T00:00:00.000000+00:00';
              both('GUILD_MEMBER_UPDATE', d);
            } else if (kind < 0.85) both('GUILD_MEMBER_REMOVE', { guild_id: g, user: user(u) });
            else if (kind < 0.93) {
              // An outage and the guild back with a complete list: cached members written whole again, the others
              // swept. Redis sweeps in the background (the memory backend at once): settled before the next event,
              // so that a later partial update of a swept member does not meet its old hash.
              both('GUILD_DELETE', { id: g, unavailable: true });
              both('GUILD_CREATE', guildCreate(g, some()));
              await stored.flush();
              await stored.settled();
            } else {
              // Removed and created again: a new generation, the old one's users released in the background.
              both('GUILD_DELETE', { id: g });
              both('GUILD_CREATE', guildCreate(g, some()));
            }
          }
          await stored.flush();
          await stored.settled();
          const where = `seed ${seed}, tick ${tick}`;
          await compare(stored, memory, where);
          await checkRedis(stored, where);
        }
        await stored.close();
        await memory.close();
      }
    }, 120_000);
  }
});
