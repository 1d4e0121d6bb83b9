/**
 * PART benchmark (it says so in its output): the sandbox's send rate; it says nothing about the client.
 *
 * Sandbox throughput: how long the 1,000 guilds x 1,000 members fixture takes to seed, and how fast the sandbox
 * sends gateway events compared with how fast a client can consume them.
 *
 *   npx tsx --conditions=gatehouse-source bench/sandbox-throughput.bench.ts [--quick] [--guilds 1000] [--members 1000]
 *
 * The client runs in a worker thread (its own core): it only stores the frames while they arrive, so the
 * arrival rate is the sandbox's send rate (zlib-stream, level 1). It then decodes the very same frames offline
 * with zlib-sync and with node:zlib (inflate + JSON.parse, what a client must at least do) to get the consume
 * rate. "send / consume" above 1 means the sandbox out-sends its client.
 *
 * Workloads: the startup burst (READY, 1,000 GUILD_CREATE with GUILD_PRESENCES member lists, then op 8 all
 * members for `--requests` guilds in 1,000-member chunks) and a live burst of GUILD_MEMBER_ADD events.
 */
import { Worker } from 'node:worker_threads';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { fmtInt, fmtRatio, markdownTable } from './lib/report.js';

console.log('PART benchmark: how fast the sandbox sends (a test tool), not a client figure; the product path is `npm run bench -- ingest`\n');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
function numArg(name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}
const GUILDS = numArg('guilds', quick ? 200 : 1000);
const MEMBERS = numArg('members', quick ? 200 : 1000);
const REQUESTS = Math.min(numArg('requests', quick ? 50 : 100), GUILDS);
const ADDS = numArg('adds', quick ? 20_000 : 100_000);
const TIME_LIMIT_MS = quick ? 60_000 : 5 * 60_000;

