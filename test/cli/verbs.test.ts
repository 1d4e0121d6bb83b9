/**
 * Every verb of the CLI, found by walking the dispatch tables (so a verb added later is covered without
 * touching this file): `--help` prints the verb's usage and exits 0, and an unknown flag is refused the same
 * way everywhere, naming the flag and the verb, with exit code 2.
 */
import { describe, expect, it } from 'vitest';
import { main, VERBS } from '../../src/cli.js';
import type { CliIo, VerbTree } from '../../src/cli/io.js';

function collector(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

function walk(tree: VerbTree, path: string[], out: string[][]): void {
  for (const [word, next] of tree) {
    const at = word === '' ? path : [...path, word];
    if (typeof next === 'function') out.push(at);
    else walk(next, at, out);
  }
}

async function allVerbs(): Promise<string[][]> {
  const out: string[][] = [];
  for (const [name, load] of VERBS) {
    const mod = await load();
    if (mod.SUBVERBS === undefined) out.push([name]);
    else walk(mod.SUBVERBS, [name], out);
  }
  return out;
}

const verbs = await allVerbs();

describe('the verb list', () => {
  it('is walked to the leaves (groups and their own actions included)', () => {
    const names = verbs.map((v) => v.join(' '));
    for (const known of ['start', 'sandbox', 'sandbox member join', 'sandbox webhooks', 'sandbox webhooks fault', 'sandbox app entitle', 'commands validate', 'reshard']) {
      expect(names).toContain(known);
    }
    expect(names).not.toContain('commands');
  });
});

describe.each(verbs.map((v) => [v.join(' '), v] as const))('gatehouse %s', (name, words) => {
  it('--help prints its usage and exits 0', async () => {
    const io = collector();
    expect(await main([...words, '--help'], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(new RegExp(`^usage: gatehouse ${name}\\b`));
    expect(io.lines.join('\n')).toContain('-h, --help');
    expect(io.errors).toEqual([]);
  });

  it('refuses an unknown flag with exit 2, naming the flag and the verb', async () => {
    const io = collector();
    expect(await main([...words, '--no-such-flag'], io)).toBe(2);
    expect(io.lines).toEqual([]);
    expect(io.errors.join('\n')).toMatch(new RegExp(`^gatehouse ${name}: Unknown option '--no-such-flag'`));
    expect(io.errors.join('\n')).toContain(`usage: gatehouse ${name}`);
  });
});
