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

type TsImport = (specifier: string, parentUrl: string) => Promise<unknown>;

let tsLoaderReady: Promise<TsImport | 'active' | null> | null = null;

/**
 * TypeScript plugins need a loader. Under `npm start` in a clone (tsx) and vitest one is active already. An
 * installed copy loads them through tsx's `tsImport` (tsx is a dependency of gatehouse): unlike `register()`,
 * which makes tsx compile a .ts file of a CommonJS package (`npm init -y`) to CommonJS and `require()` it, where
 * Node 20 refuses it (`Cannot require() ES Module ... in a cycle`), `tsImport` loads the plugin in both ESM and
 * CommonJS bot packages.
 */
async function typeScriptLoader(): Promise<TsImport | 'active' | null> {
  tsLoaderReady ??= (async () => {
    if (process.env.VITEST || process.execArgv.some((a) => a.includes('tsx')) || process.env.TSX) return 'active';
    try {
      const api = (await import('tsx/esm/api')) as { tsImport: TsImport };
      return api.tsImport;
    } catch {
      return null;
    }
  })();
  return tsLoaderReady;
}

/** A CommonJS plugin module seen from ESM: its default export is `module.exports`, holding `default`. */
function unwrapCommonJs(mod: Record<string, unknown>): Record<string, unknown> {
  const d = mod.default as { __esModule?: unknown; default?: unknown } | null | undefined;
  return typeof d === 'object' && d !== null && d.__esModule === true && 'default' in d ? { default: d.default } : mod;
}

/**
 * Import one plugin module and check its shape. Throws PluginLoadError naming the file and fields.
 * `version` imports a new version of a module already loaded (see fresh-import.ts).
 */
export async function importPlugin(source: PluginSource, version: string | null = null): Promise<LoadedModule> {
  const loader = TS_EXTENSIONS.has(extname(source.file)) ? await typeScriptLoader() : 'active';
  if (loader === null) {
    throw new PluginLoadError(source, [
      'is TypeScript, and no TypeScript loader is available: install tsx next to gatehouse (`npm install tsx`), or compile the plugins to JavaScript and point plugins.dirs at the output',
    ]);
  }
  let mod: Record<string, unknown>;
  try {
    const url = versionedUrl(source.file, version);
    mod = unwrapCommonJs((loader === 'active' ? await import(url) : await loader(url, import.meta.url)) as Record<string, unknown>);
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