/** The client: plain JS in a worker thread (ws, zlib-sync, node:zlib). */
const CLIENT = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require('ws');
const zlib = require('node:zlib');
let ZlibSync = null;
try { ZlibSync = require('zlib-sync'); } catch {}
const { url, token, intents, requestGuilds, expected, timeLimitMs, phase, timeFrom = 0 } = workerData;
const frames = [];
let messages = 0, bytes = 0, t0 = 0, tLast = 0, sent = false;
const isEnd = (b) => b.length >= 4 && b[b.length - 4] === 0 && b[b.length - 3] === 0 && b[b.length - 2] === 255 && b[b.length - 1] === 255;
const ws = new WebSocket(url + '?v=10&encoding=json&compress=zlib-stream', { perMessageDeflate: false });
const guard = setTimeout(() => { parentPort.postMessage({ error: 'time limit: got ' + messages + ' of ' + expected + ' messages' }); process.exit(1); }, timeLimitMs);
ws.on('message', (data) => {
  frames.push(data); bytes += data.length;
  if (!isEnd(data)) return;
  messages++;
  tLast = Date.now();
  if (messages === 1) {
    // HELLO: identify now. (The live phase identifies too, then waits for the main thread.)
    t0 = Date.now();
    ws.send(JSON.stringify({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'bench', device: 'bench' }, large_threshold: 250 } }));
  } else if (messages === 2 && !sent) {
    sent = true;
    for (const g of requestGuilds) ws.send(JSON.stringify({ op: 8, d: { guild_id: g, query: '', limit: 0 } }));
    if (phase === 'live') parentPort.postMessage({ ready: true });
  }
  if (messages >= expected) finish();
});
function finish() {
  clearTimeout(guard);
  ws.terminate();
  // Offline decode of the same frames: zlib-sync (synchronous) and node:zlib (stream, like @discordjs/ws).
  const decode = {};
  // Only messages from index timeFrom on are timed (earlier ones still go through the shared context).
  if (ZlibSync) {
    const inf = new ZlibSync.Inflate({ chunkSize: 65536 });
    let start = timeFrom === 0 ? process.hrtime.bigint() : 0n;
    let n = 0;
    for (const f of frames) {
      const end = isEnd(f);
      inf.push(f, end ? ZlibSync.Z_SYNC_FLUSH : ZlibSync.Z_NO_FLUSH);
      if (inf.err) throw new Error('zlib-sync: ' + inf.msg);
      if (end) { JSON.parse(inf.result.toString()); n++; if (n === timeFrom) start = process.hrtime.bigint(); }
    }
    decode.zlibSyncMs = Number(process.hrtime.bigint() - start) / 1e6;
  }
  const inf = zlib.createInflate({ chunkSize: 65536, flush: zlib.constants.Z_SYNC_FLUSH });
  let out = [];
  inf.on('data', (c) => out.push(c));
  let start = timeFrom === 0 ? process.hrtime.bigint() : 0n;
  let i = 0, n = 0, pending = [];
  const next = () => {
    while (i < frames.length) {
      const f = frames[i++];
      pending.push(f);
      if (!isEnd(f)) continue;
      const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      pending = [];
      inf.write(buf, () => { JSON.parse(Buffer.concat(out).toString()); out = []; n++; if (n === timeFrom) start = process.hrtime.bigint(); next(); });
      return;
    }
    decode.nodeZlibMs = Number(process.hrtime.bigint() - start) / 1e6;
    parentPort.postMessage({ messages, bytes, sendMs: tLast - t0, t0, tLast, decode });
  };
  next();
}
`;

/** A discord.js Client (what most bots run): log in, wait for every guild, fetch members of some guilds. */
const DISCORDJS = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { Client, GatewayIntentBits } = require('discord.js');
const { restBase, token, requestGuilds, liveGuild, adds, timeLimitMs } = workerData;
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildPresences],
  rest: { api: restBase },
  ws: { large_threshold: 250 },
});
let events = 0;
client.on('raw', () => { events++; });
const guard = setTimeout(() => { parentPort.postMessage({ error: 'discord.js: time limit, ' + events + ' events' }); process.exit(1); }, timeLimitMs);
const t0 = Date.now();
client.once('clientReady', async () => {
  const tReady = Date.now();
  const guilds = requestGuilds.map((id) => client.guilds.cache.get(id));
  await Promise.all(guilds.map((g) => g.members.fetch()));
  const tDone = Date.now();
  const startupEvents = events;
  const members = guilds.reduce((n, g) => n + g.members.cache.size, 0);
  // Live phase: count GUILD_MEMBER_ADD as discord.js handles them (member cached, event emitted).
  let added = 0;
  let tLast = 0;
  client.on('guildMemberAdd', (m) => {
    if (m.guild.id !== liveGuild) return;
    added++;
    tLast = Date.now();
    if (added === adds) {
      clearTimeout(guard);
      parentPort.postMessage({ events: startupEvents, readyMs: tReady - t0, totalMs: tDone - t0, guilds: client.guilds.cache.size, members, liveLast: tLast });
      client.destroy();
    }
  });
  parentPort.postMessage({ ready: true });
});
client.login(token);
`;

interface DiscordjsResult {
  events: number;
  readyMs: number;
  totalMs: number;
  guilds: number;
  members: number;
  /** Date.now() when its last GUILD_MEMBER_ADD of the live burst was handled. */
  liveLast: number;
}

interface ClientResult {
  messages: number;
  bytes: number;
  sendMs: number;
  t0: number;
  tLast: number;
  decode: { zlibSyncMs?: number; nodeZlibMs: number };
}

function runClient(data: Record<string, unknown>, onReady?: () => void): Promise<ClientResult> {
  return runWorker<ClientResult>(CLIENT, data, onReady);
}

