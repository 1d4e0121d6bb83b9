/**
 * The product-path benchmark: what a bot owner gets per CPU-second, from WebSocket frames to plugin code.
 *
 * A local service (bench/ingest/server.ts, 127.0.0.1) speaks the gateway and the REST routes the clients call
 * and sends pre-serialized, pre-compressed frames (made once, before anything is timed): READY and one
 * GUILD_CREATE per guild with every member (200 guilds x 1,000 members), then 100,000 live events (member
 * add/update/remove, entitlement create/update, slash commands that each client answers over REST). Each
 * subject runs in its own process and measures its own CPU (process.cpuUsage), so the server's work is never
 * counted:
 *
 *   gatehouse    the Runtime as `gatehouse start` runs it (config/ + environment, memory cache, the plugin host
 *                with a plugin counting member and entitlement events and answering the command)
 *   discord.js   discord.js 14, same intents, default caches, listeners counting the same events, reply()
 *   wire         the wire floor: the cheapest socket client that does the job's unavoidable part (GET
 *                /gateway/bot, `ws` with IDENTIFY and heartbeats, the floor's decoder + JSON.parse, dispatches
 *                counted by name, every slash command answered with one POST over node:http), no cache
 *   floor        inflate (zlib-sync / zstd-napi) + JSON.parse of the same bytes and nothing else (no socket)
 *   gatehouse-redis (with --redis)  the Runtime on the Redis cache; redis-server's CPU (INFO cpu) is added
 *
 * Subjects run interleaved (round 1: A B C, round 2: C B A, ...); the table gives medians. Every run's final
 * state is checked against the workload's (cached members per guild, a sample of members with nick and roles,
 * removed members gone, every entitlement with its end) and so are the event counts (the floors, which cache
 * nothing, by their counts only, and the wire floor by its answers too); any difference fails the benchmark.
 * Bounded by count (rounds) and time (per subject run, and --budget for the whole).
 *
 *   npm run bench -- ingest                      full workload, 3 rounds, zlib-stream + json + zstd-stream
 *   npm run bench -- ingest --quick              20 guilds x 500 members, 10,000 events, 1 round
 *   flags: --rounds=N --transports=zlib-stream,json,zstd-stream --subjects=gatehouse,discordjs,wire,floor,...
 *          --redis (adds gatehouse-redis)  --profile[=startup] (CPU profile of gatehouse's live-events phase, or of its
 *          startup, summarized)
 *          --alloc-profile=startup|live (bytes allocated per member or event by function, sampled; the run's CPU
 *          figures then include the sampler's cost)
 *          --budget=<seconds> (stop starting runs after this long; default 1800)
 *          --baseline=<dir> (an earlier checkout's Runtime as one more subject)  --node-flags="<flags>" (the Runtime
 *          once more with these node flags; NAME=value words set, NAME= unsets, an environment variable)  --compiled (tsc output run by plain node, as the Docker image does)
 *          --rest-transport=undici (the Runtime once more, its REST client on undici: CPU per answered interaction of
 *          each)  --interaction-share=P (P percent of the live events are slash commands to answer; default 1)
 *          --answer-window=N (with --interaction-share=100: at most N events sent and not yet answered)
 *          --events=N (live events; default 100,000, --quick 10,000)
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { load, prepare, TRANSPORTS, transportAvailable, workloadDir, type Transport, type TransportFrames } from './ingest/frames.js';
import { CATEGORIES, readProfile, summarize, topFunctions } from './ingest/profile-summary.js';
import { allocationsByFunction, readAllocProfile } from './ingest/alloc-summary.js';
import type { ChildConfig, ChildMessage, DoneMessage, ReadyMessage, StateMessage, SubjectKind } from './ingest/protocol.js';
import { BENCH_TOKEN, IngestServer, type RunTrace } from './ingest/server.js';
import { IngestWorkload, QUICK_INGEST_WORKLOAD, type ExpectedState } from './ingest/workload.js';
import { redisAnswers } from './lib/redis-probe.js';
import { LAUNCH_ENV, NODE_FLAGS } from '../src/runtime/node-flags.js';
import { fmtInt, fmtRatio, markdownTable } from './lib/report.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(here);

/** A subject as it appears in the report: which process, which transport decoder. */
interface Entry {
  key: string;
  label: string;
  subject: SubjectKind;
  decoder: ChildConfig['decoder'];
  /** Another checkout of gatehouse to run this subject from (--baseline), for before/after in one run. */
  root?: string;
  /** Extra node flags for this subject's process (--node-flags). */
  nodeFlags?: string[];
  /** Environment changes for this subject's process (--node-flags' NAME=value words; '' unsets). */
  nodeEnv?: Record<string, string>;
  /** gatehouse with `cache.channels: false` (--channel-bytes). */
  noChannels?: boolean;
  /** gatehouse's REST client on undici (--rest-transport=undici). */
  restTransport?: 'undici';
}

const ENTRIES: Record<Transport, Entry[]> = {
  'zlib-stream': [
    { key: 'gatehouse', label: 'gatehouse Runtime (zlib-sync)', subject: 'gatehouse', decoder: 'auto' },
    { key: 'discordjs', label: 'discord.js 14 (zlib-sync)', subject: 'discordjs', decoder: 'auto' },
    { key: 'wire', label: 'wire floor: ws + zlib-sync + JSON.parse + REST answers', subject: 'wire', decoder: 'zlib-sync' },
    { key: 'floor', label: 'floor: zlib-sync + JSON.parse', subject: 'floor', decoder: 'zlib-sync' },
    { key: 'gatehouse-redis', label: 'gatehouse Runtime, Redis cache', subject: 'gatehouse-redis', decoder: 'auto' },
  ],
  json: [
    { key: 'gatehouse', label: 'gatehouse Runtime', subject: 'gatehouse', decoder: 'auto' },
    { key: 'discordjs', label: 'discord.js 14', subject: 'discordjs', decoder: 'auto' },
    { key: 'wire', label: 'wire floor: ws + toString + JSON.parse + REST answers', subject: 'wire', decoder: 'auto' },
    { key: 'floor', label: 'floor: toString + JSON.parse', subject: 'floor', decoder: 'auto' },
  ],
  'zstd-stream': [
    { key: 'gatehouse', label: 'gatehouse Runtime (zstd-napi)', subject: 'gatehouse', decoder: 'zstd-napi' },
    { key: 'gatehouse-fzstd', label: 'gatehouse Runtime (fzstd, pure JS)', subject: 'gatehouse', decoder: 'fzstd' },
    { key: 'wire', label: 'wire floor: ws + zstd-napi + JSON.parse + REST answers', subject: 'wire', decoder: 'zstd-napi' },
    { key: 'floor', label: 'floor: zstd-napi + JSON.parse', subject: 'floor', decoder: 'zstd-napi' },
    { key: 'floor-fzstd', label: 'floor: fzstd + JSON.parse', subject: 'floor', decoder: 'fzstd' },
  ],
};

