/**
 * gatehouse's launchers start it with the node flags of src/runtime/node-flags.ts: the Docker image's CMD and
 * `npm start`. (The ingest benchmark imports the same list for its gatehouse subjects.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/runtime/node-flags.js';
import { ROOT } from '../plugins/helpers.js';

describe('node flags of the launchers', () => {
  it('the Docker image runs node with them', () => {
    const cmd = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('CMD '))
      .at(-1);
    expect(JSON.parse(cmd!.slice(4)) as string[]).toEqual(['node', ...NODE_FLAGS, 'dist/src/cli.js', 'start']);
  });

  it('npm start runs node with them', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = pkg.scripts.start!.split(/\s+/);
    expect(words[0]).toBe('node');
    expect(words.slice(1, 1 + NODE_FLAGS.length)).toEqual([...NODE_FLAGS]);
    expect(words.slice(-2)).toEqual(['src/cli.ts', 'start']);
  });

  it('the ingest benchmark gives them to its gatehouse subjects', () => {
    const bench = readFileSync(join(ROOT, 'bench', 'ingest.bench.ts'), 'utf8');
    expect(bench).toContain("import { NODE_FLAGS } from '../src/runtime/node-flags.js';");
    expect(bench).toMatch(/const nodeArgs = \['--expose-gc', \.\.\.ownFlags,/);
  });
});
