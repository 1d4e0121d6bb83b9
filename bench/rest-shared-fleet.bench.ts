/**
 * The fleet's shared REST limits at the wire (issue #28): three real processes of one bot
 * (test/rest/helpers/fleet-child.ts: a RestClient on SharedRateLimits, as the Runtime builds them) against one
 * server that stamps every arrival and models the service's limits (test/rest/helpers/fake-api.ts: 50 per second
 * global, buckets of 5 per second per channel), with a redis-server of the bench's own on a free loopback port
 * so that `INFO commandstats` counts only these processes' script calls.
 *
 *   npm run bench -- rest-shared     (--quick: fewer rounds)
 *
 * Reported:
 * - where the time between admission and arrival goes, in one process (why a global slot is held until the
 *   response: see src/rest/rate-limits.ts): admission to arrival at the server on new sockets and on kept-alive
 *   ones, and arrival to the response reaching the client (what holding the slot until then costs a slot);
 * - Redis script calls per request (the server's own count), in the steady state (the three sending about 14
 *   per second each, 42 together, under the global limit) and under the hammer (3 x 100 at once);
 * - the fleet's peak arrivals in any one-second window at the server, its 429s, and its efficiency against the
 *   ideal schedule: the span from the first arrival to the last over the least it can be at 50 per second,
 *   (⌈300 / 50⌉ − 1) seconds. 1.00 is ideal.
 * Every loop is bounded by count and time; the bench's processes and its redis-server are stopped at the end.
 */
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { LocalRateLimits, RestClient } from '../src/rest/index.js';
import { maxInWindow, startFakeApi, type FakeApi } from '../test/rest/helpers/fake-api.js';
import { channelGets, efficiency, startFleet, stopFleet, type FleetProcess } from '../test/rest/helpers/fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../test/rest/helpers/private-redis.js';
import { markdownTable } from './lib/report.js';

const QUICK = process.argv.includes('--quick');
const HAMMER_ROUNDS = QUICK ? 1 : 3;
const GLOBAL = 50;
const WINDOW_MS = 1000;
const TOKEN = 'bench-fleet-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const channel = (method: string, path: string): boolean => method === 'GET' && /^\/channels\/\d+$/.test(path);

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '—');

/** One process, 150 requests at once at 50 per second: the first 50 on new sockets, the rest on kept-alive ones. */
async function admissionToArrival(): Promise<string[][]> {
  const api = await startFakeApi();
  const rest = new RestClient({ baseUrl: api.baseUrl, token: TOKEN, limits: new LocalRateLimits({ globalLimit: GLOBAL, globalWindowMs: WINDOW_MS }) });
  const sentAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const id = (bucket: string): string => bucket.slice(bucket.lastIndexOf(':') + 1);
  // 'request' is emitted when the store has admitted the request, just before the transport sends it.
  rest.on('request', (e) => sentAt.set(id(e.bucket), performance.now()));
  rest.on('response', (e) => answeredAt.set(id(e.bucket), performance.now()));
  await Promise.all(Array.from({ length: 150 }, (_, i) => rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(7000 + i) } })));
  rest.close();
  await api.close();
  const rows = api.requests.map((r) => {
    const key = r.path.slice(r.path.lastIndexOf('/') + 1);
    return { seq: r.seq, toArrival: r.at - sentAt.get(key)!, toAnswer: answeredAt.get(key)! - r.at };
  });
  const part = (from: number, to: number) => rows.filter((r) => r.seq >= from && r.seq < to);
  const line = (what: string, rs: typeof rows): string[] => {
    const a = rs.map((r) => r.toArrival).sort((x, y) => x - y);
    const b = rs.map((r) => r.toAnswer).sort((x, y) => x - y);
    return [what, ms(quantile(a, 0.5)), ms(quantile(a, 0.99)), ms(a[a.length - 1] ?? NaN), ms(quantile(b, 0.5)), ms(quantile(b, 0.99))];
  };
  return [line('first 50 (new sockets)', part(0, 50)), line('next 100 (kept-alive sockets)', part(50, 150))];
}

async function scriptCalls(redis: PrivateRedis): Promise<number> {
  const calls = await redis.commandCalls();
  return (calls.get('evalsha') ?? 0) + (calls.get('eval') ?? 0);
}

interface Phase {
  name: string;
  requests: number;
  callsPerRequest: number;
  peak: number;
  limited: number;
  efficiency: number | null;
}

async function phase(name: string, api: FakeApi, redis: PrivateRedis, run: () => Promise<unknown>, ideal: boolean): Promise<Phase> {
  const calls0 = await scriptCalls(redis);
  const from = api.requests.length;
  await run();
  // Releases still riding go within a quarter second: counted with the phase that caused them.
  await new Promise((r) => setTimeout(r, 500));
  const seen = api.requests.slice(from);
  const arrivals = seen.map((r) => r.at);
  return {
    name,
    requests: seen.length,
    callsPerRequest: ((await scriptCalls(redis)) - calls0) / Math.max(1, seen.length),
    peak: maxInWindow(arrivals, WINDOW_MS),
    limited: seen.filter((r) => r.status === 429).length,
    efficiency: ideal ? efficiency(arrivals, GLOBAL, WINDOW_MS) : null,
  };
}

async function fleetRun(): Promise<Phase[]> {
  const api = await startFakeApi({
    buckets: [{ match: channel, hash: 'channel', limit: 5, windowMs: 1000 }],
    global: { limit: GLOBAL, windowMs: WINDOW_MS, retryAfterMs: 1000 },
  });
  const redis = await startPrivateRedis();
  try {
    const namespace = `gh-bench:rest-fleet:${randomBytes(4).toString('hex')}`;
    const processes: FleetProcess[] = await startFleet(
      ['a', 'b', 'c'].map((name) => ({ name, baseUrl: api.baseUrl, redisUrl: redis.url, namespace, token: TOKEN })),
    );
    const all = (f: (p: FleetProcess) => Promise<unknown>): (() => Promise<unknown>) => () => Promise.all(processes.map(f));
    const out: Phase[] = [];
    out.push(await phase('learning 100 buckets (3 x 100 at once, each bucket learnt once for the fleet)', api, redis, all((p) => p.run(channelGets(100, 100), {}, 120_000)), true));
    out.push(await phase('steady: 3 x 60, 14 per second each', api, redis, all((p) => p.run(channelGets(60, 100), { concurrency: 8, intervalMs: 70 }, 120_000)), false));
    for (let round = 1; round <= HAMMER_ROUNDS; round++) {
      await new Promise((r) => setTimeout(r, 1500));
      out.push(await phase(`hammer ${round}: 3 x 100 at once`, api, redis, all((p) => p.run(channelGets(100, 100), {}, 120_000)), true));
    }
    return out;
  } finally {
    await stopFleet();
    await redis.stop();
    await api.close();
  }
}

const delays = await admissionToArrival();
console.log('Admission to arrival, one process, 150 GETs at once at 50 per second (ms):\n');
console.log(markdownTable(['requests', 'admission → arrival p50', 'p99', 'max', 'arrival → answer at the client p50', 'p99'], delays));

const phases = await fleetRun();
console.log('\nThree processes sharing the limits through Redis (a private redis-server), one server counting arrivals:\n');
console.log(
  markdownTable(
    ['phase', 'requests', 'script calls per request', 'peak arrivals in 1 s', '429s', 'efficiency (1 = ideal)'],
    phases.map((p) => [p.name, String(p.requests), p.callsPerRequest.toFixed(3), String(p.peak), String(p.limited), p.efficiency === null ? '—' : p.efficiency.toFixed(3)]),
  ),
);
process.exit(0);
