/**
 * The largest value seen lately: over the current half-period and the one before it, so a value is kept for at
 * least one period and at most two, without a timer or a list. Used by the shared limits for how long a granted
 * request takes to be answered, which bounds how late a request admitted by Redis can still reach the service.
 */
export class RecentMax {
  private current = 0;
  private previous = 0;
  private since = -Infinity;

  constructor(
    private readonly halfPeriodMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  note(value: number): void {
    this.rotate();
    if (value > this.current) this.current = value;
  }

  get value(): number {
    this.rotate();
    return Math.max(this.current, this.previous);
  }

  private rotate(): void {
    const now = this.now();
    const age = now - this.since;
    if (age < this.halfPeriodMs) return;
    this.previous = age < 2 * this.halfPeriodMs ? this.current : 0;
    this.current = 0;
    this.since = now;
  }
}
