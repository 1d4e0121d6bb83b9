/**
 * No function in src/ is longer than 100 lines, except tables. A long function is one a reader cannot hold in
 * their head; it is split by what its parts do (see runtime/metrics.ts: one function per group of metrics).
 *
 * A table is a function whose body ends by returning an array or object literal that makes up at least two
 * thirds of its lines: a route table, a list of metric definitions. The functions inside the literal (route
 * handlers) are checked on their own, as every nested function is.
 *
 * ALLOWED lists the functions over the limit in files other engineers own this round, by file and name, so the
 * lead can clear them one by one; any other long function fails.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { listSourceFiles } from './imports.js';

const MAX_LINES = 100;

/** `file:function` of each function allowed over the limit for now (not a table, owned elsewhere this round). */
const ALLOWED: ReadonlySet<string> = new Set([
  // Route tables whose helper closures come first, so the table is under two thirds of the function.
  'src/sandbox/rest/routes/channels.ts:channelRoutes',
  'src/sandbox/rest/routes/guilds.ts:guildRoutes',
  'src/sandbox/rest/routes/interactions.ts:interactionRoutes',
  'src/sandbox/rest/routes/permissions.ts:permissionRoutes',
]);

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
  table: boolean;
}

function lineOf(source: ts.SourceFile, pos: number): number {
  return source.getLineAndCharacterOfPosition(pos).line;
}

/** Whether a function is a table: its body ends by returning a literal that is most of the function. */
function isTable(source: ts.SourceFile, fn: ts.FunctionLikeDeclaration, lines: number): boolean {
  const body = fn.body;
  if (body === undefined) return false;
  let literal: ts.Expression | undefined;
  if (ts.isBlock(body)) {
    const last = body.statements[body.statements.length - 1];
    if (last !== undefined && ts.isReturnStatement(last)) literal = last.expression;
  } else {
    literal = body;
  }
  while (literal !== undefined && ts.isParenthesizedExpression(literal)) literal = literal.expression;
  if (literal === undefined || !(ts.isArrayLiteralExpression(literal) || ts.isObjectLiteralExpression(literal))) return false;
  const literalLines = lineOf(source, literal.end) - lineOf(source, literal.getStart(source)) + 1;
  return literalLines * 3 >= lines * 2;
}

function nameOf(fn: ts.FunctionLikeDeclaration): string {
  if (fn.name !== undefined) return fn.name.getText();
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** Every function of `file` longer than `max` lines. */
export function longFunctions(root: string, file: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const lines = lineOf(source, fn.end) - lineOf(source, fn.getStart(source)) + 1;
      if (lines > max) {
        const rel = relative(root, file).split('\\').join('/');
        out.push({ file: rel, name: nameOf(fn), line: lineOf(source, fn.getStart(source)) + 1, lines, table: isTable(source, fn, lines) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const all = listSourceFiles(`${ROOT}/src`).flatMap((file) => longFunctions(ROOT, file));

describe('function length in src/', () => {
  it('no function is over 100 lines, except tables and the functions allowed for now', () => {
    const bad = all.filter((f) => !f.table && !ALLOWED.has(`${f.file}:${f.name}`)).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(bad, `functions over ${MAX_LINES} lines (split them by what their parts do):\n${bad.join('\n')}`).toEqual([]);
  });

  it('runtime.ts stays a composition root a newcomer reads in minutes (under 400 lines)', () => {
    const lines = readFileSync(`${ROOT}/src/runtime/runtime.ts`, 'utf8').split('\n').length;
    expect(lines).toBeLessThan(400);
  });
});

describe('the check itself', () => {
  const sample = (code: string): LongFunction[] => {
    const file = `${ROOT}/test/architecture/.sample-${process.pid}.ts`;
    writeFileSync(file, code);
    try {
      return longFunctions(ROOT, file, 5);
    } finally {
      rmSync(file);
    }
  };

  it('finds a long function, names it, and tells a table from code', () => {
    const code = [
      'export function long(): number {',
      '  let n = 0;',
      ...Array.from({ length: 6 }, () => '  n++;'),
      '  return n;',
      '}',
      'export const routes = (): unknown[] => {',
      '  const base = "/x";',
      '  return [',
      ...Array.from({ length: 6 }, (_, i) => `    { path: base + "/${i}" },`),
      '  ];',
      '};',
    ].join('\n');
    expect(sample(code).map((f) => [f.name, f.table])).toEqual([
      ['long', false],
      ['routes', true],
    ]);
  });
});
