/**
 * Where the time of a V8 CPU profile (.cpuprofile) goes, by part of the pipeline: self time of every sample
 * attributed to a category by the function's script (a native or builtin function without a script counts
 * for its caller's category, so zlib-sync's native push is "inflate" and JSON.parse is its own line).
 *
 *   npx tsx bench/ingest/profile-summary.ts <file.cpuprofile> [events]     (µs per event when events is given)
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export const CATEGORIES = [
  'inflate',
  'JSON.parse',
  'WebSocket framing (ws)',
  'socket I/O (node:net, streams)',
  'shard glue (src/gateway)',
  'runtime + plugin dispatch',
  'cache (src/cache)',
  'interactions + REST',
  'logging (pino, redact)',
  'benchmark plugin / listeners',
  'discord.js',
  'GC',
  'other JS',
  'other native / program',
] as const;
export type Category = (typeof CATEGORIES)[number];

function byUrl(url: string, functionName: string): Category | null {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return 'other native / program';
    if (functionName === 'parse') return 'JSON.parse';
    return null;
  }
  if (/zlib-sync|zstd-napi|fzstd|\/src\/gateway\/(inflate|zstd-inflate)\.ts/.test(url)) return 'inflate';
  // The decoder's text() is JSON.parse and an envelope check; V8 charges the builtin's time to it.
  if (/\/src\/gateway\/decoder\.ts/.test(url) && functionName === 'text') return 'JSON.parse';
  if (/node_modules\/ws\//.test(url)) return 'WebSocket framing (ws)';
  if (/\/src\/cache\//.test(url)) return 'cache (src/cache)';
  if (/\/src\/gateway\//.test(url)) return 'shard glue (src/gateway)';
  if (/\/src\/(runtime|plugins)\//.test(url)) return 'runtime + plugin dispatch';
  if (/\/src\/(interactions|rest)\/|undici/.test(url)) return 'interactions + REST';
  if (/pino|sonic-boom|\/src\/util\/redact/.test(url)) return 'logging (pino, redact)';
  if (/\/bench\//.test(url)) return 'benchmark plugin / listeners';
  if (/discord\.js|@discordjs|@sapphire|@vladfrangu/.test(url)) return 'discord.js';
  if (/^node:(net|stream|internal\/(streams|net|stream_base|timers|process\/task_queues))/.test(url) || /node:internal\/(streams|stream_base_commons|net)/.test(url)) {
    return 'socket I/O (node:net, streams)';
  }
  return 'other JS';
}

/** Self time per category in microseconds, and the profile's total (idle excluded). */
export function summarize(profile: CpuProfile): { total: number; byCategory: Map<Category, number> } {
  const parent = new Map<number, number>();
  const nodes = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    nodes.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const categoryOf = new Map<number, Category>();
  const resolve = (id: number): Category => {
    const known = categoryOf.get(id);
    if (known !== undefined) return known;
    const n = nodes.get(id)!;
    let cat = byUrl(n.callFrame.url, n.callFrame.functionName);
    if (cat === null) {
      const p = parent.get(id);
      // A builtin or native function is charged to the part of the code that called it.
      cat = p === undefined || nodes.get(p)!.callFrame.functionName === '(root)' ? 'other native / program' : resolve(p);
    }
    categoryOf.set(id, cat);
    return cat;
  };
  const byCategory = new Map<Category, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const n = nodes.get(id)!;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (n.callFrame.functionName === '(idle)') continue;
    const cat = resolve(id);
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + dt);
    total += dt;
  }
  return { total, byCategory };
}

/** The heaviest functions by self time (for finding what to optimise inside a category). */
export function topFunctions(profile: CpuProfile, limit = 25): Array<{ name: string; url: string; us: number }> {
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  const byFn = new Map<string, { name: string; url: string; us: number }>();
  for (const n of profile.nodes) {
    const us = self.get(n.id);
    if (!us || n.callFrame.functionName === '(idle)') continue;
    const key = `${n.callFrame.functionName}@${n.callFrame.url}`;
    const entry = byFn.get(key) ?? { name: n.callFrame.functionName || '(anonymous)', url: n.callFrame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/'), us: 0 };
    entry.us += us;
    byFn.set(key, entry);
  }
  return [...byFn.values()].sort((a, b) => b.us - a.us).slice(0, limit);
}

export function readProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, eventsArg] = process.argv.slice(2);
  if (!path) throw new Error('usage: profile-summary.ts <file.cpuprofile> [events]');
  const profile = readProfile(path);
  const events = Number(eventsArg ?? 0);
  const { total, byCategory } = summarize(profile);
  const unit = events > 0 ? 'µs/event' : 'ms';
  const scale = (us: number): string => (events > 0 ? (us / events).toFixed(2) : (us / 1000).toFixed(1));
  console.log(`| part | ${unit} | share |\n|---|---:|---:|`);
  for (const cat of CATEGORIES) {
    const us = byCategory.get(cat) ?? 0;
    if (us > 0) console.log(`| ${cat} | ${scale(us)} | ${((us / total) * 100).toFixed(1)}% |`);
  }
  console.log(`| total (sampled, idle excluded) | ${scale(total)} | 100% |`);
  console.log('\nheaviest functions (self time):');
  for (const f of topFunctions(profile)) console.log(`  ${scale(f.us).padStart(8)}  ${f.name}  ${f.url}`);
}
