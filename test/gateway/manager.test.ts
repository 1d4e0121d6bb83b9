import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/contract.js';
import { INTENT_BITS } from '../../src/api/intents.js';
import { shardForGuild } from '../../src/api/snowflake.js';
import { ShardManager, type SessionStore } from '../../src/gateway/manager.js';
import type { SessionState } from '../../src/gateway/shard.js';
import {
  GatewayError,
  GatewayFatalCloseError,
  IdentifyBudgetExhaustedError,
  SessionStartLimitError,
} from '../../src/gateway/errors.js';
import { LocalIdentifyBudget } from '../../src/gateway/identify-budget.js';
import { DispatchRecorder, eventually, gatewayBotPort, sleep } from './helpers/sandbox.js';
import { expectConsecutivePerSession } from './helpers/acceptance-suite.js';

const INTENTS = INTENT_BITS.GUILDS | INTENT_BITS.GUILD_MEMBERS;

class MemoryStore implements SessionStore {
  readonly map = new Map<number, SessionState | null>();
  load(shardId: number): SessionState | null {
    return this.map.get(shardId) ?? null;
  }
  save(shardId: number, state: SessionState | null): void {
    this.map.set(shardId, state);
  }
}

describe('ShardManager against the sandbox', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function sandboxWith(options: SandboxOptions): Promise<Sandbox> {
    const sandbox = await createSandbox({
      ...options,
      gateway: { heartbeatIntervalMs: 1000, heartbeatTimeoutMs: 10_000, identifyWindowMs: 50, ...options.gateway },
    });
    cleanups.push(() => sandbox.close());
    return sandbox;
  }

  function manager(sandbox: Sandbox, options: Partial<ConstructorParameters<typeof ShardManager>[0]> = {}): ShardManager {
    const m = new ShardManager({
      token: sandbox.botToken,
      intents: INTENTS,
      gatewayBot: gatewayBotPort(sandbox),
      identifyWindowMs: 50,
      timing: { closeGraceMs: 300 },
      ...options,
    });
    cleanups.push(() => m.close());
    return m;
  }

  it('refuses to start, before connecting, when session_start_limit.remaining is below the shards to start', async () => {
    const sandbox = await sandboxWith({ gateway: { sessionStartLimit: 3, recommendedShards: 4 } });
    let connections = 0;
    sandbox.gatewayEvents.on('connection', () => connections++);
    const error = await manager(sandbox).start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionStartLimitError);
    expect((error as SessionStartLimitError).needed).toBe(4);
    expect((error as SessionStartLimitError).remaining).toBe(3);
    expect((error as Error).message).toMatch(/4 shard\(s\) need to identify but session_start_limit.remaining is 3/);
    expect(connections).toBe(0);

    // Three of the four shards fit the budget.
    const some = manager(sandbox, { shardIds: [0, 2, 3] });
    await some.start();
    expect(some.shardIds).toEqual([0, 2, 3]);
  });

  it('keeps the session budget through READY -> op 9 false loops: backs off exponentially, stops before it runs out', async () => {
    const sandbox = await sandboxWith({ gateway: { sessionStartLimit: 8, recommendedShards: 1 } });
    const identifiedAt: number[] = [];
    const closeCodes: number[] = [];
    sandbox.gatewayEvents.on('identify', (e) => identifiedAt.push(e.at));
    sandbox.gatewayEvents.on('close', (e) => closeCodes.push(e.code));
    const port = gatewayBotPort(sandbox);
    const m = manager(sandbox, {
      identifyBudget: new LocalIdentifyBudget({ reserve: 3, refresh: async () => (await port.getGatewayBot()).session_start_limit }),
      timing: { closeGraceMs: 300, invalidSessionDelayMs: () => 100 },
    });
    // Every new session is ended by the service right after READY.
    m.on('ready', (shardId, resumed) => {
      if (!resumed) sandbox.faults.invalidateSession(shardId, false);
    });
    const stopped = new Promise<Error | null>((resolve) => m.on('stopped', (_id, error) => resolve(error)));
    await m.start();
    const error = await Promise.race([stopped, sleep(20_000).then(() => new Error('no fatal stop within 20 s'))]);

    expect(error).toBeInstanceOf(IdentifyBudgetExhaustedError);
    expect((error as IdentifyBudgetExhaustedError).remaining).toBe(3);
    expect((error as Error).message).toMatch(/only 3 of today's session starts .* 3 are kept in reserve; the budget resets in/);
    // 8 - 3 in reserve: five sessions started, the service never had to refuse one (no 4004, token intact).
    expect(identifiedAt).toHaveLength(5);
    expect((await port.getGatewayBot()).session_start_limit.remaining).toBe(3);
    expect(closeCodes).not.toContain(4004);
    // Each identify after an ended session waited at least twice as long as the one before: 100, 200, 400, 800.
    for (let i = 1; i < identifiedAt.length; i++) {
      expect(identifiedAt[i]! - identifiedAt[i - 1]!, `gap before identify ${i + 1}`).toBeGreaterThanOrEqual(100 * 2 ** (i - 1));
    }
    expect(m.status()[0]!.status).toBe('stopped');
  });

  it('routes guilds to shards, emits typed events per shard, and reports status and latency', async () => {
    const sandbox = await sandboxWith({ seed: { guilds: 9, membersPerGuild: 2, seed: 11 }, gateway: { recommendedShards: 3, heartbeatIntervalMs: 300 } });
    const recorder = new DispatchRecorder();
    const m = manager(sandbox, { onDispatch: recorder.hook });
    const creates: Array<[number, string]> = [];
    m.on('GUILD_CREATE', (shardId, guild) => creates.push([shardId, guild.id]));
    const raw: string[] = [];
    m.on('dispatch', (_shardId, t) => raw.push(t));
    await m.start();
    expect(m.shardCount).toBe(3);
    await eventually(() => creates.length === 9, 'nine GUILD_CREATE');
    for (const [shardId, guildId] of creates) {
      expect(shardId).toBe(shardForGuild(guildId, 3));
      expect(m.shardIdForGuild(guildId)).toBe(shardId);
      expect(m.shardForGuild(guildId)!.id).toBe(shardId);
    }
    for (const id of [0, 1, 2]) {
      const expected = sandbox.state.guildIds.filter((g) => shardForGuild(g, 3) === id).length;
      expect(creates.filter(([s]) => s === id).length).toBe(expected);
    }

    const adds: Array<[number, string]> = [];
    m.on('GUILD_MEMBER_ADD', (shardId, member) => adds.push([shardId, member.guild_id]));
    const guildId = sandbox.state.guildIds[4]!;
    sandbox.state.addMember(guildId);
    await eventually(() => adds.length === 1, 'GUILD_MEMBER_ADD');
    expect(adds[0]).toEqual([m.shardIdForGuild(guildId), guildId]);

    // The hook and the raw event see the same dispatches in the same order.
    expect(recorder.all.map((r) => r.t)).toEqual(raw);
    for (const id of m.shardIds) expectConsecutivePerSession(recorder.of(id));

    await eventually(() => m.status().every((s) => s.latencyMs >= 0), 'a heartbeat ACK on every shard');
    for (const s of m.status()) {
      expect(s.status).toBe('ready');
      expect(s.sessionId).toMatch(/.+/);
      expect(s.sequence).toBeGreaterThan(0);
    }
  });

  it('runs only its subset of shard ids and refuses member requests for guilds of other processes', async () => {
    const sandbox = await sandboxWith({ seed: { guilds: 6, membersPerGuild: 3, seed: 5 } });
    const identified: Array<[number, number]> = [];
    sandbox.gatewayEvents.on('identify', (e) => identified.push(e.shard));
    const m = manager(sandbox, { totalShards: 3, shardIds: [1] });
    await m.start();
    expect(identified).toEqual([[1, 3]]);
    const mine = sandbox.state.guildIds.find((g) => shardForGuild(g, 3) === 1)!;
    const other = sandbox.state.guildIds.find((g) => shardForGuild(g, 3) !== 1)!;
    const result = await m.requestMembers({ guildId: mine, userIds: sandbox.state.memberIds(mine).slice(0, 2) });
    expect(result.members.length).toBe(2);
    const error = await m.requestMembers({ guildId: other }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as Error).message).toMatch(/which this process does not run/);
  });

  it('fails start() with the fatal error of a shard, closes the others, and retries nothing', async () => {
    const sandbox = await sandboxWith({ gateway: { recommendedShards: 2, allowedIntents: INTENT_BITS.GUILDS } });
    let connections = 0;
    sandbox.gatewayEvents.on('connection', () => connections++);
    const m = manager(sandbox);
    const stopped: number[] = [];
    m.on('stopped', (id, error) => error && stopped.push(id));
    const error = await m.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayFatalCloseError);
    expect((error as GatewayFatalCloseError).code).toBe(4014);
    expect((error as Error).message).toMatch(/Disallowed intent/);
    await sleep(300);
    expect(connections).toBe(2);
    expect(m.status().every((s) => s.status === 'stopped' || s.status === 'closed')).toBe(true);
  });

  it('validates the shard selection', async () => {
    const sandbox = await sandboxWith({});
    await expect(manager(sandbox, { totalShards: 2, shardIds: [2] }).start()).rejects.toThrow(/outside 0\.\.1/);
    expect(() => new ShardManager({ token: 't', intents: 1, gatewayBot: gatewayBotPort(sandbox), totalShards: 0 })).toThrow(
      /totalShards/,
    );
  });

  it('a resumable shutdown saves sessions that a later manager RESUMEs, receiving what happened meanwhile', async () => {
    const sandbox = await sandboxWith({ seed: { guilds: 4, membersPerGuild: 2, seed: 9 }, gateway: { recommendedShards: 2 } });
    const store = new MemoryStore();
    const first = manager(sandbox, { sessionStore: store });
    await first.start();
    const guildsOn = (id: number) => sandbox.state.guildIds.filter((g) => shardForGuild(g, 2) === id).length;
    await eventually(
      () => first.status().every((s) => s.sequence >= 1 + guildsOn(s.id)),
      'READY and GUILD_CREATEs on both shards',
    );
    const closeCodes: number[] = [];
    sandbox.gatewayEvents.on('close', (e) => closeCodes.push(e.code));
    const saved = await first.close({ resumable: true });
    expect([...saved.keys()].sort()).toEqual([0, 1]);
    expect(store.map.get(0)).toEqual(saved.get(0));
    await eventually(() => closeCodes.length === 2, 'both sockets closed');
    expect(closeCodes.every((c) => c !== 1000 && c !== 1001)).toBe(true);

    const guildId = sandbox.state.guildIds[0]!;
    const shardId = shardForGuild(guildId, 2);
    const missed = sandbox.state.addMember(guildId); // happens while no process is connected

    const identifiesBefore = sandbox.counters.identifies;
    const recorder = new DispatchRecorder();
    const second = manager(sandbox, { sessionStore: store, onDispatch: recorder.hook });
    const resumed: number[] = [];
    second.on('ready', (id, wasResume) => wasResume && resumed.push(id));
    await second.start();
    expect(resumed.sort()).toEqual([0, 1]);
    expect(sandbox.counters.identifies).toBe(identifiesBefore);
    await recorder.waitFor(() => recorder.memberAdds().includes(missed), 'the member added while offline');
    const mine = recorder.of(shardId);
    expect(mine[0]!.s).toBe(saved.get(shardId)!.sequence + 1);
    for (let i = 1; i < mine.length; i++) expect(mine[i]!.s).toBe(mine[i - 1]!.s + 1);

    // A normal close ends the sessions and clears the store.
    await second.close();
    expect(store.map.get(0)).toBeNull();
    expect(store.map.get(1)).toBeNull();
  });
});
