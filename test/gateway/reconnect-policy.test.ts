/**
 * The reconnect policy on its own: every cause a connection can end by, with a fake clock and a fixed jitter, no
 * sockets. The shard's behaviour over real sockets (the same waits, end to end) is in shard.peer.test.ts and the
 * acceptance suites.
 */
import { GatewayCloseCodes } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { GATEWAY_CLOSE_POLICIES } from '../../src/gateway/close-codes.js';
import {
  IDLE_END_MAX_DELAY_MS,
  ReconnectPolicy,
  type ClientEndCause,
  type EndedConnection,
  type ReconnectTiming,
} from '../../src/gateway/reconnect-policy.js';

const BASE = 1000;
const MAX = 30_000;
const STABLE = 60_000;
const INVALID_SESSION_MS = 2000;

/** A policy on a clock the test moves; jitter 0 makes every backoff step exactly half its nominal value. */
function setup(timing: Partial<ReconnectTiming> = {}) {
  const clock = { t: 0 };
  const notes: string[] = [];
  const policy = new ReconnectPolicy({
    timing: {
      invalidSessionDelayMs: () => INVALID_SESSION_MS,
      invalidSessionMaxDelayMs: 300_000,
      stableSessionMs: STABLE,
      reconnectBaseMs: BASE,
      reconnectMaxMs: MAX,
      maxReconnectAttempts: Infinity,
      resumeUrlFailuresBeforeFallback: 2,
      ...timing,
    },
    now: () => clock.t,
    random: () => 0,
    note: (m) => notes.push(m),
  });
  return { policy, clock, notes };
}

/** The ordinary backoff for attempt n with jitter 0: 0, then base * 2^(n-1) / 2, capped. */
function backoff(n: number): number {
  return n === 0 ? 0 : Math.round(Math.min(MAX, BASE * 2 ** (n - 1)) * 0.5);
}

const NEVER_LIVE: EndedConnection = { liveSince: null, delivered: false };
const serverClose = (code: number) => ({ code, helloReceived: true, usedResumeUrl: false });

describe('ReconnectPolicy: close codes (protocol §7.8)', () => {
  const codes = Object.keys(GATEWAY_CLOSE_POLICIES).map(Number);

  it.each(codes)('close %i: stop, identify or resume as its table entry says', (code) => {
    const { policy } = setup();
    const decision = policy.afterServerClose(serverClose(code), true, NEVER_LIVE);
    const expected = GATEWAY_CLOSE_POLICIES[code]!;
    if (expected.action === 'fatal') {
      expect(decision).toEqual({ action: 'stop', close: expected });
    } else if (expected.action === 'identify') {
      // The session is gone: identify anew after the session-ended wait.
      expect(decision).toEqual({ action: 'reconnect', mode: 'identify', delayMs: INVALID_SESSION_MS });
    } else {
      expect(decision).toEqual({ action: 'reconnect', mode: 'resume', delayMs: 0 });
    }
  });

  it('the table has fatal, identify and resume codes', () => {
    expect(GATEWAY_CLOSE_POLICIES[GatewayCloseCodes.AuthenticationFailed]!.action).toBe('fatal');
    expect(GATEWAY_CLOSE_POLICIES[GatewayCloseCodes.InvalidSeq]!.action).toBe('identify');
    expect(GATEWAY_CLOSE_POLICIES[GatewayCloseCodes.RateLimited]!.action).toBe('resume');
  });

  it.each([1000, 1001, 1006, 4999])('close %i (not in the table) resumes', (code) => {
    const { policy } = setup();
    expect(policy.afterServerClose(serverClose(code), true, NEVER_LIVE)).toEqual({ action: 'reconnect', mode: 'resume', delayMs: 0 });
  });

  it('without a resumable session every non-fatal close identifies, and an identify code costs no session-ended wait', () => {
    const { policy } = setup();
    expect(policy.afterServerClose(serverClose(1006), false, NEVER_LIVE)).toEqual({ action: 'reconnect', mode: 'identify', delayMs: 0 });
    expect(policy.nextAttempt()).toEqual({ allowed: true });
    expect(policy.afterServerClose(serverClose(GatewayCloseCodes.SessionTimedOut), false, NEVER_LIVE)).toEqual({
      action: 'reconnect',
      mode: 'identify',
      delayMs: backoff(1),
    });
  });

  it('closes in a row back off exponentially until the connection is live again', () => {
    const { policy } = setup();
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const d = policy.afterServerClose(serverClose(1006), true, NEVER_LIVE);
      waits.push(d.action === 'reconnect' ? d.delayMs : -1);
      expect(policy.nextAttempt().allowed).toBe(true);
    }
    expect(waits).toEqual([0, 500, 1000, 2000, 4000, 8000, 15_000]);
    policy.live();
    expect(policy.afterServerClose(serverClose(1006), true, NEVER_LIVE)).toMatchObject({ delayMs: 0 });
  });

  it('identify codes in a row double the session-ended wait until a session lasts stableSessionMs', () => {
    const { policy, clock, notes } = setup();
    const code = GatewayCloseCodes.InvalidSeq;
    policy.sessionStarted();
    expect(policy.afterServerClose(serverClose(code), true, NEVER_LIVE)).toMatchObject({ mode: 'identify', delayMs: 2000 });
    policy.sessionStarted();
    expect(policy.afterServerClose(serverClose(code), true, NEVER_LIVE)).toMatchObject({ delayMs: 4000 });
    expect(notes.some((n) => n.includes('session ended 2 times in a row'))).toBe(true);
    policy.sessionStarted();
    clock.t += STABLE;
    expect(policy.afterServerClose(serverClose(code), true, NEVER_LIVE)).toMatchObject({ delayMs: 2000 });
  });
});

