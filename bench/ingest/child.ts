/**
 * One subject of the ingest benchmark in its own process (started by ingest.bench.ts with --expose-gc and an
 * IPC channel). It measures itself: CPU with process.cpuUsage (user + system of this process only, so the
 * benchmark's server, in the parent, is never counted), memory after full collections.
 *
 *   login -> every guild cached          "ready": wall time and CPU
 *   full GC, RSS and heap                memory after load
 *   'ready' to the parent, which starts the live events; CPU until the last one is seen (and answered)
 *   'done', then the final state for the parent to check, then stop.
 *
 * argv[2]: ChildConfig as JSON.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { ChildConfig, ChildMessage, ParentMessage, VerifyRequest } from './protocol.js';
import type { IngestSubject } from './subjects/types.js';

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())));
}

function collect(): { rss: number; heap: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) gc();
  const m = process.memoryUsage();
  // Typed-array backing stores live outside the JS heap; a columnar cache would look free without them.
  return { rss: m.rss, heap: m.heapUsed + m.arrayBuffers };
}

/**
 * CPU milliseconds of every thread but the main one so far (Linux: /proc/self/task/<tid>/stat, utime +
 * stime in clock ticks of 10 ms), or null where unreadable. Threads that ended meanwhile are not counted.
 */
function helperThreadsCpu(): Map<string, number> | null {
  try {
    const out = new Map<string, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      if (tid === String(process.pid)) continue;
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    }
    return out;
  } catch {
    return null;
  }
}

function helperCpuSince(before: Map<string, number> | null): number | null {
  const after = helperThreadsCpu();
  if (before === null || after === null) return null;
  let ms = 0;
  for (const [tid, v] of after) ms += v - (before.get(tid) ?? 0);
  return ms;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

async function makeSubject(cfg: ChildConfig): Promise<IngestSubject> {
  switch (cfg.subject) {
    case 'gatehouse':
    case 'gatehouse-redis':
      return new (await import('./subjects/gatehouse.js')).GatehouseSubject(cfg);
    case 'discordjs':
      return new (await import('./subjects/discordjs.js')).DiscordJsSubject(cfg);
    case 'floor':
      return new (await import('./subjects/floor.js')).FloorSubject(cfg);
    case 'wire':
      return new (await import('./subjects/wire.js')).WireSubject(cfg);
  }
}

/**
 * A profiler of this process over the inspector protocol: `begin` methods start it, `end` stops it and returns
 * the profile, which is written to a file as JSON.
 */
class InspectorProfiler {
  private readonly session = new Session();

  constructor(
    private readonly begin: ReadonlyArray<[method: string, params?: object]>,
    private readonly end: string,
  ) {}

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) => this.session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  }

  async start(): Promise<void> {
    this.session.connect();
    for (const [method, params] of this.begin) await this.post(method, params);
  }

  async stop(path: string): Promise<void> {
    const { profile } = (await this.post(this.end)) as { profile: unknown };
    writeFileSync(path, JSON.stringify(profile));
    this.session.disconnect();
  }
}

/** CPU samples every 200 µs. */
const cpuProfiler = (): InspectorProfiler =>
  new InspectorProfiler([['Profiler.enable'], ['Profiler.setSamplingInterval', { interval: 200 }], ['Profiler.start']], 'Profiler.stop');

/** Sampling heap profile: every allocation is counted, collected or not (what GC has to deal with). */
const allocationSampler = (): InspectorProfiler =>
  new InspectorProfiler(
    [['HeapProfiler.enable'], ['HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }]],
    'HeapProfiler.stopSampling',
  );

function nextParentMessage(): Promise<ParentMessage> {
  return new Promise((resolve) => process.once('message', (m: ParentMessage) => resolve(m)));
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2] ?? '') as ChildConfig;
  const watchdog = setTimeout(() => {
    process.stderr.write(`ingest subject ${cfg.subject}: no result within ${cfg.timeoutMs} ms\n`);
    process.exit(3);
  }, cfg.timeoutMs);
  const subject = await makeSubject(cfg);
  const before = collect();

  const alloc = cfg.allocProfile !== undefined ? allocationSampler() : null;
  if (cfg.allocProfile?.phase === 'startup') await alloc!.start();
  const profiler = cfg.profilePath !== undefined ? cpuProfiler() : null;
  const profileStartup = cfg.profilePhase === 'startup';
  if (profileStartup) await profiler?.start();
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await subject.start();
  await subject.settle();
  if (cfg.allocProfile?.phase === 'startup') await alloc!.stop(cfg.allocProfile.path);
  const readyAt = process.hrtime.bigint();
  const startupCpuMs = cpuMs(cpu0);
  // Writing the profile out is not the startup's work.
  if (profileStartup) await profiler?.stop(cfg.profilePath!);
  const loaded = collect();
  const members = await subject.members();

  if (!profileStartup) await profiler?.start();
  if (cfg.allocProfile?.phase === 'live') await alloc!.start();
  const cpu1 = process.cpuUsage();
  const helpers1 = helperThreadsCpu();
  await send({
    type: 'ready',
    loginToReadyMs: Number(readyAt - t0) / 1e6,
    startupCpuMs,
    readyAt: String(readyAt),
    rssBytes: loaded.rss,
    rssBeforeBytes: before.rss,
    heapDeltaBytes: loaded.heap - before.heap,
    members,
  });
  const counts = await subject.eventsDone();
  await subject.settle();
  const doneAt = process.hrtime.bigint();
  const eventsCpuMs = cpuMs(cpu1);
  const helperThreadsCpuMs = helperCpuSince(helpers1);
  if (profiler !== null && !profileStartup) await profiler.stop(cfg.profilePath!);
  if (cfg.allocProfile?.phase === 'live') await alloc!.stop(cfg.allocProfile.path);
  await send({ type: 'done', eventsCpuMs, helperThreadsCpuMs, doneAt: String(doneAt), counts, rssBytes: process.memoryUsage().rss });

  const request = await nextParentMessage();
  if (request.type === 'verify') await send({ type: 'state', ...(await subject.verify(request as VerifyRequest)) });
  await subject.stop();
  clearTimeout(watchdog);
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`${message}\n`);
    await send({ type: 'error', message }).catch(() => undefined);
    process.exit(1);
  },
);
