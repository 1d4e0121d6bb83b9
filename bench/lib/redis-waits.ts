/**
 * "Another client" of a Redis under load: a separate process sending PING, one at a time over a raw socket (no
 * client library queueing in between), that tells apart why a PING waited.
 *
 * A single-threaded Redis answers a PING only between commands, so a PING sent while a script runs waits for
 * it. But on a machine with more runnable threads than cores (this benchmark itself runs a client, Redis and
 * this process) a PING also waits while the kernel has Redis, or this process, runnable but not running, and
 * while the hypervisor runs another guest's work on our virtual CPU (steal). Around every PING the process
 * reads Linux's per-thread scheduler counters (/proc/<pid>/schedstat: time on a CPU, time runnable but
 * waiting for one) of Redis's main thread and of itself, so every wait splits into:
 *   - Redis on a CPU (its command execution, including the kernel work it causes: page faults, frees);
 *   - Redis runnable, waiting for a CPU, and this client runnable, waiting for a CPU (the OS's scheduling);
 *   - over TCP, the kernel's softirq threads waiting for a CPU (loopback packets deferred to them wait too);
 *   - the rest: neither thread on a CPU nor queued for one (steal on a virtual machine, and the round trip
 *     itself);
 * and counts Redis's page faults during the wait (/proc/<pid>/stat). The kernel updates a running thread's CPU
 * time at its 4 ms tick, so "on a CPU" is right to within a tick.
 * Between PINGs it sleeps `intervalUs` (Atomics.wait, not a busy loop), so that it does not itself take a
 * core from Redis; a stall is then caught by a PING at most that much after it starts.
 *
 * Without /proc (not Linux) the waits are measured and the split is reported as unknown.
 */
import { spawn } from 'node:child_process';

export interface WaitSplit {
  /** Wall time from sending the PING to reading PONG, ms. */
  waitMs: number;
  /** Redis's main thread on a CPU during the wait, ms. */
  redisCpuMs: number;
  /** Redis's main thread runnable but not running, ms. */
  redisQueuedMs: number;
  /** This client runnable but not running, ms. */
  clientQueuedMs: number;
  /**
   * The kernel's softirq threads (ksoftirqd, per CPU) runnable but not running, the longest of them, ms: over
   * TCP, loopback packets the kernel could not deliver at once wait for these normal-priority threads.
   */
  softirqQueuedMs: number;
  /** Page faults Redis took during the wait (minor: memory it touched for the first time, or again after a free). */
  redisFaults: number;
}

export interface WaitStats {
  count: number;
  p99Ms: number;
  /** The longest wait, split. */
  longest: WaitSplit;
  /** The wait during which Redis was on a CPU longest (an upper bound on any one command's execution, to within the PING interval). */
  mostRedisCpu: WaitSplit;
  /** The wait with the most time left once both threads' time waiting for a CPU is taken out. */
  mostUnscheduled: WaitSplit;
  /** Waits over the threshold given at start, each split. */
  over: WaitSplit[];
  /** Whether the scheduler counters were readable. */
  split: boolean;
}

