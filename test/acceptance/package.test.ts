/**
 * gatehouse as a dependency, the way a bot owner gets it: the packed tarball installed into fresh projects, one
 * ESM (`"type": "module"`) and one CommonJS (`npm init -y` as it comes). In each: the bin through npx and
 * `npm exec`, `gatehouse check` (exit 0, then 1 with a broken plugin), `gatehouse start` on the embedded sandbox
 * until ready (no token), and `tsc --noEmit` on a TypeScript plugin and its test importing `gatehouse` and
 * `gatehouse/testing`. Then TypeScript 7 in place of 5: check either works or says the supported range in one
 * line. A project from `gatehouse init`, installed from the tarball: its test passes and it starts. The tarball
 * ships the LICENSE package.json names, and no example plugins and no source maps.
 *
 * Slow by nature (a build and two installs, minutes each on a busy machine); every bound is at least twice what
 * was measured, see packed.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Background, runToEnd } from '../helpers/process.js';
import { cleanEnv, INSTALL_TIMEOUT_MS, npmInstall, packInto } from './packed.js';
import { SUPPORTED_TYPESCRIPT } from '../../src/cli/typecheck-plugins.js';

const env = cleanEnv();
let parent: string;
let tarball: string;
const running: Background[] = [];

const HELLO = `import { definePlugin } from 'gatehouse';

export default definePlugin({
  name: 'hello',
  commands: [{ name: 'hello', description: 'Says hello', run: (ctx) => ctx.reply('Hello from an installed gatehouse!') }],
});
`;

// No test framework in these projects: the kit's API does not need one.
const HELLO_TEST = `import { startBot, type TestBot } from 'gatehouse/testing';
import hello from '../plugins/hello.js';

export async function answer(): Promise<string | undefined> {
  const bot: TestBot = await startBot({ plugins: [hello] });
  try {
    return (await bot.invoke('hello')).content;
  } finally {
    await bot.close();
  }
}
`;

const TSCONFIG = JSON.stringify(
  { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, types: ['node'] }, include: ['plugins', 'test'] },
  null,
  2,
);

beforeAll(async () => {
  parent = mkdtempSync(join(tmpdir(), 'gatehouse-package-'));
  tarball = await packInto(parent, env);
}, 700_000);

// Removing three installed node_modules took over 30 s under load.
afterAll(async () => {
  for (const b of running) await b.stop();
  if (parent !== undefined) rmSync(parent, { recursive: true, force: true });
}, 300_000);

function run(cwd: string, command: string, args: string[], timeoutMs = 120_000) {
  return runToEnd(command, args, { cwd, env, timeoutMs });
}

describe('the tarball', () => {
  it('ships the compiled sources with their types, config/default.json, the LICENSE, and no example plugins or source maps', async () => {
    const listed = await run(parent, 'tar', ['tzf', tarball]);
    const files = listed.stdout.split('\n').filter((f) => f.length > 0);
    for (const f of ['package/dist/src/cli.js', 'package/dist/src/index.d.ts', 'package/dist/src/entries/runtime.d.ts', 'package/dist/src/testing/index.js', 'package/config/default.json', 'package/LICENSE']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.endsWith('.map') || f.startsWith('package/dist/plugins/') || f.startsWith('package/src/'))).toEqual([]);
  });
});

describe.each([
  { kind: 'ESM', type: 'module' as const },
  { kind: 'CommonJS', type: null },
])('installed into a fresh $kind project', ({ kind, type }) => {
  let project: string;

  beforeAll(async () => {
    project = join(parent, kind.toLowerCase());
    mkdirSync(join(project, 'plugins'), { recursive: true });
    mkdirSync(join(project, 'test'), { recursive: true });
    const init = await run(project, 'npm', ['init', '-y']);
    expect(init.code, init.stderr).toBe(0);
    if (type !== null) expect((await run(project, 'npm', ['pkg', 'set', `type=${type}`])).code).toBe(0);
    writeFileSync(join(project, 'plugins', 'hello.ts'), HELLO);
    writeFileSync(join(project, 'test', 'hello.ts'), HELLO_TEST);
    writeFileSync(join(project, 'tsconfig.json'), TSCONFIG);
    const installed = await npmInstall(project, [tarball, 'typescript@5.9', '@types/node@20'], env);
    expect(installed.code, installed.stderr).toBe(0);
  }, INSTALL_TIMEOUT_MS + 60_000);

  it('runs the bin through npx and npm exec', async () => {
    const viaNpx = await run(project, 'npx', ['--no-install', 'gatehouse', '--help']);
    expect(viaNpx.code, viaNpx.stderr).toBe(0);
    expect(viaNpx.stdout).toContain('usage: gatehouse <verb>');
    const viaExec = await run(project, 'npm', ['exec', '--no', '--', 'gatehouse', 'check', '--help']);
    expect(viaExec.code, viaExec.stderr).toBe(0);
    expect(viaExec.stdout).toContain('check');
  }, 300_000);

  it('checks the plugins: exit 0, then 1 with a broken one', async () => {
    const clean = await run(project, 'npx', ['--no-install', 'gatehouse', 'check'], 300_000);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain('ok   plugins/hello.ts (plugin "hello": 1 command)');
    expect(clean.stdout).toContain('1 TypeScript file type-checked');
    writeFileSync(join(project, 'plugins', 'broken.ts'), "import { definePlugin } from 'gatehouse';\nconst sides: number = 'six';\nexport default definePlugin({ name: 'broken', setup: () => void sides });\n");
    try {
      const broken = await run(project, 'npx', ['--no-install', 'gatehouse', 'check'], 300_000);
      expect(broken.code, broken.stdout + broken.stderr).toBe(1);
      expect(broken.stdout).toMatch(/plugins\/broken\.ts: 2:7: TS2322: /);
    } finally {
      rmSync(join(project, 'plugins', 'broken.ts'));
    }
  }, 700_000);

  it('type-checks a plugin and its test importing gatehouse and gatehouse/testing', async () => {
    const tsc = await run(project, 'npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], 300_000);
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  }, 400_000);

  it('starts the bot on the embedded sandbox until ready, without a token', async () => {
    const bot = new Background('npx', ['--no-install', 'gatehouse', 'start'], { cwd: project, env });
    running.push(bot);
    await bot.waitFor('gatehouse is running on the local sandbox with 1 plugin.', 300_000);
    await bot.waitFor('Stop with Ctrl+C.', 60_000);
    expect(bot.text).toContain('npx gatehouse sandbox invoke hello');
    await bot.stop();
  }, 420_000);
});

describe('a project from gatehouse init', () => {
  it('installs from the tarball, passes its own test and starts on the sandbox', async () => {
    const project = join(parent, 'scaffold');
    const init = await run(join(parent, 'esm'), 'npx', ['--no-install', 'gatehouse', 'init', project, '--gatehouse', `file:${tarball}`]);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    const installed = await npmInstall(project, [], env);
    expect(installed.code, installed.stderr).toBe(0);
    const test = await run(project, 'npm', ['test'], 300_000);
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/1 passed/);
    const bot = new Background('npm', ['start'], { cwd: project, env });
    running.push(bot);
    await bot.waitFor('gatehouse is running on the local sandbox with 1 plugin.', 300_000);
    await bot.stop();
  }, INSTALL_TIMEOUT_MS + 700_000);
});

describe('with TypeScript 7 installed', () => {
  it('gatehouse check works or names the supported range in one line', async () => {
    const project = join(parent, 'esm');
    const installed = await npmInstall(project, ['typescript@7'], env);
    expect(installed.code, installed.stderr).toBe(0);
    const check = await run(project, 'npx', ['--no-install', 'gatehouse', 'check'], 300_000);
    if (check.code === 0) return;
    expect(check.code).toBe(1);
    const lines = check.stderr.split('\n').filter((l) => l.trim().length > 0);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^gatehouse check: typescript 7\\.\\d+\\.\\d+\\S* is installed; gatehouse check type-checks with typescript ${SUPPORTED_TYPESCRIPT.replace(/[.<>=]/g, (c) => `\\${c}`)}: `))]);
  }, INSTALL_TIMEOUT_MS + 360_000);
});
