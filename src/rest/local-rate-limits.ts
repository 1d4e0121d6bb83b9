/**
 * The limits of this process alone: bucket windows learnt from X-RateLimit-* headers, the global limit as a
 * sliding log per identity, and the invalid-request guard. The default store, and the fallback of the shared
 * one (at its share of every limit) while Redis cannot be reached.
 */
import { GlobalLimiter, type GlobalSlot } from './global-limiter.js';
import { InvalidRequestGuard } from './invalid-request-guard.js';
import { bucketKey, type Admission, type BucketView, type LimitKey, type LimitReport, type RateLimitStore } from './rate-limits.js';

export interface LocalRateLimitsOptions {
  /** Requests per `globalWindowMs` per identity, across buckets. Default 50. */
  globalLimit?: number;
  /** Default 1000. */
  globalWindowMs?: number;
  /** Invalid responses tolerated per window before refusing to send. Default 9000. */
  invalidRequestLimit?: number;
  /** Default 600000. */
  invalidRequestWindowMs?: number;
  /**
   * The part of each bucket this process may use, in (0, 1]. 1 (default): the headers are the truth. Below 1
   * (a shared store's fallback with N processes: 1/N), the process spends at most that part of each window,
   * counting its own requests, and never more than the headers say remain.
   */
  share?: number;
  /** Monotonic clock in ms. Default performance.now. */
  now?: () => number;
  /**
   * The global window to count in, instead of a new one built from `globalLimit` and `globalWindowMs` (a shared
   * store's fallback goes on counting in the record of what this process sent while Redis was answering).
   */
  global?: GlobalLimiter;
}

/** What `admit` hands to `report`: the bucket it was admitted under and its global slot (none when exempt). */
export interface LocalTicket {
  readonly hash: string | null;
  readonly slot: GlobalSlot | null;
}

interface BucketState {
  limit: number;
  remaining: number;
  /** Local clock (ms) when the window resets. */
  resetAt: number;
  lastUsed: number;
}

/** Bucket states are pruned when there are this many, at most every PRUNE_INTERVAL_MS. */
const PRUNE_AT = 1024;
const PRUNE_INTERVAL_MS = 10_000;
const IDLE_MS = 60_000;

export class LocalRateLimits implements RateLimitStore {
  readonly mode: string = 'local';
  readonly invalidLimit: number;
  readonly invalidWindowMs: number;
  readonly share: number;
  private readonly global: GlobalLimiter;
  private readonly guard: InvalidRequestGuard;
  private readonly states = new Map<string, BucketState>();
  private readonly now: () => number;
  private readonly listeners: Array<(count: number) => void> = [];
  private lastPrune = 0;

  constructor(options: LocalRateLimitsOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.global = options.global ?? new GlobalLimiter(options.globalLimit ?? 50, options.globalWindowMs ?? 1000, this.now);
    this.invalidLimit = options.invalidRequestLimit ?? 9000;
    this.invalidWindowMs = options.invalidRequestWindowMs ?? 600_000;
    this.guard = new InvalidRequestGuard(this.invalidLimit, this.invalidWindowMs, this.now);
    const share = options.share ?? 1;
    if (!(share > 0 && share <= 1)) throw new RangeError(`bucket share must be in (0, 1], got ${share}`);
    this.share = share;
  }

  admit(key: LimitKey, hash: string | null): Admission {
    const now = this.now();
    if (this.states.size >= PRUNE_AT && now - this.lastPrune > PRUNE_INTERVAL_MS) this.prune(now);
    const state = this.states.get(bucketKey(key, hash));
    if (state !== undefined) {
      state.lastUsed = now;
      if (state.remaining <= 0) {
        if (now < state.resetAt) return { kind: 'wait', ms: state.resetAt - now, scope: 'bucket', hash };
        state.remaining = state.limit;
      }
    }
    if (!key.globalExempt) {
      const delay = this.global.delay(key.identity);
      if (delay > 0) return { kind: 'wait', ms: delay, scope: 'global', hash };
    }
    // Better a local error than an hour-long ban of the IP.
    const blocked = this.guard.blockedFor();
    if (blocked > 0) return { kind: 'refuse', retryAfterMs: blocked, count: this.guard.count(), limit: this.invalidLimit };
    const slot = key.globalExempt ? null : this.global.take(key.identity);
    if (state !== undefined) state.remaining--;
    const ticket: LocalTicket = { hash, slot };
    return { kind: 'go', hash, ticket, parallel: key.globalExempt ? undefined : Math.max(1, this.global.free(key.identity)) };
  }

