/**
 * Faults one after another against the sandbox, as a fault-injecting gateway plays them: seeded random sequences
 * of op 7, op 9 (both kinds), resumable and session-ending closes, corrupt frames and zombie connections, with
 * zero to three events between two faults (zero makes rows of connections that end with nothing delivered, which
 * back off after two) and events raised while a resumable fault plays out (they must come by replay). Checked
 * against a plain model: every member add exactly once, in order, and every session's seqs consecutive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/contract.js';
import { INTENT_BITS } from '../../src/api/intents.js';
import { Shard } from '../../src/gateway/shard.js';
import { LocalIdentifyQueue } from '../../src/gateway/identify-queue.js';
import { DispatchRecorder, eventually, sleep } from './helpers/sandbox.js';
import { expectConsecutivePerSession } from './helpers/acceptance-suite.js';

const HEARTBEAT_MS = 800;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('a sequence of gateway faults (sandbox, zlib-stream)', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox({
      seed: { guilds: 1, membersPerGuild: 5, seed: 11 },
      gateway: { heartbeatIntervalMs: HEARTBEAT_MS, heartbeatTimeoutMs: 10_000, identifyWindowMs: 100 },
    });
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  const faults: Array<{ name: string; apply: (s: Sandbox) => void; resumes: boolean }> = [
    { name: 'op 7', apply: (s) => s.faults.reconnect(0), resumes: true },
    { name: 'op 9 true', apply: (s) => s.faults.invalidateSession(0, true), resumes: true },
    { name: 'close 4000', apply: (s) => s.faults.close(0, 4000), resumes: true },
    { name: 'corrupt frame', apply: (s) => s.faults.corruptFrame(0), resumes: true },
    { name: 'zombie', apply: (s) => s.faults.stopHeartbeatAcks(0), resumes: true },
    { name: 'op 9 false', apply: (s) => s.faults.invalidateSession(0, false), resumes: false },
    { name: 'close 4009', apply: (s) => s.faults.close(0, 4009), resumes: false },
  ];

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: 10 faults, nothing lost, nothing handled twice, live again after each`, { timeout: 90_000 }, async () => {
      const rnd = prng(seed);
      const recorder = new DispatchRecorder();
      const shard = new Shard({
        id: 0,
        shardCount: 1,
        token: sandbox.botToken,
        intents: INTENT_BITS.GUILDS | INTENT_BITS.GUILD_MEMBERS,
        gatewayUrl: sandbox.gatewayUrl,
        compress: true,
        inflate: 'zlib-sync',
        identifyQueue: new LocalIdentifyQueue({ windowMs: 100 }),
        random: prng(seed + 100),
        timing: { invalidSessionDelayMs: () => 50, closeGraceMs: 300, reconnectBaseMs: 50, reconnectMaxMs: 500 },
        onDispatch: recorder.hook,
      });
      const guild = sandbox.state.guildIds[0]!;
      let lives = 0;
      shard.events.on('ready', () => void lives++);
      const expected: string[] = [];
      const add = (n: number): void => {
        for (let i = 0; i < n; i++) expected.push(sandbox.state.addMember(guild));
      };
      const played: string[] = [];
      try {
        await shard.start();
        for (let step = 0; step < 10; step++) {
          add(Math.floor(rnd() * 4));
          await recorder.waitFor(() => recorder.memberAdds().length === expected.length, `the adds before fault ${step + 1}`);
          const fault = faults[Math.floor(rnd() * faults.length)]!;
          played.push(fault.name);
          const livesBefore = lives;
          fault.apply(sandbox);
          // Raised while the fault plays out: a resumed session gets them by replay (a new session's GUILD_CREATE
          // would carry them instead, and no GUILD_MEMBER_ADD is owed).
          if (fault.resumes) add(Math.floor(rnd() * 3));
          await eventually(() => lives > livesBefore && shard.status === 'ready', `live again after ${played.join(', ')}`, 20_000);
        }
        add(2);
        await recorder.waitFor(() => recorder.memberAdds().length >= expected.length, `every add (faults: ${played.join(', ')})`, 20_000);
        await sleep(50); // a duplicate would arrive right behind
        expect(recorder.memberAdds(), `faults: ${played.join(', ')}`).toEqual(expected);
        expectConsecutivePerSession(recorder.all);
      } finally {
        await shard.close();
      }
    });
  }
});
