/**
 * Live resharding of a fleet: three real bot processes (fixtures/bot.ts) share 2 shards through Redis, and an
 * operator asks one of them for 4 while members keep joining and leaving. Every process takes part (new
 * leases in the next generation's namespace, identifies through the shared queue), the cutover is agreed
 * through Redis, and afterwards: the (Redis) cache equals the sandbox's state, every member event reached
 * exactly one process exactly once, the sandbox refused no identify, and no process restarted.
 */
import { expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createCache } from '../../src/cache/index.js';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';
import { BotProcess, type Report } from './bot-process.js';
import { sleep, useClusterFixture, waitUntil } from './helpers.js';

const START_TIMEOUT = 60_000;

describeWithRedis('live resharding of a fleet (three processes, 2 -> 4 shards)', () => {
  const fixture = useClusterFixture();

  it('every process moves to the new set at one cutover: exactly once to the plugins, the cache equals the sandbox, nothing restarts', async () => {
    const s = await fixture.start('cluster-reshard', {
      seed: { guilds: 8, membersPerGuild: 2, seed: 17 },
      gateway: { heartbeatIntervalMs: 5_000, recommendedShards: 2, maxConcurrency: 2, identifyWindowMs: 200 },
    });
    const scope = fixture.scope;
    const identifies: Array<{ shard: [number, number]; at: number }> = [];
    const rejected: string[] = [];
    s.gatewayEvents.on('identify', (e) => identifies.push({ shard: e.shard, at: e.at }));
    s.gatewayEvents.on('identifyRejected', (e) => rejected.push(e.reason));
    const env = fixture.botEnv({
      // With presences, GUILD_CREATE lists every member of a small guild: the cache can hold the sandbox's state.
      GATEHOUSE_INTENTS: 'GUILDS,GUILD_MEMBERS,GUILD_PRESENCES',
      GATEHOUSE_CLUSTER_LEASE_MS: '3000',
      GATEHOUSE_CLUSTER_SETTLE_MS: '1500',
      GATEHOUSE_CLUSTER_CHECKPOINT_MS: '200',
      GATEHOUSE_RESHARD_SETTLE_MS: '300',
      GATEHOUSE_RESHARD_DEDUPE_MS: '10000',
      FIXTURE_IDENTIFY_WINDOW_MS: '300',
    });
    const bots = ['a', 'b', 'c'].map((name) => new BotProcess(name, env));
    await Promise.all(bots.map((b) => b.waitFor(() => b.started() !== undefined, 'start', START_TIMEOUT)));
    await waitUntil(() => bots.flatMap((b) => b.readyShards()).sort().join() === '0,1', 'the two shards live', 20_000);

    // Members join every 15 ms, round the guilds; every fourth step one of them leaves again.
    const added: string[] = [];
    const removed: string[] = [];
    let streaming = true;
    const guilds = s.state.guildIds;
    const stream = (async () => {
      for (let i = 0; streaming && i < 3_000; i++) {
        const guildId = guilds[i % guilds.length]!;
        added.push(s.state.addMember(guildId));
        if (i % 4 === 3) {
          const userId = added[i - 2]!;
          s.state.removeMember(guilds[(i - 2) % guilds.length]!, userId);
          removed.push(userId);
        }
        await sleep(15);
      }
    })();

    await sleep(500);
    s.setRecommendedShards(4);
    const [a] = bots as [BotProcess];
    a.send({ id: 1, op: 'reshard' });
    await a.waitFor(() => a.reports.some((r) => r.ev === 'reshard'), 'the reshard to be accepted', 10_000);
    expect(a.reports.find((r): r is Extract<Report, { ev: 'reshard' }> => r.ev === 'reshard')!.plan).toMatchObject({ from: 2, to: 4 });
    await Promise.all(bots.map((b) => b.waitFor(() => b.reports.some((r) => r.ev === 'resharded'), 'its cutover', 60_000)));
    await waitUntil(
      () => {
        const owned = bots.map((b) => [...b.reports].reverse().find((r): r is Extract<Report, { ev: 'owned' }> => r.ev === 'owned'));
        return owned.every((o) => o?.total === 4) && owned.flatMap((o) => o!.ready).sort().join() === '0,1,2,3';
      },
      'the four new shards live across the processes',
      20_000,
    );
    await sleep(500); // members keep coming on the new set
    streaming = false;
    await stream;

    const events = (t: string): string[] => bots.flatMap((b) => b.dispatches().filter((d) => d.t === t).map((d) => d.user!));
    await waitUntil(
      () => {
        const adds = new Set(events('GUILD_MEMBER_ADD'));
        const removes = new Set(events('GUILD_MEMBER_REMOVE'));
        return added.every((u) => adds.has(u)) && removed.every((u) => removes.has(u));
      },
      'every member event at one of the processes',
      15_000,
    );
    await sleep(300);
    const adds = events('GUILD_MEMBER_ADD');
    const removes = events('GUILD_MEMBER_REMOVE');
    expect(adds.length, 'GUILD_MEMBER_ADDs delivered').toBe(added.length);
    expect(new Set(adds).size).toBe(adds.length);
    expect(removes.sort()).toEqual([...removed].sort());

    // The overlap was real: new shards received events the old set had delivered, and skipped them.
    const replay = bots.flatMap((b) => b.reports.filter((r): r is Extract<Report, { ev: 'resharded' }> => r.ev === 'resharded').flatMap((r) => r.replay));
    expect(replay.reduce((n, r) => n + r.skipped, 0)).toBeGreaterThan(0);
    // The new set identified as [k, 4] within max_concurrency; the service refused nothing.
    expect(identifies.filter((i) => i.shard[1] === 4).map((i) => i.shard[0]).sort()).toEqual([0, 1, 2, 3]);
    expect(rejected).toEqual([]);
    // Nobody restarted: each process started once and still runs.
    for (const b of bots) {
      expect(b.running).toBe(true);
      expect(b.reports.filter((r) => r.ev === 'started')).toHaveLength(1);
    }
    // The shared (Redis) cache holds exactly the sandbox's members.
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    try {
      const cache = createCache({ backend: 'redis', redisPrefix: `${scope.prefix}:cache`, guilds: true, members: true, users: true, roles: true, entitlements: true, maxMembersPerGuild: 0 }, { redis, applicationId: s.applicationId });
      for (const guildId of guilds) {
        const page = await cache.getMembers(guildId, { limit: 1000 });
        expect(page.members.map((m) => m.userId).sort(), `members of guild ${guildId}`).toEqual([...s.state.memberIds(guildId)].sort());
      }
    } finally {
      redis.disconnect();
    }
    // The generation moved: a process starting now joins the 4-shard set and takes its share over by RESUME.
    const generation = await scope.admin.get(`${scope.prefix}:{${s.applicationId}}:generation`);
    expect(generation).toBe('1:4');
    const resumesBefore = s.counters.resumes;
    const d = new BotProcess('d', env);
    await d.waitFor(() => d.started() !== undefined, 'the late process to start', START_TIMEOUT);
    await waitUntil(
      () => {
        const all = [...bots, d].map((b) => [...b.reports].reverse().find((r): r is Extract<Report, { ev: 'owned' }> => r.ev === 'owned'));
        return all.every((o) => o?.total === 4 && o.ready.length === 1) && all.flatMap((o) => o!.ready).sort().join() === '0,1,2,3';
      },
      'one shard per process after the late process joined',
      30_000,
    );
    expect(s.counters.resumes).toBeGreaterThan(resumesBefore);
    expect(identifies.filter((i) => i.shard[1] === 4)).toHaveLength(4);
    // A process still configured for the old total refuses to start, and says what to set.
    const stale = new BotProcess('stale', { ...env, GATEHOUSE_SHARD_TOTAL: '2' });
    await stale.waitFor(() => stale.reports.some((r) => r.ev === 'error'), 'the stale process to refuse', START_TIMEOUT);
    expect(stale.reports.find((r): r is Extract<Report, { ev: 'error' }> => r.ev === 'error')!.message).toMatch(
      /resharded to 4 shards while shards\.total is 2; set shards\.total .* to 4 or "auto"/,
    );
  }, 180_000);
});
