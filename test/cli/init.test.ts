/**
 * `gatehouse init DIR` writes a bot project (its install, test and start run in test/acceptance/package.test.ts)
 * and never overwrites: a folder with files in it is refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';

const parent = mkdtempSync(join(tmpdir(), 'gatehouse-init-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

function collector() {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l: string) => lines.push(l), err: (l: string) => errors.push(l) };
}

describe('gatehouse init', () => {
  it('writes an ESM package that depends on gatehouse, a plugin, its test, a Dockerfile and compose file', async () => {
    const io = collector();
    const dir = join(parent, 'My Bot');
    expect(await main(['init', dir, '--gatehouse', 'file:../gatehouse.tgz'], io)).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'plugins/hello.ts', 'test/hello.test.ts', '.gitignore', 'Dockerfile', 'compose.yaml', 'README.md', 'config/default.json']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; type: string; dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg).toMatchObject({ name: 'my-bot', type: 'module', dependencies: { gatehouse: 'file:../gatehouse.tgz' } });
    expect(pkg.scripts).toMatchObject({ start: 'gatehouse start', test: 'vitest run' });
    expect(readFileSync(join(dir, 'test', 'hello.test.ts'), 'utf8')).toContain("from 'gatehouse/testing'");
    expect(io.lines.at(-1)).toMatch(/^next: cd '.*My Bot' && npm install && npm start$/);
  });

  it('refuses a folder that has files in it', async () => {
    const dir = join(parent, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{}');
    const io = collector();
    expect(await main(['init', dir], io)).toBe(1);
    expect(io.errors).toEqual([`gatehouse init: ${dir} is not empty; choose a new folder`]);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe('{}');
  });
});