interface RunResult {
  transport: Transport;
  entry: Entry;
  round: number;
  ready: ReadyMessage;
  done: DoneMessage;
  state: StateMessage;
  trace: RunTrace;
  /** IDENTIFY received -> every guild cached (ms); null for the floor. */
  identifyToReadyMs: number | null;
  /** Events started -> last event handled (ms). */
  eventsWallMs: number;
  logLinesDuringEvents: number;
  redisCpuMs: number;
  /** redis-server's CPU from the child's start to every guild cached (INFO cpu). */
  redisStartupCpuMs: number;
  redisBytesPerMember: number;
  problems: string[];
}

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
/**
 * --compiled: every subject runs tsc's output (dist-bench/, built first), as the Docker image runs gatehouse;
 * by default they run through tsx, as `npm start` does.
 */
const compiled = process.argv.includes('--compiled');
/** --profile (the live events) or --profile=startup (login to every guild cached). */
const profilePhase = process.argv.includes('--profile') ? 'live' : arg('profile');
if (profilePhase !== undefined && profilePhase !== 'startup' && profilePhase !== 'live') throw new Error('--profile, --profile=startup or --profile=live');
const profile = profilePhase !== undefined;
const allocPhase = arg('alloc-profile');
if (allocPhase !== undefined && allocPhase !== 'startup' && allocPhase !== 'live') throw new Error('--alloc-profile=startup or --alloc-profile=live');
const withRedis = process.argv.includes('--redis');
const rounds = Math.max(1, Math.min(9, Number(arg('rounds') ?? (quick ? 1 : 3))));
const budgetMs = Number(arg('budget') ?? 1800) * 1000;
const childTimeoutMs = quick ? 120_000 : 600_000;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * One more subject beside each of gatehouse's own (the Runtime on the memory cache, and on Redis where the
 * transport has it), keyed `<key>-<suffix>`: `--subjects=gatehouse-redis,gatehouse-redis-flags` compares the
 * Redis runs.
 */
