/**
 * The coordinator against a real Redis, several instances on their own connections standing for several
 * processes, with a recording shard handler (the runtime's ShardManager is exercised by the process-level
 * acceptance suite). Leases are short so ownership changes happen within a second or two.
 */
import { afterEach, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';
import { ClusterCoordinator, type ClusterCoordinatorOptions, type ShardHandler } from '../../src/cluster/coordinator.js';
import { ClusterError, ShardCountMismatchError } from '../../src/cluster/errors.js';
import { ClusterKeys } from '../../src/cluster/keys.js';
import { ShardLeases } from '../../src/cluster/leases.js';
import type { SessionState } from '../../src/gateway/shard.js';
import { redisGate, redisScope, sleep, waitUntil, type RedisScope } from './helpers.js';

const LEASE_MS = 1_000;
const RENEW_MS = 200;

class RecordingHandler implements ShardHandler {
  readonly running = new Set<number>();
  readonly log: string[] = [];
  /** Lease values seen at the moment a handoff stop began (the lease must still be ours then). */
  readonly leaseAtHandoff = new Map<number, string | null>();
  failStart = new Set<number>();

  constructor(
    private readonly coordinator: () => ClusterCoordinator,
    private readonly admin: Redis,
  ) {}

  async start(id: number): Promise<void> {
    this.log.push(`start ${id}`);
    if (this.failStart.has(id)) throw new Error(`shard ${id} cannot start`);
    this.running.add(id);
  }

  async stop(id: number, reason: 'handoff' | 'fenced'): Promise<void> {
    this.log.push(`stop ${id} ${reason}`);
    if (reason === 'handoff') this.leaseAtHandoff.set(id, await this.admin.get(this.coordinator().keys.lease(id)));
    await sleep(30); // closing a shard takes a moment
    this.running.delete(id);
  }
}

describeWithRedis('ClusterCoordinator', () => {
  let scope: RedisScope;
  const coordinators: ClusterCoordinator[] = [];
  afterEach(async () => {
    for (const c of coordinators.splice(0)) await c.stop().catch(() => undefined);
    await scope?.close();
  });

  function member(options: Partial<ClusterCoordinatorOptions> = {}): { c: ClusterCoordinator; h: RecordingHandler; redis: Redis } {
    const redis = scope.connect();
    const c = new ClusterCoordinator({
      redis,
      prefix: scope.prefix,
      totalShards: 4,
      leaseMs: LEASE_MS,
      renewMs: RENEW_MS,
      settleMs: 0,
      ...options,
    });
    coordinators.push(c);
    const h = new RecordingHandler(() => c, scope.admin);
    return { c, h, redis };
  }

  it('a lone member claims every shard; a second one gets half through a handoff that stops before releasing', async () => {
    scope = redisScope('cluster-coord');
    const a = member();
    expect(await a.c.start()).toEqual([0, 1, 2, 3]);
    a.c.manage(a.h);
    const b = member();
    expect(await b.c.start()).toEqual([]);
    b.c.manage(b.h);
    await waitUntil(() => b.c.ownedShards.length === 2 && a.c.ownedShards.length === 2, 'a 2/2 split', 8_000);
    expect(a.c.ownedShards).toEqual([0, 1]);
    expect(b.c.ownedShards).toEqual([2, 3]);
    expect([...b.h.running].sort()).toEqual([2, 3]);
    expect(a.h.log).toEqual(expect.arrayContaining(['stop 3 handoff', 'stop 2 handoff']));
    // A stopped each shard while it still held the lease, so its session could be saved under it.
    expect(a.h.leaseAtHandoff).toEqual(new Map([[2, a.c.memberId], [3, a.c.memberId]]));
  });

  it('members starting together split the shards without a handoff', async () => {
    scope = redisScope('cluster-coord');
    const all = [member({ settleMs: 300 }), member({ settleMs: 300 })];
    const owned = await Promise.all(all.map((m) => m.c.start()));
    expect(owned.map((o) => o.length)).toEqual([2, 2]);
    expect(owned.flat().sort()).toEqual([0, 1, 2, 3]);
  });

  it('a member cut off from Redis fences its shards, and a survivor takes them over within the lease time', async () => {
    scope = redisScope('cluster-coord');
    const a = member({ settleMs: 200 });
    const b = member({ settleMs: 200 });
    await Promise.all([a.c.start(), b.c.start()]);
    // The shards claimed at start are run by the caller (the runtime's manager.start), not the handler.
    for (const m of [a, b]) for (const id of m.c.ownedShards) m.h.running.add(id);
    a.c.manage(a.h);
    b.c.manage(b.h);
    const bShards = b.c.ownedShards;
    expect(bShards).toHaveLength(2);
    const gained: number[] = [];
    a.c.on('shardGained', (id) => gained.push(id));
    const cutAt = performance.now();
    b.redis.disconnect(); // b keeps running but can no longer renew
    await waitUntil(() => a.c.ownedShards.length === 4, 'the survivor to own all four shards', 10_000);
    const tookMs = performance.now() - cutAt;
    // b renewed last before the cut, so its leases were gone by cutAt + LEASE_MS; the survivor claims them
    // right then (not at its next tick). 1 s of slack for a loaded machine.
    expect(tookMs).toBeLessThanOrEqual(LEASE_MS + 1_000);
    expect(gained.sort()).toEqual(bShards);
    expect([...a.h.running].sort()).toEqual([0, 1, 2, 3]);
    // The cut-off member stopped its shards by itself once their leases could have expired.
    await waitUntil(() => b.h.running.size === 0, 'the cut-off member to fence its shards', 5_000);
    for (const id of bShards) expect(b.h.log).toContain(`stop ${id} fenced`);
  });

  it('a survivor claims a dead member\'s shards as soon as their leases expire, not at its next tick', async () => {
    // Ticks as far apart as allowed (renewMs = leaseMs / 2), so that waiting for the next tick would show.
    const leaseMs = 2_000;
    const renewMs = 1_000;
    scope = redisScope('cluster-coord');
    const keys = new ClusterKeys(scope.prefix);
    // The member that dies: the Redis side of a coordinator (registry heartbeat, claim, renewal) driven by the
    // test, so that the moment of its last renewal is known and can be placed between two ticks of the survivor.
    const dead = new ShardLeases(scope.connect(), keys, 'dead-member', leaseMs);
    await dead.heartbeat(4, leaseMs);
    expect((await dead.claim([2, 3], 2)).got).toEqual([2, 3]);
    const a = member({ leaseMs, renewMs });
    expect(await a.c.start()).toEqual([0, 1]);
    a.c.manage(a.h);
    const gainedAt = new Map<number, number>();
    a.c.on('shardGained', (id) => gainedAt.set(id, performance.now()));

    // One of a's ticks (its heartbeat moves its registry score); the dead member renews for the last time half
    // a tick later, so its entry and leases expire half a tick before one of a's ticks.
    const before = await scope.admin.zscore(keys.members, a.c.memberId);
    await waitUntil(async () => (await scope.admin.zscore(keys.members, a.c.memberId)) !== before, 'a tick of the survivor', 5_000);
    await sleep(renewMs / 2);
    const lastRenewalAt = performance.now();
    await dead.heartbeat(4, leaseMs);
    expect(await dead.renew([2, 3])).toEqual([]);

    await waitUntil(() => gainedAt.size === 2, 'the survivor to claim shards 2 and 3', 3 * leaseMs);
    expect(a.c.ownedShards).toEqual([0, 1, 2, 3]);
    expect(a.c.liveMembers).toBe(1);
    for (const id of [2, 3]) {
      const after = gainedAt.get(id)! - lastRenewalAt;
      // Not before the lease expired (a live holder's lease is never taken)...
      expect(after).toBeGreaterThanOrEqual(leaseMs - 5);
      // ...and right after: within the lease time plus a small margin of the last renewal. Waiting for the
      // next tick would take about leaseMs + renewMs / 2 here.
      expect(after, `shard ${id} claimed ${Math.round(after)} ms after the last renewal`).toBeLessThanOrEqual(leaseMs + 250);
    }
    await waitUntil(() => a.h.running.has(2) && a.h.running.has(3), 'shards 2 and 3 started', 2_000);
  });

  it('a member whose Redis stops answering (calls hang) fences its shards while their leases still stand', async () => {
    scope = redisScope('cluster-coord');
    const gate = await redisGate(REDIS_URL);
    try {
      // Through a URL the coordinator opens its own connection, with its command timeout (leaseMs / 2).
      const c = new ClusterCoordinator({
        redis: gate.url,
        prefix: scope.prefix,
        totalShards: 2,
        shardIds: [0, 1],
        leaseMs: 4_000,
        renewMs: 1_000,
        settleMs: 0,
      });
      coordinators.push(c);
      const h = new RecordingHandler(() => c, scope.admin);
      expect(await c.start()).toEqual([0, 1]);
      c.manage(h);
      const keys = new ClusterKeys(scope.prefix);
      // What Redis still says about the lease at the moment the member gives the shard up.
      const leaseAtFence = new Map<number, number>();
      c.on('shardLost', (id) => void scope.admin.pttl(keys.lease(id)).then((ms) => leaseAtFence.set(id, ms)));
      await sleep(300);
      gate.hold();
      await waitUntil(() => leaseAtFence.size === 2, 'both shards fenced', 10_000);
      // Still ours in Redis (a positive time to live): nobody else can have claimed them yet.
      for (const id of [0, 1]) expect(leaseAtFence.get(id)).toBeGreaterThan(0);
      expect(h.log).toEqual(expect.arrayContaining(['stop 0 fenced', 'stop 1 fenced']));
    } finally {
      gate.release();
      await gate.close();
    }
  });

  it('a lease taken by someone else is fenced at the next renewal: stopped without saving, writes refused', async () => {
    scope = redisScope('cluster-coord');
    const a = member({ shardIds: [0, 1] });
    expect(await a.c.start()).toEqual([0, 1]);
    a.c.manage(a.h);
    const lost: Array<[number, string]> = [];
    a.c.on('shardLost', (id, why) => lost.push([id, why]));
    const keys = new ClusterKeys(scope.prefix);
    await scope.admin.set(keys.lease(1), 'intruder', 'PX', 60_000);
    await waitUntil(() => lost.length === 1, 'the fence', 5_000);
    expect(lost).toEqual([[1, 'fenced']]);
    expect(a.c.ownedShards).toEqual([0]);
    expect(a.h.log).toContain('stop 1 fenced');
    const state: SessionState = { sessionId: 's', sequence: 5, resumeGatewayUrl: 'ws://127.0.0.1:1' };
    expect(await a.c.sessionStore.write(1, state)).toBe('not-owner');
    expect(await a.c.sessionStore.write(0, state)).toBe('stored');
    // Explicit mode keeps asking for its shard; once the intruder is gone it is claimed and started again.
    await scope.admin.del(keys.lease(1));
    await waitUntil(() => a.c.ownedShards.length === 2, 'shard 1 claimed again', 5_000);
    await waitUntil(() => a.h.running.has(1), 'shard 1 started again', 5_000);
  });

  it('explicit ids: a shard held by another process is gained once that process releases it', async () => {
    scope = redisScope('cluster-coord');
    const a = member({ shardIds: [0, 1] });
    const b = member({ shardIds: [1, 2] });
    expect(await a.c.start()).toEqual([0, 1]);
    expect(await b.c.start()).toEqual([2]);
    b.c.manage(b.h);
    await a.c.stop();
    await waitUntil(() => b.c.ownedShards.includes(1), 'b to gain shard 1', 5_000);
    expect(b.h.log).toEqual(['start 1']);
  });

  it('refuses to start next to live members running another shard total', async () => {
    scope = redisScope('cluster-coord');
    await member().c.start();
    const error = await member({ totalShards: 8 }).c.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShardCountMismatchError);
    expect((error as Error).message).toMatch(/configured for 8 shards.*run 4/);
  });

  it('claims no more than maxShardsPerProcess', async () => {
    scope = redisScope('cluster-coord');
    expect(await member({ maxShardsPerProcess: 1 }).c.start()).toEqual([0]);
    expect(await member({ maxShardsPerProcess: 2 }).c.start()).toEqual([1, 2]);
  });

  it('stop() releases every lease and leaves the registry, so another process claims at once', async () => {
    scope = redisScope('cluster-coord');
    const a = member();
    await a.c.start();
    await a.c.stop();
    const keys = new ClusterKeys(scope.prefix);
    for (let id = 0; id < 4; id++) expect(await scope.admin.exists(keys.lease(id))).toBe(0);
    expect(await scope.admin.zscore(keys.members, a.c.memberId)).toBeNull();
    expect(await member().c.start()).toEqual([0, 1, 2, 3]);
  });

  it('a shard that fails to start has its lease released and is not claimed again right away', async () => {
    scope = redisScope('cluster-coord');
    const b = member();
    const lost: Array<[number, string]> = [];
    b.c.on('shardLost', (id, why) => lost.push([id, why]));
    b.h.failStart.add(2);
    // Start with nothing free so that every shard is gained through the handler.
    const keys = new ClusterKeys(scope.prefix);
    for (let id = 0; id < 4; id++) await scope.admin.set(keys.lease(id), 'other', 'PX', 400);
    expect(await b.c.start()).toEqual([]);
    b.c.manage(b.h);
    await waitUntil(() => lost.length === 1 && b.c.ownedShards.length === 3, 'three shards started and one failed', 5_000);
    expect(lost).toEqual([[2, 'failed']]);
    expect(b.c.ownedShards).toEqual([0, 1, 3]);
    expect(await scope.admin.exists(keys.lease(2))).toBe(0);
  });

  it('checkpoints the sessions of the shards it holds, and only those', async () => {
    scope = redisScope('cluster-coord');
    const a = member({ shardIds: [0, 1], checkpointMs: 100 });
    await a.c.start();
    const sessions = new Map<number, SessionState>([
      [0, { sessionId: 's0', sequence: 3, resumeGatewayUrl: 'ws://127.0.0.1:1' }],
      [3, { sessionId: 's3', sequence: 9, resumeGatewayUrl: 'ws://127.0.0.1:1' }],
    ]);
    a.c.trackSessions(() => sessions);
    await waitUntil(async () => (await a.c.sessionStore.load(0)) !== null, 'the checkpoint of shard 0', 3_000);
    sessions.set(0, { sessionId: 's0', sequence: 8, resumeGatewayUrl: 'ws://127.0.0.1:1' });
    await waitUntil(async () => (await a.c.sessionStore.load(0))?.sequence === 8, 'the next checkpoint', 3_000);
    expect(await a.c.sessionStore.load(3)).toBeNull();
  });
});

describeWithRedis('ClusterCoordinator without a reachable Redis', () => {
  it('start() fails with a ClusterError saying what it could not do', async () => {
    const c = new ClusterCoordinator({ redis: 'redis://127.0.0.1:1', prefix: 'gh-test:unreachable', totalShards: 2, settleMs: 0 });
    const error = await c.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterError);
    expect((error as Error).message).toMatch(/could not register with Redis/);
    await c.stop();
  }, 20_000);
});
