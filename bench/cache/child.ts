/**
 * Runs one cache subject over the whole workload in this process and prints one JSON line (prefixed
 * with RESULT) on stdout. Started by cache.bench.ts with --expose-gc, one process per subject, so that
 * heap deltas belong to that subject alone.
 *
 * argv: <subject> <workload options as JSON> <time budget in ms>
 */
import { performance } from 'node:perf_hooks';
import { CacheWorkload, type CacheWorkloadOptions, type Phase } from './workload.js';
import type { CacheSubject, SubjectCounts } from './subjects/types.js';

export interface ChildResult {
  subject: string;
  inProcess: boolean;
  events: number;
  /** Milliseconds spent inside feed(), per phase and in total. */
  feedMs: Record<Phase | 'total', number>;
  eventsPerPhase: Record<Phase, number>;
  heapDeltaBytes: number;
  counts: SubjectCounts;
  extra: Record<string, number>;
  /** True when the time budget ran out before the workload did. */
  truncated: boolean;
}

/** Not a cache: JSON.parse of the same dispatches, the floor every subject's cost sits on top of. */
class ParseOnly implements CacheSubject {
  readonly name = 'JSON.parse alone';
  readonly inProcess = true;
  async setup(): Promise<void> {}
  feed(): void {}
  async counts(): Promise<SubjectCounts> {
    return { guilds: 0, members: 0, users: 0, roles: 0 };
  }
  async teardown(): Promise<void> {}
}

async function makeSubject(name: string): Promise<CacheSubject> {
  switch (name) {
    case 'parse':
      return new ParseOnly();
    case 'discordjs':
      return new (await import('./subjects/discordjs.js')).DiscordJsSubject();
    case 'memory':
      return new (await import('./subjects/gatehouse.js')).GatehouseMemorySubject();
    case 'redis':
      return new (await import('./subjects/gatehouse.js')).GatehouseRedisSubject();
    default:
      throw new Error(`unknown cache subject "${name}" (expected discordjs, memory or redis)`);
  }
}

function settleHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) gc();
  const m = process.memoryUsage();
  // Typed-array backing stores live outside the JS heap; count them, or a columnar cache would look free.
  return m.heapUsed + m.arrayBuffers;
}

async function main(): Promise<void> {
  const [name, optionsJson, budgetArg] = process.argv.slice(2);
  if (!name) throw new Error('usage: child.ts <subject> [options-json] [budget-ms]');
  const options = JSON.parse(optionsJson ?? '{}') as Partial<CacheWorkloadOptions>;
  const budgetMs = Number(budgetArg ?? 120_000);
  const workload = new CacheWorkload(options);
  const subject = await makeSubject(name);
  const parseOnly = subject instanceof ParseOnly;
  await subject.setup();

  const feedMs: ChildResult['feedMs'] = { ready: 0, guild_create: 0, member_events: 0, total: 0 };
  const eventsPerPhase: ChildResult['eventsPerPhase'] = { ready: 0, guild_create: 0, member_events: 0 };
  let events = 0;
  let truncated = false;
  const started = performance.now();
  const baseline = settleHeap();

  for (const batch of workload.batches()) {
    if (performance.now() - started > budgetMs) {
      truncated = true;
      break;
    }
    const t0 = performance.now();
    if (parseOnly) JSON.parse(batch.json);
    else await subject.feed(batch.packets);
    const dt = performance.now() - t0;
    feedMs[batch.phase] += dt;
    feedMs.total += dt;
    eventsPerPhase[batch.phase] += batch.packets.length;
    events += batch.packets.length;
  }

  const after = settleHeap();
  const counts = await subject.counts();
  const extra = subject.extra ? await subject.extra() : {};
  await subject.teardown();
  const result: ChildResult = {
    subject: subject.name,
    inProcess: subject.inProcess,
    events,
    feedMs,
    eventsPerPhase,
    heapDeltaBytes: after - baseline,
    counts,
    extra,
    truncated,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