function addVariants(suffix: string, label: string, change: Partial<Entry>): void {
  for (const t of ['zlib-stream', 'json', 'zstd-stream'] as const) {
    for (const own of ENTRIES[t].filter((e) => e.key === 'gatehouse' || e.key === 'gatehouse-redis')) {
      ENTRIES[t].splice(ENTRIES[t].indexOf(own) + 1, 0, { ...own, ...change, key: `${own.key}-${suffix}`, label: `${own.label} [${label}]` });
    }
  }
}
/** --node-flags="<flags>": gatehouse once more, run with these node flags (e.g. GC tuning). */
const nodeFlags = arg('node-flags');
if (nodeFlags !== undefined) {
  const words = nodeFlags.split(/\s+/).filter(Boolean);
  const isEnv = (w: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w);
  const nodeEnv = Object.fromEntries(words.filter(isEnv).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  addVariants('flags', nodeFlags, { nodeFlags: words.filter((w) => !isEnv(w)), nodeEnv });
}
/**
 * --baseline=<dir>: a copy of an earlier commit (with node_modules linked in); its Runtime runs as one more
 * subject, interleaved with the current one, so that a change is measured against what it replaced.
 */
const baseline = arg('baseline');
if (baseline !== undefined) addVariants('baseline', 'baseline', { root: baseline });
/**
 * --channel-bytes: gatehouse once more with `cache.channels: false`; the report gives the heap bytes per cached
 * channel and thread, (heap with channels - heap without) / channels, per round, median and spread.
 */
const channelBytes = process.argv.includes('--channel-bytes');
if (channelBytes) addVariants('nochannels', 'cache.channels off', { noChannels: true });
/**
 * --rest-transport=undici: gatehouse once more with its REST client on undici (bench/lib/undici-transport.ts), so
 * the answers' cost over node:http and over undici is measured in one run; the report gives the CPU per answered
 * interaction of each, per round. Weigh the answers with --interaction-share.
 */
const restTransport = arg('rest-transport');
if (restTransport !== undefined && restTransport !== 'undici') throw new Error('--rest-transport=undici (node:http is the default subject)');
if (restTransport === 'undici') addVariants('undici', 'REST over undici', { restTransport: 'undici' });
/** --interaction-share=P: P percent of the live events are slash commands to answer (default 1; 100: nothing else). */
const interactionShare = arg('interaction-share');
/**
 * --answer-window=N (with --interaction-share=100): the service sends a live event only while fewer than N are
 * unanswered, so the answers are measured at the subject's pace rather than thousands behind (see server.ts).
 */
const answerWindow = arg('answer-window') === undefined ? null : Number(arg('answer-window'));
if (answerWindow !== null && (interactionShare !== '100' || !(answerWindow >= 1))) throw new Error('--answer-window=N (N >= 1) needs --interaction-share=100');
/** --events=N: live events of the workload (default 100,000; --quick 10,000). */
const liveEventCount = arg('events');
if (liveEventCount !== undefined && !(Number(liveEventCount) >= 1 && Number(liveEventCount) <= 1_000_000)) throw new Error('--events=N, 1 to 1,000,000');
/** --channels-per-guild=N, --threads-per-guild=N: the guilds' channel lists (default 6 and 2). */
const channelsPerGuild = arg('channels-per-guild');
const threadsPerGuild = arg('threads-per-guild');

async function runOne(
  server: IngestServer,
  frames: TransportFrames,
  transport: Transport,
  entry: Entry,
  round: number,
  expected: ExpectedState,
  framesDir: string,
  outDir: string,
): Promise<RunResult> {
  const logPath = join(outDir, `ingest-${transport}-${entry.key}.log`);
  const logFd = openSync(logPath, 'w');
  const redisPrefix = `gh-bench-ingest:${randomBytes(4).toString('hex')}`;
  const liveEvents = Object.values(expected.events).reduce((a, b) => a + b, 0);
  const cfg: ChildConfig = {
    subject: entry.subject,
    transport,
    decoder: entry.decoder,
    apiBase: server.apiBase,
    token: BENCH_TOKEN,
    framesDir,
    guilds: expected.guilds,
    targets: {
      memberEvents: expected.memberEvents,
      entitlementEvents: expected.events.ENTITLEMENT_CREATE + expected.events.ENTITLEMENT_UPDATE,
      interactions: expected.events.INTERACTION_CREATE,
      liveEvents,
    },
    timeoutMs: childTimeoutMs,
    ...(profile && entry.subject !== 'floor'
      ? { profilePath: join(outDir, `ingest-${transport}-${entry.key}.cpuprofile`), profilePhase: profilePhase as 'startup' | 'live' }
      : {}),
    ...(allocPhase !== undefined && entry.subject !== 'floor'
      ? { allocProfile: { phase: allocPhase as 'startup' | 'live', path: join(outDir, `ingest-${transport}-${entry.key}-${allocPhase}.heapprofile`) } }
      : {}),
    ...(entry.subject === 'gatehouse-redis' ? { redisUrl, redisPrefix } : {}),
    ...(entry.noChannels === true ? { cacheChannels: false } : {}),
    ...(entry.restTransport !== undefined ? { restTransport: entry.restTransport } : {}),
  };
  const redis = entry.subject === 'gatehouse-redis' ? new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 }) : null;
  await redis?.connect();
  const redisMemBefore = redis ? await infoNumber(redis, 'memory', 'used_memory') : 0;
  const redisCpuAtSpawn = redis ? await infoCpuMs(redis) : 0;

  if (entry.subject !== 'floor') server.begin(frames);
  const root = entry.root ?? ROOT;
  const runCompiled = compiled && entry.root === undefined;
  // gatehouse runs with the flags and environment its launchers (Docker image, npm start) give it; --node-flags
  // come after, so they win.
  const own = entry.subject === 'gatehouse' || entry.subject === 'gatehouse-redis';
  const ownFlags = own ? NODE_FLAGS : [];
  const env: NodeJS.ProcessEnv = { ...process.env, ...(own ? LAUNCH_ENV : {}), ...entry.nodeEnv, NODE_ENV: 'production' };
  // discord.js and the floors run with glibc's defaults, whatever the shell that started the bench had set.
  if (!own) for (const name of Object.keys(LAUNCH_ENV)) delete env[name];
  for (const [name, value] of Object.entries(entry.nodeEnv ?? {})) if (value === '') delete env[name];
  const nodeArgs = ['--expose-gc', ...ownFlags, ...(entry.nodeFlags ?? []), ...(runCompiled ? [] : ['--conditions=gatehouse-source', '--import', 'tsx'])];
  const childFile = runCompiled ? join(root, 'dist-bench', 'bench', 'ingest', 'child.js') : join(root, 'bench', 'ingest', 'child.ts');
  const child = spawn(process.execPath, [...nodeArgs, childFile, JSON.stringify(cfg)], {
    cwd: root,
    stdio: ['ignore', logFd, 'inherit', 'ipc'],
    env,
  });
  closeSync(logFd);
  const problems: string[] = [];
  let ready: ReadyMessage | null = null;
  let done: DoneMessage | null = null;
  let state: StateMessage | null = null;
  let logAtReady = 0;
  let logAtDone = 0;
  let redisCpuBefore = 0;
  let redisCpuMs = 0;
  let redisStartupCpuMs = 0;
  let redisBytesPerMember = 0;
  const killer = setTimeout(() => child.kill('SIGKILL'), childTimeoutMs + 30_000);
  await new Promise<void>((resolve) => {
    child.on('message', (raw: ChildMessage) => {
      void (async () => {
        if (raw.type === 'ready') {
          ready = raw;
          logAtReady = statSync(logPath).size;
          if (redis) {
            redisCpuBefore = await infoCpuMs(redis);
            redisStartupCpuMs = redisCpuBefore - redisCpuAtSpawn;
            redisBytesPerMember = raw.members > 0 ? ((await infoNumber(redis, 'memory', 'used_memory')) - redisMemBefore) / raw.members : 0;
          }
          if (entry.subject !== 'floor') server.streamEvents();
        } else if (raw.type === 'done') {
          done = raw;
          if (entry.subject !== 'floor') server.finish();
          logAtDone = statSync(logPath).size;
          if (redis) redisCpuMs = (await infoCpuMs(redis)) - redisCpuBefore;
          child.send({
            type: 'verify',
            guildIds: expected.membersPerGuild.map(([id]) => id),
            sample: expected.sample.map(({ guildId, userId }) => ({ guildId, userId })),
            removed: expected.removedSample,
            entitlementIds: expected.entitlements.map((e) => e.id),
          });
        } else if (raw.type === 'state') {
          state = raw;
        } else if (raw.type === 'error') {
          problems.push(`${entry.label}: ${raw.message.split('\n')[0]}`);
        }
      })();
    });
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      if (code !== 0) problems.push(`${entry.label}: exited with ${signal ?? code}`);
      resolve();
    });
  });
  const trace = entry.subject !== 'floor' ? server.end() : { ...emptyTrace() };
  if (redis) {
    await deleteKeys(redis, redisPrefix);
    redis.disconnect();
  }
  const r = { ready, done, state } as { ready: ReadyMessage | null; done: DoneMessage | null; state: StateMessage | null };
  if (r.ready === null || r.done === null || (entry.subject !== 'floor' && r.state === null)) {
    throw new Error(`${entry.label} over ${transport} did not finish: ${problems.join('; ') || 'no result'} (log: ${relative(ROOT, logPath)})`);
  }
  problems.push(...trace.problems.map((p) => `${entry.label}: ${p}`));
  problems.push(...verify(entry, transport, expected, r.done, r.state ?? null));
  return {
    transport,
    entry,
    round,
    ready: r.ready,
    done: r.done,
    state: r.state ?? { type: 'state', membersPerGuild: [], sample: [], removedPresent: 0, entitlements: [], extra: {} },
    trace,
    identifyToReadyMs: trace.identifyAt !== null ? Number(BigInt(r.ready.readyAt) - trace.identifyAt) / 1e6 : null,
    eventsWallMs: trace.eventsAt !== null ? Number(BigInt(r.done.doneAt) - trace.eventsAt) / 1e6 : r.done.eventsCpuMs,
    logLinesDuringEvents: countLines(logPath, logAtReady, logAtDone),
    redisCpuMs,
    redisStartupCpuMs,
    redisBytesPerMember,
    problems,
  };
}

