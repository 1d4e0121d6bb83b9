/**
 * Counts invalid responses (401, 403, and 429 except those of `shared` scope) in a sliding window. The
 * service restricts the IP for a while at 10,000 in 10 minutes (protocol §3.3); the guard refuses to send
 * once the count reaches a lower local limit, leaving room for requests already in flight and for other
 * processes behind the same IP.
 *
 * The window is a ring of the last `limit` timestamps: bounded memory, O(1) per record.
 */
export class InvalidRequestGuard {
  private readonly times: Float64Array;
  private head = 0;
  private size = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('invalid-request limit must be a positive integer');
    if (!(windowMs > 0)) throw new RangeError('invalid-request window must be positive');
    this.times = new Float64Array(limit);
  }

  private expire(now: number): void {
    const cutoff = now - this.windowMs;
    while (this.size > 0 && this.times[this.head]! <= cutoff) {
      this.head = (this.head + 1) % this.limit;
      this.size--;
    }
  }

  /** Invalid responses in the current window. */
  count(): number {
    this.expire(this.now());
    return this.size;
  }

  /** Record one invalid response; returns the count after it. */
  record(): number {
    const now = this.now();
    this.expire(now);
    const tail = (this.head + this.size) % this.limit;
    this.times[tail] = now;
    if (this.size < this.limit) this.size++;
    else this.head = (this.head + 1) % this.limit; // full: the oldest falls out, the count stays at the limit
    return this.size;
  }

  /** 0 when a request may go; otherwise the milliseconds until the count drops below the limit. */
  blockedFor(): number {
    const now = this.now();
    this.expire(now);
    if (this.size < this.limit) return 0;
    return Math.max(1, this.times[this.head]! + this.windowMs - now);
  }
}
