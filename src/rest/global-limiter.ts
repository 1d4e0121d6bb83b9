import { sleep } from '../util/sleep.js';

interface IdentityState {
  /** Send times of the last `limit` requests, oldest at `next`. */
  readonly ring: Float64Array;
  next: number;
  /** Set by a 429 of global scope: nothing of this identity goes before it. */
  pausedUntil: number;
  lastUsed: number;
}

/**
 * The service's global limit: N requests per second per token, across every route (protocol §3.3).
 *
 * A sliding log rather than fixed windows: a fixed window admits 2N requests across a window boundary,
 * which a server counting per second would punish. Each identity keeps the send times of its last N
 * requests in a ring; a request may go when the oldest of them is a full window old. O(1) per request.
 */
export class GlobalLimiter {
  private readonly states = new Map<string, IdentityState>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('global limit must be a positive integer');
    if (!(windowMs > 0)) throw new RangeError('global window must be positive');
  }

  private state(identity: string): IdentityState {
    let s = this.states.get(identity);
    if (!s) {
      if (this.states.size >= 512) this.prune();
      s = { ring: new Float64Array(this.limit).fill(-Infinity), next: 0, pausedUntil: 0, lastUsed: this.now() };
      this.states.set(identity, s);
    }
    return s;
  }

  /** Drop identities (bearer tokens come and go) whose window and pause are over. */
  private prune(): void {
    const now = this.now();
    for (const [key, s] of this.states) {
      if (s.lastUsed + this.windowMs < now && s.pausedUntil <= now) this.states.delete(key);
    }
  }

  /** Milliseconds before a request of this identity may go (0 = now). */
  delay(identity: string): number {
    const s = this.states.get(identity);
    if (!s) return 0;
    const now = this.now();
    const paused = s.pausedUntil - now;
    const windowed = s.ring[s.next]! + this.windowMs - now;
    return Math.max(0, paused, windowed);
  }

  /** Take a slot if one is free now; otherwise take nothing and return false. */
  tryAcquire(identity: string): boolean {
    if (this.delay(identity) > 0) return false;
    const s = this.state(identity);
    const now = this.now();
    s.ring[s.next] = now;
    s.next = (s.next + 1) % this.limit;
    s.lastUsed = now;
    return true;
  }

  /** Wait for a slot and take it. Check-and-take is synchronous, so concurrent waiters never over-admit. */
  async acquire(identity: string, signal?: AbortSignal): Promise<void> {
    while (!this.tryAcquire(identity)) await sleep(this.delay(identity), signal);
  }

  /** A 429 of global scope: hold every request of this identity for `ms`. */
  pause(identity: string, ms: number): void {
    const s = this.state(identity);
    s.pausedUntil = Math.max(s.pausedUntil, this.now() + ms);
  }

  /** Milliseconds left of a global pause (0 when none). */
  pausedFor(identity: string): number {
    const s = this.states.get(identity);
    return s ? Math.max(0, s.pausedUntil - this.now()) : 0;
  }
}
