import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverPlugins } from '../../src/plugins/loader.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-plugins-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('discoverPlugins', () => {
  it('finds files and folders with an index in name order, skipping helpers, declarations and tests', () => {
    const cwd = tree({
      'plugins/b.ts': '',
      'plugins/a/index.ts': '',
      'plugins/_shared.ts': '',
      'plugins/c.d.ts': '',
      'plugins/d.test.ts': '',
      'plugins/notes.md': '',
      'plugins/empty/readme.txt': '',
    });
    const { sources, missing, shadowed } = discoverPlugins(['plugins', 'nowhere'], cwd);
    expect(sources.map((s) => s.label)).toEqual(['plugins/a/index.ts', 'plugins/b.ts']);
    expect(missing).toEqual(['nowhere']);
    expect(shadowed).toEqual([]);
  });

  it('loads one module per name and reports the one passed over', () => {
    const cwd = tree({ 'plugins/x.js': '', 'plugins/x.ts': '' });
    const { sources, shadowed } = discoverPlugins(['plugins'], cwd);
    expect(sources.map((s) => s.label)).toEqual(['plugins/x.js']);
    expect(shadowed).toEqual([{ file: 'plugins/x.ts', by: 'plugins/x.js' }]);
  });
});
