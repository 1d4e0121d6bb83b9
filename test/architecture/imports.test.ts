/**
 * The shape of src/: no import circle (a file never imports, through any chain, a module that imports it back),
 * and imports point down the layers docs/architecture.md lists.
 */
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { findCycles, importGraph, type ImportGraph } from './imports.js';

/**
 * Each top-level part of src/ and its rank: a file may import its own part or a part of lower rank, never one of
 * equal or higher rank. Parts of equal rank are peers that know nothing of each other (rest and gateway, say).
 * cluster sits above gateway: it implements the gateway's ports (identify queue, session store) over Redis.
 */
export const LAYERS: ReadonlyMap<string, number> = new Map([
  ['util', 0],
  ['api', 1],
  ['commands', 2],
  ['rest', 2],
  ['gateway', 2],
  ['cache', 2],
  ['transports', 2],
  ['cluster', 3],
  ['interactions', 3],
  ['sandbox', 3],
  ['plugins', 4],
  ['runtime', 5],
  ['cli', 6],
  ['index', 7],
  // The other entry points (gatehouse/runtime, gatehouse/rest, gatehouse/sandbox): peers of index.
  ['entries', 7],
  // The test kit (gatehouse/testing) starts bots on a sandbox, as cli does: a peer of index, above runtime.
  ['testing', 7],
]);

/** `src/cli.ts` belongs with `src/cli/`; `src/index.ts` is the public entry above everything. */
function partOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1]!;
}

export function layerViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph.edges) {
    const a = partOf(from);
    const rankA = LAYERS.get(a);
    if (rankA === undefined) {
      out.push(`${from}: src/${a} has no layer (add it to LAYERS and the layout in docs/architecture.md)`);
      continue;
    }
    for (const to of targets) {
      const b = partOf(to);
      if (a === b) continue;
      const rankB = LAYERS.get(b);
      if (rankB === undefined || rankB >= rankA) out.push(`${from} -> ${to} (${a} may not import ${b})`);
    }
  }
  return out;
}

const graph = importGraph(ROOT, 'src');

describe('imports of src/', () => {
  it('finds the imports it walks (the walker itself works)', () => {
    expect(graph.edges.size).toBeGreaterThan(100);
    expect(graph.edges.get('src/cli.ts')).toContain('src/cli/start.ts');
  });

  it('have no cycle', () => {
    const cycles = findCycles(graph).map((c) => c.join(' -> '));
    expect(cycles, `import cycles:\n${cycles.join('\n')}`).toEqual([]);
  });

  it('point down the layers', () => {
    const bad = layerViolations(graph);
    expect(bad, `imports that point up:\n${bad.join('\n')}`).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('report a cycle, with its path, and an upward import', () => {
    const edges = new Map<string, string[]>([
      ['src/rest/a.ts', ['src/runtime/b.ts']],
      ['src/runtime/b.ts', ['src/runtime/c.ts']],
      ['src/runtime/c.ts', ['src/rest/a.ts']],
      ['src/util/d.ts', []],
    ]);
    const g = { edges };
    expect(findCycles(g).map((c) => c.join(' -> '))).toEqual(['src/rest/a.ts -> src/runtime/b.ts -> src/runtime/c.ts -> src/rest/a.ts']);
    expect(layerViolations(g)).toEqual(['src/rest/a.ts -> src/runtime/b.ts (rest may not import runtime)']);
  });
});
