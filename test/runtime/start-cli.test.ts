/**
 * What a new user does: `npm start` with no token brings the bot up on the embedded sandbox and prints how
 * to invoke a command; the printed command works from another process; SIGTERM stops it cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand, type Finished } from '../helpers/process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-start-'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  GATEHOUSE_SANDBOX_STATE: join(dir, 'sandbox.json'),
  GATEHOUSE_HTTP_PORT: '0',
  LOG_LEVEL: 'warn',
  FORCE_COLOR: '0',
};
delete env.DISCORD_TOKEN;
delete env.DISCORD_API_URL;
delete env.REDIS_URL;

let bot: ChildProcess | null = null;

afterAll(() => {
  // npm may have ended by the signal (signalCode set, exitCode null) with its group already gone.
  if (bot?.pid !== undefined && bot.exitCode === null && bot.signalCode === null) {
    try {
      process.kill(-bot.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string, timeoutMs: number): Promise<Finished> {
  return runCommand(command, { cwd: ROOT, env, timeoutMs });
}

describe('npm start', () => {
  it('runs the bot on the sandbox, prints a working invoke command, and stops on SIGTERM', async () => {
    const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true });
    bot = child;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 60_000;
    while (!out.includes('Stop with Ctrl+C.')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(out).toMatch(/gatehouse is running on the local sandbox with 6 plugins/);
    const hint = out.split('\n').map((l) => l.trim()).find((l) => l.includes('sandbox invoke dice roll'));
    expect(hint).toBe('npm run gatehouse -- sandbox invoke dice roll sides:20');

    const invoked = await run(`${hint!} count:2`, 60_000);
    expect(invoked.code, invoked.stderr).toBe(0);
    expect(invoked.stdout).toMatch(/You rolled \d+ \+ \d+ = \d+ \(2d20\)/);

    // SIGTERM reaches the whole group (npm, tsx, node); npm itself may end by the signal. The bot's graceful
    // stop is visible in what it cleans up: it removes the sandbox state file it wrote.
    expect(existsSync(env.GATEHOUSE_SANDBOX_STATE!)).toBe(true);
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
      child.on('exit', (code, signal) => r({ code, signal })),
    );
    process.kill(-child.pid!, 'SIGTERM');
    const result = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
    expect(result).not.toBe('timeout');
    if (result !== 'timeout') expect(result.code === 0 || result.signal === 'SIGTERM', JSON.stringify(result)).toBe(true);
    const gone = Date.now() + 10_000;
    while (existsSync(env.GATEHOUSE_SANDBOX_STATE!) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(env.GATEHOUSE_SANDBOX_STATE!)).toBe(false);
    expect(out).not.toMatch(/"level":(50|60)/);
  }, 120_000);
});

describe('gatehouse start in production (NODE_ENV=production)', () => {
  const cli = ['--import', 'tsx', '--conditions=gatehouse-source', 'src/cli.ts', 'start'];
  const production = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...env, NODE_ENV: 'production' };
    delete base.GATEHOUSE_SANDBOX;
    return { ...base, ...extra };
  };

  it('refuses to start without DISCORD_TOKEN: a configuration error naming the way out, exit 2, nothing started', async () => {
    const child = spawn(process.execPath, cli, { cwd: ROOT, env: production({}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no exit within 60 s; stdout: ${stdout}; stderr: ${stderr}`));
      }, 60_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolvePromise(c);
      });
    });
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('DISCORD_TOKEN is not set. In production (NODE_ENV=production) gatehouse does not fall back to the embedded sandbox');
    expect(stderr).toContain('GATEHOUSE_SANDBOX=embedded');
    expect(stdout).not.toContain('gatehouse is running');
  }, 90_000);

  it('runs on the sandbox when asked for explicitly (GATEHOUSE_SANDBOX=embedded), and stops on SIGTERM with exit 0', async () => {
    const child = spawn(process.execPath, cli, {
      cwd: ROOT,
      env: production({ GATEHOUSE_SANDBOX: 'embedded', GATEHOUSE_SANDBOX_STATE: join(dir, 'embedded.json') }),
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes('Stop with Ctrl+C.')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`did not come up:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toMatch(/gatehouse is running on the local sandbox/);
      child.kill('SIGTERM');
      const result = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
      expect(result).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});
