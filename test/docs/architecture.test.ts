/** docs/architecture.md's table of layers says what the import test enforces (its LAYERS map, read from its source). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';

/** part -> rank, from `['util', 0],` entries of test/architecture/imports.test.ts. */
function enforced(): Map<string, number> {
  const source = readFileSync(join(ROOT, 'test', 'architecture', 'imports.test.ts'), 'utf8');
  const table = source.slice(source.indexOf('export const LAYERS'), source.indexOf(']);', source.indexOf('export const LAYERS')));
  return new Map([...table.matchAll(/\['(\w+)', (\d+)\]/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** part -> rank, from the "| rank | parts |" table of the doc. */
function documented(doc: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of doc.matchAll(/^\|\s*(\d+)\s*\|(.*)\|\s*$/gm)) {
    for (const part of m[2]!.matchAll(/`(\w+)`/g)) out.set(part[1]!, Number(m[1]));
  }
  return out;
}

describe('docs/architecture.md', () => {
  it('ranks every part of src/ as test/architecture/imports.test.ts does', () => {
    const layers = enforced();
    expect(layers.get('util')).toBe(0);
    expect(layers.size).toBeGreaterThan(10);
    const doc = documented(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
    expect(Object.fromEntries([...doc].sort())).toEqual(Object.fromEntries([...layers].sort()));
  });
});