function emptyTrace(): RunTrace {
  return { identifyAt: null, eventsAt: null, eventsSentAt: null, heartbeats: 0, acks: 0, callbacks: 0, restRequests: 0, connections: 0, startupBytes: 0, eventBytes: 0, problems: [] };
}

function countLines(path: string, from: number, to: number): number {
  if (to <= from) return 0;
  const buf = readFileSync(path).subarray(from, to);
  let n = 0;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) n++;
  return n;
}

async function infoNumber(redis: Redis, section: string, field: string): Promise<number> {
  const info = await redis.info(section);
  const m = new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info);
  return m ? Number(m[1]) : 0;
}

/** redis-server's own CPU (user + system, all its threads) in ms. */
async function infoCpuMs(redis: Redis): Promise<number> {
  return ((await infoNumber(redis, 'cpu', 'used_cpu_user')) + (await infoNumber(redis, 'cpu', 'used_cpu_sys'))) * 1000;
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  let rounds = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0' && ++rounds < 100_000);
}

/** Every difference between what the subject holds and saw and what the workload says. */
function verify(entry: Entry, transport: Transport, expected: ExpectedState, done: DoneMessage, state: StateMessage | null): string[] {
  const problems: string[] = [];
  const who = `${entry.label} over ${transport}`;
  const c = done.counts;
  const e = expected.events;
  const check = (what: string, got: number, want: number): void => {
    if (got !== want) problems.push(`${who}: ${what}: ${got}, expected ${want}`);
  };
  check('GUILD_MEMBER_ADD seen', c.memberAdds, e.GUILD_MEMBER_ADD);
  check('GUILD_MEMBER_UPDATE seen', c.memberUpdates, e.GUILD_MEMBER_UPDATE);
  check('GUILD_MEMBER_REMOVE seen', c.memberRemoves, e.GUILD_MEMBER_REMOVE);
  check('ENTITLEMENT_CREATE seen', c.entitlementCreates, e.ENTITLEMENT_CREATE);
  check('ENTITLEMENT_UPDATE seen', c.entitlementUpdates, e.ENTITLEMENT_UPDATE);
  check('INTERACTION_CREATE seen', c.interactions, e.INTERACTION_CREATE);
  if (entry.subject === 'floor') return problems;
  check('interactions answered', c.answered, e.INTERACTION_CREATE);
  if (c.answerError !== undefined) problems.push(`${who}: an answer failed: ${c.answerError}`);
  // The wire floor caches nothing: its counts and answers are all there is to check.
  if (entry.subject === 'wire') return problems;
  if (state === null) return [...problems, `${who}: no final state`];
  // gatehouse (this checkout's, channels on) holds every channel and thread of the GUILD_CREATEs.
  if ((entry.subject === 'gatehouse' || entry.subject === 'gatehouse-redis') && entry.root === undefined && entry.noChannels !== true) {
    check('channels cached', state.extra.channels ?? -1, expected.channels);
    check('threads cached', state.extra.threads ?? -1, expected.threads);
  }
  let wrongGuilds = 0;
  expected.membersPerGuild.forEach(([guildId, want], i) => {
    const got = state.membersPerGuild[i];
    if (got !== want && wrongGuilds++ < 3) problems.push(`${who}: guild ${guildId} holds ${String(got)} members, expected ${want}`);
  });
  if (wrongGuilds > 3) problems.push(`${who}: ${wrongGuilds} guilds with a wrong member count in all`);
  let wrongMembers = 0;
  expected.sample.forEach((want, i) => {
    const got = state.sample[i];
    const same = got != null && got.nick === want.nick && got.roles.join() === want.roles.join();
    if (!same && wrongMembers++ < 3) {
      problems.push(`${who}: member ${want.userId} of ${want.guildId} is ${JSON.stringify(got ?? 'missing')}, expected nick ${JSON.stringify(want.nick)} roles [${want.roles.join(',')}]`);
    }
  });
  if (wrongMembers > 3) problems.push(`${who}: ${wrongMembers} of ${expected.sample.length} sampled members wrong in all`);
  if (state.removedPresent > 0) problems.push(`${who}: ${state.removedPresent} removed members still cached`);
  let wrongEnt = 0;
  expected.entitlements.forEach((want, i) => {
    const got = state.entitlements[i];
    const same = got != null && got.skuId === want.skuId && got.userId === want.userId && got.endsAt === want.endsAt;
    if (!same && wrongEnt++ < 3) problems.push(`${who}: entitlement ${want.id} is ${JSON.stringify(got ?? 'missing')}, expected ${JSON.stringify(want)}`);
  });
  if (wrongEnt > 3) problems.push(`${who}: ${wrongEnt} of ${expected.entitlements.length} entitlements wrong in all`);
  return problems;
}

interface Row {
  transport: Transport;
  entry: Entry;
  runs: RunResult[];
  eventsPerCpuSecond: number;
  usPerEvent: number;
  readyMs: number;
  identifyToReadyMs: number | null;
  startupCpuMs: number;
  rssMiB: number;
  rssBeforeMiB: number;
  heapBytesPerMember: number;
  eventsWallMs: number;
  logLines: number;
  /** µs per event spent on threads other than the main one (null where not measured). */
  helperUsPerEvent: number | null;
  redisUsPerEvent: number;
  redisStartupCpuMs: number;
  redisBytesPerMember: number;
}

/**
 * --rest-transport=undici: the answers' cost over node:http and over undici, per round (the two ran back to back).
 * CPU per answer is all the live events' CPU over the answers: the whole path of an answered command (decode,
 * route, handler, REST) when every live event is one (--interaction-share=100), an upper bound otherwise. The
 * difference per answer is the transports' difference whatever the share.
 */
