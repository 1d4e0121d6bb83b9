/**
 * Interactions per CPU-second through the HTTP endpoint: gatehouse (read bounded, verify the Ed25519 signature,
 * parse, route to a plugin, answer inline) beside a bare node:http server that only verifies the same signatures
 * and answers a fixed body (the floor: what any correct endpoint must at least spend). Both run in a child
 * process each; the CPU time counted is the child's own (process.cpuUsage), the load comes from this process
 * over keep-alive connections on loopback.
 *
 *   npm run bench -- http-endpoint          (--quick: 2,000 interactions per round instead of 10,000)
 *
 * Rounds are bounded by count and time (60 s per round).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { SigningKey } from '../src/sandbox/delivery/signing.js';
import { fmtInt, fmtRatio, markdownTable } from './lib/report.js';

const QUICK = process.argv.includes('--quick');
const N = QUICK ? 2_000 : 10_000;
const CONCURRENCY = 32;
const ROUNDS = 3;
const ROUND_LIMIT_MS = 60_000;
const key = SigningKey.generate();

/** A slash command interaction as the service sends it (about 1.4 KB), with a fresh id per request. */
function interaction(i: number): string {
  const id = String(1_300_000_000_000_000_000n + BigInt(i));
  return JSON.stringify({
    app_permissions: '562949953421311',
    application_id: '1100000000000000001',
    authorizing_integration_owners: { '0': '1200000000000000001' },
    channel: { flags: 0, guild_id: '1200000000000000001', id: '1200000000000000002', last_message_id: null, name: 'general', nsfw: false, parent_id: null, permissions: '562949953421311', position: 0, rate_limit_per_user: 0, topic: null, type: 0 },
    channel_id: '1200000000000000002',
    context: 0,
    data: { id: '1100000000000000010', name: 'ping', options: [{ name: 'text', type: 3, value: `hello ${i}` }], type: 1 },
    entitlement_sku_ids: [],
    entitlements: [],
    guild: { features: [], id: '1200000000000000001', locale: 'en-US' },
    guild_id: '1200000000000000001',
    guild_locale: 'en-US',
    id,
    locale: 'en-US',
    member: {
      avatar: null, banner: null, communication_disabled_until: null, deaf: false, flags: 0, joined_at: '2024-01-01T00:00:00.000000+00:00',
      mute: false, nick: null, pending: false, permissions: '562949953421311', premium_since: null, roles: ['1200000000000000003'],
      user: { avatar: null, discriminator: '0', global_name: 'Quiet Otter', id: '1200000000000000004', public_flags: 0, username: 'quiet.otter' },
    },
    attachment_size_limit: 10485760,
    token: `aW50ZXJhY3Rpb246${id}:${'x'.repeat(160)}`,
    type: 2,
    version: 1,
  });
}

interface Child {
  proc: ChildProcess;
  url: URL;
  ask(message: string): Promise<Record<string, unknown>>;
}

async function spawnSubject(subject: string): Promise<Child> {
  const proc = fork(resolve(import.meta.dirname, 'http-endpoint/child.ts'), [subject, key.publicKeyHex], {
    execArgv: ['--conditions=gatehouse-source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const queue: Array<(m: Record<string, unknown>) => void> = [];
  proc.on('message', (m) => queue.shift()?.(m as Record<string, unknown>));
  const ready = await new Promise<Record<string, unknown>>((resolveReady, reject) => {
    queue.push(resolveReady);
    proc.once('exit', (code) => reject(new Error(`${subject} exited with ${String(code)} before it was ready`)));
  });
  return {
    proc,
    url: new URL(String(ready.url)),
    ask: (message) =>
      new Promise((r) => {
        queue.push(r);
        proc.send(message);
      }),
  };
}

/** Send `n` signed interactions, CONCURRENCY at a time; every answer must be a 200 with a message. */
async function load(url: URL, bodies: Array<{ body: string; headers: Record<string, string> }>): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let failures = 0;
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const { body, headers } = bodies[next++]!;
      const status = await new Promise<number>((done, fail) => {
        const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.end(body);
      });
      if (status !== 200) failures++;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(Array.from({ length: CONCURRENCY }, worker)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`round exceeded ${ROUND_LIMIT_MS} ms`)), ROUND_LIMIT_MS))),
  ]);
  clearTimeout(timer);
  agent.destroy();
  if (failures > 0) throw new Error(`${failures} of ${bodies.length} requests were not answered 200`);
  return performance.now() - t0;
}

let sequence = 0;
function signedBatch(n: number): Array<{ body: string; headers: Record<string, string> }> {
  return Array.from({ length: n }, () => {
    const body = interaction(sequence++);
    return { body, headers: { ...key.headers(body) } };
  });
}

const subjects = ['gatehouse', 'floor'] as const;
const children = new Map<string, Child>();
for (const s of subjects) children.set(s, await spawnSubject(s));
const results = new Map<string, Array<{ perCpuSecond: number; perSecond: number }>>(subjects.map((s) => [s, []]));
try {
  for (const s of subjects) await load(children.get(s)!.url, signedBatch(Math.floor(N / 5))); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of subjects) {
      const child = children.get(s)!;
      const bodies = signedBatch(N);
      await child.ask('start');
      const ms = await load(child.url, bodies);
      const { cpuMicros } = (await child.ask('stop')) as { cpuMicros: number };
      results.get(s)!.push({ perCpuSecond: N / (cpuMicros / 1e6), perSecond: N / (ms / 1000) });
    }
  }
} finally {
  for (const c of children.values()) c.ask('exit').catch(() => undefined), c.proc.once('exit', () => undefined);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const g = results.get('gatehouse')!;
const f = results.get('floor')!;
const gCpu = median(g.map((r) => r.perCpuSecond));
const fCpu = median(f.map((r) => r.perCpuSecond));
console.log(`${fmtInt(N)} signed slash-command interactions per round, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds\n`);
console.log(
  markdownTable(
    ['server', 'interactions per CPU-second', 'interactions per second (wall)'],
    [
      ['gatehouse endpoint (verify + parse + route + answer)', fmtInt(gCpu), fmtInt(median(g.map((r) => r.perSecond)))],
      ['bare node:http, verify only (floor)', fmtInt(fCpu), fmtInt(median(f.map((r) => r.perSecond)))],
    ],
  ),
);
console.log(`\ngatehouse / floor, per CPU-second: ${fmtRatio(gCpu / fCpu)}x  (1.00x would mean routing and answering cost nothing beyond verifying)`);
await new Promise((r) => setTimeout(r, 500));
process.exit(0);
