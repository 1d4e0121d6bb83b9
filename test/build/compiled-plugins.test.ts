/**
 * Plugins of every loadable kind (.ts, .mts, .js, .mjs, folders) are in the compiled output and run there:
 * the project is built with its own build configuration (as the Dockerfile does) in a copy that also holds
 * JavaScript plugins, then the compiled CLI loads them and the compiled bot answers their commands.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';

let dir: string;

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, until?: RegExp) {
  return new Promise<{ code: number | null; out: string; kill: () => Promise<void> }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, env: { ...process.env, REDIS_URL: '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000).unref())]);
      if (child.exitCode === null) child.kill('SIGKILL');
    };
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (until?.test(out)) resolve({ code: null, out, kill: stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} timed out:\n${out}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, kill: stop });
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-build-'));
  for (const name of ['src', 'plugins', 'config', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, 'plugins', 'echo.js'),
    "import { definePlugin } from 'gatehouse';\nexport default definePlugin({ name: 'echo', commands: [{ name: 'echo', description: 'Echo', options: [{ type: 3, name: 'text', description: 'Text', required: true }], run: (ctx) => ctx.reply(`echo ${ctx.options.text}`) }] });\n",
  );
  writeFileSync(join(dir, 'plugins', 'ping.mjs'), "export default { name: 'ping', commands: [{ name: 'ping', description: 'Ping', run: (ctx) => ctx.reply('pong') }] };\n");
  mkdirSync(join(dir, 'plugins', 'folder'));
  writeFileSync(join(dir, 'plugins', 'folder', 'index.js'), "import { word } from './word.js';\nexport default { name: 'folder', commands: [{ name: 'word', description: 'Word', run: (ctx) => ctx.reply(word) }] };\n");
  writeFileSync(join(dir, 'plugins', 'folder', 'word.js'), "export const word = 'from a helper';\n");
  writeFileSync(join(dir, 'plugins', 'modern.mts'), "import { definePlugin } from 'gatehouse';\nexport default definePlugin({ name: 'modern', commands: [{ name: 'modern', description: 'An .mts plugin', run: (ctx) => ctx.reply('mts') }] });\n");
});
afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('compiled plugins', () => {
  it('builds .ts, .mts, .js, .mjs and folder plugins into dist/plugins, where the compiled bot runs them', async () => {
    const build = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {}, 180_000);
    expect(build.code, build.out).toBe(0);
    for (const f of ['echo.js', 'ping.mjs', 'folder/index.js', 'folder/word.js', 'modern.mjs', 'dice.js']) expect(existsSync(join(dir, 'dist/plugins', f)), f).toBe(true);

    const env = { GATEHOUSE_PLUGIN_DIRS: 'dist/plugins', GATEHOUSE_HTTP_PORT: '0', GATEHOUSE_SANDBOX_STATE: join(dir, 'sandbox.json'), DISCORD_TOKEN: '' };
    const check = await run(process.execPath, ['dist/src/cli.js', 'check'], env, 60_000);
    expect(check.code, check.out).toBe(0);
    expect(check.out).toContain('10 plugin files checked');

    const bot = await run(process.execPath, ['dist/src/cli.js', 'start'], env, 60_000, /Stop with Ctrl\+C\./);
    try {
      expect(bot.out).toContain('node dist/src/cli.js sandbox invoke echo text:hello');
      for (const [args, answer] of [[['echo', 'text:hi'], 'echo hi'], [['ping'], 'pong'], [['word'], 'from a helper'], [['modern'], 'mts']] as const) {
        const r = await run(process.execPath, ['dist/src/cli.js', 'sandbox', 'invoke', ...args], env, 30_000);
        expect(r.code, r.out).toBe(0);
        expect(r.out).toContain(`  ${answer}\n`);
      }
    } finally {
      await bot.kill();
    }
  }, 300_000);
});
