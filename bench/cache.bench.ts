/**
 * PART benchmark (it says so in its output): the cache alone, on already-parsed payloads. The product path, what
 * a bot owner gets, is measured by ingest.bench.ts; a figure from here never stands in for it.
 *
 * Cache benchmark: the same gateway workload (default 200 guilds x 1,000 members as real dispatch
 * payloads, then member updates/adds/removes) through discord.js v14's cache, gatehouse's memory
 * backend and gatehouse's Redis backend, each in its own process (`--expose-gc`, heap settled before
 * and after), plus JSON.parse of the same payloads as the floor.
 *
 * Reported: heap bytes per cached member (JS heap + array buffers, delta / cached members), events per
 * second (time inside the cache only; payload generation is outside), and the ratios against
 * discord.js. Results also go to bench/results/cache.json.
 *
 * The in-process subjects (discord.js, memory) run --rounds times (default 2), alternating, and the
 * fastest round of each counts: on a shared machine a round can lose time to other processes, never
 * gain it.
 *
 * Flags: --quick (a small workload), --subjects=discordjs,memory,redis,parse, --rounds=<n>,
 * --budget=<ms per subject run>.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildResult } from './cache/child.js';
import { CacheWorkload, type CacheWorkloadOptions } from './cache/workload.js';
import { redisAnswers } from './lib/redis-probe.js';
import { fmtInt, fmtRatio, markdownTable } from './lib/report.js';

const here = dirname(fileURLToPath(import.meta.url));
const ALL_SUBJECTS = ['discordjs', 'memory', 'redis', 'parse'] as const;
type SubjectName = (typeof ALL_SUBJECTS)[number];

const TARGET_BYTES_RATIO = 5;
const TARGET_SPEED_RATIO = 3;

const QUICK: Partial<CacheWorkloadOptions> = {
  guilds: 20,
  membersPerGuild: 500,
  updatesPerGuild: 300,
  addsPerGuild: 50,
  removesPerGuild: 50,
  sharedUsers: 500,
  sharedPerGuild: 50,
};

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

function runChild(subject: SubjectName, options: Partial<CacheWorkloadOptions>, budgetMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--conditions=gatehouse-source', '--import', 'tsx', join(here, 'cache', 'child.ts'), subject, JSON.stringify(options), String(budgetMs)],
      { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    // The child bounds its own feeding by the budget; this is the backstop for a hung child.
    const killer = setTimeout(() => child.kill('SIGKILL'), budgetMs + 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`cache bench subject "${subject}" failed (exit ${String(code)})`));
        return;
      }
      resolve(JSON.parse(line.slice('RESULT '.length)) as ChildResult);
    });
  });
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const options = quick ? QUICK : {};
  const budgetMs = Number(arg('budget') ?? 90_000);
  const wanted = (arg('subjects')?.split(',') ?? [...ALL_SUBJECTS]) as SubjectName[];
  for (const s of wanted) {
    if (!ALL_SUBJECTS.includes(s)) throw new Error(`unknown subject "${s}"; expected some of ${ALL_SUBJECTS.join(',')}`);
  }
  const workload = new CacheWorkload(options);
  const o = workload.options;
  const expected = workload.expected();
  console.log(
    `\n## cache (${'PART benchmark: the cache alone, fed already-parsed objects in-process (no socket, no inflate, no JSON.parse, no plugins); not what a bot owner gets, see `npm run bench -- ingest`'})\n` +
      `\n${o.guilds} guilds x ${fmtInt(o.membersPerGuild)} members, then per guild ${o.updatesPerGuild} member updates, ` +
      `${o.addsPerGuild} adds, ${o.removesPerGuild} removes (${fmtInt(expected.events)} dispatches, ${fmtInt(expected.members)} members at the end)\n`,
  );

  const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`;
  console.log(`machine: ${machine}; load average at start ${loadavg()[0]!.toFixed(1)}`);
  const results = new Map<SubjectName, ChildResult>();
  const allRuns: Record<string, ChildResult[]> = {};
  const problems: string[] = [];
  const rounds = Math.max(1, Math.min(5, Number(arg('rounds') ?? 2)));
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const schedule: SubjectName[] = [];
  for (let r = 0; r < rounds; r++) for (const s of wanted) if (s === 'discordjs' || s === 'memory') schedule.push(s);
  for (const s of wanted) if (s !== 'discordjs' && s !== 'memory') schedule.push(s);

  for (const subject of schedule) {
    if (subject === 'redis' && !(await redisAnswers(redisUrl))) {
      console.log(`(redis skipped: nothing answers at ${redisUrl})`);
      continue;
    }
    process.stdout.write(`running ${subject}... `);
    const r = await runChild(subject, options, budgetMs);
    const memory =
      subject === 'parse' ? '' : r.inProcess ? `, ${fmtInt(r.heapDeltaBytes / Math.max(1, r.counts.members))} heap bytes/member` : `, ${fmtInt(r.extra.redisBytesPerMember ?? 0)} Redis bytes/member`;
    console.log(`${(r.feedMs.total / 1000).toFixed(2)} s in the cache${memory}`);
    (allRuns[subject] ??= []).push(r);
    const best = results.get(subject);
    // Fastest round; the heap figure is the smallest seen (the same layout, less garbage left behind).
    if (!best || r.feedMs.total < best.feedMs.total) results.set(subject, { ...r, heapDeltaBytes: Math.min(r.heapDeltaBytes, best?.heapDeltaBytes ?? Infinity) });
    else best.heapDeltaBytes = Math.min(best.heapDeltaBytes, r.heapDeltaBytes);
    if (r.truncated) problems.push(`${r.subject}: ran out of its ${budgetMs} ms budget; numbers cover part of the workload`);
    if (subject !== 'parse') {
      if (r.counts.members !== expected.members) problems.push(`${r.subject}: ${r.counts.members} members cached, expected ${expected.members}`);
      if (r.counts.guilds !== expected.guilds) problems.push(`${r.subject}: ${r.counts.guilds} guilds cached, expected ${expected.guilds}`);
      if (r.counts.roles !== expected.roles) problems.push(`${r.subject}: ${r.counts.roles} roles cached, expected ${expected.roles}`);
      if (r.counts.users < expected.memberUsers) problems.push(`${r.subject}: ${r.counts.users} users cached, expected at least ${expected.memberUsers}`);
    }
  }

  const perMember = (r: ChildResult): number => r.heapDeltaBytes / Math.max(1, r.counts.members);
  const eps = (r: ChildResult): number => (r.events / r.feedMs.total) * 1000;
  const createRate = (r: ChildResult): number => (r.feedMs.guild_create > 0 ? (expected.membersInGuildCreate / r.feedMs.guild_create) * 1000 : 0);
  const memberRate = (r: ChildResult): number => (r.feedMs.member_events > 0 ? (r.eventsPerPhase.member_events / r.feedMs.member_events) * 1000 : 0);

  const rows: string[][] = [];
  for (const subject of wanted) {
    const r = results.get(subject);
    if (!r) continue;
    const bytes = subject === 'parse' ? '—' : r.inProcess ? fmtInt(perMember(r)) : `(${fmtInt(r.extra.redisBytesPerMember ?? 0)} in Redis)`;
    rows.push([
      r.subject,
      bytes,
      fmtInt(eps(r)),
      fmtInt(createRate(r)),
      fmtInt(memberRate(r)),
      subject === 'parse' ? '—' : fmtInt(r.counts.members),
      subject === 'parse' ? '—' : fmtInt(r.counts.users),
    ]);
  }
  console.log();
  console.log(
    markdownTable(
      ['subject', 'heap bytes / member', 'events / s', 'GUILD_CREATE members / s', 'member events / s', 'members cached', 'users cached'],
      rows,
    ),
  );

  const djs = results.get('discordjs');
  const mem = results.get('memory');
  const redis = results.get('redis');
  const ratios: Record<string, number> = {};
  if (djs && mem) {
    ratios.bytesPerMember = perMember(djs) / perMember(mem);
    ratios.eventsPerSecond = eps(mem) / eps(djs);
    const bytesOk = ratios.bytesPerMember >= TARGET_BYTES_RATIO;
    const speedOk = ratios.eventsPerSecond >= TARGET_SPEED_RATIO;
    console.log(
      `\nmemory backend vs discord.js: bytes per member 1/${fmtRatio(ratios.bytesPerMember)} ` +
        `(target at most 1/${TARGET_BYTES_RATIO}: ${bytesOk ? 'met' : 'MISSED'}), ` +
        `events per second ${fmtRatio(ratios.eventsPerSecond)}x (target at least ${TARGET_SPEED_RATIO}x: ${speedOk ? 'met' : 'MISSED'}; the cache alone, see ingest for the whole path)`,
    );
    if (redis) {
      ratios.redisEventsPerSecond = eps(redis) / eps(djs);
      console.log(`redis backend vs discord.js (in-process): events per second ${fmtRatio(ratios.redisEventsPerSecond)}x`);
    }
  }
  const parse = results.get('parse');
  if (parse && mem) console.log(`memory backend time per event relative to JSON.parse of the event: ${fmtRatio(parse.feedMs.total > 0 ? mem.feedMs.total / parse.feedMs.total : 0)}x`);

  console.log(`load average at the end ${loadavg()[0]!.toFixed(1)} (a loaded machine lowers every events/s figure, the ratios less so)`);
  for (const p of problems) console.log(`PROBLEM: ${p}`);
  const outDir = join(here, 'results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, 'cache.json'),
    `${JSON.stringify({ workload: o, expected, best: Object.fromEntries(results), runs: allRuns, ratios, problems, machine }, null, 2)}\n`,
  );
  if (problems.some((p) => !p.includes('budget'))) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
