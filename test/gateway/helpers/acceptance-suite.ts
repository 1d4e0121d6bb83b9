/**
 * The acceptance scenarios against the sandbox over real sockets, run once per transport variant
 * (zlib-stream through zlib-sync, zlib-stream through node:zlib with messages split over several frames,
 * zstd-stream through zstd-napi and through fzstd, and uncompressed JSON). Heartbeat interval, identify window and the op 8 window are shortened through the
 * sandbox's options so the whole matrix stays fast.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/contract.js';
import { INTENT_BITS } from '../../../src/api/intents.js';
import { Shard } from '../../../src/gateway/shard.js';
import { ShardManager } from '../../../src/gateway/manager.js';
import { LocalIdentifyQueue } from '../../../src/gateway/identify-queue.js';
import { GatewayFatalCloseError } from '../../../src/gateway/errors.js';
import type { InflatePreference, TransportCompression } from '../../../src/gateway/inflate.js';
import { DispatchRecorder, eventually, gatewayBotPort, sleep, type Recorded } from './sandbox.js';

export interface TransportVariant {
  name: string;
  /** true = zlib-stream. */
  compress: boolean | TransportCompression;
  inflate: InflatePreference;
  /** Sandbox option: split each compressed message into frames of at most this many bytes. */
  maxFrameBytes?: number;
}

const HEARTBEAT_MS = 800;
const IDENTIFY_WINDOW_MS = 100;
const INTENTS = INTENT_BITS.GUILDS | INTENT_BITS.GUILD_MEMBERS;

/** Within each session (a READY starts one), seqs run 1, 2, 3, ... with no gap and no repeat. */
export function expectConsecutivePerSession(records: Recorded[]): void {
  let expected = 1;
  for (const r of records) {
    if (r.t === 'READY') expected = r.s;
    expect(r.s, `dispatch ${r.t} should have seq ${expected}`).toBe(expected);
    expected++;
  }
}