function runWorker<T>(code: string, data: Record<string, unknown>, onReady?: () => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { timeLimitMs: TIME_LIMIT_MS, ...data } });
    worker.on('message', (m: { error?: string; ready?: boolean } & T) => {
      if (m.error) reject(new Error(m.error));
      else if (m.ready) onReady?.();
      else resolve(m);
    });
    worker.on('error', reject);
  });
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const rows: string[][] = [];
const summary: string[] = [];
/** Runs per measurement; the best (fastest) counts, so that other load on the machine skews less. */
const ROUNDS = quick ? 1 : 3;
const GATEWAY = { identifyWindowMs: 0, memberRequestWindowMs: 0, sendLimit: { count: 100_000, windowMs: 60_000 }, heartbeatIntervalMs: 600_000, maxGuildsPerShard: 100_000, replayBufferSize: 1_000 };

function best(results: ClientResult[]): ClientResult {
  return results.reduce((a, b) => (b.sendMs < a.sendMs ? b : a));
}

// ---- seeding ------------------------------------------------------------------------------------------
let lazyMs = Infinity;
let eagerMs = Infinity;
let heapMb = 0;
for (let r = 0; r < ROUNDS; r++) {
  gc();
  let t = performance.now();
  const lazy = await createSandbox({ seed: { guilds: GUILDS, membersPerGuild: MEMBERS } });
  lazyMs = Math.min(lazyMs, performance.now() - t);
  await lazy.close();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  t = performance.now();
  const eager = await createSandbox({ seed: { guilds: GUILDS, membersPerGuild: MEMBERS, eager: true } });
  eagerMs = Math.min(eagerMs, performance.now() - t);
  gc();
  heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  await eager.close();
}
summary.push(`Seed ${fmtInt(GUILDS)} guilds x ${fmtInt(MEMBERS)} members: ${fmtInt(lazyMs)} ms lazy (members on first use), ${fmtInt(eagerMs)} ms with every member generated (${fmtInt(GUILDS * (MEMBERS + 1))} members, ~${fmtInt(heapMb)} MB heap).`);

// ---- startup burst ------------------------------------------------------------------------------------
const chunksPerGuild = Math.ceil((MEMBERS + 1) / 1000);
const startupExpected = 2 + GUILDS + REQUESTS * chunksPerGuild;
const members = REQUESTS * (MEMBERS + 1);
const burst = `READY + ${fmtInt(GUILDS)} GUILD_CREATE + ${fmtInt(REQUESTS * chunksPerGuild)} chunks (${fmtInt(members)} members)`;
const startupData = (sb: Sandbox) => ({ url: sb.gatewayUrl, token: sb.botToken, intents: 1 | 2 | 256, requestGuilds: sb.state.guildIds.slice(0, REQUESTS), expected: startupExpected, phase: 'startup' });

// Cold: a fresh sandbox each time, every payload built on the way.
const colds: ClientResult[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const fresh = await createSandbox({ seed: { guilds: GUILDS, membersPerGuild: MEMBERS, eager: true }, gateway: GATEWAY });
  colds.push(await runClient(startupData(fresh)));
  await fresh.close();
  gc();
}
addRows('startup, cold', best(colds), burst);

// Warm: GUILD_CREATE payloads come from the cache (member chunks are built again each time).
const sb = await createSandbox({ seed: { guilds: GUILDS, membersPerGuild: MEMBERS, eager: true }, gateway: GATEWAY });
await runClient(startupData(sb));
const warms: ClientResult[] = [];
for (let r = 0; r < ROUNDS; r++) warms.push(await runClient(startupData(sb)));
const warm = best(warms);
addRows('startup, warm', warm, burst);

