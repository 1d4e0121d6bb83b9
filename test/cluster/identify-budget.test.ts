/**
 * The day's session starts (session_start_limit) kept fleet-wide in Redis: the store on its own (two
 * instances standing for two processes), then three bot processes against a sandbox whose sessions keep
 * being ended, until the budget's reserve is reached.
 */
import { expect, it } from 'vitest';
import { RedisIdentifyBudget } from '../../src/cluster/index.js';
import { IdentifyBudgetExhaustedError } from '../../src/gateway/errors.js';
import { describeWithRedis } from '../helpers/redis.js';
import { BotProcess } from './bot-process.js';
import { sleep, useClusterFixture, waitUntil } from './helpers.js';

const limit = (remaining: number, resetAfter = 3_600_000, total = 1000) => ({ total, remaining, reset_after: resetAfter, max_concurrency: 1 });

describeWithRedis('the identify budget of every process of a bot, in Redis', () => {
  const fixture = useClusterFixture();

  it('two processes take from one budget and both stop at the reserve', async () => {
    const scope = fixture.openScope('identify-budget');
    const key = `${scope.prefix}:identify:budget`;
    const a = new RedisIdentifyBudget({ redis: scope.connect(), key });
    const b = new RedisIdentifyBudget({ redis: scope.connect(), key });
    // Each is told what GET /gateway/bot said at its start: 60 left, 50 of them the reserve (5% of 1,000).
    a.update(limit(60));
    b.update(limit(60));
    expect(await a.available()).toBe(10);
    const takes = Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? a : b).take(i).then(() => 'ok', (e: unknown) => e));
    const outcomes = await Promise.all(takes);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10);
    const refused = outcomes.filter((o) => o instanceof IdentifyBudgetExhaustedError);
    expect(refused).toHaveLength(4);
    expect(refused[0]).toMatchObject({ remaining: 50, reserve: 50 });
    // Each process's snapshot is what it last read: a's own takes may all have come before b's last one
    // (two connections, no order between them), so it reads the shared count before its snapshot is compared.
    expect(await b.available()).toBe(0);
    expect(await a.available()).toBe(0);
    expect(a.snapshot()).toMatchObject({ remaining: 50, total: 1000, reserve: 50 });
  });

  it('figures of the same window never raise what is left; a newer window replaces them; a refresh is asked before refusing', async () => {
    const scope = fixture.openScope('identify-budget');
    const key = `${scope.prefix}:identify:budget`;
    let asked = 0;
    const a = new RedisIdentifyBudget({ redis: scope.connect(), key, reserve: 0, refresh: async () => (asked++, limit(900, 86_000_000)) });
    a.update(limit(3));
    await a.take(0);
    await a.take(1);
    // Another process started earlier and read 5 left: the service saw fewer identifies than were taken.
    a.update(limit(5));
    expect(await a.available()).toBe(1);
    await a.take(2);
    // None left: before refusing, the service is asked once; its window reset already (900 left).
    await a.take(3);
    expect(asked).toBe(1);
    expect(a.snapshot().remaining).toBe(899);
  });

  it('three processes whose sessions keep ending stop identifying at the reserve, before the service refuses one', async () => {
    // 24 session starts for the day; 5% reserve = 1. Three shards, one per process, identify at start (3),
    // then every session is ended again and again: the fleet may identify 23 times in all.
    const s = await fixture.start('identify-budget-fleet', {
      seed: { guilds: 6, membersPerGuild: 1, seed: 3 },
      gateway: { heartbeatIntervalMs: 5_000, recommendedShards: 3, maxConcurrency: 3, identifyWindowMs: 100, sessionStartLimit: 24 },
    });
    const rejected: string[] = [];
    s.gatewayEvents.on('identifyRejected', (e) => rejected.push(e.reason));
    const env = fixture.botEnv({
      GATEHOUSE_CLUSTER_LEASE_MS: '3000',
      GATEHOUSE_CLUSTER_SETTLE_MS: '1000',
      FIXTURE_IDENTIFY_WINDOW_MS: '150',
      FIXTURE_INVALID_SESSION_MAX_MS: '200',
    });
    const bots = ['a', 'b', 'c'].map((name) => new BotProcess(name, env));
    await waitUntil(() => bots.every((b) => b.readyShards().length === 1), 'one live shard per process', 60_000);

    // End every live session, over and over, until no shard identifies any more (bounded by count and time).
    const deadline = Date.now() + 60_000;
    for (let round = 0; round < 400 && Date.now() < deadline; round++) {
      let live = 0;
      for (const shard of [0, 1, 2]) {
        try {
          s.faults.invalidateSession(shard, false);
          live++;
        } catch {
          // no live connection for that shard right now (identifying, or stopped for good)
        }
      }
      await sleep(150);
      if (live === 0 && bots.every((b) => b.log.includes('stopped instead of identifying') || b.log.includes('IdentifyBudgetExhausted'))) break;
    }
    await waitUntil(
      () => bots.every((b) => b.log.includes('stopped instead of identifying')),
      'every process to stop its shard for the budget',
      20_000,
    );
    // The fleet used 23 of 24 and kept the reserve; the service never had to refuse an identify.
    expect(s.counters.identifies).toBe(23);
    expect(rejected).toEqual([]);
    for (const b of bots) expect(b.running).toBe(true);
  }, 120_000);
});
