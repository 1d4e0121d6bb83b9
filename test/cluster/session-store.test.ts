/** The Redis session store against a real Redis: round trip, lease fencing, seq monotonicity, expiry, checkpoints. */
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { RedisCache } from '../../src/cache/index.js';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';
import { ClusterKeys } from '../../src/cluster/keys.js';
import { RedisSessionStore } from '../../src/cluster/session-store.js';
import type { SessionState } from '../../src/gateway/shard.js';
import { redisGate, redisScope, type RedisScope } from './helpers.js';

const state = (sequence: number, sessionId = 'abc'): SessionState => ({
  sessionId,
  sequence,
  resumeGatewayUrl: 'ws://127.0.0.1:1/resume',
});

describeWithRedis('RedisSessionStore', () => {
  let scope: RedisScope;
  let keys: ClusterKeys;
  afterEach(async () => {
    await scope?.close();
  });

  function store(options: Partial<ConstructorParameters<typeof RedisSessionStore>[0]> = {}): RedisSessionStore {
    keys = new ClusterKeys(scope.prefix);
    return new RedisSessionStore({ redis: scope.connect(), keys, totalShards: 4, ...options });
  }

  it('saves and loads session_id, seq and resume_gateway_url per shard; null clears', async () => {
    scope = redisScope('cluster-sessions');
    const s = store();
    expect(await s.load(1)).toBeNull();
    await s.save(1, state(42));
    await s.save(2, state(7, 'other'));
    expect(await s.load(1)).toEqual(state(42));
    expect(await s.load(2)).toEqual(state(7, 'other'));
    await s.save(1, null);
    expect(await s.load(1)).toBeNull();
    expect(await s.load(2)).toEqual(state(7, 'other'));
  });

  it('writes with the expiry it is configured with (default 60 s)', async () => {
    scope = redisScope('cluster-sessions');
    await store().save(0, state(1));
    const pttl = await scope.admin.pttl(keys.session(0));
    expect(pttl).toBeGreaterThan(55_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
    await store({ ttlMs: 2_000 }).save(1, state(1));
    expect(await scope.admin.pttl(keys.session(1))).toBeLessThanOrEqual(2_000);
  });

  it('with a lease token, writes only while holding the shard lease (a fenced process cannot overwrite)', async () => {
    scope = redisScope('cluster-sessions');
    const mine = store({ leaseToken: 'member-a' });
    const theirs = store({ leaseToken: 'member-b' });
    await scope.admin.set(keys.lease(3), 'member-a', 'PX', 10_000);
    expect(await mine.write(3, state(10))).toBe('stored');
    expect(await theirs.write(3, state(99, 'stolen'))).toBe('not-owner');
    expect(await theirs.write(3, null)).toBe('not-owner');
    expect(await theirs.load(3)).toEqual(state(10));
    // The lease moves to b: now a is the one refused.
    await scope.admin.set(keys.lease(3), 'member-b', 'PX', 10_000);
    expect(await mine.write(3, state(11))).toBe('not-owner');
    expect(await theirs.write(3, state(12, 'new'))).toBe('stored');
    expect(await mine.load(3)).toEqual(state(12, 'new'));
  });

  it('never moves a session\'s seq backwards, but a new session replaces an old one', async () => {
    scope = redisScope('cluster-sessions');
    const s = store();
    await s.write(0, state(50));
    expect(await s.write(0, state(40))).toBe('stale');
    expect(await s.load(0)).toEqual(state(50));
    expect(await s.write(0, state(3, 'fresh'))).toBe('stored');
    expect(await s.load(0)).toEqual(state(3, 'fresh'));
  });

  it('ignores a stored session of another shard total, or a malformed one', async () => {
    scope = redisScope('cluster-sessions');
    await store({ totalShards: 8 }).save(0, state(5));
    expect(await store({ totalShards: 4 }).load(0)).toBeNull();
    await scope.admin.hset(keys.session(1), { id: 'x', seq: 'nope', url: 'ws://h' });
    expect(await store().load(1)).toBeNull();
    await scope.admin.hset(keys.session(2), { id: 'x', seq: '3', url: 'http://not-a-websocket' });
    expect(await store().load(2)).toBeNull();
    // A seq no dispatch could carry would make the resumed shard take every event for a duplicate.
    for (const [shard, seq] of [[3, '1e300'], [4, '-2'], [5, '2.5']] as const) {
      await scope.admin.hset(keys.session(shard), { id: 'x', seq, url: 'ws://h' });
      expect(await store().load(shard), seq).toBeNull();
    }
  });

  it('checkpoint writes every session in one round trip and skips those whose seq did not move', async () => {
    scope = redisScope('cluster-sessions');
    const s = store();
    const sessions = new Map([
      [0, state(5, 's0')],
      [1, state(9, 's1')],
    ]);
    expect(await s.checkpoint(sessions)).toBe(2);
    expect(await s.checkpoint(sessions)).toBe(0);
    sessions.set(1, state(12, 's1'));
    expect(await s.checkpoint(sessions)).toBe(1);
    expect(await s.load(0)).toEqual(state(5, 's0'));
    expect(await s.load(1)).toEqual(state(12, 's1'));
  });

  it('checkpoint refreshes the expiry of sessions that stay unchanged for a third of the ttl', async () => {
    scope = redisScope('cluster-sessions');
    const s = store({ ttlMs: 1_500 });
    const sessions = new Map([[0, state(5)]]);
    await s.checkpoint(sessions);
    await new Promise((r) => setTimeout(r, 600));
    expect(await s.checkpoint(sessions)).toBe(1);
    expect(await scope.admin.pttl(keys.session(0))).toBeGreaterThan(1_000);
  });

  it('with beforeWrite (the cache flush), a stored seq never runs ahead of the cache writes up to it', async () => {
    scope = redisScope('cluster-sessions');
    // The cache's own connection goes through a gate that holds its bytes back, as a slow link would, while
    // the session store's connection is fine.
    const gate = await redisGate(REDIS_URL, { held: true });
    const cacheRedis = new Redis(gate.url, { maxRetriesPerRequest: 1 });
    cacheRedis.on('error', () => undefined);
    const cache = new RedisCache(cacheRedis, { prefix: `${scope.prefix}:cache` });
    try {
      const s = store({ beforeWrite: () => cache.flush() });
      const guild = '81384788765712384';
      cache.apply('GUILD_CREATE', { id: guild, name: 'g', owner_id: '1', member_count: 1, roles: [], members: [] });
      cache.apply('GUILD_MEMBER_ADD', { guild_id: guild, user: { id: '5', username: 'five' }, roles: [], joined_at: null });
      const checkpoint = s.checkpoint(new Map([[0, state(7)]]));
      const save = s.save(1, state(9));
      await new Promise((r) => setTimeout(r, 150));
      expect(await scope.admin.exists(keys.session(0), keys.session(1))).toBe(0);
      gate.release();
      await Promise.all([checkpoint, save]);
      expect(await s.load(0)).toEqual(state(7));
      expect(await s.load(1)).toEqual(state(9));
      const gen = await scope.admin.hget(`${scope.prefix}:cache:g:${guild}`, 'gen');
      expect(await scope.admin.exists(`${scope.prefix}:cache:g:${guild}:${gen}:m:5`)).toBe(1);
    } finally {
      cacheRedis.disconnect();
      await gate.close();
    }
  });
});
