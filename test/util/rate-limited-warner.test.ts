import { describe, expect, it } from 'vitest';
import { OVERFLOW_WARN_KEY, RateLimitedWarner, warnKeyPattern } from '../../src/util/rate-limited-warner.js';

function fakeClock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('RateLimitedWarner', () => {
  it('lets one occurrence per key per window through and reports the repeats with the next one', () => {
    const clock = fakeClock();
    const warner = new RateLimitedWarner({ windowMs: 60_000, now: clock.now });
    const lines: Array<Record<string, unknown>> = [];
    // One occurrence every 100 ms for ten minutes: one line per minute, not 6,000.
    for (let i = 0; i < 6_000; i++) {
      const fields = warner.fields('component vote:#', { i });
      if (fields !== null) lines.push(fields);
      clock.advance(100);
    }
    expect(lines).toHaveLength(10);
    expect(lines[0]).toEqual({ i: 0 });
    expect(lines[1]).toEqual({ i: 600, repeats: 599 });
    expect(lines.slice(1).every((l) => l.repeats === 599)).toBe(true);
  });

  it('keeps its table bounded: a flood of distinct keys shares one overflow key until old ones expire', () => {
    const clock = fakeClock();
    const warner = new RateLimitedWarner({ windowMs: 1_000, maxKeys: 100, now: clock.now });
    let lines = 0;
    for (let i = 0; i < 100_000; i++) {
      if (warner.take(`key ${i}`) !== null) lines++;
      if (i % 1_000 === 999) clock.advance(100);
    }
    // 10 s of clock: per window at most maxKeys + 1 lines, never one per key; the table never past maxKeys + 1.
    expect(warner.size).toBeLessThanOrEqual(101);
    expect(lines).toBeLessThanOrEqual(10 * 101 + 101);
    expect(lines).toBeGreaterThan(10);
  });

  it('sweeps expired keys when full, so new keys get their own line again', () => {
    const clock = fakeClock();
    const warner = new RateLimitedWarner({ windowMs: 1_000, maxKeys: 2, now: clock.now });
    expect(warner.take('a')).toBe(0);
    expect(warner.take('b')).toBe(0);
    expect(warner.take('c')).toBe(0); // the overflow key's first line
    expect(warner.take('d')).toBeNull(); // shares the overflow key
    clock.advance(1_000);
    expect(warner.take('e')).toBe(0);
    expect(warner.size).toBeLessThanOrEqual(2);
    expect(OVERFLOW_WARN_KEY).toContain('overflow');
  });
});

describe('warnKeyPattern', () => {
  it('folds numbers and generated ids, keeps words', () => {
    expect(warnKeyPattern('vote:123456789012345678:yes')).toBe('vote:#:yes');
    expect(warnKeyPattern('vote:42:yes')).toBe(warnKeyPattern('vote:7:yes'));
    expect(warnKeyPattern('vote:42:no')).not.toBe(warnKeyPattern('vote:42:yes'));
    expect(warnKeyPattern('ticket-3f2a9c1b-8d4e-4b7a-9f00-1c2d3e4f5a6b')).toBe(warnKeyPattern('ticket-00aa11bb-22cc-33dd-44ee-55ff66778899'));
    expect(warnKeyPattern('page|aZ3kQ9xL0pW2mN7v|next')).toBe('page|#|next');
    expect(warnKeyPattern('settings:open')).toBe('settings:open');
    expect(warnKeyPattern('ping')).toBe('ping');
  });
});
