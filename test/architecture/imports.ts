/**
 * The import graph of src/: every relative `import ... from`, `export ... from`, `import '...'` and dynamic
 * `import('...')` with a literal specifier, resolved to a file. Type-only imports count too: a type cycle still
 * means two modules that cannot be read (or moved) one without the other.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportGraph {
  /** Paths relative to the root, with forward slashes; each file's imported files, in source order. */
  readonly edges: ReadonlyMap<string, readonly string[]>;
}

export function listSourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listSourceFiles(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isStringLiteral(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** `./x.js` -> `./x.ts` (NodeNext spelling), or a directory's index. */
function resolveRelative(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

export function importGraph(root: string, dir: string): ImportGraph {
  const edges = new Map<string, string[]>();
  const rel = (p: string): string => relative(root, p).split('\\').join('/');
  for (const file of listSourceFiles(join(root, dir))) {
    const targets: string[] = [];
    for (const spec of specifiers(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolveRelative(file, spec);
      if (target === null) throw new Error(`${rel(file)}: cannot resolve ${spec}`);
      targets.push(rel(target));
    }
    edges.set(rel(file), targets);
  }
  return { edges };
}

/** Every strongly connected component with more than one file (or a file importing itself), each as a cycle path. */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so a deep chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const out = graph.edges.get(top.node) ?? [];
      if (top.i < out.length) {
        const to = out[top.i++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const comp: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          comp.push(n);
        } while (n !== top.node);
        const selfLoop = comp.length === 1 && out.includes(top.node);
        if (comp.length > 1 || selfLoop) components.push(cyclePath(graph, comp));
      }
    }
  }
  return components;
}

/** One concrete cycle through the component's first file (breadth-first, so the shortest), for the message. */
function cyclePath(graph: ImportGraph, component: string[]): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q]!;
    for (const to of graph.edges.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [...component, component[0]!];
}
