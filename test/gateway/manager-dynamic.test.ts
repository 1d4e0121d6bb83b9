/**
 * ShardManager.addShard / removeShard: shards joining and leaving a running manager (cluster mode moves
 * shards between processes with these), against the sandbox over real sockets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/contract.js';
import { INTENT_BITS } from '../../src/api/intents.js';
import { shardForGuild } from '../../src/api/snowflake.js';
import { ShardManager, type SessionStore } from '../../src/gateway/manager.js';
import type { SessionState } from '../../src/gateway/shard.js';
import { GatewayError } from '../../src/gateway/errors.js';
import { DispatchRecorder, eventually, gatewayBotPort } from './helpers/sandbox.js';

const INTENTS = INTENT_BITS.GUILDS | INTENT_BITS.GUILD_MEMBERS;

class MemoryStore implements SessionStore {
  readonly map = new Map<number, SessionState | null>();
  readonly saves: number[] = [];
  load(shardId: number): SessionState | null {
    return this.map.get(shardId) ?? null;
  }
  save(shardId: number, state: SessionState | null): void {
    this.saves.push(shardId);
    this.map.set(shardId, state);
  }
}

describe('ShardManager: adding and removing shards at run time', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function sandbox(): Promise<Sandbox> {
    const s = await createSandbox({
      seed: { guilds: 6, membersPerGuild: 2, seed: 3 },
      gateway: { heartbeatIntervalMs: 1000, heartbeatTimeoutMs: 10_000, identifyWindowMs: 50, recommendedShards: 3 },
    });
    cleanups.push(() => s.close());
    return s;
  }

  function manager(s: Sandbox, options: Partial<ConstructorParameters<typeof ShardManager>[0]> = {}): ShardManager {
    const m = new ShardManager({
      token: s.botToken,
      intents: INTENTS,
      gatewayBot: gatewayBotPort(s),
      identifyWindowMs: 50,
      timing: { closeGraceMs: 300 },
      ...options,
    });
    cleanups.push(() => m.close());
    return m;
  }

  it('starts with no shard, adds one (identify), and ignores a second add of the same id', async () => {
    const s = await sandbox();
    const identified: number[] = [];
    s.gatewayEvents.on('identify', (e) => identified.push(e.shard[0]));
    const m = manager(s, { shardIds: [] });
    await m.start();
    expect(m.shardIds).toEqual([]);
    expect(m.shardCount).toBe(3);
    await m.addShard(2);
    await m.addShard(2);
    expect(m.shardIds).toEqual([2]);
    expect(m.status().map((x) => [x.id, x.status])).toEqual([[2, 'ready']]);
    expect(identified).toEqual([2]);
  });

  it('hands a shard from one manager to another: removeShard saves the session, addShard RESUMEs it, nothing missed', async () => {
    const s = await sandbox();
    const store = new MemoryStore();
    const first = manager(s, { sessionStore: store, shardIds: [0, 1] });
    await first.start();
    const removed = await first.removeShard(1);
    expect(removed).not.toBeNull();
    expect(store.map.get(1)).toEqual(removed);
    expect(first.shardIds).toEqual([0]);
    expect(await first.removeShard(1)).toBeNull();

    const guildId = s.state.guildIds.find((g) => shardForGuild(g, 3) === 1)!;
    const missed = s.state.addMember(guildId); // while nobody runs shard 1

    const identifies = s.counters.identifies;
    const recorder = new DispatchRecorder();
    const second = manager(s, { sessionStore: store, shardIds: [], onDispatch: recorder.hook });
    const resumed: number[] = [];
    second.on('ready', (id, wasResume) => wasResume && resumed.push(id));
    await second.start();
    await second.addShard(1);
    expect(resumed).toEqual([1]);
    expect(s.counters.identifies).toBe(identifies);
    await recorder.waitFor(() => recorder.memberAdds(1).includes(missed), 'the member added during the handoff');
    expect(recorder.of(1)[0]!.s).toBe(removed!.sequence + 1);
  });

  it('removeShard with persist: false leaves the store alone and keeps the session resumable on the service', async () => {
    const s = await sandbox();
    const store = new MemoryStore();
    const m = manager(s, { sessionStore: store, shardIds: [0] });
    await m.start();
    const codes: number[] = [];
    s.gatewayEvents.on('close', (e) => codes.push(e.code));
    const state = await m.removeShard(0, { persist: false });
    expect(state).not.toBeNull();
    expect(store.saves).toEqual([]);
    await eventually(() => codes.length === 1, 'the socket closed');
    expect(codes[0]).not.toBe(1000);
  });

  it('a removeShard while addShard is still loading the session cancels the add: the shard never connects', async () => {
    const s = await sandbox();
    let releaseLoad!: () => void;
    const loading = new Promise<void>((resolve) => (releaseLoad = resolve));
    const store: SessionStore = {
      load: async () => {
        await loading;
        return null;
      },
      save: () => undefined,
    };
    const m = manager(s, { sessionStore: store, shardIds: [] });
    await m.start();
    let connects = 0;
    s.gatewayEvents.on('connection', () => connects++);
    const adding = m.addShard(1).then(
      () => 'added',
      (e: unknown) => e,
    );
    // Cluster mode: the lease was lost (fenced) before the shard existed here.
    expect(await m.removeShard(1, { persist: false })).toBeNull();
    releaseLoad();
    const outcome = await adding;
    expect(outcome).toBeInstanceOf(GatewayError);
    expect((outcome as Error).message).toMatch(/removed/);
    expect(m.shardIds).toEqual([]);
    expect(m.shard(1)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 100));
    expect(connects).toBe(0);
    expect(s.counters.identifies).toBe(0);
  });

  it('rejects addShard before start, outside the shard range, and while closing', async () => {
    const s = await sandbox();
    const m = manager(s, { shardIds: [] });
    await expect(m.addShard(0)).rejects.toBeInstanceOf(GatewayError);
    await m.start();
    await expect(m.addShard(3)).rejects.toThrow(/outside 0\.\.2/);
    const closing = m.close();
    await expect(m.addShard(0)).rejects.toThrow(/closing/);
    await closing;
  });

  it('the removed shard of an addShard whose start failed is gone from the manager', async () => {
    const s = await createSandbox({
      gateway: { heartbeatIntervalMs: 1000, recommendedShards: 2, allowedIntents: INTENT_BITS.GUILDS },
    });
    cleanups.push(() => s.close());
    const m = manager(s, { shardIds: [] });
    await m.start();
    await expect(m.addShard(1)).rejects.toThrow(/Disallowed intent/);
    expect(m.shardIds).toEqual([]);
  });
});
