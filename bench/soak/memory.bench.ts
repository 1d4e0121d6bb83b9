/**
 * Soak (issue 33): a bot under churn for millions of events must keep its memory flat and its cache equal to the
 * server's truth. The sandbox runs here; the bot (the Runtime, plugins/ loaded) runs alone in a child process
 * (bench/soak/child.ts) so that its heap is measured without the sandbox's. The churn (bench/soak/churn.ts, also
 * run by test/runtime/soak.test.ts): members join, leave and change, entitlements are granted and deleted (3% of
 * the events are deletions), roles are created, changed and deleted, 1% are commands answered; a RESUME every
 * cycle and a fresh IDENTIFY every third. At each cycle's end the bot's cache is compared with the sandbox's state
 * (members and roles of every guild by id, the number of live entitlements), then heap + array buffers are read
 * after forced GC. The slope (least squares, after the warm-up cycles) is given with its standard
 * error; the goal is under 1 MiB per million events. Both backends (Redis when REDIS_URL answers).
 *
 * The bounded tables fill first: entitlement tombstones (10,000 or 15 min), membership transitions (10,000 per guild
 * or 15 min), interaction dedupe keys (50,000 or 10 min). At 3% deletions and 10 guilds the counted ones are full
 * after about 400,000 events; the interaction keys, at 1% commands, only by their time. Only cycles after both
 * measure the steady state: the warm-up lasts until 400,000 events and 15 minutes (or `--warmup=N` cycles).
 *
 *   npm run bench -- soak/memory                  8 cycles of 20,000 events per backend (fill-up only: minutes)
 *   npm run bench -- soak/memory --cycles=90 --events=60000    5.4 M events, 20 to 30 min per backend
 *   npm run bench -- soak --quick                 4 cycles of 5,000 (a smoke run; no slope)
 *   ... --backend=memory | --backend=redis        one backend only
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runChurn, soakSandboxOptions, type CacheView } from './churn.js';
import { redisAnswers } from '../lib/redis-probe.js';

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
};
const quick = process.argv.includes('--quick');
const CYCLES = arg('cycles', quick ? 4 : 8);
const EVENTS = arg('events', quick ? 5_000 : 20_000);
/** `--warmup=N` fixes the warm-up at N cycles; by default it lasts until every bounded table can be full (below). */
const FIXED_WARMUP = process.argv.some((a) => a.startsWith('--warmup=')) ? arg('warmup', 0) : null;
/**
 * What the bounded tables need before they stop growing: by count, about 400,000 events (10,000 entitlement
 * tombstones at 3% deletions; 10,000 membership transitions per guild); by time, the longest time bound of the
 * runtime, 15 minutes (tombstones, transitions; the interaction dedupe keys live 10: src/runtime/intake/pipeline.ts
 * INTERACTION_DEDUPE_TTL_MS, and at 1% commands their 50,000 would take 5 M events). A full table still grows
 * once more after its time bound: a Map's capacity doubles when live and deleted entries together fill it, and a
 * 1.8 M-event run (13 minutes) measured that step (+0.9 MiB at 33,000 interactions, in both backends) as a slope.
 */
const FILL_EVENTS = 400_000;
const FILL_MS = 15 * 60_000;
/** Cycles measured after the warm-up, at least, for a slope to be given against the goal. */
const MIN_MEASURED = 6;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MiB = 1_048_576;

interface Sample {
  events: number;
  /** Since the bot started. */
  elapsedMs: number;
  bytes: number;
  rss: number;
  mismatches: number;
}

class Child {
  private next = 1;
  private readonly waiting = new Map<number, (v: Record<string, unknown>) => void>();
  constructor(readonly proc: ChildProcess) {
    proc.on('message', (raw: unknown) => {
      const msg = raw as Record<string, unknown>;
      const id = msg.id as number | undefined;
      if (id !== undefined) this.waiting.get(id)?.(msg);
    });
  }
  ask(cmd: string, timeoutMs = 120_000): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child did not answer ${cmd} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(id, (v) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        if (typeof v.error === 'string') reject(new Error(v.error));
        else resolve(v);
      });
      this.proc.send({ cmd, id });
    });
  }
}

