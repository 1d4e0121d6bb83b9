/** docs/operations.md lists every metric the runtime registers (a name in src/ is a metric the operator can scrape). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('docs/operations.md', () => {
  it('names every gatehouse_ metric of src/ in its metrics table', () => {
    const names = new Set(sources(join(ROOT, 'src')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/['"`](gatehouse_[a-z0-9_]+)['"`]/g)].map((m) => m[1]!)));
    expect(names.size).toBeGreaterThan(10);
    const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const rows = new Set([...doc.matchAll(/^\| `(gatehouse_[a-z0-9_]+)` \|/gm)].map((m) => m[1]!));
    expect([...names].filter((n) => !rows.has(n)).sort()).toEqual([]);
    expect([...rows].filter((n) => !names.has(n)).sort()).toEqual([]);
  });
});
