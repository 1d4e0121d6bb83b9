/**
 * Finding and importing plugin modules. A plugin is a file (`.ts`, `.mts`, `.js`, `.mjs`) or a folder with an
 * `index` file of those kinds, directly under a plugin directory. Names starting with `_` or `.`, type
 * declarations and test files are skipped. Order is deterministic: directories in configuration order, entries
 * sorted by name within each.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { versionedUrl } from './fresh-import.js';
import { checkPluginShape } from './shape.js';
import type { PluginDefinition } from './types.js';

const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const TS_EXTENSIONS = new Set(['.ts', '.mts']);

export interface PluginSource {
  /** Path shown in messages: relative to the working directory when inside it. */
  label: string;
  /** Absolute path of the module file to import. */
  file: string;
}

export interface LoadedModule {
  source: PluginSource;
  plugin: PluginDefinition;
}

export class PluginLoadError extends Error {
  constructor(
    readonly source: PluginSource,
    readonly problems: readonly string[],
    /** The error the import threw, when that is why. */
    cause?: unknown,
  ) {
    super(`${source.label}: ${problems.length === 1 ? problems[0] : `\n  ${problems.join('\n  ')}`}`, cause === undefined ? undefined : { cause });
    this.name = 'PluginLoadError';
  }
}

function skipped(name: string): boolean {
  return (
    name.startsWith('_') ||
    name.startsWith('.') ||
    name.endsWith('.d.ts') ||
    name.endsWith('.d.mts') ||
    /\.(test|spec)\.[mc]?[jt]s$/.test(name)
  );
}

function indexFile(dir: string): string | null {
  for (const ext of MODULE_EXTENSIONS) {
    const file = join(dir, `index${ext}`);
    if (existsSync(file)) return file;
  }
  return null;
}

/**
 * Every plugin module under the given directories, in load order. Missing directories are reported, and so
 * are modules passed over because another of the same base name comes first (`x.js` next to `x.ts`).
 */
export function isModuleFile(name: string): boolean {
  return MODULE_EXTENSIONS.includes(extname(name)) && !skipped(name);
}

export function discoverPlugins(
  dirs: readonly string[],
  cwd: string = process.cwd(),
): { sources: PluginSource[]; missing: string[]; shadowed: Array<{ file: string; by: string }> } {
  const sources: PluginSource[] = [];
  const missing: string[] = [];
  const shadowed: Array<{ file: string; by: string }> = [];
  for (const dir of dirs) {
    const abs = resolve(cwd, dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      missing.push(dir);
      continue;
    }
    const entries = readdirSync(abs).filter((n) => !skipped(n)).sort();
    // A compiled plugin sits next to its source map and declaration; prefer one module per base name.
    const seen = new Map<string, string>();
    for (const name of entries) {
      const full = join(abs, name);
      let file: string | null = null;
      if (statSync(full).isDirectory()) file = indexFile(full);
      else if (MODULE_EXTENSIONS.includes(extname(name))) file = full;
      if (file === null) continue;
      const rel = relative(cwd, file);
      const label = rel.startsWith('..') ? file : rel;
      const key = basename(name, extname(name));
      const first = seen.get(key);
      if (first !== undefined) {
        shadowed.push({ file: label, by: first });
        continue;
      }
      seen.set(key, label);
      sources.push({ file, label });
    }
  }
  return { sources, missing, shadowed };
}

let tsLoaderReady: Promise<boolean> | null = null;

/**
 * TypeScript plugins need a loader. Under `npm start` (tsx) and vitest one is active already; a compiled
 * runtime tries to register tsx when it is installed, and otherwise says how to proceed.
 */
async function ensureTypeScriptLoader(): Promise<boolean> {
  tsLoaderReady ??= (async () => {
    if (process.env.VITEST || process.execArgv.some((a) => a.includes('tsx')) || process.env.TSX) return true;
    try {
      const api = (await import('tsx/esm/api')) as { register: () => unknown };
      api.register();
      return true;
    } catch {
      return false;
    }
  })();
  return tsLoaderReady;
}

/**
 * Import one plugin module and check its shape. Throws PluginLoadError naming the file and fields.
 * `version` imports a new version of a module already loaded (see fresh-import.ts).
 */
export async function importPlugin(source: PluginSource, version: string | null = null): Promise<LoadedModule> {
  if (TS_EXTENSIONS.has(extname(source.file)) && !(await ensureTypeScriptLoader())) {
    throw new PluginLoadError(source, [
      'is TypeScript, and no TypeScript loader is available: run with `npm start` (tsx), or compile plugins (`npm run build`) and point plugins.dirs at dist/plugins',
    ]);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(versionedUrl(source.file, version))) as Record<string, unknown>;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new PluginLoadError(source, [`failed to load: ${message}`], err);
  }
  if (!('default' in mod) || mod.default === undefined) {
    throw new PluginLoadError(source, ['has no default export: `export default definePlugin({ ... })`']);
  }
  const problems = checkPluginShape(mod.default);
  if (problems.length > 0) {
    throw new PluginLoadError(
      source,
      problems.map((p) => `${p.path}: ${p.message}`),
    );
  }
  return { source, plugin: mod.default as PluginDefinition };
}
