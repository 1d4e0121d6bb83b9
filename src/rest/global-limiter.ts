/**
 * The service's global limit: N requests per second per token, across every route (protocol §3.3).
 *
 * A sliding log rather than fixed windows: a fixed window admits 2N requests across a window boundary, which a
 * server counting per second would punish. Each identity keeps the requests of its last window. A request
 * holds its slot from its admission until its response (pending), and one window after the response
 * (released): the service stamps a request when it arrives, some time after the admission and always before
 * its answer leaves (see rate-limits.ts), so a slot reused one window after the answer can never put two
 * requests less than a window apart at the service.
 *
 * A request may go when fewer than N slots are held; otherwise the slot that frees first decides: the oldest
 * released one (a window after its response), or, when every held slot is still pending, no sooner than one
 * window from now (a pending slot is released now at the earliest).
 */

/** One request's place in the window, from its admission until a window after its response. */
export interface GlobalSlot {
  readonly identity: string;
  /** Unique within this limiter: names the slot where it is shared (redis/shared-rate-limits.ts). */
  readonly id: number;
  /** Local clock (ms) from which it counts as out: when it was taken, or the time it was booked for. */
  outSince: number;
  /** Local clock (ms) of the response that released it; NaN while the request is out. */
  releasedAt: number;
}

interface IdentityState {
  /** Released slots still in the window, oldest release first, from `head`. */
  released: Array<GlobalSlot | undefined>;
  head: number;
  /** Slots whose request is out (admitted, no response yet). */
  readonly pending: Set<GlobalSlot>;
  /** Set by a 429 of global scope: nothing of this identity goes before it. */
  pausedUntil: number;
  lastUsed: number;
}

export class GlobalLimiter {
  private readonly states = new Map<string, IdentityState>();
  private nextId = 0;
  /** Nothing of any identity goes before this (a shared store's fallback: the fleet's window is not known). */
  private heldUntil = 0;
  private limitValue: number;

  constructor(
    limit: number,
    readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.limitValue = GlobalLimiter.checkLimit(limit);
    if (!(windowMs > 0)) throw new RangeError('global window must be positive');
  }

  private static checkLimit(limit: number): number {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('global limit must be a positive integer');
    return limit;
  }

  get limit(): number {
    return this.limitValue;
  }

  /** Change N from now on (a shared store falling back to its share, and back). */
  setLimit(limit: number): void {
    this.limitValue = GlobalLimiter.checkLimit(limit);
  }

  private state(identity: string): IdentityState {
    let s = this.states.get(identity);
    if (!s) {
      if (this.states.size >= 512) this.prune();
      s = { released: [], head: 0, pending: new Set(), pausedUntil: 0, lastUsed: this.now() };
      this.states.set(identity, s);
    }
    return s;
  }

  /** Drop identities (bearer tokens come and go) with nothing out, nothing in the window and no pause. */
  private prune(): void {
    const now = this.now();
    for (const [key, s] of this.states) {
      this.expire(s, now);
      if (s.pending.size === 0 && s.head === s.released.length && s.pausedUntil <= now) this.states.delete(key);
    }
  }

  /** Forget released slots a full window old. */
  private expire(s: IdentityState, now: number): void {
    const horizon = now - this.windowMs;
    while (s.head < s.released.length && s.released[s.head]!.releasedAt <= horizon) s.released[s.head++] = undefined;
    if (s.head === s.released.length) {
      s.released.length = 0;
      s.head = 0;
    } else if (s.head > 1024 && s.head * 2 > s.released.length) {
      s.released = s.released.slice(s.head);
      s.head = 0;
    }
  }

  /** Milliseconds before a request of this identity may go (0 = now). */
  delay(identity: string): number {
    const now = this.now();
    const held = this.heldUntil - now;
    const s = this.states.get(identity);
    if (!s) return Math.max(0, held);
    this.expire(s, now);
    const inWindow = s.released.length - s.head;
    const count = s.pending.size + inWindow;
    let windowed = 0;
    if (count >= this.limitValue) {
      // The (count - limit)-th slot to free: released ones free first, in release order.
      const k = count - this.limitValue;
      windowed = k < inWindow ? s.released[s.head + k]!.releasedAt + this.windowMs - now : this.windowMs;
    }
    return Math.max(0, s.pausedUntil - now, held, windowed);
  }

  /** Slots free now (0 while paused or held). */
  free(identity: string): number {
    if (this.delay(identity) > 0) return 0;
    const s = this.states.get(identity);
    return s ? Math.max(0, this.limitValue - s.pending.size - (s.released.length - s.head)) : this.limitValue;
  }

  /** Take a slot if one is free now; otherwise take nothing and return null. */
  tryAcquire(identity: string): GlobalSlot | null {
    return this.delay(identity) > 0 ? null : this.take(identity);
  }

  /** Take a slot whatever the window says (a shared store records here what Redis admitted). */
  take(identity: string): GlobalSlot {
    const s = this.state(identity);
    const now = this.now();
    const slot: GlobalSlot = { identity, id: ++this.nextId, outSince: now, releasedAt: NaN };
    s.pending.add(slot);
    s.lastUsed = now;
    return slot;
  }

  /**
   * The response to the slot's request came at `at` (local clock): the slot counts until a window after it.
   * `null`: the request never left, so the slot is free at once. A second release is ignored.
   */
  release(slot: GlobalSlot, at: number | null): void {
    const s = this.states.get(slot.identity);
    if (!s || !s.pending.delete(slot)) return;
    if (at === null) return;
    slot.releasedAt = at;
    // Releases come in response order, so this is an append but for a report that came late.
    let i = s.released.length;
    while (i > s.head && s.released[i - 1]!.releasedAt > at) i--;
    if (i === s.released.length) s.released.push(slot);
    else s.released.splice(i, 0, slot);
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

  /** Hold every identity until `at` (local clock). */
  holdUntil(at: number): void {
    this.heldUntil = Math.max(this.heldUntil, at);
  }

  /** Slots whose request is out. */
  *out(): Generator<GlobalSlot> {
    for (const s of this.states.values()) yield* s.pending;
  }

  /** Every slot that still counts: released ones in the window, and pending ones (for writing them elsewhere). */
  *held(): Generator<GlobalSlot> {
    const now = this.now();
    for (const s of this.states.values()) {
      this.expire(s, now);
      for (let i = s.head; i < s.released.length; i++) yield s.released[i]!;
      yield* s.pending;
    }
  }
}
