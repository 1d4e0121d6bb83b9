/**
 * Real bot processes for the acceptance suite: `node --import tsx --conditions=gatehouse-source` on
 * fixtures/bot.ts, reporting JSON lines on fd 3 (see that file). Every process started here is tracked so
 * that `killAll()` (called in afterAll/afterEach) leaves none behind, whatever happened in the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = fileURLToPath(new URL('./fixtures/bot.ts', import.meta.url));
const LOG_TAIL = 16_000;

export type Report =
  | { ev: 'd'; shard: number; s: number; t: string; user?: string; id?: string }
  | { ev: 'started'; shards: number[]; synced: boolean; member?: string }
  | { ev: 'owned'; shards: number[]; ready: number[]; total?: number }
  | { ev: 'reshard'; id: number; plan: { id: string; from: number; to: number } | null }
  | { ev: 'resharded'; to: number; replay: Array<{ shard: number; delivered: number; skipped: number }> }
  | { ev: 'stopped' }
  | { ev: 'advanced'; id: number; now: number }
  | { ev: 'stall' }
  | { ev: 'woke' }
  | { ev: 'error'; message: string }
  | { ev: 'rest'; id: number; outcomes: { ok: number; guard: number; ratelimit: number; api: number; other: number } }
  | { ev: 'rl'; route: string; scope: string; retryAfterMs: number };

const live = new Set<BotProcess>();

export class BotProcess {
  readonly child: ChildProcess;
  readonly reports: Report[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private output = '';
  private partial = '';
  private listeners: Array<() => void> = [];

  constructor(
    readonly name: string,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-source', ENTRY], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    live.add(this);
    this.child.stdin!.on('error', () => undefined); // a command written as the process dies
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-LOG_TAIL);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    (this.child.stdio[3] as Readable).on('data', (chunk: Buffer) => this.onReports(chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        live.delete(this);
        resolve({ code, signal });
        this.notify();
      });
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process logged (for failure messages). */
  get log(): string {
    return this.output;
  }

  dispatches(shard?: number): Array<Extract<Report, { ev: 'd' }>> {
    return this.reports.filter((r): r is Extract<Report, { ev: 'd' }> => r.ev === 'd' && (shard === undefined || r.shard === shard));
  }

  started(): Extract<Report, { ev: 'started' }> | undefined {
    return this.reports.find((r): r is Extract<Report, { ev: 'started' }> => r.ev === 'started');
  }

  /** Shards the process runs, as last reported. */
  owned(): number[] {
    for (let i = this.reports.length - 1; i >= 0; i--) {
      const r = this.reports[i]!;
      if (r.ev === 'owned' || r.ev === 'started') return r.shards;
    }
    return [];
  }

  /** Shards the process runs that are live (READY or RESUMED), as last reported. */
  readyShards(): number[] {
    for (let i = this.reports.length - 1; i >= 0; i--) {
      const r = this.reports[i]!;
      if (r.ev === 'owned') return r.ready;
    }
    return [];
  }

  /**
   * Resolve when `check` holds (checked on every report and every 25 ms); reject after `timeoutMs`, or once
   * the process has been gone for 300 ms (its last reports read) without `check` holding.
   */
  waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let goneSince: number | null = null;
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        clearInterval(poll);
        this.listeners = this.listeners.filter((l) => l !== listener);
        if (error) reject(error);
        else resolve();
      };
      const listener = (): void => {
        if (check()) return finish();
        if (this.running) return;
        goneSince ??= Date.now();
        if (Date.now() - goneSince > 300) finish(new Error(`${this.name}: exited while waiting for ${what}\n${this.log}`));
      };
      const timer = setTimeout(
        () => finish(new Error(`${this.name}: timed out after ${timeoutMs} ms waiting for ${what}\n${this.log}`)),
        timeoutMs,
      );
      const poll = setInterval(listener, 25);
      this.listeners.push(listener);
    });
  }

  /** Give the fixture a command (a JSON line on its stdin; see fixtures/bot.ts). */
  send(command: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  private onReports(chunk: Buffer): void {
    const text = this.partial + chunk.toString('utf8');
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.length === 0) continue;
      try {
        this.reports.push(JSON.parse(line) as Report);
      } catch {
        this.output += `\n[unparsable report] ${line}`;
      }
    }
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** SIGKILL every process still running and wait (bounded) for each to exit. */
export async function killAll(): Promise<void> {
  const all = [...live];
  for (const p of all) p.kill('SIGKILL');
  await Promise.all(all.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 5_000))])));
}
