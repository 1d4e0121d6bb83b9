/**
 * The plugin examples of the guides run as a reader runs them: every page with `ts file=...` blocks, one of them a
 * test (`file=test/tags.test.ts`), is written out as a bot's own project (its plugins and tests at the paths the
 * blocks name) and its tests are run by vitest in a process of their own, importing 'gatehouse' and
 * 'gatehouse/testing' by name. A page whose example stopped working fails here, not in a reader's hands.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { codeBlocks } from '../helpers/markdown.js';
import { guideFiles } from './files.js';

/** Entry points the examples import that package.json does not export yet, resolved to their sources. */
const PENDING_ENTRY_POINTS: Readonly<Record<string, string>> = { 'gatehouse/testing': 'src/testing/index.ts' };

interface Project {
  readonly page: string;
  readonly files: ReadonlyMap<string, string>;
}

function projects(): Project[] {
  return guideFiles().flatMap((page) => {
    const files = new Map<string, string>();
    for (const block of codeBlocks(readFileSync(join(ROOT, page), 'utf8'))) {
      const name = block.attributes.find((a) => a.startsWith('file='))?.slice('file='.length);
      if (name !== undefined) files.set(name, block.code);
    }
    return [...files.keys()].some((f) => f.endsWith('.test.ts')) ? [{ page, files }] : [];
  });
}

function vitestConfig(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  const exported = new Set(Object.keys(pkg.exports ?? {}).map((k) => k.replace(/^\./, 'gatehouse')));
  const alias = Object.entries(PENDING_ENTRY_POINTS)
    .filter(([specifier]) => !exported.has(specifier))
    .map(([specifier, file]) => `    ${JSON.stringify(specifier)}: ${JSON.stringify(join(ROOT, file))},`);
  return [
    "import { defineConfig } from 'vitest/config';",
    'export default defineConfig({',
    "  resolve: { conditions: ['gatehouse-source'], alias: {",
    ...alias,
    '  } },',
    "  ssr: { resolve: { conditions: ['gatehouse-source'], externalConditions: ['gatehouse-source'] } },",
    "  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },",
    '});',
    '',
  ].join('\n');
}

function run(cwd: string): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
  for (const key of ['DISCORD_TOKEN', 'DISCORD_API_URL', 'REDIS_URL', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'TEST']) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', cwd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const scratch = join(ROOT, '.gatehouse-tmp');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the plugin examples of the guides', () => {
  const found = projects();

  it('include the test kit example of docs/testing.md', () => {
    expect(found.map((p) => p.page)).toContain('docs/testing.md');
  });

  for (const project of found) {
    it(`${project.page}: its plugin and its test pass as a bot's own project`, async () => {
      mkdirSync(scratch, { recursive: true });
      const dir = mkdtempSync(join(scratch, 'example-'));
      made.push(dir);
      for (const [name, code] of project.files) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), code);
      }
      writeFileSync(join(dir, 'vitest.config.ts'), vitestConfig());
      expect(existsSync(join(dir, 'test'))).toBe(true);
      const { code, output } = await run(dir);
      expect(code, output).toBe(0);
      const tests = [...project.files.keys()].filter((f) => f.endsWith('.test.ts')).length;
      expect(output).toMatch(new RegExp(`Test Files\\s+${tests} passed`));
    }, 300_000);
  }
});