const CHILD = String.raw`
const { connect } = require('node:net');
const { readFileSync } = require('node:fs');
const redisPid = process.env.PING_REDIS_PID;
const intervalMs = Number(process.env.PING_INTERVAL_US) / 1000, overMs = Number(process.env.PING_OVER_MS);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function stat(path) {
  try {
    const f = readFileSync(path, 'latin1').split(' ');
    return [Number(f[0]) / 1e6, Number(f[1]) / 1e6];
  } catch { return null; }
}
const redisPath = '/proc/' + redisPid + '/schedstat', selfPath = '/proc/self/schedstat', redisStatPath = '/proc/' + redisPid + '/stat';
function faults() {
  try {
    const f = readFileSync(redisStatPath, 'latin1');
    return Number(f.slice(f.lastIndexOf(')') + 2).split(' ')[7]);
  } catch { return NaN; }
}
const softirqPaths = [];
try {
  for (const pid of require('node:fs').readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try { if (readFileSync('/proc/' + pid + '/comm', 'latin1').startsWith('ksoftirqd/')) softirqPaths.push('/proc/' + pid + '/schedstat'); } catch {}
  }
} catch {}
function softirqs() {
  const out = [];
  for (const path of softirqPaths) { const s = stat(path); out.push(s ? s[1] : 0); }
  return out;
}
const socket = process.env.PING_PATH ? connect(process.env.PING_PATH) : connect(Number(process.env.PING_PORT), '127.0.0.1');
socket.setNoDelay(true);
let running = true, pending = null, buffered = '';
socket.on('data', (d) => {
  buffered += d.toString('latin1');
  if (buffered.endsWith('\r\n') && pending) { buffered = ''; const p = pending; pending = null; p(); }
});
process.stdin.on('data', () => { running = false; });
const waits = [];
const zero = { waitMs: 0, redisCpuMs: 0, redisQueuedMs: 0, clientQueuedMs: 0, softirqQueuedMs: 0, redisFaults: 0 };
let longest = zero, mostRedisCpu = zero, mostUnscheduled = zero, split = true;
const rest = (o) => o.waitMs - o.redisQueuedMs - o.clientQueuedMs - o.softirqQueuedMs;
const over = [];
socket.once('connect', async () => {
  process.stdout.write('ready\n');
  for (let n = 0; running && n < 50_000_000; n++) {
    const r0 = stat(redisPath), s0 = stat(selfPath), k0 = softirqs(), f0 = faults();
    const t0 = performance.now();
    await new Promise((resolve) => { pending = resolve; socket.write('PING\r\n'); });
    const t1 = performance.now();
    const r1 = stat(redisPath), s1 = stat(selfPath), k1 = softirqs(), f1 = faults();
    let softirqQueuedMs = 0;
    for (let i = 0; i < k0.length; i++) softirqQueuedMs = Math.max(softirqQueuedMs, k1[i] - k0[i]);
    const w = t1 - t0;
    waits.push(w);
    let one;
    if (r0 && r1 && s0 && s1) one = { waitMs: w, redisCpuMs: r1[0] - r0[0], redisQueuedMs: r1[1] - r0[1], clientQueuedMs: s1[1] - s0[1], softirqQueuedMs, redisFaults: f1 - f0 };
    else { split = false; one = { waitMs: w, redisCpuMs: NaN, redisQueuedMs: NaN, clientQueuedMs: NaN, softirqQueuedMs: NaN, redisFaults: NaN }; }
    if (w > longest.waitMs) longest = one;
    if (one.redisCpuMs > mostRedisCpu.redisCpuMs) mostRedisCpu = one;
    if (rest(one) > rest(mostUnscheduled)) mostUnscheduled = one;
    if (w > overMs && over.length < 10_000) over.push(one);
    if (intervalMs > 0) Atomics.wait(sleeper, 0, 0, intervalMs);
  }
  socket.destroy();
  waits.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ count: waits.length, p99Ms: waits[Math.floor(waits.length * 0.99)] ?? 0, longest, mostRedisCpu, mostUnscheduled, over, split }) + '\n');
  process.exit(0);
});
socket.on('error', (e) => { process.stderr.write(String(e) + '\n'); process.exit(1); });
`;

export interface WaitProbe {
  readonly pid: number | undefined;
  stop(): Promise<WaitStats>;
}

/** A wait less the time the threads it depends on spent waiting for a CPU (what Redis's own work and the round trip account for). */
export function unscheduledMs(w: WaitSplit): number {
  return Math.max(0, w.waitMs - w.redisQueuedMs - w.clientQueuedMs - w.softirqQueuedMs);
}

/** Start the probe against Redis at a unix socket path or 127.0.0.1:port, whose main thread is `redisPid`. */
export async function startWaitProbe(
  target: { path: string } | { port: number },
  redisPid: number,
  options: { intervalUs?: number; overMs?: number } = {},
): Promise<WaitProbe> {
  const where = 'path' in target ? { PING_PATH: target.path } : { PING_PORT: String(target.port) };
  const child = spawn(process.execPath, ['-e', CHILD], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...where, PING_REDIS_PID: String(redisPid), PING_INTERVAL_US: String(options.intervalUs ?? 200), PING_OVER_MS: String(options.overMs ?? 5) },
  });
  let out = '';
  const lines: string[] = [];
  let wake: () => void = () => undefined;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let at = out.indexOf('\n'); at >= 0; at = out.indexOf('\n')) {
      lines.push(out.slice(0, at));
      out = out.slice(at + 1);
      wake();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = async (): Promise<string> => {
    const deadline = Date.now() + 30_000;
    while (lines.length === 0) {
      if (Date.now() > deadline) throw new Error('wait probe did not answer');
      const woke = new Promise<void>((r) => (wake = r));
      const code = await Promise.race([woke.then(() => undefined), exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000))]);
      if (code !== undefined && lines.length === 0) throw new Error(`wait probe exited (${String(code)})`);
    }
    return lines.shift()!;
  };
  if ((await next()) !== 'ready') throw new Error('wait probe did not start');
  return {
    pid: child.pid,
    async stop() {
      child.stdin.write('stop\n');
      const stats = JSON.parse(await next()) as WaitStats;
      await exited;
      return stats;
    },
  };
}
