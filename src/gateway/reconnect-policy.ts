/**
 * When and how a shard connects again after a connection ends: a clock in, a decision out, for each cause.
 * No sockets and no timers here, so every cause can be tested with a fake clock (test/gateway/reconnect-policy.test.ts).
 *
 * The causes and what each one costs (protocol §7.4-§7.8):
 * - a close by the service or the network: its code decides (close-codes.ts): fatal stops, one whose text says the
 *   session is gone identifies anew, any other resumes;
 * - op 7 RECONNECT, a decode error, a missing HELLO, a zombie connection (no heartbeat ACK, protocol §7.2): resume;
 * - op 9 INVALID_SESSION: d = true resumes, d = false ends the session (identify anew);
 * - the lease or the identify queue could not be confirmed (cluster mode): try again on a new connection.
 *
 * Every wait is the largest of the ordinary backoff and the waits of the cause's own row (ended sessions, zombie
 * closes, idle ends), each explained where it is computed. The rows are state held here; the shard tells the
 * policy when a connection goes live and when READY starts a session, and asks it before every attempt.
 */
import { closePolicy, type ClosePolicy } from './close-codes.js';

/** The waits and limits the policy follows (ShardTiming's reconnect part, with its defaults filled in). */
export interface ReconnectTiming {
  /** Wait before identifying anew after the service ended the session; doubled for each further end in a row. */
  invalidSessionDelayMs: () => number;
  /** Cap of that doubled wait. */
  invalidSessionMaxDelayMs: number;
  /** A session (since READY) or a live connection that lasts this long ends its row of ends. */
  stableSessionMs: number;
  /** Ordinary backoff: first retry immediate, then base * 2^n with jitter, capped. */
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  /** Give up after this many reconnects without reaching READY/RESUMED. */
  maxReconnectAttempts: number;
  /** Failed connects to resume_gateway_url before falling back to the main URL. */
  resumeUrlFailuresBeforeFallback: number;
}

export type ReconnectMode = 'resume' | 'identify';

/** What the shard knows of a connection that ended, as the policy needs it. */
export interface EndedConnection {
  /** Clock reading when it went live (READY or RESUMED); null if it never did. */
  liveSince: number | null;
  /** It handed on a dispatch other than READY / RESUMED (replays included). */
  delivered: boolean;
}

/** A connection the shard gave up itself, and why. */
export type ClientEndCause =
  /** Op 7 RECONNECT (protocol §7.5). */
  | { kind: 'reconnect-requested' }
  /** Op 9 INVALID_SESSION (protocol §7.6); `resumable` is its d. */
  | { kind: 'invalid-session'; resumable: boolean }
  /** No heartbeat ACK between two heartbeats (protocol §7.2). */
  | { kind: 'zombie' }
  /** A frame did not inflate or parse, or HELLO had no usable interval. */
  | { kind: 'decode-error' }
  /** No HELLO in time after the socket opened. */
  | { kind: 'hello-timeout' }
  /** The fence could not say whether this process still holds the shard (before RESUME or IDENTIFY). */
  | { kind: 'lease-unconfirmed'; mode: ReconnectMode }
  /** The identify queue failed (its store is down, say). */
  | { kind: 'identify-queue-failed' };

/** A close the shard did not ask for: the service's close code, or the network's (1006). */
export interface ServerClose {
  code: number;
  /** HELLO never arrived on the connection (it failed while connecting). */
  helloReceived: boolean;
  /** The connection went to resume_gateway_url rather than the main URL. */
  usedResumeUrl: boolean;
}

export type ReconnectDecision =
  | { readonly action: 'reconnect'; readonly mode: ReconnectMode; readonly delayMs: number }
  /** A fatal close code: nothing retries it. */
  | { readonly action: 'stop'; readonly close: ClosePolicy };

/** The outcome of asking for the next attempt. */
export type AttemptOutcome = { readonly allowed: true } | { readonly allowed: false; readonly attempts: number };

/** Longest wait before replacing a connection that went live and ended with nothing delivered (idleEndDelay). */
export const IDLE_END_MAX_DELAY_MS = 5000;

