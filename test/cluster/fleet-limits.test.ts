/**
 * Fleet-wide REST limits end to end: three real bot processes (fixtures/bot.ts, the Runtime as a bot owner
 * runs it, cluster mode on a real Redis) send REST traffic through their own clients to one sandbox, which
 * judges: its buckets and its global limit answer 429 to anything beyond them, and it counts what it sees.
 *
 * One set of processes serves every case, in order; the invalid-request budget comes last (it stops the
 * processes from sending for the rest of its window).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox, SandboxRestEvents } from '../../src/sandbox/contract.js';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';
import { BotProcess, killAll, type Report } from './bot-process.js';
import { redisScope, type RedisScope } from './helpers.js';

const START_TIMEOUT = 60_000;
/** The sandbox's limits the fleet must stay within. */
const MESSAGES_PER_WINDOW = 10;
const MESSAGES_WINDOW_MS = 1_000;
const GLOBAL_PER_SECOND = 20;

type RestEvent = SandboxRestEvents['response'][0];
type Outcomes = Extract<Report, { ev: 'rest' }>['outcomes'];

describeWithRedis('fleet-wide REST limits: three processes, one sandbox, one Redis', () => {
  let sandbox: Sandbox;
  let scope: RedisScope;
  let bots: BotProcess[] = [];
  const answers: RestEvent[] = [];
  let channelIds: string[] = [];
  let nextId = 1;

  beforeAll(async () => {
    sandbox = await createSandbox({
      seed: { guilds: 6, membersPerGuild: 2, seed: 5 },
      gateway: { heartbeatIntervalMs: 5_000, recommendedShards: 3, maxConcurrency: 3, identifyWindowMs: 200 },
      rest: { globalPerSecond: GLOBAL_PER_SECOND, buckets: { 'messages.create': { limit: MESSAGES_PER_WINDOW, windowMs: MESSAGES_WINDOW_MS } } },
    });
    sandbox.restEvents.on('response', (e) => answers.push(e));
    scope = redisScope('fleet-limits');
    const env = (name: string): Record<string, string> => ({
      DISCORD_TOKEN: sandbox.botToken,
      DISCORD_API_URL: sandbox.restUrl,
      REDIS_URL,
      GATEHOUSE_CLUSTER_PREFIX: scope.prefix,
      FIXTURE_CACHE_PREFIX: `${scope.prefix}:cache`,
      GATEHOUSE_CLUSTER_LEASE_MS: '3000',
      GATEHOUSE_CLUSTER_SETTLE_MS: '1000',
      FIXTURE_IDENTIFY_WINDOW_MS: '300',
      // 20 per 2 s for the fleet against the sandbox's 20 per 1 s: a margin of 2 for delivery delays.
      FIXTURE_REST_GLOBAL_LIMIT: String(GLOBAL_PER_SECOND),
      FIXTURE_REST_GLOBAL_WINDOW_MS: '2000',
      LOG_LEVEL: 'warn',
      FIXTURE_NAME: name,
    });
    bots = ['a', 'b', 'c'].map((name) => new BotProcess(name, env(name)));
    await Promise.all(bots.map((b) => b.waitFor(() => b.started() !== undefined, 'start', START_TIMEOUT)));
    const guild = sandbox.state.guildIds[0]!;
    const res = await fetch(`${sandbox.restUrl}/guilds/${guild}/channels`, { headers: { authorization: `Bot ${sandbox.botToken}` } });
    channelIds = ((await res.json()) as Array<{ id: string; type: number }>).filter((c) => c.type === 0).map((c) => c.id);
    expect(channelIds.length).toBeGreaterThan(0);
  }, START_TIMEOUT + 10_000);

  afterAll(async () => {
    await killAll();
    await sandbox?.close();
    await scope?.close();
  });

  /** Have each process send traffic; resolves with every process's outcomes. */
  async function rest(
    command: { method: string; route: string; params: Array<Record<string, string>>; count: number; concurrency: number; body?: unknown; bearer?: 'unique' },
    processes: BotProcess[] = bots,
    timeoutMs = 60_000,
  ): Promise<Outcomes[]> {
    const ids = processes.map((p) => {
      const id = nextId++;
      p.send({ id, op: 'rest', ...command });
      return id;
    });
    return Promise.all(
      processes.map(async (p, i) => {
        const done = (): Extract<Report, { ev: 'rest' }> | undefined =>
          p.reports.find((r): r is Extract<Report, { ev: 'rest' }> => r.ev === 'rest' && r.id === ids[i]);
        await p.waitFor(() => done() !== undefined, `REST command ${ids[i]}`, timeoutMs);
        return done()!.outcomes;
      }),
    );
  }

  it('hammering one route from three processes: the sandbox never sees more than the bucket\'s limit per window, and no 429', async () => {
    const channel = channelIds[0]!;
    const from = answers.length;
    const outcomes = await rest({
      method: 'POST',
      route: '/channels/{channel_id}/messages',
      params: [{ channel_id: channel }],
      body: { content: 'hammer' },
      count: 12,
      concurrency: 12,
    });
    expect(outcomes).toEqual(bots.map(() => ({ ok: 12, guard: 0, ratelimit: 0, api: 0, other: 0 })));
    const seen = answers.slice(from).filter((e) => e.bucket === 'messages.create');
    expect(seen).toHaveLength(36);
    // The sandbox answers 429 to anything beyond its window: none means every window held at most its limit.
    expect(seen.filter((e) => e.status === 429)).toEqual([]);
    expect(bots.flatMap((b) => b.reports.filter((r) => r.ev === 'rl'))).toEqual([]);
    // 36 requests at 10 per window need at least 3 full windows after the first.
    const times = seen.map((e) => e.at);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(3 * MESSAGES_WINDOW_MS);
  }, 60_000);

  it('the global limit holds for the three together, across buckets', async () => {
    const from = answers.length;
    const guilds = sandbox.state.guildIds;
    const outcomes = await rest({
      method: 'GET',
      route: '/guilds/{guild_id}',
      params: guilds.map((id) => ({ guild_id: id })),
      count: 10,
      concurrency: 10,
    });
    for (const o of outcomes) expect(o.ok).toBe(10);
    const seen = answers.slice(from);
    // Unshared, each process would send its 10 at once: 30 in the sandbox's first second, over its 20.
    expect(seen.filter((e) => e.status === 429)).toEqual([]);
    expect(seen).toHaveLength(30);
  }, 60_000);

  it('a 429 with retry_after served to one process holds the others back on that bucket', async () => {
    const channel = channelIds[1] ?? channelIds[0]!;
    const [a, b] = bots as [BotProcess, BotProcess];
    sandbox.restFaults.rateLimit({ bucket: 'messages.create', retryAfterMs: 2_000 });
    const from = answers.length;
    const rlBefore = a.reports.filter((r) => r.ev === 'rl').length;
    const first = rest({ method: 'POST', route: '/channels/{channel_id}/messages', params: [{ channel_id: channel }], body: { content: 'a' }, count: 1, concurrency: 1 }, [a]);
    await a.waitFor(() => a.reports.filter((r) => r.ev === 'rl').length > rlBefore, 'the 429', 20_000);
    const limited = answers.slice(from).find((e) => e.status === 429)!;
    expect(limited).toBeDefined();
    // b has not sent on this channel since: only the shared limits can hold it back.
    const second = rest({ method: 'POST', route: '/channels/{channel_id}/messages', params: [{ channel_id: channel }], body: { content: 'b' }, count: 1, concurrency: 1 }, [b]);
    expect(await first).toEqual([{ ok: 1, guard: 0, ratelimit: 0, api: 0, other: 0 }]);
    expect(await second).toEqual([{ ok: 1, guard: 0, ratelimit: 0, api: 0, other: 0 }]);
    const served = answers.slice(from).filter((e) => e.bucket === 'messages.create' && e.status === 200);
    expect(served).toHaveLength(2);
    // Both a's retry and b's request came after retry_after (5 ms for the clocks' millisecond rounding).
    for (const e of served) expect(e.at - limited.at).toBeGreaterThanOrEqual(2_000 - 5);
  }, 60_000);

  it('9,000 invalid requests spread over the three processes stop all three before the 10,000th', async () => {
    const from = answers.length;
    // 3,400 each (10,200 in all), every one with an unknown bearer token: 401.
    const outcomes = await rest(
      { method: 'GET', route: '/users/@me', params: [{}], count: 3_400, concurrency: 40, bearer: 'unique' },
      bots,
      240_000,
    );
    const invalid = answers.slice(from).filter((e) => e.status === 401).length;
    expect(invalid).toBeGreaterThanOrEqual(9_000);
    expect(invalid).toBeLessThan(10_000);
    // The budget stopped the fleet (a process may have sent its whole share before it ran out).
    expect(outcomes.reduce((n, o) => n + o.guard, 0), JSON.stringify(outcomes)).toBeGreaterThan(0);
    for (const o of outcomes) expect(o.other).toBe(0);
    // Every process is stopped now, whatever it sends.
    const after = await rest({ method: 'GET', route: '/gateway/bot', params: [{}], count: 1, concurrency: 1 });
    for (const o of after) expect(o.guard).toBe(1);
  }, 260_000);
});
