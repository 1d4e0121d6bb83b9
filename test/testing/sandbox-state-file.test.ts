/**
 * Two sandboxes in one checkout: each records itself, and stopping one leaves the other findable by the
 * `gatehouse sandbox` verbs (it used to delete the one state file both shared, or leave it naming a dead one).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli.js';
import { run } from '../../src/cli/sandbox.js';
import { readStateFile, removeStateFile, runningSandboxes, stateEntriesDir, writeStateFile, type SandboxStateFile } from '../../src/sandbox/statefile.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempState(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gh-kit-state-'));
  dirs.push(dir);
  return join(dir, 'state.json');
}

/** `gatehouse sandbox` as a process of its own, until it prints its admin URL. */
async function sandboxProcess(statePath: string): Promise<{ adminUrl: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-source', 'src/cli.ts', 'sandbox', '--port', '0', '--guilds', '1', '--state-file', statePath], {
    cwd: process.cwd(),
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!/Admin URL:\s+\S+/.test(stdout) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  const adminUrl = /Admin URL:\s+(\S+)/.exec(stdout)?.[1];
  if (adminUrl === undefined) throw new Error(`gatehouse sandbox did not start:\n${stdout}`);
  return {
    adminUrl,
    async stop() {
      child.kill('SIGINT');
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000))]);
      if (code === 'timeout') throw new Error('gatehouse sandbox did not stop on SIGINT within 15 s');
      return code;
    },
  };
}

function io(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(...l.split('\n')), err: (l) => errors.push(...l.split('\n')) };
}

function state(pid: number, port: number, startedAt: string): SandboxStateFile {
  const base = `http://127.0.0.1:${port}`;
  return { pid, adminUrl: `${base}/_sandbox`, restUrl: `${base}/api/v10`, gatewayUrl: `ws://127.0.0.1:${port}/gateway`, applicationId: '1', startedAt };
}

describe('two sandboxes of one checkout', () => {
  it('stopping the newer leaves the older one to the verbs; stopping both removes everything', async () => {
    const statePath = tempState();
    const first = await sandboxProcess(statePath);
    const second = await sandboxProcess(statePath);
    expect(readStateFile(statePath)?.adminUrl).toBe(second.adminUrl);

    expect(await second.stop()).toBe(0);
    const verb = io();
    expect(await run(['messages', '--state-file', statePath], verb), verb.errors.join('\n')).toBe(0);
    expect(verb.lines[0]).toContain(first.adminUrl);
    expect(runningSandboxes(statePath).map((s) => s.adminUrl)).toEqual([first.adminUrl]);

    expect(await first.stop()).toBe(0);
    expect(existsSync(statePath)).toBe(false);
    expect(existsSync(stateEntriesDir(statePath))).toBe(false);
    const none = io();
    expect(await run(['messages', '--state-file', statePath], none)).toBe(1);
    expect(none.errors.join('\n')).toContain('no running sandbox');
  }, 90_000);
});

describe('the state file', () => {
  it('tells two sandboxes of one process apart by their state', () => {
    const path = tempState();
    const a = state(process.pid, 1001, '2025-01-01T00:00:00.000Z');
    const b = state(process.pid, 1002, '2025-01-01T00:00:01.000Z');
    writeStateFile(path, a);
    writeStateFile(path, b);
    removeStateFile(path, b);
    expect(readStateFile(path)).toEqual(a);
    removeStateFile(path, a);
    expect(existsSync(path)).toBe(false);
  });

  it('skips and removes entries of processes that ended without a word', () => {
    const path = tempState();
    // A pid no process has: spawned and waited for, so it has ended.
    const gone = spawnSyncPid();
    writeStateFile(path, state(process.pid, 1001, '2025-01-01T00:00:00.000Z'));
    writeStateFile(path, state(gone, 1002, '2025-01-01T00:00:01.000Z'));
    expect(readStateFile(path)?.pid).toBe(process.pid);
    expect(readdirSync(stateEntriesDir(path))).toEqual([`${process.pid}-1001.json`]);
  });

  it('still reads a state file written without entries, and removes it for its process', () => {
    const path = tempState();
    const old = state(process.pid, 1003, '2025-01-01T00:00:00.000Z');
    writeFileSync(path, JSON.stringify(old));
    expect(readStateFile(path)).toEqual(old);
    removeStateFile(path);
    expect(existsSync(path)).toBe(false);
  });
});

function spawnSyncPid(): number {
  return spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid;
}
