/**
 * gatehouse's launchers start it with the node flags and environment of src/runtime/node-flags.ts: the Docker
 * image's ENV and CMD, and `npm start`. (The ingest benchmark imports the same lists for its gatehouse subjects.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAUNCH_ENV, NODE_FLAGS } from '../../src/runtime/node-flags.js';
import { ROOT } from '../plugins/helpers.js';

describe('node flags of the launchers', () => {
  it('the Docker image runs node with them', () => {
    const cmd = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('CMD '))
      .at(-1);
    expect(JSON.parse(cmd!.slice(4)) as string[]).toEqual(['node', ...NODE_FLAGS, 'dist/src/cli.js', 'start']);
  });

  it('the Docker image sets their environment', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    // The runtime stage is the last FROM; its ENV lines (with continuations) are what the container gets.
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const env = new Map<string, string>();
    for (const m of runtimeStage.replace(/\\\n/g, ' ').matchAll(/^ENV (.*)$/gm)) {
      for (const pair of m[1]!.trim().split(/\s+/)) env.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    for (const [name, value] of Object.entries(LAUNCH_ENV)) expect(env.get(name), name).toBe(value);
  });

  it('npm start runs node with them, in their environment', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = pkg.scripts.start!.split(/\s+/);
    // sh's ${NAME:-value}: the launcher's value unless the owner set one.
    const assignments = Object.entries(LAUNCH_ENV).map(([name, value]) => `${name}=\${${name}:-${value}}`);
    expect(words.slice(0, assignments.length)).toEqual(assignments);
    const rest = words.slice(assignments.length);
    expect(rest[0]).toBe('node');
    expect(rest.slice(1, 1 + NODE_FLAGS.length)).toEqual([...NODE_FLAGS]);
    expect(rest.slice(-2)).toEqual(['src/cli.ts', 'start']);
  });

  it('the ingest benchmark gives them to its gatehouse subjects', () => {
    const bench = readFileSync(join(ROOT, 'bench', 'ingest.bench.ts'), 'utf8');
    expect(bench).toContain("import { LAUNCH_ENV, NODE_FLAGS } from '../src/runtime/node-flags.js';");
    expect(bench).toMatch(/const nodeArgs = \['--expose-gc', \.\.\.ownFlags,/);
    expect(bench).toMatch(/const env: NodeJS\.ProcessEnv = \{ \.\.\.process\.env, \.\.\.\(own \? LAUNCH_ENV : \{\}\),/);
  });
});
