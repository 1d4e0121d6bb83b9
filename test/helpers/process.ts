/** Spawned processes for acceptance tests: commands run to completion, and long-running ones stopped by group. */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a program to its end (bounded); on the deadline it is killed and the output so far is in the error. */
export function runToEnd(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; shell?: boolean; what?: string },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, shell: options.shell ?? false, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const what = options.what ?? [file, ...args].join(' ');
      reject(new Error(`'${what}' did not finish in ${options.timeoutMs} ms\nstdout:\n${stdout.slice(-4000)}\nstderr:\n${stderr.slice(-4000)}`));
    }, options.timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run a shell command to its end (bounded). */
export function runCommand(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Finished> {
  return runToEnd(command, [], { ...options, shell: true });
}

/** A long-running process in its own group (npm, tsx and node stop together). */
export class Background {
  private output = '';
  readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', () => resolve()));
  }

  get text(): string {
    return this.output;
  }

  /** Wait (bounded) until the output matches; returns the time it took. */
  async waitFor(pattern: RegExp | string, timeoutMs: number, from = 0): Promise<number> {
    const started = Date.now();
    const test = (): boolean => (typeof pattern === 'string' ? this.output.indexOf(pattern, from) !== -1 : pattern.test(this.output.slice(from)));
    while (!test()) {
      if (this.child.exitCode !== null) throw new Error(`process exited (${this.child.exitCode}) before ${String(pattern)}:\n${this.output}`);
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)}:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return Date.now() - started;
  }

  /** SIGTERM to the group, then SIGKILL if it does not end in time. */
  async stop(timeoutMs = 20_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const done = await Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref())]);
    if (!done) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}
