import { describe, expect, it } from 'vitest';
import { RecentMax } from '../../src/rest/redis/recent-max.js';

describe('RecentMax: the largest value of the last one to two periods', () => {
  it('keeps a value for at least one half-period after the next begins, and forgets it after two', () => {
    let now = 0;
    const m = new RecentMax(100, () => now);
    m.note(40);
    m.note(10);
    expect(m.value).toBe(40);
    now = 150; // the next half-period: 40 is the previous one's
    m.note(20);
    expect(m.value).toBe(40);
    now = 260; // 40 is two half-periods old
    expect(m.value).toBe(20);
    now = 600; // nothing noted for longer than two
    expect(m.value).toBe(0);
  });
});