function reportRestTransports(
  t: Transport,
  http: Row,
  und: Row,
  perRound: (a: Row, b: Row, f: (x: RunResult, y: RunResult) => number) => number[],
  spread: (values: number[], digits?: number) => string,
): void {
  const perAnswer = (r: RunResult): number => (r.done.eventsCpuMs + r.redisCpuMs) * 1000 / Math.max(1, r.done.counts.answered);
  const requestsPerAnswer = (r: RunResult): number => r.trace.callbacks / Math.max(1, r.done.counts.answered);
  console.log(`\nREST transport over ${t}, ${http.entry.key}: node:http (src/rest/transport.ts) against undici (bench/lib/undici-transport.ts), ${fmtInt(http.runs[0]!.done.counts.answered)} answers a run:`);
  console.log(`  µs CPU per answered interaction: node:http ${spread(http.runs.map(perAnswer), 1)}, undici ${spread(und.runs.map(perAnswer), 1)}`);
  console.log(`  undici - node:http per answer (same round): ${spread(perRound(und, http, (x, y) => perAnswer(x) - perAnswer(y)), 1)} µs; ratio ${spread(perRound(und, http, (x, y) => perAnswer(x) / perAnswer(y)), 3)}`);
  console.log(
    `  answer requests per interaction (above 1: deferred and edited, the client fell behind): node:http ${spread(http.runs.map(requestsPerAnswer), 2)}, undici ${spread(und.runs.map(requestsPerAnswer), 2)}; ` +
      `connections opened: node:http ${spread(http.runs.map((r) => r.trace.connections))}, undici ${spread(und.runs.map((r) => r.trace.connections))}`,
  );
}