export interface ReconnectPolicyOptions {
  timing: ReconnectTiming;
  /** Monotonic milliseconds (performance.now in the shard). */
  now: () => number;
  /** Backoff jitter in [0, 1). */
  random: () => number;
  /** Why a wait grew (rows of ends); the shard's debug lines. */
  note?: (message: string) => void;
}

export class ReconnectPolicy {
  private readonly timing: ReconnectTiming;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly note: (message: string) => void;
  /** Reconnects since the last READY/RESUMED. */
  private attempts = 0;
  /** Sessions ended (op 9 false, identify-closes) since a session last lasted `stableSessionMs`. */
  private sessionEnds = 0;
  /** Clock reading of the last READY (null before the first). */
  private sessionStartedAt: number | null = null;
  private resumeUrlFailures = 0;
  /** Zombie closes since a connection last stayed live for `stableSessionMs`. */
  private zombieStreak = 0;
  /** Live connections in a row that ended without delivering a dispatch after READY/RESUMED. */
  private idleEnds = 0;

  constructor(options: ReconnectPolicyOptions) {
    this.timing = options.timing;
    this.now = options.now;
    this.random = options.random;
    this.note = options.note ?? (() => {});
  }

  /** Reconnects made since the shard was last live. */
  get attemptsSinceLive(): number {
    return this.attempts;
  }

  /** READY started a session: the clock of the session-end row starts again. */
  sessionStarted(): void {
    this.sessionStartedAt = this.now();
  }

  /** READY or RESUMED: the connection works, so the ordinary backoff and the resume URL's failures start over. */
  live(): void {
    this.attempts = 0;
    this.resumeUrlFailures = 0;
  }

  /** Whether a connection that resumes should go to resume_gateway_url (else the main URL). */
  useResumeUrl(): boolean {
    return this.resumeUrlFailures < this.timing.resumeUrlFailuresBeforeFallback;
  }

  /** The service or the network closed the connection. `hasSession`: a resumable session exists. */
  afterServerClose(close: ServerClose, hasSession: boolean, ended: EndedConnection): ReconnectDecision {
    const policy = closePolicy(close.code);
    if (policy.action === 'fatal') return { action: 'stop', close: policy };
    // A connect to the resume URL that failed before HELLO counts towards falling back to the main URL.
    if (!close.helloReceived && close.usedResumeUrl) this.resumeUrlFailures++;
    const mode: ReconnectMode = policy.action === 'identify' || !hasSession ? 'identify' : 'resume';
    const idle = this.idleEndDelay(ended);
    const delay = Math.max(this.backoffFor(this.attempts), idle);
    // A session the service ended costs a new IDENTIFY: back off like after op 9 false.
    const sessionEnded = policy.action === 'identify' && hasSession;
    return { action: 'reconnect', mode, delayMs: sessionEnded ? Math.max(delay, this.sessionEndedDelay()) : delay };
  }

  /**
   * The shard gave the connection up itself. Backoff applies here too, so a service that keeps answering with
   * op 7 / op 9 does not get a reconnect storm.
   */
  afterClientEnd(cause: ClientEndCause, hasSession: boolean, ended: EndedConnection): { mode: ReconnectMode; delayMs: number } {
    const { mode, causeDelay } = this.causeDelay(cause, hasSession, ended);
    const idle = this.idleEndDelay(ended);
    return { mode, delayMs: Math.max(causeDelay, this.backoffFor(this.attempts), idle) };
  }

  /** Before opening the next connection: counts the attempt, or says to give up after `maxReconnectAttempts`. */
  nextAttempt(): AttemptOutcome {
    if (this.attempts >= this.timing.maxReconnectAttempts) return { allowed: false, attempts: this.attempts };
    this.attempts++;
    return { allowed: true };
  }

  /** The mode a cause reconnects with, and the wait it asks for of its own (before backoff and idle ends). */
  private causeDelay(cause: ClientEndCause, hasSession: boolean, ended: EndedConnection): { mode: ReconnectMode; causeDelay: number } {
    const resumeIfAny: ReconnectMode = hasSession ? 'resume' : 'identify';
    switch (cause.kind) {
      case 'invalid-session':
        if (cause.resumable && hasSession) return { mode: 'resume', causeDelay: 0 };
        return { mode: 'identify', causeDelay: this.sessionEndedDelay() };
      case 'zombie':
        return { mode: resumeIfAny, causeDelay: this.zombieDelay(ended) };
      case 'lease-unconfirmed':
        return { mode: cause.mode, causeDelay: this.timing.reconnectBaseMs };
      case 'identify-queue-failed':
        return { mode: 'identify', causeDelay: this.timing.reconnectBaseMs };
      case 'reconnect-requested':
      case 'decode-error':
      case 'hello-timeout':
        return { mode: resumeIfAny, causeDelay: 0 };
    }
  }

