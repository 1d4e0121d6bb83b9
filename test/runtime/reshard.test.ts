/**
 * Live resharding in one process, through the Runtime against the sandbox: 2 -> 4 shards while members keep
 * joining and leaving. After the cutover the cache equals the sandbox's state, the plugin saw every member
 * event exactly once, the new shards identified within max_concurrency, the old sessions ended, and the
 * runtime never stopped. Triggers: the operator (Runtime.reshard and POST /reshard on the ops port), a
 * 4011 close, the periodic check of the recommended count.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig, type ConfigInput } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { main } from '../../src/cli.js';
import { Cutover, eventKey, receivingShard } from '../../src/gateway/cutover.js';
import type { MemberEvent } from '../fixtures/plugins/member-log/member-log.js';

const ROOT = resolve(import.meta.dirname, '../..');

const open: Array<{ stop?: () => Promise<void>; close?: () => Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await (o.stop?.() ?? o.close?.());
});

async function memberLog(): Promise<MemberEvent[]> {
  const mod = (await import('../fixtures/plugins/member-log/member-log.js')) as { memberEvents: MemberEvent[] };
  return mod.memberEvents;
}

async function setup(overrides: ConfigInput = {}, guilds = 8): Promise<{ sandbox: Sandbox; runtime: Runtime }> {
  const sandbox = await createSandbox({
    seed: { guilds, membersPerGuild: 3, seed: 21 },
    gateway: { recommendedShards: 2, maxConcurrency: 2, identifyWindowMs: 100, heartbeatIntervalMs: 5_000 },
  });
  open.push(sandbox);
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: {
      plugins: { dirs: ['test/fixtures/plugins/member-log'] },
      // With presences, GUILD_CREATE lists every member of a small guild: the cache can hold the sandbox's state.
      intents: ['GUILDS', 'GUILD_MEMBERS', 'GUILD_PRESENCES'],
      http: { enabled: false },
      commands: { sync: false },
      shards: { reshard: { settleMs: 200, dedupeWindowMs: 5_000, on4011: true, checkMs: 0, warmTimeoutMs: 60_000 } },
      ...overrides,
    },
  });
  const runtime = new Runtime({
    config,
    sandbox,
    cwd: ROOT,
    log: createLogger({ level: 'silent', pretty: false }),
    gateway: { identifyWindowMs: 100, timing: { invalidSessionDelayMs: () => 60, closeGraceMs: 200 } },
  });
  open.push(runtime);
  await runtime.start();
  return { sandbox, runtime };
}

/** Members join (and some leave again) every `everyMs` in every guild in turn, until stopped (bounded). */
function churn(sandbox: Sandbox, everyMs: number): { added: string[]; removed: string[]; stop: () => Promise<void> } {
  const added: string[] = [];
  const removed: string[] = [];
  const guilds = sandbox.state.guildIds;
  let running = true;
  const loop = (async () => {
    for (let i = 0; running && i < 3_000; i++) {
      const guildId = guilds[i % guilds.length]!;
      added.push(`${guildId}/${sandbox.state.addMember(guildId)}`);
      if (i % 4 === 3) {
        const [g, u] = added[i - 2]!.split('/') as [string, string];
        sandbox.state.removeMember(g, u);
        removed.push(`${g}/${u}`);
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    added,
    removed,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function expectCacheMatchesSandbox(runtime: Runtime, sandbox: Sandbox): Promise<void> {
  for (const guildId of sandbox.state.guildIds) {
    const page = await runtime.cache.getMembers(guildId, { limit: 1000 });
    const cached = page.members.map((m) => m.userId).sort();
    expect(cached, `members of guild ${guildId}`).toEqual([...sandbox.state.memberIds(guildId)].sort());
  }
}

describe('live resharding, one process', () => {
  it('2 -> 4 shards under a stream of member events: exactly once to the plugin, the cache equals the sandbox, no restart', async () => {
    const { sandbox, runtime } = await setup();
    const log = await memberLog();
    log.length = 0;
    const identifies: Array<{ shard: [number, number]; at: number }> = [];
    const closes: Array<{ code: number; by: string; shardId: number | null }> = [];
    const rejected: string[] = [];
    sandbox.gatewayEvents.on('identify', (e) => identifies.push({ shard: e.shard, at: e.at }));
    sandbox.gatewayEvents.on('close', (e) => closes.push({ code: e.code, by: e.by, shardId: e.shardId }));
    sandbox.gatewayEvents.on('identifyRejected', (e) => rejected.push(e.reason));
    const oldManager = runtime.gateway;

    const stream = churn(sandbox, 10);
    await new Promise((r) => setTimeout(r, 300));
    sandbox.setRecommendedShards(4);
    const plan = await runtime.reshard();
    expect(plan).toMatchObject({ from: 2, to: 4, reason: 'operator' });
    const outcome = await runtime.resharder!.settled();
    expect(outcome?.plan.id).toBe(plan!.id);
    await new Promise((r) => setTimeout(r, 400)); // members keep coming on the new set
    await stream.stop();

    expect(runtime.state).toBe('running');
    expect(runtime.gateway).not.toBe(oldManager);
    expect(runtime.gateway.shardCount).toBe(4);
    expect(runtime.gateway.status().map((s) => s.status)).toEqual(['ready', 'ready', 'ready', 'ready']);
    // The new set identified as [k, 4], one per max_concurrency bucket per window, never refused.
    const newIdentifies = identifies.filter((i) => i.shard[1] === 4);
    expect(newIdentifies.map((i) => i.shard[0]).sort()).toEqual([0, 1, 2, 3]);
    expect(rejected).toEqual([]);
    for (const bucket of [0, 1]) {
      const times = newIdentifies.filter((i) => i.shard[0] % 2 === bucket).map((i) => i.at).sort((a, b) => a - b);
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(100);
    }
    // The old sessions ended (closed by the client with 1000).
    expect(closes.filter((c) => c.by === 'client' && c.code === 1000).length).toBeGreaterThanOrEqual(2);
    // The overlap was real: the new set received events the old one had delivered, and skipped them.
    expect(outcome!.replay.reduce((n, r) => n + r.skipped, 0)).toBeGreaterThan(0);

    const key = (e: MemberEvent): string => `${e.guildId}/${e.userId}`;
    await until(
      () => stream.added.every((k) => log.some((e) => e.event === 'add' && key(e) === k)) && log.filter((e) => e.event === 'remove').length >= stream.removed.length,
      'every member event at the plugin',
    );
    const adds = log.filter((e) => e.event === 'add').map(key);
    const removes = log.filter((e) => e.event === 'remove').map(key);
    expect(adds.length).toBe(stream.added.length);
    expect(new Set(adds).size).toBe(adds.length);
    expect(adds.sort()).toEqual([...stream.added].sort());
    expect(removes.sort()).toEqual([...stream.removed].sort());
    await expectCacheMatchesSandbox(runtime, sandbox);
  }, 60_000);

  it('a shard closed with 4011 starts a reshard to the recommended count; the other shard serves meanwhile', async () => {
    const { sandbox, runtime } = await setup();
    sandbox.setRecommendedShards(4);
    sandbox.faults.close(1, 4011);
    await until(() => runtime.resharder?.underWay !== null || runtime.gateway.shardCount === 4, 'a reshard after the 4011');
    await runtime.resharder!.settled();
    expect(runtime.gateway.shardCount).toBe(4);
    expect(runtime.gateway.status().every((s) => s.status === 'ready')).toBe(true);
    // Members of every guild reach the cache on the new set.
    const guildId = sandbox.state.guildIds[1]!;
    const userId = sandbox.state.addMember(guildId);
    await until(async () => (await runtime.cache.getMember(guildId, userId)) !== undefined, 'the new member in the cache');
    await expectCacheMatchesSandbox(runtime, sandbox);
  }, 60_000);

  it('the periodic check reshards when the recommended count grows, and an operator asks with gatehouse reshard (POST /reshard on the ops port)', async () => {
    const { sandbox, runtime } = await setup({
      http: { enabled: true, host: '127.0.0.1', port: 0 },
      shards: { reshard: { settleMs: 100, dedupeWindowMs: 1_000, on4011: true, checkMs: 200, warmTimeoutMs: 60_000 } },
    });
    sandbox.setRecommendedShards(3);
    await until(() => runtime.gateway.shardCount === 3 && runtime.resharder?.underWay === null, 'the periodic check to reshard to 3', 20_000);
    const { host, port } = runtime.opsAddress!;
    const bad = await fetch(`http://${host}:${port}/reshard?shards=zero`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect((await fetch(`http://${host}:${port}/reshard`)).status).toBe(405);
    // The operator's command: gatehouse reshard --shards 5 --url <ops address>.
    const out: string[] = [];
    const code = await main(['reshard', '--shards', '5', '--url', `http://${host}:${port}`], { out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/resharding from 3 to 5 shards/);
    expect(await main(['reshard', '--shards', 'many'], { out: () => undefined, err: () => undefined })).toBe(2);
    await until(() => runtime.gateway.shardCount === 5 && runtime.resharder?.underWay === null, 'the operator\'s reshard to 5', 20_000);
    await expectCacheMatchesSandbox(runtime, sandbox);
  }, 60_000);
});

describe('cutover bookkeeping', () => {
  it('routes events to the new shard of their guild, and skips exactly what the old set delivered, once each', () => {
    expect(receivingShard('GUILD_MEMBER_ADD', { guild_id: '4194304' }, 4)).toBe(1); // (id >> 22) % 4
    expect(receivingShard('GUILD_CREATE', { id: '8388608' }, 4)).toBe(2);
    expect(receivingShard('USER_UPDATE', { id: '8388608' }, 4)).toBe(0);
    const delivered: string[] = [];
    const ledger: string[] = [];
    const cut = new Cutover({
      from: 1,
      to: 2,
      deliver: (_shard, t, d) => delivered.push(`${t}:${(d as { n: number }).n}`),
      recordDelivered: (_k, key) => ledger.push(key),
      onWarm: () => undefined,
      onOverflow: () => undefined,
    });
    const ev = (n: number) => ({ guild_id: '4194304', n });
    // The same event twice in a row (n=2 twice) really happened twice: both copies count.
    cut.fromNew(1, 'READY', { guilds: [] }, 1);
    for (const n of [1, 2, 2, 3, 4]) cut.fromNew(1, 'X', ev(n), n);
    for (const n of [0, 1, 2]) cut.fromOld(0, 'X', ev(n), n);
    cut.stopOld();
    cut.fromOld(0, 'X', ev(2), 9); // the second n=2 on the old set came after it stopped: dropped
    expect(delivered).toEqual(['X:0', 'X:1', 'X:2']);
    const result = cut.switch(1, ledger, new Set());
    expect(result).toEqual({ skipped: 2, delivered: 3 });
    expect(delivered).toEqual(['X:0', 'X:1', 'X:2', 'X:2', 'X:3', 'X:4']);
    // Live now: an old event the new shard receives late is still skipped; a new one is delivered.
    ledger.length = 0;
    expect(eventKey('X', ev(5))).toBe(eventKey('X', ev(5)));
    cut.fromNew(1, 'X', ev(5), 6);
    expect(delivered.at(-1)).toBe('X:5');
  });
});
