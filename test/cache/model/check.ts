/**
 * Seeds, backends and shrinking of the model-based test (model.*.test.ts): each seed's step list runs against
 * a backend and the reference model; a failing seed is shrunk to the shortest step list that still fails,
 * which is printed. GATEHOUSE_MODEL_SEEDS (a count, or a comma list) and GATEHOUSE_MODEL_STEPS override the
 * defaults (20 seeds x 5,000 steps).
 */
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { MemoryCache, RedisCache, type Cache, type CacheOptions } from '../../../src/cache/index.js';
import { uniquePrefix } from '../../helpers/redis.js';
import { ModelRun, type Backend } from './harness.js';
import { generateSteps, type Step } from './world.js';
import { dropPrefix } from '../redis-cleanup.js';

export const STEPS = Number(process.env.GATEHOUSE_MODEL_STEPS ?? 5000);
export const SEEDS = ((): number[] => {
  const v = process.env.GATEHOUSE_MODEL_SEEDS;
  if (v !== undefined && v.includes(',')) return v.split(',').map(Number);
  const n = Number(v ?? 20);
  return Array.from({ length: n }, (_, i) => 1 + i);
})();

/** The configurations seeds rotate through: full cache, a member cap, no members, no channels (every eighth). */
export function optionsFor(seed: number): Partial<CacheOptions> {
  switch (seed % 4) {
    case 1:
      return { maxMembersPerGuild: 4 };
    case 2:
      return { members: false };
    case 3:
      return seed % 8 === 7 ? { channels: false } : {};
    default:
      return {};
  }
}

export function memoryBackend(): Backend {
  return {
    name: 'memory',
    persistent: false,
    async create(options) {
      return new MemoryCache(options);
    },
    async restart(cache, options) {
      await cache.close();
      return new MemoryCache(options);
    },
    async dispose() {},
  };
}

export function redisBackend(redis: Redis): Backend {
  const prefix = uniquePrefix('model');
  let current: Cache | null = null;
  return {
    name: 'redis',
    persistent: true,
    async create(options) {
      current = new RedisCache(redis, { ...options, prefix });
      return current;
    },
    async restart(cache, options) {
      await cache.close();
      current = new RedisCache(redis, { ...options, prefix });
      return current;
    },
    async dispose() {
      await current?.close();
      await dropPrefix(redis, prefix);
    },
  };
}

async function runOnce(makeBackend: () => Backend, seed: number, steps: readonly Step[]): Promise<string | null> {
  const run = new ModelRun(makeBackend(), optionsFor(seed));
  try {
    await run.run(steps);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await run.dispose();
  }
}

/**
 * The shortest failing list ddmin finds (chunks removed while it still fails), bounded by runs and time.
 */
async function shrink(makeBackend: () => Backend, seed: number, steps: Step[]): Promise<{ steps: Step[]; message: string }> {
  let current = steps;
  let message = (await runOnce(makeBackend, seed, current)) ?? 'passed when run again';
  const deadline = Date.now() + 120_000;
  let n = 2;
  for (let runs = 0; runs < 2000 && current.length > 1 && Date.now() < deadline; ) {
    const size = Math.ceil(current.length / n);
    let reduced = false;
    for (let start = 0; start < current.length && Date.now() < deadline; start += size) {
      const candidate = [...current.slice(0, start), ...current.slice(start + size)];
      runs++;
      const failure = await runOnce(makeBackend, seed, candidate);
      if (failure !== null) {
        current = candidate;
        message = failure;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  }
  return { steps: current, message };
}

export async function check(name: string, makeBackend: () => Backend, concurrency: number): Promise<void> {
  const failures: string[] = [];
  const queue = [...SEEDS];
  const worker = async (): Promise<void> => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      const steps = generateSteps(seed, STEPS);
      const failure = await runOnce(makeBackend, seed, steps);
      if (failure === null) continue;
      const small = await shrink(makeBackend, seed, steps);
      failures.push(
        `${name} seed ${seed} (${JSON.stringify(optionsFor(seed))}): ${small.message}\n` +
          `shortest failing list (${small.steps.length} of ${steps.length} steps):\n` +
          small.steps.map((s) => `  ${JSON.stringify(s)}`).join('\n'),
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failures.length > 0) console.error(failures.join('\n\n'));
  expect(failures).toEqual([]);
}