  /**
   * The wait before identifying after the service ended the session. READY resets the ordinary reconnect
   * backoff, so a READY -> op 9 false loop would otherwise identify every few seconds and burn the day's
   * session starts: these waits double until a session lasts `stableSessionMs`.
   */
  private sessionEndedDelay(): number {
    if (this.sessionStartedAt !== null && this.now() - this.sessionStartedAt >= this.timing.stableSessionMs) this.sessionEnds = 0;
    this.sessionEnds++;
    const base = this.timing.invalidSessionDelayMs();
    const delay = Math.min(this.timing.invalidSessionMaxDelayMs, base * 2 ** Math.min(30, this.sessionEnds - 1));
    if (this.sessionEnds > 1) this.note(`session ended ${this.sessionEnds} times in a row; identifying again in ${delay} ms`);
    return delay;
  }

  /**
   * The wait before replacing a connection that became live (READY or RESUMED) and delivered no other
   * dispatch, replayed ones included. READY and RESUMED reset the ordinary backoff, so a peer that answers every
   * RESUME with RESUMED and then op 7, a corrupt frame or a close would otherwise get a new connection at once,
   * for ever. The first two such ends in a row reconnect at once, as after any working connection; each further
   * one takes the ordinary backoff's next step, capped at 5 s. A connection that delivers anything, or stays live
   * `stableSessionMs`, ends the row (events flow, or a quiet bot's connection simply lasted); one that never went
   * live is left to the ordinary backoff.
   */
  private idleEndDelay(ended: EndedConnection): number {
    if (ended.liveSince === null) return 0;
    if (ended.delivered || this.now() - ended.liveSince >= this.timing.stableSessionMs) {
      this.idleEnds = 0;
      return 0;
    }
    const n = this.idleEnds++;
    // Two in a row still reconnect at once (a service may well send op 7 twice); the backoff stays short, since
    // a resume costs the service little and events may be waiting behind it.
    const delay = n < 2 ? 0 : Math.min(IDLE_END_MAX_DELAY_MS, this.backoffFor(n - 1));
    if (n >= 2) this.note(`connection ended ${this.idleEnds} times in a row with nothing delivered besides READY/RESUMED; reconnecting in ${delay} ms`);
    return delay;
  }

  /**
   * The wait before reconnecting after a zombie close. Protocol §7.2 says to drop a zombied connection and
   * resume. The first time that happens after a connection that worked, the shard does so at once: the link died
   * and the session is waiting to be resumed. But RESUMED resets the ordinary backoff, so a peer that resumes the
   * session and then never ACKs (or ACKs too late) would get an immediate reconnect every interval for ever. So
   * zombie closes count, like sessionEndedDelay's ends: the first of a row reconnects at once, each further one
   * waits the ordinary backoff (reconnectBaseMs doubling, jittered, capped at reconnectMaxMs); a connection that
   * stays live for `stableSessionMs` ends the row.
   */
  private zombieDelay(ended: EndedConnection): number {
    if (ended.liveSince !== null && this.now() - ended.liveSince >= this.timing.stableSessionMs) this.zombieStreak = 0;
    this.zombieStreak++;
    const delay = this.backoffFor(this.zombieStreak - 1);
    if (this.zombieStreak > 1) this.note(`zombie connection ${this.zombieStreak} times in a row; reconnecting in ${delay} ms`);
    return delay;
  }

  /** 0 for n = 0, else reconnectBaseMs * 2^(n-1) capped at reconnectMaxMs, times a jitter in [0.5, 1). */
  private backoffFor(n: number): number {
    if (n === 0) return 0;
    const exp = Math.min(this.timing.reconnectMaxMs, this.timing.reconnectBaseMs * 2 ** Math.min(30, n - 1));
    return Math.round(exp * (0.5 + this.random() / 2));
  }
}
