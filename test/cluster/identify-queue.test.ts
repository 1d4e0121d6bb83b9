/**
 * The Redis identify queue against a real Redis: several queues on their own connections stand for several
 * processes. One identify per bucket (shard_id % max_concurrency) per window across all of them.
 */
import { afterEach, expect, it } from 'vitest';
import { describeWithRedis } from '../helpers/redis.js';
import { ClusterKeys } from '../../src/cluster/keys.js';
import { RedisIdentifyQueue } from '../../src/cluster/redis-identify-queue.js';
import { IdentifyQueueTimeoutError } from '../../src/cluster/errors.js';
import { redisScope, type RedisScope } from './helpers.js';

describeWithRedis('RedisIdentifyQueue', () => {
  let scope: RedisScope;
  afterEach(async () => {
    await scope?.close();
  });

  /** Grants as the Redis server timed them. */
  let grants: Array<{ shard: number; bucket: number; at: number }> = [];

  function queues(n: number, options: { maxConcurrency: number; windowMs: number; maxWaitMs?: number }): RedisIdentifyQueue[] {
    const keys = new ClusterKeys(scope.prefix);
    grants = [];
    return Array.from(
      { length: n },
      () =>
        new RedisIdentifyQueue({
          redis: scope.connect(),
          keys,
          marginMs: 0,
          jitterMs: 5,
          onGrant: (shard, bucket, at) => grants.push({ shard, bucket, at }),
          ...options,
        }),
    );
  }

  it('spaces identifies of one bucket by the window across processes, and lets other buckets go in parallel', async () => {
    scope = redisScope('cluster-identify');
    const windowMs = 250;
    const processes = queues(3, { maxConcurrency: 2, windowMs });
    // Each process identifies four shards, spread over both buckets: 12 identifies, 6 per bucket.
    await Promise.all(processes.flatMap((q, p) => [0, 1, 2, 3].map((i) => q.acquire(p * 4 + i))));
    expect(grants).toHaveLength(12);
    const times = (bucket: number) => grants.filter((g) => g.bucket === bucket).map((g) => g.at).sort((x, y) => x - y);
    for (const bucket of [0, 1]) {
      const t = times(bucket);
      expect(t).toHaveLength(6);
      // Server-side grant times: exactly one window apart at least, whichever process asked.
      for (let i = 1; i < t.length; i++) expect(t[i]! - t[i - 1]!).toBeGreaterThanOrEqual(windowMs);
    }
    // The buckets do not wait for each other: each one's first grant came before the other's second.
    expect(times(1)[0]!).toBeLessThan(times(0)[1]!);
    expect(times(0)[0]!).toBeLessThan(times(1)[1]!);
  });

  it('hands out one process\'s shards of a bucket in FIFO order', async () => {
    scope = redisScope('cluster-identify');
    const [q] = queues(1, { maxConcurrency: 1, windowMs: 60 });
    const order: number[] = [];
    await Promise.all([5, 3, 9, 1].map((shard) => q!.acquire(shard).then(() => order.push(shard))));
    expect(order).toEqual([5, 3, 9, 1]);
  });

  it('an aborted waiter rejects with the signal\'s reason and does not block those behind it', async () => {
    scope = redisScope('cluster-identify');
    const [q] = queues(1, { maxConcurrency: 1, windowMs: 1_000 });
    const t = performance.now();
    await q!.acquire(0);
    const abort = new AbortController();
    const waiting = q!.acquire(1, abort.signal);
    const behind = q!.acquire(2);
    abort.abort(new Error('shard closed'));
    await expect(waiting).rejects.toThrow('shard closed');
    await behind;
    // Shard 2 got the slot the aborted shard 1 would have had, one window after shard 0 (not two).
    expect(performance.now() - t).toBeLessThan(1_900);
  });

  it('gives up after maxWaitMs with an error naming the shard and bucket', async () => {
    scope = redisScope('cluster-identify');
    const [a, b] = queues(2, { maxConcurrency: 4, windowMs: 5_000, maxWaitMs: 200 });
    await a!.acquire(6);
    const error = await b!.acquire(2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdentifyQueueTimeoutError);
    expect((error as Error).message).toMatch(/shard 2 .*bucket 2/);
  });

  it('bounds the wait for one slot, not the time spent behind this process\'s own shards of the bucket', async () => {
    scope = redisScope('cluster-identify');
    // Five shards of one bucket in one process, one window apart: the last waits about four windows in all,
    // far over maxWaitMs, but never more than one window for its own slot.
    const [q] = queues(1, { maxConcurrency: 1, windowMs: 150, maxWaitMs: 400 });
    const outcomes = await Promise.all([0, 1, 2, 3, 4].map((shard) => q!.acquire(shard).then(() => 'granted', (e: unknown) => e)));
    expect(outcomes).toEqual(Array(5).fill('granted'));
    expect(grants.map((g) => g.shard)).toEqual([0, 1, 2, 3, 4]);
  });

  it('validates its options', () => {
    scope = redisScope('cluster-identify');
    const keys = new ClusterKeys(scope.prefix);
    expect(() => new RedisIdentifyQueue({ redis: scope.admin, keys, maxConcurrency: 0 })).toThrow(/max_concurrency/);
    expect(() => new RedisIdentifyQueue({ redis: scope.admin, keys, windowMs: -1 })).toThrow(/window/);
  });
});
