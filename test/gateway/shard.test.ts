import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/contract.js';
import { INTENT_BITS } from '../../src/api/intents.js';
import { shardForGuild } from '../../src/api/snowflake.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Shard, type ShardOptions } from '../../src/gateway/shard.js';
import { LocalIdentifyQueue } from '../../src/gateway/identify-queue.js';
import {
  GatewayPayloadError,
  MemberRequestRateLimitedError,
  MemberRequestTimeoutError,
  SendQueueFullError,
  ShardClosedError,
} from '../../src/gateway/errors.js';
import { DispatchRecorder, eventually } from './helpers/sandbox.js';
import { expectConsecutivePerSession } from './helpers/acceptance-suite.js';

const INTENTS = INTENT_BITS.GUILDS | INTENT_BITS.GUILD_MEMBERS;

describe('Shard against the sandbox', () => {
  let sandbox: Sandbox;
  let identifyQueue: LocalIdentifyQueue;
  let shards: Shard[] = [];

  beforeAll(async () => {
    sandbox = await createSandbox({
      seed: { guilds: 2, membersPerGuild: 1500, seed: 21 },
      gateway: { heartbeatIntervalMs: 1000, heartbeatTimeoutMs: 10_000, identifyWindowMs: 50, memberRequestWindowMs: 2000, sendLimit: { count: 30, windowMs: 3000 } },
    });
    identifyQueue = new LocalIdentifyQueue({ windowMs: 50 });
  });
  afterEach(async () => {
    await Promise.all(shards.map((s) => s.close()));
    shards = [];
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  function newShard(recorder: DispatchRecorder, overrides: Partial<ShardOptions> = {}): Shard {
    const shard = new Shard({
      id: 0,
      shardCount: 1,
      token: sandbox.botToken,
      intents: INTENTS,
      gatewayUrl: sandbox.gatewayUrl,
      identifyQueue,
      // The service counts arrivals: a loaded test machine can bunch them, hence the wide margin.
      sendLimit: { count: 30, windowMs: 3000, marginMs: 500 },
      timing: { invalidSessionDelayMs: () => 20, closeGraceMs: 300, reconnectBaseMs: 20, reconnectMaxMs: 200 },
      onDispatch: recorder.hook,
      ...overrides,
    });
    shards.push(shard);
    return shard;
  }

  it('assembles a member list that spans several chunks', async () => {
    const recorder = new DispatchRecorder();
    const shard = newShard(recorder);
    await shard.start();
    const guildId = sandbox.state.guildIds[0]!;
    const result = await shard.requestMembers({ guildId });
    expect(result.chunkCount).toBe(2);
    expect(result.members.length).toBe(1501);
    expect(new Set(result.members.map((m) => m.user!.id))).toEqual(new Set(sandbox.state.memberIds(guildId)));
    expect(recorder.all.filter((r) => r.t === 'GUILD_MEMBERS_CHUNK').length).toBe(2);
  });

  it('rejects with a typed error on RATE_LIMITED when told not to retry; foreign chunks still arrive as events', async () => {
    const recorder = new DispatchRecorder();
    const shard = newShard(recorder);
    const chunkEvents: Array<string | undefined> = [];
    shard.events.on('GUILD_MEMBERS_CHUNK', (_id, chunk) => chunkEvents.push(chunk.nonce));
    await shard.start();
    const guildId = sandbox.state.guildIds[1]!;
    // Someone else's raw op 8 (nonce unknown to the assembler) opens the guild's all-members window.
    await shard.send(8, { guild_id: guildId, query: '', limit: 0, nonce: 'foreign' });
    await eventually(() => chunkEvents.filter((n) => n === 'foreign').length === 2, 'the foreign chunks as events');
    const error = await shard.requestMembers({ guildId, retryOnRateLimit: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemberRequestRateLimitedError);
    expect((error as MemberRequestRateLimitedError).guildId).toBe(guildId);
    expect((error as MemberRequestRateLimitedError).retryAfter).toBeGreaterThan(0);
    expect(recorder.all.filter((r) => r.t === 'RATE_LIMITED').length).toBe(1);
  });

  it('times out a request nobody answers', async () => {
    const recorder = new DispatchRecorder();
    // Two shards in total: requests for a guild of the other shard get no answer from the service.
    const shard = newShard(recorder, { shardCount: 2 });
    await shard.start();
    const other = sandbox.state.guildIds.find((g) => shardForGuild(g, 2) !== 0);
    const guildId = other ?? '1'.padEnd(18, '0');
    const error = await shard.requestMembers({ guildId, userIds: ['1'], timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemberRequestTimeoutError);
  });

  it('a member request made while the shard is not READY times out at its deadline and is never sent', async () => {
    const recorder = new DispatchRecorder();
    // After op 9 false the shard waits 3 s before identifying again: not READY for that long.
    const shard = newShard(recorder, {
      timing: { invalidSessionDelayMs: () => 3_000, closeGraceMs: 300, reconnectBaseMs: 20, reconnectMaxMs: 200 },
    });
    await shard.start();
    const guildId = sandbox.state.guildIds[0]!;
    const userId = sandbox.state.memberIds(guildId)[0]!;
    sandbox.faults.invalidateSession(0, false);
    await eventually(() => shard.status !== 'ready', 'the shard to leave READY');
    const asked = performance.now();
    const error = await shard.requestMembers({ guildId, userIds: [userId], timeoutMs: 300, nonce: 'late-one' }).catch((e: unknown) => e);
    const tookMs = performance.now() - asked;
    expect(error).toBeInstanceOf(MemberRequestTimeoutError);
    expect((error as MemberRequestTimeoutError).neverSent).toBe(true);
    // Its deadline, not the 3 s until the shard is READY again (plus the old per-chunk timer on top).
    expect(tookMs).toBeLessThan(2_500);
    expect(shard.queuedSends).toBe(0);
    // Back to READY: the withdrawn request is not sent late, so no chunk ever answers it.
    await eventually(() => shard.status === 'ready', 'READY again', 10_000);
    const answer = await shard.requestMembers({ guildId, userIds: [userId], nonce: 'after' });
    expect(answer.members.map((m) => m.user!.id)).toEqual([userId]);
    const nonces = recorder.all.filter((r) => r.t === 'GUILD_MEMBERS_CHUNK').map((r) => (r.d as { nonce?: string }).nonce);
    expect(nonces).toEqual(['after']);
  });

  it('bounds its send queue while not READY: one over the bound is refused at once with a typed error', async () => {
    const shard = newShard(new DispatchRecorder(), { maxQueuedSends: 3 });
    // Never started: nothing can be sent, everything queues.
    const queued = [1, 2, 3].map((i) => shard.send(3, { since: null, activities: [], status: 'online', afk: i === 2 }).catch((e: unknown) => e));
    const refused = await shard.send(3, { since: null, activities: [], status: 'idle', afk: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SendQueueFullError);
    expect((refused as SendQueueFullError).maxQueued).toBe(3);
    expect((refused as Error).message).toMatch(/Shard 0's send queue is full \(3 payloads/);
    expect(shard.queuedSends).toBe(3);
    // A member request is refused the same way instead of waiting forever.
    const guildId = sandbox.state.guildIds[0]!;
    await expect(shard.requestMembers({ guildId, userIds: ['1'], timeoutMs: 60_000 })).rejects.toBeInstanceOf(SendQueueFullError);
    await shard.close();
    for (const outcome of await Promise.all(queued)) expect(outcome).toBeInstanceOf(ShardClosedError);
  });

  it('keeps under the service send limit with bursts of requests, heartbeats included', async () => {
    const recorder = new DispatchRecorder();
    const shard = newShard(recorder);
    const closes: number[] = [];
    const onClose = (e: { code: number }) => closes.push(e.code);
    sandbox.gatewayEvents.on('close', onClose);
    try {
      await shard.start();
      const guildId = sandbox.state.guildIds[0]!;
      const ids = sandbox.state.memberIds(guildId);
      const requests = Array.from({ length: 40 }, (_, i) => shard.requestMembers({ guildId, userIds: [ids[i]!] }));
      const results = await Promise.all(requests);
      expect(results.map((r) => r.members[0]!.user!.id)).toEqual(ids.slice(0, 40));
      expect(closes).toEqual([]);
      expect(shard.status).toBe('ready');
    } finally {
      sandbox.gatewayEvents.off('close', onClose);
    }
  });

  it('refuses payloads over 4096 bytes without touching the connection', async () => {
    const shard = newShard(new DispatchRecorder());
    await shard.start();
    const error = await shard.send(3, { since: null, activities: [{ name: 'x'.repeat(5000), type: 0 }], status: 'online', afk: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayPayloadError);
    expect(shard.status).toBe('ready');
  });

  it('refuses a saved session whose seq no dispatch could carry', () => {
    for (const sequence of [1e300, -2, 2.5]) {
      expect(() => newShard(new DispatchRecorder(), { session: { sessionId: 's', sequence, resumeGatewayUrl: 'ws://127.0.0.1:9/x' } }), String(sequence)).toThrow(TypeError);
    }
  });

  it('falls back to the main URL when resume_gateway_url is unreachable, then identifies when resuming there fails', async () => {
    const recorder = new DispatchRecorder();
    const first = newShard(recorder);
    await first.start();
    const saved = (await first.close({ resumable: true }))!;
    expect(saved.sessionId).toMatch(/.+/);
    const urls: string[] = [];
    const second = newShard(recorder, {
      session: { ...saved, resumeGatewayUrl: 'ws://127.0.0.1:9/unreachable' },
    });
    second.events.on('debug', (_id, message) => {
      const m = /connecting to (\S+)/.exec(message);
      if (m) urls.push(m[1]!);
    });
    await second.start();
    expect(urls.slice(0, 2).every((u) => u.startsWith('ws://127.0.0.1:9/'))).toBe(true);
    expect(urls.slice(2).every((u) => u.startsWith(sandbox.gatewayUrl.replace(/\/?$/, '')))).toBe(true);
    expect(second.status).toBe('ready');
    expect(second.session!.sessionId).not.toBe(saved.sessionId);
  });

  it('close() ends the session with 1000 and rejects pending requests', async () => {
    const shard = newShard(new DispatchRecorder());
    const closes: Array<{ code: number; by: string }> = [];
    const onClose = (e: { code: number; by: string }) => closes.push(e);
    sandbox.gatewayEvents.on('close', onClose);
    try {
      await shard.start();
      const guildId = sandbox.state.guildIds.find((g) => shardForGuild(g, 1) === 0)!;
      const pending = shard.requestMembers({ guildId, userIds: ['1'], timeoutMs: 10_000 });
      const closing = shard.close();
      await expect(pending).rejects.toBeInstanceOf(ShardClosedError);
      expect(await closing).toBeNull();
      await eventually(() => closes.length === 1, 'the close seen by the sandbox');
      expect(closes[0]).toEqual(expect.objectContaining({ code: 1000, by: 'client' }));
      expect(shard.status).toBe('closed');
      expect(shard.session).toBeNull();
      await expect(shard.requestMembers({ guildId })).rejects.toBeInstanceOf(ShardClosedError);
    } finally {
      sandbox.gatewayEvents.off('close', onClose);
    }
  });

  it('never writes the token to a log line, through identify, faults and resume', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'trace', pretty: false, destination });
    const recorder = new DispatchRecorder();
    const shard = newShard(recorder, { logger });
    const resumes: number[] = [];
    shard.events.on('ready', (id, resumed) => resumed && resumes.push(id));
    await shard.start();
    sandbox.faults.close(0, 4000);
    await eventually(() => resumes.length === 1, 'the resume');
    sandbox.faults.corruptFrame(0);
    await eventually(() => resumes.length === 2, 'the second resume');
    expectConsecutivePerSession(recorder.all);
    const text = lines.join('');
    expect(text).toMatch(/resuming session/);
    expect(text).not.toContain(sandbox.botToken);
  });
});