// ---- discord.js on the same (warm) sandbox: receive, inflate, parse, build its caches, emit -------------
const djGuilds = sb.state.guildIds.slice(0, Math.min(REQUESTS, 100));
const liveGuildId = sb.state.guildIds[GUILDS - 1]!;
let djAddStart = 0;
const dj = await runWorker<DiscordjsResult>(
  DISCORDJS,
  { restBase: sb.restUrl.replace(/\/v10$/, ''), token: sb.botToken, requestGuilds: djGuilds, liveGuild: liveGuildId, adds: ADDS },
  () => {
    setTimeout(() => {
      djAddStart = Date.now();
      for (let i = 0; i < ADDS; i++) sb.state.addMember(liveGuildId, { username: `dj${i}` });
    }, 500);
  },
);
// ---- live burst ---------------------------------------------------------------------------------------
const guildId = sb.state.guildIds[0]!;
const liveExpected = 2 + GUILDS + ADDS;
const lives: ClientResult[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let addStart = 0;
  const live = await runClient(
    { url: sb.gatewayUrl, token: sb.botToken, intents: 1 | 2, requestGuilds: [], expected: liveExpected, phase: 'live', timeFrom: 2 + GUILDS },
    () => {
      // Give the GUILD_CREATE burst a moment to flush, then add members as fast as the store takes them.
      setTimeout(() => {
        addStart = Date.now();
        for (let i = 0; i < ADDS; i++) sb.state.addMember(guildId, { username: `bench${r}_${i}` });
      }, 1000);
    },
  );
  lives.push({ ...live, sendMs: live.tLast - addStart, messages: ADDS });
}
const live = best(lives);
addRows('live burst', live, `${fmtInt(ADDS)} GUILD_MEMBER_ADD`);
const liveRate = ADDS / (live.sendMs / 1000);

await sb.close();
const djRate = dj.events / (dj.totalMs / 1000);
const warmRate = warm.messages / (warm.sendMs / 1000);
const djLiveRate = ADDS / ((dj.liveLast - djAddStart) / 1000);
summary.push(
  `discord.js Client: READY and ${fmtInt(dj.guilds)} guilds cached in ${fmtInt(dj.readyMs)} ms, then ${fmtInt(dj.members)} members ` +
    `of ${djGuilds.length} guilds fetched: ${fmtInt(dj.events)} events in ${fmtInt(dj.totalMs)} ms = ${fmtInt(djRate)} events/s consumed ` +
    `(the sandbox sends that burst at ${fmtInt(warmRate)} events/s warm: ${fmtRatio(warmRate / djRate)}x). ` +
    `Live: discord.js handled ${fmtInt(djLiveRate)} GUILD_MEMBER_ADD/s, the sandbox sends ${fmtInt(liveRate)}/s (${fmtRatio(liveRate / djLiveRate)}x).`,
);

function addRows(name: string, r: ClientResult, what: string): void {
  const decodedMessages = r.messages;
  const sendRate = r.messages / (r.sendMs / 1000);
  const syncRate = r.decode.zlibSyncMs !== undefined ? decodedMessages / (r.decode.zlibSyncMs / 1000) : NaN;
  const nodeRate = decodedMessages / (r.decode.nodeZlibMs / 1000);
  rows.push([
    name,
    what,
    fmtInt(r.bytes / 1e6),
    fmtInt(sendRate),
    fmtInt(r.bytes / 1e6 / (r.sendMs / 1000)),
    Number.isNaN(syncRate) ? '—' : fmtInt(syncRate),
    fmtInt(nodeRate),
    Number.isNaN(syncRate) ? '—' : `${fmtRatio(sendRate / syncRate)}x`,
    `${fmtRatio(sendRate / nodeRate)}x`,
  ]);
}

console.log(`(best of ${ROUNDS} runs each; ${GUILDS} guilds x ${MEMBERS} members, op 8 for ${REQUESTS} guilds)`);
console.log(summary.join('\n'));
console.log('');
console.log(
  markdownTable(
    ['workload', 'events', 'MB sent', 'sandbox events/s', 'MB/s', 'zlib-sync client events/s', 'node:zlib client events/s', 'send/consume (zlib-sync)', 'send/consume (node:zlib)'],
    rows,
  ),
);
console.log('\nsend/consume above 1: the sandbox sends faster than that client can inflate and parse.');