function startChild(sandbox: Sandbox, backend: 'memory' | 'redis'): Promise<Child> {
  const proc = fork(join(import.meta.dirname, 'child.ts'), [], {
    execArgv: ['--expose-gc', '--conditions=gatehouse-source', '--import', 'tsx'],
    env: {
      ...process.env,
      SOAK_START: JSON.stringify({
        restUrl: sandbox.restUrl, token: sandbox.botToken, applicationId: sandbox.applicationId, backend,
        redisUrl: REDIS_URL, redisPrefix: `gh-soak-${randomBytes(4).toString('hex')}`, guildIds: sandbox.state.guildIds,
      }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bot did not start within 60 s')), 60_000);
    proc.once('message', () => {
      clearTimeout(timer);
      resolve(new Child(proc));
    });
    proc.once('exit', (code) => reject(new Error(`the bot exited with ${String(code)}`)));
  });
}

/** Least-squares slope of bytes over events, and its standard error. */
function slope(points: Array<{ x: number; y: number }>): { perEvent: number; stderr: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const b = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  const residual = points.reduce((s, p) => s + (p.y - my - b * (p.x - mx)) ** 2, 0);
  return { perEvent: b, stderr: n > 2 ? Math.sqrt(residual / (n - 2) / sxx) : Number.NaN };
}

const mib = (bytes: number): string => (bytes / MiB).toFixed(1);

async function soak(backend: 'memory' | 'redis'): Promise<{ samples: Sample[]; answered: number; invoked: number }> {
  const sandbox = await createSandbox(soakSandboxOptions());
  const child = await startChild(sandbox, backend);
  const samples: Sample[] = [];
  const started = Date.now();
  try {
    const result = await runChurn({
      sandbox,
      bot: { view: async () => (await child.ask('view')).view as CacheView },
      cycles: CYCLES,
      eventsPerCycle: EVENTS,
      onCycleEnd: async (end) => {
        const m = await child.ask('sample');
        const bytes = (m.heap as number) + (m.arrayBuffers as number);
        samples.push({ events: end.events, elapsedMs: Date.now() - started, bytes, rss: m.rss as number, mismatches: end.mismatches });
        console.log(
          `  ${backend} cycle ${end.cycle + 1}/${CYCLES}: ${end.events.toLocaleString('en')} events, heap+ab ${mib(bytes)} MiB, ` +
            `rss ${mib(m.rss as number)} MiB, cache vs sandbox mismatches ${end.mismatches}, live entitlements ${end.liveEntitlements}`,
        );
        for (const line of end.mismatched) console.log(`    ${line}`);
      },
    });
    if (result.unanswered.length > 0) console.log(`  not answered (${result.invoked - result.answered}), first: ${result.unanswered[0]}`);
    return { samples, answered: result.answered, invoked: result.invoked };
  } finally {
    await child.ask('stop', 20_000).catch(() => child.proc.kill('SIGKILL'));
    await sandbox.close();
  }
}

/** `--backend=memory` or `--backend=redis` runs one (two runs side by side take half the time on two cores). */
const only = process.argv.find((a) => a.startsWith('--backend='))?.slice('--backend='.length);
const backends: Array<'memory' | 'redis'> = only === 'redis' ? [] : ['memory'];
if (only !== 'memory') {
  if (await redisAnswers(REDIS_URL)) backends.push('redis');
  else console.log(`(no Redis at ${REDIS_URL}: the Redis backend is skipped)`);
}
console.log(
  `soak: ${CYCLES} cycles x ${EVENTS.toLocaleString('en')} events per backend (bench/soak/churn.ts), 3% entitlement deletions; ` +
    `warm-up ${FIXED_WARMUP !== null ? `${FIXED_WARMUP} cycles` : `until ${FILL_EVENTS.toLocaleString('en')} events and ${FILL_MS / 60_000} min`}`,
);
let failed = false;
for (const backend of backends) {
  const { samples, answered, invoked } = await soak(backend);
  let warmup = FIXED_WARMUP ?? samples.findIndex((x) => x.events >= FILL_EVENTS && x.elapsedMs >= FILL_MS) + 1;
  if (warmup <= 0) warmup = FIXED_WARMUP === 0 ? 1 : samples.length;
  const after = samples.slice(warmup).map((x) => ({ x: x.events, y: x.bytes }));
  const mismatched = samples.filter((x) => x.mismatches !== 0).length;
  const cacheLine = `cache equal to the sandbox at ${samples.length - mismatched} of ${samples.length} cycle ends; ${answered} of ${invoked} commands answered`;
  // The slope is held to the goal only when the run is long enough to have a steady state to measure.
  const measurable = after.length >= MIN_MEASURED && (FIXED_WARMUP === null || samples[warmup - 1]!.events >= FILL_EVENTS);
  if (after.length >= 3) {
    const fit = slope(after);
    const perM = (fit.perEvent * 1e6) / MiB;
    const noise = (fit.stderr * 1e6) / MiB;
    console.log(
      `${backend}: heap + array buffers ${perM >= 0 ? '+' : ''}${perM.toFixed(2)} MiB per million events (standard error ${noise.toFixed(2)}) ` +
        `over the ${after.length} cycles after a warm-up of ${warmup} (${samples[warmup - 1]!.events.toLocaleString('en')} events, ${(samples[warmup - 1]!.elapsedMs / 60_000).toFixed(1)} min); ${cacheLine}`,
    );
    console.log(`${backend}: goal under 1 MiB per million events after warm-up: ${measurable ? (perM < 1 ? 'met' : 'NOT met') : `not measured (fewer than ${MIN_MEASURED} cycles after a warm-up long enough for the bounded tables to fill)`}`);
    if (measurable && perM >= 1) failed = true;
  } else {
    console.log(`${backend}: ${cacheLine}; the run ended before the bounded tables could fill (${FILL_EVENTS.toLocaleString('en')} events and ${FILL_MS / 60_000} min): no slope`);
  }
  if (mismatched > 0 || answered !== invoked) failed = true;
}
if (failed) process.exitCode = 1;
