/**
 * A guild's recent membership transitions (see MemoryCache.transition), compactly: one record per user, its
 * id as two numbers (wire.ts splitSnowflake) and `time * 2 + state` (1 joined, 0 left), in typed-array columns
 * found through a PairIndex: about 27 bytes a record instead of a Map entry and a retained id string.
 *
 * Two generations bound it without per-record work: records go to the current one, which becomes the older
 * one when it holds `capacity` records or is a window old (the previous older one is dropped). A lookup checks
 * the current generation, then the older one.
 */
import { grown, nextCapacity } from './columns.js';
import { PairIndex } from './pair-index.js';

class Generation {
  keyA = new Float64Array(0);
  keyB = new Uint32Array(0);
  value = new Float64Array(0);
  size = 0;
  readonly index: PairIndex = new PairIndex(this);

  constructor(readonly since: number) {}

  get(hi: number, lo: number): number | undefined {
    const slot = this.index.find(hi, lo);
    return slot < 0 ? undefined : this.value[slot];
  }

  set(hi: number, lo: number, value: number): void {
    const known = this.index.find(hi, lo);
    if (known >= 0) {
      this.value[known] = value;
      return;
    }
    const slot = this.size++;
    if (slot >= this.keyA.length) {
      const cap = nextCapacity(this.keyA.length, slot + 1);
      this.keyA = grown(this.keyA, cap);
      this.keyB = grown(this.keyB, cap);
      this.value = grown(this.value, cap);
    }
    this.keyA[slot] = hi;
    this.keyB[slot] = lo;
    this.value[slot] = value;
    this.index.insert(hi, lo, slot);
  }

  /** Forget a user's record (it stays allocated until the generation is dropped). */
  clear(hi: number, lo: number): void {
    const slot = this.index.find(hi, lo);
    if (slot >= 0) this.value[slot] = -1;
  }
}

export class TransitionLog {
  private current: Generation | null = null;
  private older: Generation | null = null;

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
  ) {}

  /** The user's last record (time * 2 + state), or undefined. */
  get(hi: number, lo: number): number | undefined {
    const v = this.current?.get(hi, lo) ?? this.older?.get(hi, lo);
    return v === undefined || v < 0 ? undefined : v;
  }

  set(hi: number, lo: number, value: number, now: number): void {
    let g = this.current;
    if (g === null || g.size >= this.capacity || now - g.since > this.windowMs) {
      this.older = g;
      g = this.current = new Generation(now);
    }
    g.set(hi, lo, value);
  }

  clear(hi: number, lo: number): void {
    this.current?.clear(hi, lo);
    this.older?.clear(hi, lo);
  }
}
