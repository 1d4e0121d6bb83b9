/**
 * Real processes of one bot (fleet-child.ts), for the fleet tests and `npm run bench -- rest-shared`. Every
 * process started here is tracked: `stopFleet()` ends them all, whatever happened.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildCommand, ChildConfig, ChildReport, RequestSpec } from './fleet-protocol.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENTRY = fileURLToPath(new URL('./fleet-child.ts', import.meta.url));
const LOG_TAIL = 8_000;
const live = new Set<FleetProcess>();

type Done = Extract<ChildReport, { ev: 'done' }>;
type Stats = Extract<ChildReport, { ev: 'stats' }>;
type RateLimited = Extract<ChildReport, { ev: 'rl' }>;

export class FleetProcess {
  readonly child: ChildProcess;
  readonly rateLimited: RateLimited[] = [];
  private output = '';
  private nextId = 1;
  private readonly waiting = new Map<number, (r: ChildReport) => void>();
  private readonly readiness: Promise<void>;
  private readonly exited: Promise<void>;

  constructor(readonly config: ChildConfig, env: Record<string, string> = {}) {
    this.child = fork(ENTRY, [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', '--conditions=gatehouse-source'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', FLEET_CHILD: JSON.stringify(config), ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    live.add(this);
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-LOG_TAIL);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    void this.exited.then(() => live.delete(this));
    this.readiness = new Promise((resolve, reject) => {
      this.child.once('exit', (code, signal) => reject(new Error(`${config.name} exited (${code ?? signal}) before it was ready:\n${this.output}`)));
      this.child.on('message', (r: ChildReport) => {
        if (r.ev === 'ready') resolve();
        else if (r.ev === 'rl') this.rateLimited.push(r);
        else this.waiting.get(r.id)?.(r);
      });
    });
    this.readiness.catch(() => undefined);
  }

  get name(): string {
    return this.config.name;
  }

  /** What the process wrote to stdout and stderr (its last lines), for failure messages. */
  get log(): string {
    return this.output;
  }

  ready(timeoutMs = 60_000): Promise<void> {
    return bounded(this.readiness, timeoutMs, `${this.name} ready`, () => this.output);
  }

  run(requests: RequestSpec[], options: { concurrency?: number; intervalMs?: number } = {}, timeoutMs = 60_000): Promise<Done> {
    const id = this.nextId++;
    return this.ask<Done>({ op: 'run', id, requests, ...options }, timeoutMs);
  }

  stats(timeoutMs = 10_000): Promise<Stats> {
    return this.ask<Stats>({ op: 'stats', id: this.nextId++ }, timeoutMs);
  }

  /** SIGKILL: the process dies where it stands (no close, no record flushed, its sockets reset by the kernel). */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Close the client and the store, then exit; killed if that takes too long. */
  async exit(timeoutMs = 5_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.child.connected) this.child.send({ op: 'exit' } satisfies ChildCommand);
    const done = await Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref())]);
    if (!done) await this.kill();
  }

  private ask<T extends ChildReport>(command: ChildCommand & { id: number }, timeoutMs: number): Promise<T> {
    const answer = new Promise<T>((resolve) => {
      this.waiting.set(command.id, (r) => {
        this.waiting.delete(command.id);
        resolve(r as T);
      });
    });
    this.child.send(command);
    return bounded(answer, timeoutMs, `${this.name} ${command.op} #${command.id}`, () => this.output);
  }
}

function bounded<T>(work: Promise<T>, timeoutMs: number, what: string, log: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms\n${log()}`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Start processes and wait until each is ready. */
export async function startFleet(configs: ChildConfig[], timeoutMs = 90_000): Promise<FleetProcess[]> {
  const processes = configs.map((c) => new FleetProcess(c));
  await Promise.all(processes.map((p) => p.ready(timeoutMs)));
  return processes;
}

/** End every process started here. */
export async function stopFleet(): Promise<void> {
  await Promise.all([...live].map((p) => p.exit()));
}

/** GETs of channel ids, spread over `channels` channels starting at `first`. */
export function channelGets(count: number, channels: number, first = 1): RequestSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    method: 'GET' as const,
    route: '/channels/{channel_id}',
    params: { channel_id: String(first + (i % channels)) },
  }));
}

/**
 * How long the fleet took against the ideal schedule: the last arrival's distance from the first, over the
 * least it can be at `limit` per window (⌈n / limit⌉ − 1 windows). 1 is ideal.
 */
export function efficiency(arrivals: readonly number[], limit: number, windowMs: number): number {
  const windows = Math.ceil(arrivals.length / limit) - 1;
  if (windows <= 0) return 1;
  return (Math.max(...arrivals) - Math.min(...arrivals)) / (windows * windowMs);
}
