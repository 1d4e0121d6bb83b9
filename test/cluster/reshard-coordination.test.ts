/**
 * The Redis side of a fleet's reshard on its own: two coordination instances stand for two processes.
 */
import { afterEach, expect, it } from 'vitest';
import { RedisReshardCoordination, currentGeneration } from '../../src/cluster/index.js';
import type { ReshardPlan } from '../../src/gateway/index.js';
import { describeWithRedis } from '../helpers/redis.js';
import { redisScope, waitUntil, type RedisScope } from './helpers.js';

describeWithRedis('RedisReshardCoordination', () => {
  let scope: RedisScope | null = null;
  const open: RedisReshardCoordination[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
    await scope?.close();
    scope = null;
  });

  function coordination(root: string, member: string, stopTimeoutMs = 10_000): RedisReshardCoordination {
    const c = new RedisReshardCoordination({ redis: scope!.connect(), root, member: () => member, pollMs: 50, stopTimeoutMs, flushMs: 10 });
    open.push(c);
    return c;
  }

  /** Register members as live in the old generation's registry (what the coordinators' heartbeats do). */
  async function live(root: string, members: string[]): Promise<void> {
    const time = await scope!.admin.time();
    const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    for (const m of members) await scope!.admin.zadd(`${root}:members`, now + 60_000, m);
  }

  it('one plan at a time; every process hears it; the switch waits for every live process, then moves the generation', async () => {
    scope = redisScope('reshard-coord');
    const root = `${scope.prefix}:{app}`;
    const a = coordination(root, 'member-a');
    const b = coordination(root, 'member-b');
    const heard: ReshardPlan[] = [];
    b.onPlan((p) => heard.push(p));
    await live(root, ['member-a', 'member-b']);

    const plan = (await a.propose(2, 4, 'operator'))!;
    expect(plan).toMatchObject({ from: 2, to: 4, generation: 1, reason: 'operator' });
    expect(await b.propose(2, 8, 'operator')).toEqual(plan); // the one under way
    await waitUntil(() => heard.length === 1, 'b to hear the plan', 5_000);
    expect(heard[0]).toEqual(plan);

    // The ledger: what a's old set delivered for new shard 3, in order.
    a.delivered(plan, 3, 'k1');
    a.delivered(plan, 3, 'k2');
    for (const shard of [0, 1, 2, 3]) (shard % 2 === 0 ? a : b).warm(plan, shard);
    await a.allWarm(plan, AbortSignal.timeout(5_000));

    let aSwitched = false;
    const aStops = a.oldStopped(plan, AbortSignal.timeout(10_000)).then(() => (aSwitched = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(aSwitched).toBe(false); // b is live and has not stopped its old set
    expect(await currentGeneration(scope.admin, root)).toBeNull();
    await b.oldStopped(plan, AbortSignal.timeout(10_000));
    await aStops;
    expect(await currentGeneration(scope.admin, root)).toEqual({ generation: 1, total: 4 });
    expect(await b.ledger(plan, 3)).toEqual(['k1', 'k2']);
    expect(await b.ledger(plan, 0)).toEqual([]);

    // The bot runs 4 now: a reshard from 2 is refused, one from 4 starts generation 2.
    expect(await a.propose(2, 8, 'recommended')).toBeNull();
    expect(await a.propose(4, 8, 'recommended')).toMatchObject({ from: 4, to: 8, generation: 2 });
  });

  it('a process that never says it stopped is not waited for past the stop timeout; an abort reaches the others', async () => {
    scope = redisScope('reshard-coord');
    const root = `${scope.prefix}:{app}`;
    const a = coordination(root, 'member-a', 400);
    const b = coordination(root, 'member-b');
    await live(root, ['member-a', 'member-silent']);
    const plan = (await a.propose(1, 2, '4011'))!;
    const started = performance.now();
    await a.oldStopped(plan, AbortSignal.timeout(10_000));
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(await currentGeneration(scope.admin, root)).toEqual({ generation: 1, total: 2 });

    // Another plan, given up by its proposer: the others are told.
    const aborted: string[] = [];
    b.onAbort((p) => aborted.push(p.id));
    const next = (await a.propose(2, 4, 'operator'))!;
    await waitUntil(() => (b as unknown as { seen: Map<string, unknown> }).seen.has(next.id), 'b to hear the second plan', 5_000);
    await a.abort(next, 'the new shards were not ready');
    await waitUntil(() => aborted.includes(next.id), 'b to hear the abort', 5_000);
    await expect(b.allWarm(next, AbortSignal.timeout(5_000))).rejects.toThrow(/given up/);
  });
});