export function acceptanceSuite(variant: TransportVariant): void {
  describe(`gateway acceptance over the sandbox (${variant.name})`, () => {
    let sandbox: Sandbox;
    let identifyQueue: LocalIdentifyQueue;
    let shards: Shard[] = [];
    let managers: ShardManager[] = [];

    beforeAll(async () => {
      sandbox = await createSandbox({
        seed: { guilds: 2, membersPerGuild: 5, seed: 7 },
        gateway: {
          heartbeatIntervalMs: HEARTBEAT_MS,
          // Generous server-side deadline: a loaded test machine must not turn a late beat into a 4009.
          heartbeatTimeoutMs: 10_000,
          identifyWindowMs: IDENTIFY_WINDOW_MS,
          memberRequestWindowMs: 1000,
          ...(variant.maxFrameBytes ? { maxFrameBytes: variant.maxFrameBytes } : {}),
        },
      });
      identifyQueue = new LocalIdentifyQueue({ windowMs: IDENTIFY_WINDOW_MS });
    });

    afterEach(async () => {
      await Promise.all([...shards.map((s) => s.close()), ...managers.map((m) => m.close())]);
      shards = [];
      managers = [];
    });

    afterAll(async () => {
      await sandbox?.close();
    });

    function newShard(recorder: DispatchRecorder, overrides: Partial<ConstructorParameters<typeof Shard>[0]> = {}): Shard {
      const shard = new Shard({
        id: 0,
        shardCount: 1,
        token: sandbox.botToken,
        intents: INTENTS,
        gatewayUrl: sandbox.gatewayUrl,
        compress: variant.compress,
        inflate: variant.inflate,
        identifyQueue,
        timing: { invalidSessionDelayMs: () => 50, closeGraceMs: 300, reconnectBaseMs: 50, reconnectMaxMs: 500 },
        onDispatch: recorder.hook,
        ...overrides,
      });
      shards.push(shard);
      return shard;
    }

    const guild = () => sandbox.state.guildIds[0]!;

    async function startWithGuilds(recorder: DispatchRecorder, shard: Shard): Promise<void> {
      await shard.start();
      await recorder.waitFor(
        () => recorder.all.filter((r) => r.t === 'GUILD_CREATE').length >= sandbox.state.guildIds.length,
        'GUILD_CREATE for every guild',
      );
    }

    function addMembers(n: number): string[] {
      return Array.from({ length: n }, () => sandbox.state.addMember(guild()));
    }

    const faults: Array<{ name: string; apply: () => void; resumes: boolean }> = [
      { name: 'zombie connection (no heartbeat ACK)', apply: () => sandbox.faults.stopHeartbeatAcks(0), resumes: true },
      { name: 'op 7 RECONNECT', apply: () => sandbox.faults.reconnect(0), resumes: true },
      { name: 'op 9 INVALID_SESSION d=true', apply: () => sandbox.faults.invalidateSession(0, true), resumes: true },
      { name: 'op 9 INVALID_SESSION d=false', apply: () => sandbox.faults.invalidateSession(0, false), resumes: false },
      { name: 'close 4000', apply: () => sandbox.faults.close(0, 4000), resumes: true },
      { name: 'corrupt frame', apply: () => sandbox.faults.corruptFrame(0), resumes: true },
      // The codes that say the session is gone: a new session, without a doomed RESUME first.
      { name: 'close 4003', apply: () => sandbox.faults.close(0, 4003), resumes: false },
      { name: 'close 4007', apply: () => sandbox.faults.close(0, 4007), resumes: false },
      { name: 'close 4009', apply: () => sandbox.faults.close(0, 4009), resumes: false },
    ];

    for (const fault of faults) {
      it(`${fault.name}: ends ${fault.resumes ? 'RESUMED' : 'READY'}, nothing lost, nothing handled twice`, async () => {
        const recorder = new DispatchRecorder();
        const shard = newShard(recorder);
        const readies: boolean[] = [];
        shard.events.on('ready', (_id, resumed) => readies.push(resumed));
        let resumeAttempts = 0;
        shard.events.on('debug', (_id, message) => message.startsWith('resuming session') && resumeAttempts++);
        const sandboxResumes: number[] = [];
        const onResume = (e: { seq: number }) => sandboxResumes.push(e.seq);
        sandbox.gatewayEvents.on('resume', onResume);
        try {
          await startWithGuilds(recorder, shard);
          const before = addMembers(3);
          await recorder.waitFor(() => recorder.memberAdds().length === 3, 'members added before the fault');

          fault.apply();
          // Dispatches generated while the fault plays out must be replayed (resume) or are part of a session
          // that no longer exists (identify anew: the new session's GUILD_CREATE carries the state instead).
          const during = fault.resumes ? addMembers(2) : [];
          await eventually(() => readies.length === 2, 'the shard to be live again');
          const after = addMembers(3);
          const expected = [...before, ...during, ...after];
          await recorder.waitFor(() => recorder.memberAdds().length >= expected.length, 'every member add');
          await sleep(50); // a duplicate would arrive right behind

          expect(readies).toEqual([false, fault.resumes]);
          expect(shard.status).toBe('ready');
          expect(recorder.memberAdds()).toEqual(expected);
          expectConsecutivePerSession(recorder.all);
          expect(resumeAttempts).toBe(fault.resumes ? 1 : 0);
          if (fault.resumes) {
            expect(sandboxResumes.length).toBe(1);
            expect(recorder.all.filter((r) => r.t === 'READY').length).toBe(1);
            expect(recorder.all.at(-1 - after.length)!.t).not.toBe('READY');
          } else {
            // op 9 d=false and 4003/4007/4009 all mean the session is gone: no RESUME is even tried.
            expect(sandboxResumes.length).toBe(0);
            expect(recorder.all.filter((r) => r.t === 'READY').length).toBe(2);
          }
        } finally {
          sandbox.gatewayEvents.off('resume', onResume);
        }
      });
    }

    for (const code of [4004, 4010, 4011, 4012, 4013, 4014]) {
      it(`close ${code} stops the shard with an error naming it, and nothing retries`, async () => {
        const recorder = new DispatchRecorder();
        const shard = newShard(recorder);
        await shard.start();
        let connections = 0;
        const onConnection = () => connections++;
        sandbox.gatewayEvents.on('connection', onConnection);
        try {
          const stopped = new Promise<Error | null>((resolve) => shard.events.once('stopped', (_id, e) => resolve(e)));
          sandbox.faults.close(0, code);
          const error = await stopped;
          expect(error).toBeInstanceOf(GatewayFatalCloseError);
          expect((error as GatewayFatalCloseError).code).toBe(code);
          expect(error!.message).toContain(String(code));
          expect(error!.message).not.toContain(sandbox.botToken);
          expect(shard.status).toBe('stopped');
          await sleep(400);
          expect(connections).toBe(0);
          expect(shard.status).toBe('stopped');
        } finally {
          sandbox.gatewayEvents.off('connection', onConnection);
        }
      });
    }

    it('a bad token fails start() with 4004 and no retry', async () => {
      const recorder = new DispatchRecorder();
      let connections = 0;
      const onConnection = () => connections++;
      sandbox.gatewayEvents.on('connection', onConnection);
      try {
        const badToken = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GAbCdE.' + 'x'.repeat(38);
        const shard = newShard(recorder, { token: badToken });
        const error = await shard.start().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(GatewayFatalCloseError);
        expect((error as GatewayFatalCloseError).code).toBe(4004);
        expect((error as Error).message).not.toContain(badToken);
        await sleep(300);
        expect(connections).toBe(1);
      } finally {
        sandbox.gatewayEvents.off('connection', onConnection);
      }
    });

    it('undefined intent bits fail start() with 4013', async () => {
      const shard = newShard(new DispatchRecorder(), { intents: 1 << 30 });
      const error = await shard.start().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayFatalCloseError);
      expect((error as GatewayFatalCloseError).code).toBe(4013);
      expect((error as Error).message).toMatch(/Invalid intent/);
    });

    it('8 shards with max_concurrency 2 identify in 4 waves, one window apart', async () => {
      const window = 400;
      const waves = await createSandbox({
        seed: { guilds: 8, membersPerGuild: 2, seed: 3 },
        gateway: {
          heartbeatIntervalMs: 5000,
          maxConcurrency: 2,
          identifyWindowMs: window,
          recommendedShards: 8,
          ...(variant.maxFrameBytes ? { maxFrameBytes: variant.maxFrameBytes } : {}),
        },
      });
      try {
        const identifies: Array<{ shard: number; at: number }> = [];
        let rejected = 0;
        waves.gatewayEvents.on('identify', (e) => identifies.push({ shard: e.shard[0], at: e.at }));
        (waves.gatewayEvents as unknown as NodeJS.EventEmitter).on('identifyRejected', () => rejected++);
        const manager = new ShardManager({
          token: waves.botToken,
          intents: INTENT_BITS.GUILDS,
          gatewayBot: gatewayBotPort(waves),
          // The sandbox times identifies on arrival, and a loaded machine delays one wave's arrivals more than the
          // next one's: the margin is what that jitter may be. 150 ms was exceeded on 2 cores at a load of 28
          // (the sandbox refused an IDENTIFY); a whole window is twice the worst seen.
          identifyQueue: ({ maxConcurrency, windowMs }) =>
            new LocalIdentifyQueue({ maxConcurrency, windowMs, marginMs: window }),
          identifyWindowMs: window,
          compress: variant.compress,
          inflate: variant.inflate,
        });
        managers.push(manager);
        await manager.start();
        expect(manager.shardCount).toBe(8);
        expect(manager.status().map((s) => s.status)).toEqual(Array(8).fill('ready'));
        expect(rejected).toBe(0);
        expect(identifies.length).toBe(8);

        // Group identifies that happened close together (well under one window) into waves.
        identifies.sort((a, b) => a.at - b.at);
        const grouped: Array<typeof identifies> = [];
        for (const e of identifies) {
          const last = grouped.at(-1);
          if (last && e.at - last[0]!.at < window / 2) last.push(e);
          else grouped.push([e]);
        }
        expect(grouped.length).toBe(4);
        for (const wave of grouped) {
          expect(wave.map((e) => e.shard % 2).sort()).toEqual([0, 1]); // one per max_concurrency bucket
        }
        for (let i = 1; i < grouped.length; i++) {
          const gap = grouped[i]![0]!.at - grouped[i - 1]![0]!.at;
          // Per bucket the sandbox enforces a full window (rejected === 0 above); wave starts may differ by the
          // spread inside a wave, hence the tolerance.
          expect(gap).toBeGreaterThanOrEqual(window * 0.75);
          // A window and the margin apart as queued; more than twice that means the queue waited for nothing.
          expect(gap).toBeLessThan(window * 5);
        }
        await manager.close();
      } finally {
        await waves.close();
      }
    });

    it('an op 8 request hit by RATE_LIMITED resolves once, after retry_after, with every member', async () => {
      const recorder = new DispatchRecorder();
      const shard = newShard(recorder);
      await startWithGuilds(recorder, shard);
      const guildId = guild();
      const everyone = [...sandbox.state.memberIds(guildId)].sort();

      // The first all-members request opens the guild's window; the second is rate limited.
      const first = await shard.requestMembers({ guildId });
      expect(first.members.map((m) => m.user!.id).sort()).toEqual(everyone);

      const startedAt = Date.now();
      let resolutions = 0;
      const second = await shard.requestMembers({ guildId }).then((r) => {
        resolutions++;
        return r;
      });
      const elapsed = Date.now() - startedAt;
      const limited = recorder.all.filter((r) => r.t === 'RATE_LIMITED');
      expect(limited.length).toBe(1);
      const retryAfter = (limited[0]!.d as { retry_after: number; meta: { nonce: string } }).retry_after;
      expect((limited[0]!.d as { meta: { nonce: string } }).meta.nonce).toBe(second.nonce);
      expect(retryAfter).toBeGreaterThan(0);
      expect(elapsed).toBeGreaterThanOrEqual(retryAfter * 1000 - 50);
      expect(second.attempts).toBe(2);
      const ids = second.members.map((m) => m.user!.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(everyone);
      await sleep(100);
      expect(resolutions).toBe(1);
      expectConsecutivePerSession(recorder.all);
    });
  });
}
