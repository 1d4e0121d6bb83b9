/**
 * The test kit's clock for the preconditions' cooldowns: the real time plus an offset a test moves forward, so
 * that a window of minutes passes at once (`bot.clock.advance(10_000)`). Only the cooldowns read it; everything
 * else (the sandbox, timeouts, entitlement dates) keeps the real time.
 */
export class TestClock {
  private offsetMs = 0;

  /** The time the cooldowns see, in ms since the epoch. */
  readonly now = (): number => Date.now() + this.offsetMs;

  /** Move the cooldowns' time forward by `ms` (never back: a window cannot un-pass). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`clock.advance: expected a duration in ms, 0 or more; got ${ms}`);
    this.offsetMs += ms;
  }

  /** How far the clock was moved forward in total. */
  get advancedMs(): number {
    return this.offsetMs;
  }
}
