/**
 * What sharing the REST limits through Redis costs a request, beside keeping them in the process: the same
 * client, the same loopback server (answering at once with generous rate-limit headers), once with
 * LocalRateLimits and once with SharedRateLimits on the Redis at REDIS_URL (default redis://127.0.0.1:6379).
 *
 *   npm run bench -- rest-shared     (--quick: smaller rounds)
 *
 * Reported per path: the time one request takes end to end when sent one after another (median and p99 over
 * the round), requests per second with 100 buckets in flight at once, and Redis round trips per request
 * (script calls the store made, records riding on reservations included). A bare PING round trip is the floor
 * of what one Redis round trip costs here. Rounds are bounded by count and time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { LocalRateLimits, RestClient, type RateLimitStore } from '../src/rest/index.js';
import { SharedRateLimits } from '../src/rest/redis/index.js';
import { redisAnswers } from './lib/redis-probe.js';
import { markdownTable } from './lib/report.js';

const QUICK = process.argv.includes('--quick');
const SEQUENTIAL = QUICK ? 500 : 3_000;
const CONCURRENT = QUICK ? 3_000 : 20_000;
const CHANNELS = 100;
const ROUND_LIMIT_MS = 60_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

if (!(await redisAnswers(REDIS_URL))) {
  console.log(`skipped: no Redis answers at ${REDIS_URL} (set REDIS_URL)`);
  process.exit(0);
}

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-ratelimit-bucket': 'chan',
      'x-ratelimit-limit': '1000000',
      'x-ratelimit-remaining': '999999',
      'x-ratelimit-reset-after': '60.000',
      'x-ratelimit-reset': String(Date.now() / 1000 + 60),
    });
    res.end('{"id":"100000000000000000","type":0,"name":"general"}');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`;

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
redis.on('error', () => undefined);
const namespace = `gh-bench:rest-shared:${randomBytes(4).toString('hex')}`;

const channel = (i: number): string => String(300000000000000000n + BigInt(i % CHANNELS));
const get = (rest: RestClient, i: number): Promise<unknown> => rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: channel(i) } });

async function bounded<T>(name: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name}: round exceeded ${ROUND_LIMIT_MS} ms`)), ROUND_LIMIT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Result {
  medianMs: number;
  p99Ms: number;
  perSecond: number;
}

async function measure(name: string, limits: RateLimitStore): Promise<Result> {
  const rest = new RestClient({ baseUrl, token: 'bench-token', limits });
  // Warm the connection pool, the scripts and the bucket.
  await bounded(`${name} warm-up`, Promise.all(Array.from({ length: CHANNELS * 2 }, (_, i) => get(rest, i))));
  const times: number[] = [];
  await bounded(
    `${name} one by one`,
    (async () => {
      for (let i = 0; i < SEQUENTIAL; i++) {
        const t0 = performance.now();
        await get(rest, i);
        times.push(performance.now() - t0);
      }
    })(),
  );
  times.sort((a, b) => a - b);
  const t0 = performance.now();
  await bounded(`${name} 100 buckets at once`, Promise.all(Array.from({ length: CONCURRENT }, (_, i) => get(rest, i))));
  const perSecond = (CONCURRENT / (performance.now() - t0)) * 1000;
  rest.close();
  return { medianMs: times[Math.floor(times.length / 2)]!, p99Ms: times[Math.floor(times.length * 0.99)]!, perSecond };
}

// The floor: one bare Redis round trip.
const pings: number[] = [];
for (let i = 0; i < 1000; i++) {
  const t0 = performance.now();
  await redis.ping();
  pings.push(performance.now() - t0);
}
pings.sort((a, b) => a - b);

const local = await measure('per-process', new LocalRateLimits({ globalLimit: 1_000_000 }));
const shared = new SharedRateLimits({ redis, namespace, globalLimit: 1_000_000, heartbeatMs: 60_000 });
const sharedResult = await measure('shared', shared);
const stats = shared.stats();
const totalRequests = CHANNELS * 2 + SEQUENTIAL + CONCURRENT;
const roundTrips = (stats.reservations + stats.flushes) / totalRequests;

const ms = (n: number): string => n.toFixed(3);
console.log(
  markdownTable(
    ['REST limits', 'ms per request, one by one (median)', 'p99 ms', 'requests/s, 100 buckets at once', 'Redis round trips per request'],
    [
      ['per process (LocalRateLimits)', ms(local.medianMs), ms(local.p99Ms), local.perSecond.toFixed(0), '0'],
      ['shared in Redis (SharedRateLimits)', ms(sharedResult.medianMs), ms(sharedResult.p99Ms), sharedResult.perSecond.toFixed(0), roundTrips.toFixed(3)],
    ],
  ),
);
console.log(
  `\nshared costs ${(sharedResult.medianMs - local.medianMs).toFixed(3)} ms more per request one by one (a bare Redis PING round trip: ` +
    `median ${ms(pings[500]!)} ms); throughput ${(sharedResult.perSecond / local.perSecond).toFixed(2)}x of per-process; ` +
    `${stats.reservations} reservations, ${stats.flushes} record-only calls, ${stats.records} records carried for ${totalRequests} requests`,
);

shared.close();
// Leave no key behind in the shared Redis.
let cursor = '0';
let rounds = 0;
do {
  const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 500);
  if (keys.length > 0) await redis.unlink(...keys);
  cursor = next;
} while (cursor !== '0' && ++rounds < 1000);
redis.disconnect();
server.close();
process.exit(0);
