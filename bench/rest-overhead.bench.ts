/**
 * PART benchmark (it says so in its output): the REST client alone; the product path is ingest.bench.ts.
 *
 * Client-side overhead of the REST client next to @discordjs/rest, on the same loopback workload in one run:
 * N GETs spread over 100 channels (100 buckets, each run one at a time by both libraries) against a server
 * that answers at once with generous rate-limit headers, so that only the clients' own cost differs.
 *
 *   npm run bench -- rest            (--quick: 3,000 requests per round instead of 20,000)
 *
 * Rounds are bounded by count (N requests) and time (a round that takes over 60 s stops the run).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REST } from '@discordjs/rest';
import { RestClient } from '../src/rest/index.js';

console.log('PART benchmark: the REST client alone against a loopback server; the product path is `npm run bench -- ingest`\n');
const N = process.argv.includes('--quick') ? 3_000 : 20_000;
const ROUND_LIMIT_MS = 60_000;
const CHANNELS = 100;

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
    res.end('{"id":"100000000000000000","type":0,"name":"general","guild_id":"200000000000000000"}');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;

async function run(name: string, get: (channel: string) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  const all: Array<Promise<unknown>> = [];
  for (let i = 0; i < N; i++) all.push(get(String(300000000000000000n + BigInt(i % CHANNELS))));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(all),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name}: round exceeded ${ROUND_LIMIT_MS} ms`)), ROUND_LIMIT_MS);
    }),
  ]);
  clearTimeout(timer);
  const ms = performance.now() - t0;
  const rate = (N / ms) * 1000;
  console.log(`${name.padEnd(16)} ${rate.toFixed(0).padStart(7)} req/s  ${ms.toFixed(0).padStart(6)} ms`);
  return rate;
}

const ours = new RestClient({ baseUrl: `http://127.0.0.1:${port}/api/v10`, token: 'bench-token', globalLimit: 1_000_000 });
const theirs = new REST({ api: `http://127.0.0.1:${port}/api`, version: '10', globalRequestsPerSecond: 1_000_000 }).setToken('bench-token');

const rates: Record<string, number[]> = { gatehouse: [], 'discord.js': [] };
// Warm both, then alternate.
await run('warm gatehouse', (c) => ours.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: c } }));
await run('warm discord.js', (c) => theirs.get(`/channels/${c}`));
for (let round = 0; round < 3; round++) {
  rates.gatehouse!.push(await run('gatehouse', (c) => ours.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: c } })));
  rates['discord.js']!.push(await run('discord.js', (c) => theirs.get(`/channels/${c}`)));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`throughput ratio gatehouse / discord.js (median of 3): ${(median(rates.gatehouse!) / median(rates['discord.js']!)).toFixed(2)}x`);

ours.close();
server.close();
process.exit(0);
