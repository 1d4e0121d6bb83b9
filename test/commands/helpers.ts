import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Problem } from '../../src/commands/index.js';

/** `path CODE` per problem: compact, exact, and order-insensitive when sorted. */
export function pc(problems: readonly Problem[]): string[] {
  return problems.map((p) => `${p.path} ${p.code}`).sort();
}

export function fixture(name: string): unknown[] {
  const file = fileURLToPath(new URL(`../fixtures/commands/${name}`, import.meta.url));
  return JSON.parse(readFileSync(file, 'utf8')) as unknown[];
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** A small deterministic PRNG (mulberry32) so generated inputs are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
