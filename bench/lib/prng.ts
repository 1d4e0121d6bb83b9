/** Deterministic pseudo-random numbers for benchmark workloads (mulberry32): same seed, same workload. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  hex(chars: number): string {
    let out = '';
    for (let i = 0; i < chars; i++) out += '0123456789abcdef'[this.int(16)];
    return out;
  }

  word(min: number, max: number): string {
    const len = min + this.int(max - min + 1);
    let out = '';
    for (let i = 0; i < len; i++) out += 'abcdefghijklmnopqrstuvwxyz_0123456789'[i === 0 ? this.int(26) : this.int(37)];
    return out;
  }
}

/** Mix two integers into a seed, so that an entity's fields depend only on its own index. */
export function seedOf(a: number, b = 0): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  h ^= h >>> 13;
  return h >>> 0;
}