describe('ReconnectPolicy: ends the shard chooses', () => {
  const resumeCauses: ClientEndCause[] = [{ kind: 'reconnect-requested' }, { kind: 'decode-error' }, { kind: 'hello-timeout' }];

  it.each(resumeCauses)('$kind resumes at once with a session and identifies without one', (cause) => {
    const { policy } = setup();
    expect(policy.afterClientEnd(cause, true, NEVER_LIVE)).toEqual({ mode: 'resume', delayMs: 0 });
    expect(policy.afterClientEnd(cause, false, NEVER_LIVE)).toEqual({ mode: 'identify', delayMs: 0 });
  });

  it('op 7 RECONNECT in a row backs off like closes (no reconnect storm)', () => {
    const { policy } = setup();
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      waits.push(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, NEVER_LIVE).delayMs);
      policy.nextAttempt();
    }
    expect(waits).toEqual([0, 500, 1000, 2000]);
  });

  it('op 9 d=true resumes with a session; without one it ends the session like d=false', () => {
    const { policy } = setup();
    expect(policy.afterClientEnd({ kind: 'invalid-session', resumable: true }, true, NEVER_LIVE)).toEqual({ mode: 'resume', delayMs: 0 });
    expect(policy.afterClientEnd({ kind: 'invalid-session', resumable: true }, false, NEVER_LIVE)).toEqual({
      mode: 'identify',
      delayMs: INVALID_SESSION_MS,
    });
  });

  it('op 9 d=false identifies after the session-ended wait, doubling per end, capped, reset by a stable session', () => {
    const { policy, clock } = setup({ invalidSessionMaxDelayMs: 10_000 });
    const op9 = (): number => {
      policy.sessionStarted();
      const d = policy.afterClientEnd({ kind: 'invalid-session', resumable: false }, true, NEVER_LIVE);
      expect(d.mode).toBe('identify');
      policy.live();
      return d.delayMs;
    };
    expect([op9(), op9(), op9(), op9()]).toEqual([2000, 4000, 8000, 10_000]);
    policy.sessionStarted();
    clock.t += STABLE;
    expect(policy.afterClientEnd({ kind: 'invalid-session', resumable: false }, true, NEVER_LIVE).delayMs).toBe(2000);
  });

  it('zombie: the first of a row resumes at once, further ones back off, a connection live stableSessionMs ends the row', () => {
    const { policy, clock, notes } = setup();
    const zombie = (): number => {
      const live: EndedConnection = { liveSince: clock.t, delivered: true };
      policy.live();
      clock.t += 1000;
      return policy.afterClientEnd({ kind: 'zombie' }, true, live).delayMs;
    };
    expect([zombie(), zombie(), zombie(), zombie()]).toEqual([0, 500, 1000, 2000]);
    expect(notes.some((n) => n.includes('zombie connection 4 times in a row'))).toBe(true);
    const lasted: EndedConnection = { liveSince: clock.t, delivered: true };
    clock.t += STABLE;
    expect(policy.afterClientEnd({ kind: 'zombie' }, true, lasted)).toEqual({ mode: 'resume', delayMs: 0 });
  });

  it('zombie without a session identifies', () => {
    const { policy } = setup();
    expect(policy.afterClientEnd({ kind: 'zombie' }, false, NEVER_LIVE).mode).toBe('identify');
  });

  it('an unconfirmed lease retries in the mode it was in, after at least reconnectBaseMs', () => {
    const { policy } = setup();
    expect(policy.afterClientEnd({ kind: 'lease-unconfirmed', mode: 'resume' }, true, NEVER_LIVE)).toEqual({ mode: 'resume', delayMs: BASE });
    expect(policy.afterClientEnd({ kind: 'lease-unconfirmed', mode: 'identify' }, true, NEVER_LIVE)).toEqual({ mode: 'identify', delayMs: BASE });
  });

  it('a failed identify queue identifies again after at least reconnectBaseMs', () => {
    const { policy } = setup();
    expect(policy.afterClientEnd({ kind: 'identify-queue-failed' }, false, NEVER_LIVE)).toEqual({ mode: 'identify', delayMs: BASE });
  });
});

