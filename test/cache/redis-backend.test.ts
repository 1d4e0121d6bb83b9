/** What only the Redis backend can get wrong: the documented layout, pipelining, several writers, errors. */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { CacheWriteError, MemoryCache, RedisCache, createCache, type Cache, type CacheWriteFailure, type StaleScope } from '../../src/cache/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { BOT_ID, GUILD_A, GUILD_B, ROLE_MOD, ROLE_VIP, USER_1, USER_2, guildCreate, guildOnShard, member, ready, user } from './fixtures.js';
import { dropPrefix } from './redis-cleanup.js';
import type { Scripted } from '../../src/cache/redis/scripts.js';
import { ClusterKeys } from '../../src/cluster/keys.js';
import { RedisSessionStore } from '../../src/cluster/session-store.js';
import type { SessionState } from '../../src/gateway/shard.js';

let redis: Redis;
const prefixes: string[] = [];
const closers: (() => Promise<unknown>)[] = [];

function prefix(): string {
  const p = uniquePrefix('cache-redis');
  prefixes.push(p);
  return p;
}

function userId(n: number): string {
  return `3${String(n).padStart(17, '0')}`;
}

describeWithRedis('redis backend specifics', () => {
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    for (const p of prefixes.splice(0)) await dropPrefix(redis, p);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('writes the documented key layout', async () => {
    const p = prefix();
    const cache = new RedisCache(redis, { prefix: p });
    cache.apply('READY', ready([GUILD_A]));
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_MOD, ROLE_VIP], nick: 'n', pending: true, flags: 2 })]));
    cache.apply('ENTITLEMENT_CREATE', { id: '700000000000000001', sku_id: '500000000000000001', application_id: '600000000000000001', user_id: USER_1, type: 8, deleted: false, starts_at: null, ends_at: null });
    await cache.settled();
    expect(await redis.get(`${p}:v`)).toBe('2');
    expect(await redis.smembers(`${p}:guilds`)).toEqual([GUILD_A]);
    const guild = await redis.hgetall(`${p}:g:${GUILD_A}`);
    expect(guild).toEqual({ k: '1', u: '0', n: 'guild 01', o: '300000000000000001', c: '1', ep: '1', gen: expect.stringMatching(/^\d+$/), ts: expect.stringMatching(/^\d+$/) });
    const gen = guild.gen!;
    expect((await redis.hkeys(`${p}:g:${GUILD_A}:r`)).sort()).toEqual([GUILD_A, ROLE_MOD, ROLE_VIP].sort());
    expect(JSON.parse((await redis.hget(`${p}:g:${GUILD_A}:r`, ROLE_MOD))!)).toEqual(['mod', '8', 2, 0x3498db, null, null]);
    expect(await redis.zrange(`${p}:g:${GUILD_A}:${gen}:mi`, 0, -1)).toEqual([`000${USER_1}`]);
    expect(await redis.hgetall(`${p}:g:${GUILD_A}:${gen}:m:${USER_1}`)).toEqual({
      k: '1',
      e: '1',
      n: 'n',
      r: `,${ROLE_MOD},${ROLE_VIP},`,
      j: String(Date.parse('2021-03-13T19:19:14.040Z')),
      f: '2',
      p: '1',
    });
    expect(JSON.parse((await redis.hget(`${p}:u`, USER_1))!)).toEqual(['user_2384', 'User 2384', '8342729096ea3675442027381ff50dfe', '0', 0, 0, null]);
    expect(await redis.hget(`${p}:ur`, USER_1)).toBe('1');
    expect(await redis.hexists(`${p}:u`, BOT_ID)).toBe(1);
    expect(await redis.smembers(`${p}:e:u:${USER_1}`)).toEqual(['700000000000000001']);
    expect(await redis.type(`${p}:e`)).toBe('hash');
    expect(await redis.hexists(`${p}:es`, '700000000000000001')).toBe(1);
    // The READY's reconciliation ran and left no job behind.
    expect(await redis.hgetall(`${p}:jobs`)).toEqual({});
  });

  it('sends a large GUILD_CREATE as a few pipelines, not a round trip per member', async () => {
    const p = prefix();
    let pipelines = 0;
    const counting = new Proxy(redis, {
      get(target, key, receiver) {
        if (key === 'pipeline') {
          return (...args: unknown[]) => {
            pipelines++;
            return (target.pipeline as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return Reflect.get(target, key, receiver);
      },
    });
    const cache = new RedisCache(counting, { prefix: p, pipelineSize: 1000 });
    const members = [];
    for (let n = 0; n < 1500; n++) members.push(member(userId(n)));
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, members));
    await cache.flush();
    // 1500 member scripts + 3 guild commands, 1000 per pipeline.
    expect(pipelines).toBe(2);
    expect((await cache.sizes()).members).toBe(1500);
  });

  it('stores strings no JSON decoder in Redis would take as they are, without failing the members sent with them', async () => {
    const cache = new RedisCache(redis, { prefix: prefix() });
    const nicks = ['lone \ud800 high', 'lone \udc00 low', 'nul \u0000 and \u001f', 'pair \ud83d\ude00', 'back\\ud800slash', 'quote " and \\'];
    const members = nicks.map((nick, n) => member(userId(n), { nick, avatar: n === 0 ? '\udfff' : null, user: { ...user(userId(n)), username: `u\ud801${n}` } }));
    members.push(member(userId(99), { nick: 'plain' }));
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, members));
    await cache.flush();
    const expected = ['lone \ufffd high', 'lone \ufffd low', 'nul \u0000 and \u001f', 'pair \ud83d\ude00', 'back\\ud800slash', 'quote " and \\'];
    for (let n = 0; n < nicks.length; n++) expect((await cache.getMember(GUILD_A, userId(n)))?.nick, nicks[n]).toBe(expected[n]);
    expect((await cache.getMember(GUILD_A, userId(0)))?.avatar).toBe('\ufffd');
    // User records are JSON text in Redis already: theirs keeps the lone surrogate as an escape, so it reads back exactly.
    expect((await cache.getUser(userId(1)))?.username).toBe('u\ud8011');
    expect((await cache.getMember(GUILD_A, userId(99)))?.nick).toBe('plain');
    // A partial update of one of them goes the same way.
    cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(2)), nick: 'x\ud800' });
    await cache.flush();
    expect((await cache.getMember(GUILD_A, userId(2)))?.nick).toBe('x\ufffd');
  });

  it('a member payload that throws while its record is being written leaves no half record for the records after it', async () => {
    const cache = new RedisCache(redis, { prefix: prefix() });
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(userId(1), { nick: 'one' }), member(userId(2), { nick: 'two' })]));
    await cache.flush();
    // The banner is the last field a record reads: everything before it is already in the queue's array.
    const hostile = { user: user(userId(2)), nick: 'half' } as Record<string, unknown>;
    Object.defineProperty(hostile, 'banner', { enumerable: true, get: () => { throw new Error('hostile getter'); } });
    cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(1)), nick: 'before' });
    expect(() => cache.memberUpsert(GUILD_A, hostile as unknown as Parameters<RedisCache['memberUpsert']>[1], true, false)).toThrow('hostile getter');
    cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(1)), nick: 'after' });
    await cache.flush();
    expect((await cache.getMember(GUILD_A, userId(1)))?.nick).toBe('after');
    expect((await cache.getMember(GUILD_A, userId(2)))?.nick).toBe('two');
  });

  it('stays consistent with two processes writing different guilds that share users', async () => {
    const p = prefix();
    const other = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await other.connect();
    closers.push(() => other.quit());
    const a = new RedisCache(redis, { prefix: p, pipelineSize: 50 });
    const b = new RedisCache(other, { prefix: p, pipelineSize: 50 });
    const shared = (from: number, to: number): Record<string, unknown>[] => {
      const out = [];
      for (let n = from; n < to; n++) out.push(member(userId(n), { roles: [ROLE_MOD] }));
      return out;
    };
    a.apply('GUILD_CREATE', guildCreate(GUILD_A, shared(0, 300)));
    b.apply('GUILD_CREATE', guildCreate(GUILD_B, shared(100, 400)));
    // Interleave: joins, leaves and a role deletion on both sides at once.
    for (let n = 0; n < 300; n += 3) {
      a.apply('GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(userId(n)) });
      b.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_B, ...member(userId(1000 + n)) });
    }
    a.apply('GUILD_ROLE_DELETE', { guild_id: GUILD_A, role_id: ROLE_MOD });
    await Promise.all([a.settled(), b.settled()]);

    // Every cached user has exactly as many references as cached memberships.
    const consistent = async (): Promise<void> => {
      const refs = await redis.hgetall(`${p}:ur`);
      const users = await redis.hkeys(`${p}:u`);
      const memberships = new Map<string, number>();
      for (const g of await redis.smembers(`${p}:guilds`)) {
        const gen = await redis.hget(`${p}:g:${g}`, 'gen');
        for (const padded of await redis.zrange(`${p}:g:${g}:${gen}:mi`, 0, -1)) {
          const id = padded.replace(/^0+/, '');
          memberships.set(id, (memberships.get(id) ?? 0) + 1);
        }
      }
      expect(Object.keys(refs).sort()).toEqual([...memberships.keys()].sort());
      for (const [id, count] of memberships) expect(refs[id]).toBe(String(count));
      expect(users.sort()).toEqual([...memberships.keys()].sort());
    };
    await consistent();
    expect(await a.memberCount(GUILD_A)).toBe(200);
    expect(await b.memberCount(GUILD_B)).toBe(400);
    expect((await a.getMember(GUILD_A, userId(1)))!.roles).toEqual([]);
    expect((await b.getMember(GUILD_B, userId(101)))!.roles).toEqual([ROLE_MOD]);

    // The other process removes its guild: users only it held go, shared ones stay.
    b.apply('GUILD_DELETE', { id: GUILD_B });
    await b.settled();
    expect(await a.getUser(userId(350))).toBeUndefined();
    expect(await a.getUser(userId(101))).toBeDefined();
    expect(await redis.hget(`${p}:ur`, userId(101))).toBe('1');
    await consistent();
  });

  it('reports a failed write with its guild and event, marks the guild stale, and never throws it at a reader', async () => {
    const p = prefix();
    const failures: CacheWriteFailure[] = [];
    const stale: StaleScope[] = [];
    const cache = new RedisCache(redis, { prefix: p, hooks: { onWriteError: (f) => failures.push(f), onStale: (s) => stale.push(s) } });
    cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(USER_2)]));
    await cache.flush();
    // Make the users hash the wrong type so that member writes fail inside the script.
    await redis.set(`${p}:u`, 'not a hash');
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
    // An unrelated read answers; the failure was reported where it happened.
    expect(await cache.getGuild(GUILD_B)).toMatchObject({ name: 'guild 02' });
    await cache.flush();
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]).toMatchObject({ event: 'GUILD_CREATE', guildId: GUILD_A });
    expect(failures[0]!.error.message).toMatch(/WRONGTYPE/);
    expect(stale).toEqual([{ guildId: GUILD_A }]);
    expect(cache.stats().writeErrors).toBe(failures.length);
    // The mark is in Redis: a process started after a crash recovers the guild too.
    expect(await redis.smembers(`${p}:stale`)).toEqual([GUILD_A]);
    const other = new RedisCache(redis, { prefix: p });
    expect(await other.stale()).toEqual({ guildIds: [GUILD_A], entitlements: false });
    await redis.del(`${p}:u`);
    cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_2) });
    expect(await cache.getMember(GUILD_A, USER_2)).toBeDefined();
    await cache.recovered({ guildId: GUILD_A });
    expect(await other.stale()).toEqual({ guildIds: [], entitlements: false });
    await other.close();
  });

  it('flush() rejects only when a failed write could not be marked stale either', async () => {
    const p = prefix();
    const cache = new RedisCache(redis, { prefix: p });
    await redis.set(`${p}:u`, 'not a hash');
    await redis.set(`${p}:stale`, 'not a set');
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
    await expect(cache.flush()).rejects.toBeInstanceOf(CacheWriteError);
    // Still unrecorded: the next flush tries again and rejects again, until the mark can be written.
    await expect(cache.flush()).rejects.toBeInstanceOf(CacheWriteError);
    await redis.del(`${p}:stale`, `${p}:u`);
    await cache.flush();
    expect(await redis.smembers(`${p}:stale`)).toEqual([GUILD_A]);
  });

  it('the session checkpoint does not move past a lost write that could not be marked for recovery', async () => {
    const p = prefix();
    const cache = new RedisCache(redis, { prefix: `${p}:cache` });
    const keys = new ClusterKeys(`${p}:cluster`);
    const sessions = new RedisSessionStore({ redis, keys, totalShards: 1, beforeWrite: () => cache.flush() });
    const session = (seq: number): SessionState => ({ sessionId: 's', sequence: seq, resumeGatewayUrl: 'wss://gateway.example' });
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
    await sessions.checkpoint(new Map([[0, session(5)]]));
    // The next dispatch's write fails, and so does its stale mark: the checkpoint must stay at 5.
    await redis.set(`${p}:cache:u`, 'not a hash');
    await redis.set(`${p}:cache:stale`, 'not a set');
    cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_2) });
    await expect(sessions.checkpoint(new Map([[0, session(6)]]))).rejects.toBeInstanceOf(CacheWriteError);
    await expect(sessions.save(0, session(6))).rejects.toBeInstanceOf(CacheWriteError);
    expect(await sessions.load(0)).toEqual(session(5));
    // Once the mark is stored (the guild will be fetched again), the checkpoint moves on.
    await redis.del(`${p}:cache:stale`);
    await sessions.checkpoint(new Map([[0, session(6)]]));
    expect(await sessions.load(0)).toEqual(session(6));
    expect(await redis.smembers(`${p}:cache:stale`)).toEqual([GUILD_A]);
    await cache.close();
  });

  it('opens a member sync for a complete GUILD_CREATE only where cached members could have left', async () => {
    const cache = new RedisCache(redis, { prefix: prefix() });
    const k = cache.keys;
    const scripted = redis as unknown as Scripted;
    const put = (id: string, mode: 'u' | 'c', token: string): Promise<unknown> =>
      scripted.ghGuildPut(k.clock, k.guilds, k.prefix, id, mode, mode === 'c' ? '2' : '', token, 60_000, 0, '0');
    // READY lists the guild unavailable: it gets a generation but no member, so its list has nothing to replace
    // (and a sync would mark every member of it and then sweep them all for nothing).
    await put(GUILD_A, 'u', '');
    await put(GUILD_A, 'c', 'list:a');
    expect(await redis.exists(k.syncToken(GUILD_A))).toBe(0);
    // A guild with cached members back from an outage: its complete list opens a sync, which removes who left.
    cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(USER_1), member(USER_2)]));
    await cache.settled();
    await put(GUILD_B, 'u', '');
    await put(GUILD_B, 'c', 'list:b');
    expect(await redis.get(k.syncToken(GUILD_B))).toBe('list:b');
  });

  it('a complete member list hides the members it leaves out from reads at once, while their removal runs in the background; an update of one starts afresh', async () => {
    const p = prefix();
    const cache = new RedisCache(redis, { prefix: p });
    const memory = new MemoryCache();
    const all = Array.from({ length: 2000 }, (_, i) => member(userId(i + 1), { nick: `n${i + 1}`, avatar: 'a'.repeat(32), pending: true }));
    for (const c of [cache, memory]) {
      c.apply('READY', ready([GUILD_A]));
      c.apply('GUILD_CREATE', guildCreate(GUILD_A, all));
    }
    await cache.settled();
    // An outage; the guild comes back with a complete list that leaves the first 1,500 out (they left meanwhile).
    for (const c of [cache, memory]) {
      c.apply('GUILD_DELETE', { id: GUILD_A, unavailable: true });
      c.apply('GUILD_CREATE', guildCreate(GUILD_A, all.slice(1500)));
      c.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(1600)), roles: [], nick: 'after the list' });
      // One the list left out is in the guild after all: a record of the update alone, not merged into the old one.
      c.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(2)), roles: [ROLE_MOD], nick: 'back' });
    }
    // Read before the background removal (30 pages of 50) can have finished: as the memory backend answers.
    const views = async (c: Cache) => ({
      gone: await c.getMember(GUILD_A, userId(1)),
      kept: (await c.getMember(GUILD_A, userId(1501)))?.nick,
      updated: (await c.getMember(GUILD_A, userId(1600)))?.nick,
      back: await c.getMember(GUILD_A, userId(2)).then((m) => m && { nick: m.nick, roles: m.roles, joinedAt: m.joinedAt, avatar: m.avatar, pending: m.pending }),
      page: (await c.getMembers(GUILD_A, { limit: 1000 })).members.map((m) => m.userId),
    });
    const before = await views(cache);
    expect(before).toEqual(await views(memory));
    expect(before.gone).toBeUndefined();
    expect(before.page).toHaveLength(501);
    expect(before.back).toEqual({ nick: 'back', roles: [ROLE_MOD], joinedAt: null, avatar: null, pending: false });
    await cache.settled();
    expect(await views(cache)).toEqual(before);
    // The member back in the guild kept its one user reference; those left out gave theirs up.
    expect(await redis.hget(cache.keys.userRefs, userId(2))).toBe('1');
    expect(await redis.hget(cache.keys.userRefs, userId(1))).toBeNull();
    expect(await redis.hlen(cache.keys.userRefs)).toBe(501 + 1); // and the bot's own (READY)
  });

  it('namespaces keys by application id: two bots sharing one Redis and prefix never share a guild', async () => {
    const p = prefix();
    const base = { guilds: true, members: true, users: true, roles: true, entitlements: true, maxMembersPerGuild: 0, redisPrefix: p, backend: 'redis' as const };
    const one = createCache(base, { redis, applicationId: '600000000000000001' });
    const two = createCache(base, { redis, applicationId: '600000000000000002' });
    for (const cache of [one, two]) cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
    one.apply('GUILD_DELETE', { id: GUILD_A });
    await Promise.all([one.settled(), two.settled()]);
    expect(await one.getGuild(GUILD_A)).toBeUndefined();
    expect(await two.getGuild(GUILD_A)).toMatchObject({ name: 'guild 01', unavailable: false });
    expect(await two.getMember(GUILD_A, USER_1)).toBeDefined();
    expect(await redis.exists(`${p}:{600000000000000002}:g:${GUILD_A}`)).toBe(1);
    await Promise.all([one.close(), two.close()]);
  });

  it('removes a large guild at once for readers and releases its members in bounded batches, resumed after a crash', async () => {
    const p = prefix();
    const a = new RedisCache(redis, { prefix: p, batchSize: 50 });
    const members = [];
    for (let n = 0; n < 2000; n++) members.push(member(userId(n)));
    a.apply('GUILD_CREATE', guildCreate(GUILD_A, members));
    a.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(userId(7))]));
    await a.settled();
    const gen = await redis.hget(`${p}:g:${GUILD_A}`, 'gen');
    a.apply('GUILD_DELETE', { id: GUILD_A });
    await a.flush();
    // Gone for every reader at once.
    expect(await a.getGuild(GUILD_A)).toBeUndefined();
    expect(await a.getMember(GUILD_A, userId(1))).toBeUndefined();
    expect((await a.getMembers(GUILD_A)).members).toEqual([]);
    // The process dies while releasing members: the job is in Redis.
    await a.close();
    expect(await redis.hgetall(`${p}:jobs`)).toEqual({ [`gc:${GUILD_A}:${gen}`]: '1' });
    expect(await redis.zcard(`${p}:g:${GUILD_A}:${gen}:mi`)).toBeGreaterThan(0);
    // The guild comes back before the old members are released: a new generation, not confused with the old.
    const b = new RedisCache(redis, { prefix: p, batchSize: 50 });
    b.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(userId(1), { nick: 'back' })]));
    await b.settled();
    expect(await redis.hgetall(`${p}:jobs`)).toEqual({});
    expect(await redis.exists(`${p}:g:${GUILD_A}:${gen}:mi`, `${p}:g:${GUILD_A}:${gen}:m:${userId(5)}`)).toBe(0);
    expect((await b.getMembers(GUILD_A)).members.map((m) => m.nick)).toEqual(['back']);
    expect(await b.getUser(userId(5))).toBeUndefined();
    expect(await b.getUser(userId(7))).toBeDefined();
    expect(await redis.hlen(`${p}:ur`)).toBe(2);
    await b.close();
  });

  it('a READY reconciliation stored before a crash is finished by the next process', async () => {
    const p = prefix();
    const S0A = guildOnShard(0, 2, 0);
    const S0B = guildOnShard(0, 2, 1);
    const S1C = guildOnShard(1, 2, 0);
    const a = new RedisCache(redis, { prefix: p });
    for (const g of [S0A, S0B, S1C]) a.apply('GUILD_CREATE', guildCreate(g, [member(USER_1)]));
    await a.close();
    // What a READY listing only S0A stored before its process died: the stamp, S0A stamped after it, the job.
    const stamp = await redis.incr(`${p}:clock`);
    await redis.hset(`${p}:g:${S0A}`, 'ts', String(await redis.incr(`${p}:clock`)));
    await redis.hset(`${p}:jobs`, 'ready:0:2', String(stamp));
    const b = new RedisCache(redis, { prefix: p });
    await b.settled();
    expect(await b.getGuild(S0B)).toBeUndefined();
    expect(await b.getGuild(S0A)).toBeDefined();
    expect(await b.getGuild(S1C)).toBeDefined();
    expect(await redis.hgetall(`${p}:jobs`)).toEqual({});
    await b.close();
  });

  it('createCache picks the backend from the configuration', async () => {
    const base = { guilds: true, members: true, users: true, roles: true, entitlements: true, maxMembersPerGuild: 0, redisPrefix: prefix() };
    expect(createCache({ ...base, backend: 'auto' }).backend).toBe('memory');
    expect(createCache({ ...base, backend: 'memory' }, { redisUrl: REDIS_URL }).backend).toBe('memory');
    expect(createCache({ ...base, backend: 'auto' }, { redis }).backend).toBe('redis');
    expect(() => createCache({ ...base, backend: 'redis' })).toThrow(/REDIS_URL/);
    const owned = createCache({ ...base, backend: 'redis' }, { redisUrl: REDIS_URL });
    owned.apply('READY', ready([GUILD_A]));
    expect(await owned.getGuild(GUILD_A)).toMatchObject({ unavailable: true });
    await owned.close();
  });
});
