/**
 * Type-checking plugin sources with the TypeScript compiler API, under the project's own compiler settings
 * (tsconfig.json when there is one), reporting only diagnostics in the plugin files themselves. TypeScript is
 * the bot's development dependency (an optional peer of gatehouse): where it is not installed (a production
 * image) the check says so and skips; where it is outside the supported range, one line says which range.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import type { PluginSource } from '../plugins/loader.js';

export interface TypeProblem {
  /** Path as shown (relative to the working directory). */
  file: string;
  line: number;
  column: number;
  code: number;
  message: string;
}

export type TypeCheckResult =
  | { status: 'checked'; files: number; problems: TypeProblem[] }
  | { status: 'skipped'; reason: string }
  | { status: 'unsupported'; line: string };

/**
 * TypeScript versions whose compiler API this check uses (package.json's peerDependencies says the same; a test
 * holds them equal). TypeScript 7 is the native compiler: its package exports a version and no compiler API.
 */
export const SUPPORTED_TYPESCRIPT = '>=5.0.0 <7';
const SUPPORTED_MAJORS = { min: 5, below: 7 };

type TS = typeof import('typescript');

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** The TypeScript files of the plugins: single files, and every TS file inside folder plugins. */
function pluginFiles(sources: readonly PluginSource[]): string[] {
  const out = new Set<string>();
  for (const s of sources) {
    if (!TS_EXTENSIONS.has(extname(s.file))) continue;
    const dir = resolve(s.file, '..');
    const isFolder = /[/\\]index\.[cm]?tsx?$/.test(s.file);
    if (!isFolder) {
      out.add(s.file);
      continue;
    }
    const walk = (d: string, depth: number): void => {
      if (depth > 8) return;
      for (const name of readdirSync(d)) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        const full = join(d, name);
        if (statSync(full).isDirectory()) walk(full, depth + 1);
        else if (TS_EXTENSIONS.has(extname(name)) && !name.endsWith('.d.ts')) out.add(full);
      }
    };
    walk(dir, 0);
  }
  return [...out];
}

async function loadTypeScript(): Promise<TS | null> {
  try {
    const mod = (await import('typescript')) as TS & { default?: TS };
    return mod.default ?? mod;
  } catch {
    return null;
  }
}

/** Why this TypeScript cannot be used (one line naming the supported range), or null when it can. */
export function unsupportedTypeScript(ts: { version?: unknown; createProgram?: unknown; ScriptTarget?: unknown }): string | null {
  const version = typeof ts.version === 'string' ? ts.version : 'of an unknown version';
  const major = Number(/^(\d+)\./.exec(version)?.[1] ?? NaN);
  const inRange = major >= SUPPORTED_MAJORS.min && major < SUPPORTED_MAJORS.below;
  if (inRange && typeof ts.createProgram === 'function' && ts.ScriptTarget !== undefined) return null;
  return (
    `typescript ${version} is installed; gatehouse check type-checks with typescript ${SUPPORTED_TYPESCRIPT}: ` +
    `npm install --save-dev "typescript@${SUPPORTED_TYPESCRIPT}" (or run gatehouse check --no-typecheck)`
  );
}

/** Compiler options: the project's tsconfig.json, or strict NodeNext defaults. Never emits. */
function compilerOptions(ts: TS, cwd: string): import('typescript').CompilerOptions {
  const path = join(cwd, 'tsconfig.json');
  if (existsSync(path)) {
    const read = ts.readConfigFile(path, (p) => ts.sys.readFile(p));
    if (read.error === undefined) {
      const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, cwd);
      return { ...parsed.options, noEmit: true };
    }
  }
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  };
}

export async function typeCheckPlugins(sources: readonly PluginSource[], cwd: string = process.cwd()): Promise<TypeCheckResult> {
  const files = pluginFiles(sources);
  if (files.length === 0) return { status: 'checked', files: 0, problems: [] };
  const ts = await loadTypeScript();
  if (ts === null) return { status: 'skipped', reason: `typescript is not installed (npm install --save-dev "typescript@${SUPPORTED_TYPESCRIPT}")` };
  const unsupported = unsupportedTypeScript(ts);
  if (unsupported !== null) return { status: 'unsupported', line: unsupported };
  const program = ts.createProgram(files, compilerOptions(ts, cwd));
  const wanted = new Set(files.map((f) => resolve(f)));
  const problems: TypeProblem[] = [];
  const diagnostics = [...program.getOptionsDiagnostics(), ...files.flatMap((f) => {
    const source = program.getSourceFile(f);
    return source === undefined ? [] : [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  })];
  for (const d of diagnostics) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    if (d.file === undefined) {
      problems.push({ file: '(compiler options)', line: 0, column: 0, code: d.code, message });
      continue;
    }
    if (!wanted.has(resolve(d.file.fileName))) continue;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    const rel = relative(cwd, d.file.fileName);
    problems.push({ file: rel.startsWith('..') ? d.file.fileName : rel, line: line + 1, column: character + 1, code: d.code, message });
  }
  return { status: 'checked', files: files.length, problems };
}
