import { describe, expect, it } from 'vitest';
import { MAX_ARENA_STRING, StringArena } from '../../src/cache/memory/string-arena.js';

describe('StringArena', () => {
  it('stores one-byte and two-byte strings and reads them back', () => {
    const records = new Map<number, { at: number; len: number }>();
    const arena = new StringArena(() => {});
    const samples = ['', 'plain_name', 'Zoë Ångström', 'ナカムラ', '🦊 fox', 'x'.repeat(MAX_ARENA_STRING)];
    samples.forEach((s, i) => {
      const size = StringArena.sizeOf(s);
      const at = arena.reserve(size);
      records.set(i, { at, len: arena.write(at, s, size) });
    });
    samples.forEach((s, i) => {
      const r = records.get(i)!;
      expect(arena.read(r.at, r.len)).toBe(s);
      expect(arena.equals(r.at, r.len, s)).toBe(true);
      expect(StringArena.bytesOf(r.len)).toBe(StringArena.sizeOf(s));
    });
    expect(StringArena.sizeOf('plain')).toBe(5);
    expect(StringArena.sizeOf('ナカ')).toBe(4);
    expect(StringArena.sizeOf('x'.repeat(MAX_ARENA_STRING + 1))).toBe(-1);
  });

  it('compacts through the owner once waste piles up, keeping every live string', () => {
    const live = new Map<number, { s: string; at: number; len: number }>();
    const arena: StringArena = new StringArena((move) => {
      for (const r of live.values()) r.at = move(r.at, StringArena.bytesOf(r.len));
    }, 64);
    let seed = 7;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let step = 0; step < 5000; step++) {
      const key = rand(50);
      const old = live.get(key);
      if (old) {
        arena.release(StringArena.bytesOf(old.len));
        live.delete(key);
      }
      if (rand(4) > 0) {
        const s = `${'é'.repeat(rand(3))}name-${step}-${'🙂'.repeat(rand(2))}`;
        const size = StringArena.sizeOf(s);
        const at = arena.reserve(size);
        live.set(key, { s, at, len: arena.write(at, s, size) });
      }
    }
    for (const r of live.values()) expect(arena.read(r.at, r.len)).toBe(r.s);
    // Waste was reclaimed: the buffer is not the sum of everything ever written.
    expect(arena.bytes.length).toBeLessThan(20_000);
  });
});