  report(key: LimitKey, ticket: unknown, report: LimitReport): void {
    const t = ticket as LocalTicket | null;
    const admittedHash = t?.hash ?? null;
    if (t?.slot) this.global.release(t.slot, report.sent ? report.at : null);
    const { info, at } = report;
    const hash = info.bucket ?? admittedHash;
    if (info.bucket !== null && admittedHash !== info.bucket) {
      // The route's bucket is known now: what was counted under the route alone is no longer asked for.
      this.states.delete(bucketKey(key, admittedHash));
    }
    if (info.limit !== null || info.remaining !== null || info.resetAfterMs !== null) {
      this.apply(this.stateFor(key, hash, at), info.limit, info.remaining, info.resetAfterMs, at);
    }
    const limited = report.limited;
    if (limited !== null) {
      // A global 429 holds every bucket of this identity; the bucket that got it waits in any case (an exempt
      // route does not consult the global limit, and must not retry at once either).
      if (limited.global) this.global.pause(key.identity, limited.retryAfterMs);
      if (!limited.global || key.globalExempt) {
        // retry_after is the service's word on when this bucket may go again, whatever window was assumed.
        const state = this.stateFor(key, hash, at);
        state.remaining = 0;
        state.resetAt = at + limited.retryAfterMs;
      }
      // Shared-resource 429s do not count towards the invalid-request limit (protocol §3.3).
      if (limited.scope !== 'shared') this.countInvalid();
    } else if (report.status === 401 || report.status === 403) {
      this.countInvalid();
    }
  }

  bucket(key: LimitKey, hash: string | null): BucketView | null {
    const state = this.states.get(bucketKey(key, hash));
    if (state === undefined) return null;
    const now = this.now();
    return {
      limit: Number.isFinite(state.limit) ? state.limit : null,
      remaining: Number.isFinite(state.remaining) ? Math.max(0, state.remaining) : null,
      resetInMs: state.resetAt > now ? state.resetAt - now : null,
    };
  }

  invalidCount(): number {
    return this.guard.count();
  }

  onInvalid(listener: (count: number) => void): void {
    this.listeners.push(listener);
  }

  /** Count invalid responses learnt elsewhere (the shared store's fallback starts from the fleet's count). */
  countInvalid(): void {
    const count = this.guard.record();
    for (const listener of this.listeners) listener(count);
  }

  /** A global 429 learnt elsewhere. */
  pauseGlobal(identity: string, ms: number): void {
    this.global.pause(identity, ms);
  }

  /**
   * Start a bucket from what is known elsewhere (a shared store's last view of it when falling back): at most
   * `remaining` more before `resetAt` (local clock), `limit` per window after.
   */
  seedBucket(key: string, limit: number, remaining: number, resetAt: number): void {
    const now = this.now();
    if (this.states.has(key) || !(resetAt > now)) return;
    const share = Math.max(1, Math.floor(limit * this.share));
    this.states.set(key, { limit: share, remaining: Math.min(share, Math.floor(remaining * this.share)), resetAt, lastUsed: now });
  }

  close(): void {
    this.states.clear();
  }

  private stateFor(key: LimitKey, hash: string | null, at: number): BucketState {
    const k = bucketKey(key, hash);
    let state = this.states.get(k);
    if (state === undefined) {
      state = { limit: Infinity, remaining: Infinity, resetAt: 0, lastUsed: at };
      this.states.set(k, state);
    }
    return state;
  }

  private apply(state: BucketState, limit: number | null, remaining: number | null, resetAfterMs: number | null, at: number): void {
    if (this.share === 1) {
      if (limit !== null) state.limit = limit;
      if (remaining !== null) state.remaining = remaining;
    } else {
      // Our part of the window: counted here, never above what the service says is left.
      const fresh = !Number.isFinite(state.limit);
      if (limit !== null) state.limit = Math.max(1, Math.floor(limit * this.share));
      if (fresh && Number.isFinite(state.limit)) state.remaining = state.limit - 1;
      if (remaining !== null) state.remaining = Math.min(state.remaining, remaining);
    }
    if (resetAfterMs !== null) state.resetAt = at + resetAfterMs;
  }

  private prune(now: number): void {
    this.lastPrune = now;
    for (const [k, state] of this.states) {
      if (now - state.lastUsed > IDLE_MS && (state.remaining > 0 || state.resetAt <= now)) this.states.delete(k);
    }
  }
}