function rowOf(runs: RunResult[], liveEvents: number): Row {
  const m = (f: (r: RunResult) => number): number => median(runs.map(f));
  const first = runs[0]!;
  return {
    transport: first.transport,
    entry: first.entry,
    runs,
    eventsPerCpuSecond: m((r) => liveEvents / ((r.done.eventsCpuMs + r.redisCpuMs) / 1000)),
    usPerEvent: m((r) => ((r.done.eventsCpuMs + r.redisCpuMs) * 1000) / liveEvents),
    readyMs: m((r) => r.ready.loginToReadyMs),
    identifyToReadyMs: first.identifyToReadyMs === null ? null : m((r) => r.identifyToReadyMs ?? 0),
    startupCpuMs: m((r) => r.ready.startupCpuMs),
    rssMiB: m((r) => r.ready.rssBytes / 1048576),
    rssBeforeMiB: m((r) => r.ready.rssBeforeBytes / 1048576),
    heapBytesPerMember: m((r) => (r.ready.members > 0 ? r.ready.heapDeltaBytes / r.ready.members : 0)),
    eventsWallMs: m((r) => r.eventsWallMs),
    logLines: Math.max(...runs.map((r) => r.logLinesDuringEvents)),
    // A --baseline checkout's child may predate the field (undefined).
    helperUsPerEvent: runs.some((r) => typeof r.done.helperThreadsCpuMs !== 'number') ? null : m((r) => (r.done.helperThreadsCpuMs! * 1000) / liveEvents),
    redisUsPerEvent: m((r) => (r.redisCpuMs * 1000) / liveEvents),
    redisStartupCpuMs: m((r) => r.redisStartupCpuMs),
    redisBytesPerMember: m((r) => r.redisBytesPerMember),
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const workload = new IngestWorkload({
    ...(quick ? QUICK_INGEST_WORKLOAD : {}),
    ...(channelsPerGuild !== undefined ? { channelsPerGuild: Number(channelsPerGuild) } : {}),
    ...(threadsPerGuild !== undefined ? { threadsPerGuild: Number(threadsPerGuild) } : {}),
    ...(interactionShare !== undefined ? { interactionPercent: Number(interactionShare) } : {}),
    ...(liveEventCount !== undefined ? { events: Number(liveEventCount) } : {}),
  });
  const o = workload.options;
  const wantedTransports = (arg('transports')?.split(',') ?? [...TRANSPORTS]) as Transport[];
  for (const t of wantedTransports) if (!TRANSPORTS.includes(t)) throw new Error(`unknown transport "${t}"; expected some of ${TRANSPORTS.join(',')}`);
  const transports = wantedTransports.filter((t) => {
    if (transportAvailable(t)) return true;
    console.log(`(${t} skipped: the optional zstd-napi package, needed to make its frames, is not installed)`);
    return false;
  });
  const wantedKeys = arg('subjects')?.split(',');
  const entriesFor = (t: Transport): Entry[] =>
    ENTRIES[t].filter((e) => (wantedKeys ? wantedKeys.includes(e.key) : e.subject !== 'gatehouse-redis' || withRedis));
  if (transports.some((t) => entriesFor(t).some((e) => e.subject === 'gatehouse-redis')) && !(await redisAnswers(redisUrl))) {
    throw new Error(`gatehouse-redis needs a Redis at ${redisUrl} (REDIS_URL); nothing answers there`);
  }

  console.log('## ingest: the product path, frame -> decode -> cache -> plugin, per CPU-second\n');
  const command = `npm run bench -- ${['ingest', ...process.argv.slice(2)].join(' ')}`;
  console.log(`- command: ${command}`);
  console.log(`- machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const liveEventsPlanned = o.events;
  const tamper = process.env.INGEST_BENCH_TAMPER === '1';
  console.log(
    `- workload: ${o.guilds} guilds x ${fmtInt(o.membersPerGuild)} members in GUILD_CREATE, then ${fmtInt(liveEventsPlanned)} live events ` +
      `(member update/add/remove, entitlement create/update, slash commands answered over REST${interactionShare !== undefined ? `: ${interactionShare}% of them` : ''}${answerWindow !== null ? `, at most ${answerWindow} unanswered at a time` : ''}); ${rounds} interleaved round(s), medians`,
  );
  console.log(
    compiled
      ? '- code: compiled by tsc (dist-bench/, tsconfig.bench.json), run by plain node, as the Docker image runs gatehouse'
      : '- code: TypeScript run through tsx, as `npm start` runs gatehouse (--compiled: tsc output, as in the Docker image)',
  );
  const launchEnv = Object.entries(LAUNCH_ENV).map(([k, v]) => `${k}=${v}`).join(' ');
  console.log(`- node flags and environment of the gatehouse subjects: ${NODE_FLAGS.join(' ')}, ${launchEnv} (src/runtime/node-flags.ts: what the Docker image and \`npm start\` run it with); discord.js and the floors run with Node's and glibc's defaults`);
  if (compiled) {
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.bench.json')], { stdio: 'inherit' });
    if (tsc.status !== 0) throw new Error('tsc -p tsconfig.bench.json failed');
  }
  const expected = await prepare(workload, transports, (line) => console.log(`- ${line}`));
  if (tamper) {
    // Self-check of the verification: a wrong expectation must fail every subject loudly.
    expected.membersPerGuild[0]![1]++;
    expected.sample[0]!.nick = 'tampered';
    expected.entitlements[0]!.endsAt = 1;
    expected.events.GUILD_MEMBER_ADD++;
  }
  const liveEvents = Object.values(expected.events).reduce((a, b) => a + b, 0);
  console.log(`- events: ${Object.entries(expected.events).map(([t, n]) => `${t} ${fmtInt(n)}`).join(', ')}; ${fmtInt(expected.members)} members cached at the end`);
  console.log(`- channels: ${fmtInt(expected.channels)} channels (${o.channelsPerGuild} per guild, with permission overwrites) and ${fmtInt(expected.threads)} active threads in the GUILD_CREATEs`);

  const outDir = join(here, 'results');
  mkdirSync(outDir, { recursive: true });
  const dir = workloadDir(workload);
  const frames = new Map<Transport, TransportFrames>(transports.map((t) => [t, load(dir, t)]));
  const server = new IngestServer(answerWindow);
  await server.listen();

  const results: RunResult[] = [];
  const problems: string[] = [];
  let stoppedEarly = false;
  try {
    for (let round = 0; round < rounds && !stoppedEarly; round++) {
      for (const transport of transports) {
        const list = entriesFor(transport);
        const order = round % 2 === 0 ? list : [...list].reverse();
        for (const entry of order) {
          if (Date.now() - started > budgetMs) {
            stoppedEarly = true;
            break;
          }
          process.stdout.write(`round ${round + 1}/${rounds} ${transport} ${entry.label}... `);
          const r = await runOne(server, frames.get(transport)!, transport, entry, round, expected, dir, outDir);
          results.push(r);
          problems.push(...r.problems);
          console.log(
            `${fmtInt(liveEvents / (r.done.eventsCpuMs / 1000))} events/CPU-s, ready ${(r.ready.loginToReadyMs / 1000).toFixed(2)} s` +
              (r.entry.subject !== 'floor' ? `, ${r.trace.restRequests} REST requests over ${r.trace.connections - 1} connections` : '') +
              `${r.problems.length > 0 ? `, ${r.problems.length} PROBLEM(S)` : ', verified'}`,
          );
        }
      }
    }
  } finally {
    await server.close();
  }
  if (stoppedEarly) problems.push(`the --budget of ${budgetMs / 1000} s ran out: fewer rounds than asked`);

  // ---- report ------------------------------------------------------------------------------------------
  const rows: Row[] = [];
  for (const transport of transports) {
    for (const entry of entriesFor(transport)) {
      const runs = results.filter((r) => r.transport === transport && r.entry.key === entry.key);
      if (runs.length > 0) rows.push(rowOf(runs, liveEvents));
    }
  }
  const find = (t: Transport, key: string): Row | undefined => rows.find((r) => r.transport === t && r.entry.key === key);
  const djsZlib = find('zlib-stream', 'discordjs');
  const table: string[][] = [];
  for (const row of rows) {
    const djs = find(row.transport, 'discordjs') ?? djsZlib;
    const floor = find(row.transport, 'floor');
    const isFloor = row.entry.subject === 'floor';
    const vsDjs = djs && row !== djs && !isFloor ? `${fmtRatio(row.eventsPerCpuSecond / djs.eventsPerCpuSecond)}x${djs.transport !== row.transport ? ' (djs zlib)' : ''}` : '—';
    const vsFloor = floor && !isFloor ? fmtRatio(row.eventsPerCpuSecond / floor.eventsPerCpuSecond) : '—';
    const readyVsFloor = floor && !isFloor ? `${fmtRatio(row.readyMs / floor.readyMs)}x` : '—';
    table.push([
      row.transport,
      row.entry.label,
      fmtInt(row.eventsPerCpuSecond),
      row.usPerEvent.toFixed(1),
      vsDjs,
      vsFloor,
      isFloor ? `${(row.readyMs / 1000).toFixed(2)} s (decode)` : `${(row.readyMs / 1000).toFixed(2)} s`,
      row.identifyToReadyMs === null ? '—' : `${(row.identifyToReadyMs / 1000).toFixed(2)} s`,
      readyVsFloor,
      `${(row.startupCpuMs / 1000).toFixed(2)} s`,
      floor && !isFloor ? `${fmtRatio(row.startupCpuMs / floor.startupCpuMs)}x` : '—',
      isFloor ? '—' : `${fmtInt(row.rssMiB)} (${fmtInt(row.rssBeforeMiB)} before login)`,
      isFloor || row.entry.subject === 'wire' ? '—' : row.entry.subject === 'gatehouse-redis' ? `${fmtInt(row.redisBytesPerMember)} (Redis)` : fmtInt(row.heapBytesPerMember),
      String(row.runs.length),
    ]);
  }
  console.log();
  console.log(
    markdownTable(
      [
        'transport',
        'client',
        'events / CPU-s',
        'µs / event',
        'vs discord.js',
        'of floor',
        'ready (login → all cached)',
        'IDENTIFY → all cached',
        'ready / floor decode',
        'startup CPU',
        'startup CPU / floor',
        'RSS after load MiB',
        'heap B / member',
        'runs',
      ],
      table,
    ),
  );
  console.log(
    '\nevents / CPU-s: live events per second of the client process\'s own CPU (user + system) while they flow' +
      (withRedis ? ' (Redis row: plus redis-server\'s CPU from INFO cpu, which counts every client of that Redis)' : '') +
      '; "of floor": that rate over the floor\'s (1.00 = as cheap as decoding alone; the wire floor\'s: what a client that receives over the socket and answers reaches at best); ready / floor decode: ready time (wall clock) over the time to decode the same startup bytes; ' +
      'startup CPU: CPU from login to all cached (the floor: decoding the startup bytes), steadier than wall time on a busy machine; ' +
      'heap B / member: JS heap + array buffers after load minus before login (after full GCs), per cached member.',
  );

  // Per-round comparisons: channel bytes (--channel-bytes) and before/after (--baseline), median and spread.
  const spread = (values: number[], digits = 0): string =>
    `median ${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)} over ${values.length} round${values.length === 1 ? '' : 's'})`;
  const perRound = (a: Row, b: Row, f: (x: RunResult, y: RunResult) => number): number[] => {
    const out: number[] = [];
    for (const x of a.runs) {
      const y = b.runs.find((r) => r.round === x.round);
      if (y !== undefined) out.push(f(x, y));
    }
    return out;
  };
  const heapPerMember = (r: RunResult): number => (r.ready.members > 0 ? r.ready.heapDeltaBytes / r.ready.members : 0);
  const rate = (r: RunResult): number => liveEvents / ((r.done.eventsCpuMs + r.redisCpuMs) / 1000);
  for (const t of transports) {
    const on = find(t, 'gatehouse');
    const off = find(t, 'gatehouse-nochannels');
    const base = find(t, 'gatehouse-baseline');
    if (on && off) {
      const held = expected.channels + expected.threads;
      const bytes = perRound(on, off, (x, y) => (x.ready.heapDeltaBytes - y.ready.heapDeltaBytes) / held);
      console.log(`\nchannels over ${t}: heap bytes per cached channel or thread (with channels - without, ${fmtInt(held)} held): ${spread(bytes)}`);
      console.log(`  heap B / member with channels ${spread(on.runs.map(heapPerMember), 1)}, without ${spread(off.runs.map(heapPerMember), 1)}`);
    }
    if (on && base) {
      const heap = perRound(on, base, (x, y) => heapPerMember(x) / heapPerMember(y));
      const speed = perRound(on, base, (x, y) => rate(x) / rate(y));
      console.log(`\nthis checkout against --baseline over ${t} (ratio per round, same workload):`);
      console.log(`  heap B / member: this ${spread(on.runs.map(heapPerMember), 1)}, baseline ${spread(base.runs.map(heapPerMember), 1)}, ratio ${spread(heap, 3)}`);
      console.log(`  events / CPU-s: this ${spread(on.runs.map(rate))}, baseline ${spread(base.runs.map(rate))}, ratio ${spread(speed, 3)}`);
    }
    for (const [httpKey, undiciKey] of [['gatehouse', 'gatehouse-undici'], ['gatehouse-redis', 'gatehouse-redis-undici']] as const) {
      const http = find(t, httpKey);
      const und = find(t, undiciKey);
      if (http && und) reportRestTransports(t, http, und, perRound, spread);
    }
  }

  // Wire bytes and CPU per transport.
  const wire: string[][] = [];
  for (const t of transports) {
    const f = frames.get(t)!;
    const startupBytes = f.ends[f.startupCount]!;
    const eventBytes = f.data.length - startupBytes;
    const gh = find(t, 'gatehouse');
    wire.push([
      t,
      (startupBytes / 1048576).toFixed(1),
      (eventBytes / 1048576).toFixed(1),
      fmtInt(eventBytes / liveEvents),
      gh ? gh.usPerEvent.toFixed(1) : '—',
      gh ? `${(gh.readyMs / 1000).toFixed(2)} s` : '—',
      find(t, 'floor') ? find(t, 'floor')!.usPerEvent.toFixed(1) : '—',
    ]);
  }
  console.log('\nbytes on the wire and cost per transport (same workload; zlib level 6, zstd level 3):\n');
  console.log(markdownTable(['transport', 'startup MiB', 'live events MiB', 'bytes / event', 'gatehouse µs / event', 'gatehouse ready', 'floor µs / event'], wire));

  const gz = find('zlib-stream', 'gatehouse');
  const gj = find('json', 'gatehouse');
  const goals: string[] = [];
  const goal = (text: string, ok: boolean): void => void goals.push(`- ${ok ? 'met' : 'MISSED'}: ${text}`);
  // Not a goal: the bound the floor goals are to be read against, what a socket client that answers can reach at all.
  const bound = (t: Transport, floor: Row | undefined, runtime: Row | undefined): void => {
    const w = find(t, 'wire');
    if (!w || !floor) return;
    goals.push(
      `- measured: the wire floor (receiving over the WebSocket and answering, nothing else) reaches ${fmtRatio(w.eventsPerCpuSecond / floor.eventsPerCpuSecond)} of the ${t} floor` +
        (runtime ? `; the Runtime reaches ${fmtRatio(runtime.eventsPerCpuSecond / w.eventsPerCpuSecond)} of the wire floor` : ''),
    );
  };
  if (gz && djsZlib) goal(`Runtime at least 5x discord.js per CPU-second on zlib-stream (${fmtRatio(gz.eventsPerCpuSecond / djsZlib.eventsPerCpuSecond)}x)`, gz.eventsPerCpuSecond >= 5 * djsZlib.eventsPerCpuSecond);
  const fz = find('zlib-stream', 'floor');
  if (gz && fz) {
    goal(`Runtime at least 0.67 of the zlib-stream floor (${fmtRatio(gz.eventsPerCpuSecond / fz.eventsPerCpuSecond)})`, gz.eventsPerCpuSecond >= 0.67 * fz.eventsPerCpuSecond);
    goal(`ready at most 1.3x the time to decode the startup bytes (${fmtRatio(gz.readyMs / fz.readyMs)}x login → cached; ${fmtRatio((gz.identifyToReadyMs ?? 0) / fz.readyMs)}x from IDENTIFY)`, gz.readyMs <= 1.3 * fz.readyMs);
  }
  bound('zlib-stream', fz, gz);
  const fj = find('json', 'floor');
  if (gj && fj) goal(`Runtime at least 0.4 of the plain-JSON floor (${fmtRatio(gj.eventsPerCpuSecond / fj.eventsPerCpuSecond)})`, gj.eventsPerCpuSecond >= 0.4 * fj.eventsPerCpuSecond);
  bound('json', fj, gj);
  if (gz && !quick) goal(`RSS after load at most 100 MiB at ${fmtInt(expected.members)} members (${gz.rssMiB.toFixed(0)} MiB)`, gz.rssMiB <= 100);
  if (gz) goal(`heap bytes per member no worse than 134 (issue #15's figure; ${gz.heapBytesPerMember.toFixed(0)})`, gz.heapBytesPerMember <= 134);
  const gr = find('zlib-stream', 'gatehouse-redis');
  if (gr && djsZlib) goal(`Redis backend: client + redis-server CPU per event at most half of discord.js's (${fmtRatio(gr.usPerEvent / djsZlib.usPerEvent)} of it)`, gr.usPerEvent <= 0.5 * djsZlib.usPerEvent);
  if (gr && gz) goal(`Redis backend: ready at most 2x the memory backend's (${fmtRatio(gr.readyMs / gz.readyMs)}x)`, gr.readyMs <= 2 * gz.readyMs);
  if (goals.length > 0) console.log(`\ngoals of issue #15 (this run${quick ? ', quick workload: indicative only' : ''}):\n${goals.join('\n')}`);

  for (const r of rows.filter((row) => row.entry.subject === 'gatehouse-redis')) {
    console.log(
      `\nRedis backend: ${(r.usPerEvent - r.redisUsPerEvent).toFixed(1)} µs/event in the client + ${r.redisUsPerEvent.toFixed(1)} µs/event in redis-server ` +
        `(INFO cpu of the Redis at REDIS_URL: it counts that server's other clients too, so on a shared Redis it is an upper bound); ` +
        `startup CPU ${(r.startupCpuMs / 1000).toFixed(2)} s in the client + ${(r.redisStartupCpuMs / 1000).toFixed(2)} s in redis-server; ` +
        `${fmtInt(r.redisBytesPerMember)} bytes of Redis memory per cached member`,
    );
  }
  const helpers = rows.filter((r) => r.helperUsPerEvent !== null && r.usPerEvent > 0);
  if (helpers.length > 0) {
    console.log(
      `\nof the µs per event, on threads other than the main one (V8's workers: JIT compilation and GC helpers; libuv's pool; /proc/self/task, 10 ms ticks): ` +
        helpers.map((r) => `${r.entry.label} over ${r.transport} ${r.helperUsPerEvent!.toFixed(1)} of ${r.usPerEvent.toFixed(1)}`).join('; '),
    );
  }
  const logNoise = rows.filter((r) => r.logLines > 0 && r.entry.subject !== 'discordjs' && r.entry.subject !== 'floor');
  for (const r of logNoise) console.log(`note: ${r.entry.label} over ${r.transport} wrote ${r.logLines} log lines while the live events flowed`);

  if (profile) {
    const startup = profilePhase === 'startup';
    const per = startup ? o.guilds * o.membersPerGuild : liveEvents;
    const unit = startup ? 'member' : 'event';
    console.log(`\nwhere gatehouse's CPU goes in the ${startup ? 'startup' : 'live-events'} phase (CPU profile of the last round, µs per ${unit}, self time by part):\n`);
    const profRows: string[][] = [];
    const profiled = rows.filter((r) => r.entry.subject !== 'floor');
    const summaries = profiled.map((r) => {
      const path = join(outDir, `ingest-${r.transport}-${r.entry.key}.cpuprofile`);
      const p = readProfile(path);
      return { r, path, p, s: summarize(p) };
    });
    for (const cat of CATEGORIES) {
      if (summaries.every(({ s }) => (s.byCategory.get(cat) ?? 0) === 0)) continue;
      profRows.push([cat, ...summaries.map(({ s }) => ((s.byCategory.get(cat) ?? 0) / per).toFixed(2))]);
    }
    profRows.push(['total sampled', ...summaries.map(({ s }) => (s.total / per).toFixed(2))]);
    console.log(markdownTable(['part', ...summaries.map(({ r }) => `${r.entry.label} ${r.transport}`)], profRows));
    for (const { r, path, p } of summaries.filter(({ r }) => r.entry.subject === 'gatehouse' || r.entry.subject === 'gatehouse-redis')) {
      console.log(`\nheaviest functions, ${r.entry.label} over ${r.transport} (${relative(ROOT, path)}; µs per ${unit}, self):`);
      for (const f of topFunctions(p, 15)) console.log(`  ${(f.us / per).toFixed(3).padStart(7)}  ${f.name}  ${f.url}`);
    }
    console.log('\n(the profiler itself adds some cost: the table above comes from the profiled runs, the headline figures too when --profile is on)');
  }

  if (allocPhase !== undefined) {
    const per = allocPhase === 'startup' ? o.guilds * o.membersPerGuild : liveEvents;
    const unit = allocPhase === 'startup' ? 'member' : 'event';
    for (const r of rows.filter((row) => row.entry.subject !== 'floor')) {
      const path = join(outDir, `ingest-${r.transport}-${r.entry.key}-${allocPhase}.heapprofile`);
      const { total, top } = allocationsByFunction(readAllocProfile(path), 12);
      console.log(`\nallocated in the ${allocPhase} phase, ${r.entry.label} over ${r.transport} (${relative(ROOT, path)}, last round, sampled): ${fmtInt(total / per)} bytes per ${unit}; by function:`);
      for (const f of top) console.log(`  ${fmtInt(f.bytes / per).padStart(6)}  ${f.name}  ${f.url}`);
    }
  }

  writeFileSync(
    join(outDir, 'ingest.json'),
    `${JSON.stringify(
      {
        command,
        node: process.version,
        machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}`,
        workload: o,
        rows: rows.map(({ runs, ...rest }) => ({ ...rest, entry: rest.entry.key, runs: runs.length })),
        runs: results.map(({ state: _state, ...r }) => ({ ...r, entry: r.entry.key, trace: { ...r.trace, identifyAt: undefined, eventsAt: undefined, eventsSentAt: undefined } })),
        problems,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nload average at the end ${loadavg()[0]!.toFixed(1)}; ${((Date.now() - started) / 1000).toFixed(0)} s in all; results in ${relative(ROOT, join(outDir, 'ingest.json'))}`);
  if (problems.length > 0) {
    for (const p of problems) console.log(`PROBLEM: ${p}`);
    console.log(`\n${problems.length} problem(s): the figures above are not valid`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
