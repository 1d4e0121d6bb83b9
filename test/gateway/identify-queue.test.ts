import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalIdentifyQueue } from '../../src/gateway/identify-queue.js';

describe('LocalIdentifyQueue', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('lets one shard per max_concurrency bucket identify per window', async () => {
    const q = new LocalIdentifyQueue({ maxConcurrency: 2, windowMs: 5000, marginMs: 0, now: () => Date.now() });
    const granted: Array<{ shard: number; at: number }> = [];
    const all = Array.from({ length: 8 }, (_, shard) =>
      q.acquire(shard).then(() => granted.push({ shard, at: Date.now() })),
    );
    await vi.advanceTimersByTimeAsync(20_000);
    await Promise.all(all);
    const waves = new Map<number, number[]>();
    for (const g of granted) waves.set(g.at, [...(waves.get(g.at) ?? []), g.shard]);
    expect([...waves.keys()]).toEqual([0, 5000, 10_000, 15_000]);
    for (const shards of waves.values()) {
      expect(shards.length).toBe(2);
      expect(shards.map((s) => s % 2).sort()).toEqual([0, 1]); // one per bucket
    }
  });

  it('adds the margin to the window', async () => {
    const q = new LocalIdentifyQueue({ maxConcurrency: 1, windowMs: 1000, marginMs: 100, now: () => Date.now() });
    const at: number[] = [];
    const p = [q.acquire(0), q.acquire(0)].map((x) => x.then(() => at.push(Date.now())));
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all(p);
    expect(at).toEqual([0, 1100]);
  });

  it('an aborted wait gives its turn to the next shard', async () => {
    const q = new LocalIdentifyQueue({ maxConcurrency: 1, windowMs: 1000, marginMs: 0, now: () => Date.now() });
    const at = new Map<number, number>();
    await q.acquire(0);
    const abort = new AbortController();
    const aborted = q.acquire(1, abort.signal);
    const next = q.acquire(2).then(() => at.set(2, Date.now()));
    abort.abort(new Error('shard closed'));
    await expect(aborted).rejects.toThrow('shard closed');
    await vi.advanceTimersByTimeAsync(2000);
    await next;
    expect(at.get(2)).toBe(1000);
  });

  it('rejects a bad max_concurrency', () => {
    expect(() => new LocalIdentifyQueue({ maxConcurrency: 0 })).toThrow(/max_concurrency/);
  });
});
