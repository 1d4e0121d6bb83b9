import { describe, expect, it } from 'vitest';
import { PairIndex } from '../../src/cache/memory/pair-index.js';

/** A tiny owner: slots with two key columns, like the user and member tables. */
class Owner {
  keyA: number[] = [];
  keyB: number[] = [];
  index = new PairIndex(this);
}

describe('PairIndex', () => {
  it('agrees with a Map over random inserts, finds and removes (with many colliding keys)', () => {
    const owner = new Owner();
    const model = new Map<string, number>();
    const free: number[] = [];
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let step = 0; step < 20_000; step++) {
      // Small key space so that the same keys come back and probe runs get long.
      const a = rand(40) * 4294967296 + rand(3);
      const b = rand(500);
      const key = `${a}:${b}`;
      const known = model.get(key);
      expect(owner.index.find(a, b)).toBe(known ?? -1);
      if (known === undefined) {
        const slot = free.pop() ?? owner.keyA.length;
        owner.keyA[slot] = a;
        owner.keyB[slot] = b;
        owner.index.insert(a, b, slot);
        model.set(key, slot);
      } else if (rand(3) > 0) {
        owner.index.remove(a, b, known);
        owner.keyA[known] = -1;
        owner.keyB[known] = -1;
        model.delete(key);
        free.push(known);
      }
    }
    expect(owner.index.size).toBe(model.size);
    for (const [key, slot] of model) {
      const [a, b] = key.split(':').map(Number) as [number, number];
      expect(owner.index.find(a, b)).toBe(slot);
    }
  });
});