describe('ReconnectPolicy: idle ends', () => {
  /** A connection that went live (READY/RESUMED resets the backoff) and ended 1 s later. */
  function liveThenEnded(policy: ReconnectPolicy, clock: { t: number }, delivered: boolean): EndedConnection {
    policy.live();
    const ended: EndedConnection = { liveSince: clock.t, delivered };
    clock.t += 1000;
    return ended;
  }

  it('two ends in a row with nothing delivered reconnect at once; further ones back off, capped at 5 s', () => {
    const { policy, clock, notes } = setup({ reconnectMaxMs: 60_000 });
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) waits.push(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false)).delayMs);
    expect(waits).toEqual([0, 0, 500, 1000, 2000, 4000, IDLE_END_MAX_DELAY_MS, IDLE_END_MAX_DELAY_MS]);
    expect(notes.some((n) => n.includes('nothing delivered besides READY/RESUMED'))).toBe(true);
  });

  it('server closes count too', () => {
    const { policy, clock } = setup();
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const d = policy.afterServerClose(serverClose(1006), true, liveThenEnded(policy, clock, false));
      waits.push(d.action === 'reconnect' ? d.delayMs : -1);
    }
    expect(waits).toEqual([0, 0, 500, 1000]);
  });

  it('a connection that delivered something, or lasted stableSessionMs, ends the row', () => {
    const { policy, clock } = setup();
    for (let i = 0; i < 3; i++) policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false));
    expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, true)).delayMs).toBe(0);
    for (let i = 0; i < 2; i++) expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false)).delayMs).toBe(0);
    expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false)).delayMs).toBe(500);
    policy.live();
    const lasted: EndedConnection = { liveSince: clock.t, delivered: false };
    clock.t += STABLE;
    expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, lasted).delayMs).toBe(0);
  });

  it('a connection that never went live is left to the ordinary backoff and does not count in the row', () => {
    const { policy, clock } = setup();
    for (let i = 0; i < 3; i++) expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, NEVER_LIVE).delayMs).toBe(0);
    expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false)).delayMs).toBe(0);
    expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false)).delayMs).toBe(0);
    expect(policy.afterClientEnd({ kind: 'reconnect-requested' }, true, liveThenEnded(policy, clock, false)).delayMs).toBe(500);
  });
});

describe('ReconnectPolicy: resume URL failures and attempts', () => {
  const failedConnect = { code: 1006, helloReceived: false, usedResumeUrl: true };

  it('connects that fail before HELLO on the resume URL fall back to the gateway URL after the configured count', () => {
    const { policy } = setup({ resumeUrlFailuresBeforeFallback: 2 });
    expect(policy.useResumeUrl()).toBe(true);
    policy.afterServerClose(failedConnect, true, NEVER_LIVE);
    expect(policy.useResumeUrl()).toBe(true);
    policy.afterServerClose(failedConnect, true, NEVER_LIVE);
    expect(policy.useResumeUrl()).toBe(false);
    // Going live (RESUMED on the main URL) trusts the resume URL again.
    policy.live();
    expect(policy.useResumeUrl()).toBe(true);
  });

  it('only failures before HELLO on the resume URL count', () => {
    const { policy } = setup({ resumeUrlFailuresBeforeFallback: 1 });
    policy.afterServerClose({ code: 1006, helloReceived: true, usedResumeUrl: true }, true, NEVER_LIVE);
    policy.afterServerClose({ code: 1006, helloReceived: false, usedResumeUrl: false }, true, NEVER_LIVE);
    expect(policy.useResumeUrl()).toBe(true);
    policy.afterServerClose(failedConnect, true, NEVER_LIVE);
    expect(policy.useResumeUrl()).toBe(false);
  });

  it('a fatal close does not count as a resume URL failure', () => {
    const { policy } = setup({ resumeUrlFailuresBeforeFallback: 1 });
    policy.afterServerClose({ ...failedConnect, code: GatewayCloseCodes.AuthenticationFailed }, true, NEVER_LIVE);
    expect(policy.useResumeUrl()).toBe(true);
  });

  it('gives up after maxReconnectAttempts without going live, and live() starts the count over', () => {
    const { policy } = setup({ maxReconnectAttempts: 2 });
    expect(policy.nextAttempt()).toEqual({ allowed: true });
    expect(policy.nextAttempt()).toEqual({ allowed: true });
    expect(policy.nextAttempt()).toEqual({ allowed: false, attempts: 2 });
    policy.live();
    expect(policy.attemptsSinceLive).toBe(0);
    expect(policy.nextAttempt()).toEqual({ allowed: true });
  });
});
