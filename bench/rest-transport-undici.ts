/**
 * A part measurement (issue 33): the CPU an interaction answer costs the bot over the REST transport, node:http
 * (src/rest/transport.ts, what the client uses) beside undici's Pool (what @discordjs/rest uses) and beside
 * bench/lib/undici-transport.ts (that Pool behind HttpTransport's interface and timeout, as the ingest bench's
 * --rest-transport=undici runs it), on keep-alive
 * loopback against a Node http.Server answering 204. 20,000 POSTs of a callback-sized body, 16 at a time, after
 * 2,000 of warm-up; CPU time of this process (user + system) per answer, and wall time. Not part of `npm run bench`
 * (no .bench.ts): run it by hand.
 *
 *   npx tsx --conditions=gatehouse-source bench/rest-transport-undici.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { HttpTransport } from '../src/rest/transport.js';
import { UndiciTransport } from './lib/undici-transport.js';

const N = 20_000;
const WARMUP = 2_000;
const CONCURRENCY = 16;
const body = Buffer.from(JSON.stringify({ type: 4, data: { content: 'Heads!', flags: 64 } }));
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
server.keepAliveTimeout = 5_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
const path = '/interactions/800000000000000001/token/callback';
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };

async function run(name: string, send: () => Promise<void>): Promise<void> {
  const loop = async (n: number): Promise<void> => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) await send();
    }));
  };
  await loop(WARMUP);
  const cpu = process.cpuUsage();
  const t = process.hrtime.bigint();
  await loop(N);
  const used = process.cpuUsage(cpu);
  const wallMs = Number(process.hrtime.bigint() - t) / 1e6;
  console.log(`${name}: ${((used.user + used.system) / N).toFixed(1)} µs CPU per answer, ${Math.round(N / (wallMs / 1000)).toLocaleString('en')} answers/s wall`);
}

const transport = new HttpTransport(`http://127.0.0.1:${port}`, { maxSockets: CONCURRENCY });
const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY, keepAliveTimeout: 4_000 });
const undiciTransport = new UndiciTransport(`http://127.0.0.1:${port}`, { maxSockets: CONCURRENCY });
for (let round = 0; round < 2; round++) {
  await run('node:http (HttpTransport)', async () => {
    await transport.send({ method: 'POST', path, headers, body, timeoutMs: 10_000 });
  });
  await run('undici Pool.request', async () => {
    const res = await pool.request({ method: 'POST', path, headers, body });
    await res.body.dump();
  });
  await run('undici UndiciTransport (bench/lib)', async () => {
    await undiciTransport.send({ method: 'POST', path, headers, body, timeoutMs: 10_000 });
  });
}
transport.close();
await pool.close();
undiciTransport.close();
server.close();
