/**
 * Importing a new version of a plugin in a running process (`npm run dev`). ES modules cannot be unloaded,
 * so a new version is a new URL: `plugin.ts?gh-version=<hash of its files>`. A resolve hook gives the same
 * query to the relative imports made from it inside the plugin directories, so an edited helper is loaded
 * again too; bare imports (`gatehouse`, `zod`) stay shared.
 *
 * Memory: each distinct version stays in the module cache for the life of the process. The version is the
 * content hash, so saving a file unchanged, or changing it back, reuses a module already loaded; what grows
 * is one copy per distinct edit of the plugin that changed (`versionsLoaded` counts them).
 */
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const QUERY = 'gh-version';

/** The resolve hook, as a data: URL module (it runs on the loader thread, whatever loader runs the sources). */
const HOOKS = `
let dirs = [];
export async function initialize(data) { dirs = data.dirs; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const parent = context.parentURL;
  if (!parent || !(specifier.startsWith('./') || specifier.startsWith('../')) || !result.url.startsWith('file:')) return result;
  const version = new URL(parent).searchParams.get('${QUERY}');
  if (version === null || !dirs.some((d) => result.url.startsWith(d))) return result;
  const url = new URL(result.url);
  url.searchParams.set('${QUERY}', version);
  return { ...result, url: url.href };
}
`;

let registered = false;
const versions = new Set<string>();

/** Install the resolve hook once, for these plugin directories (absolute paths). */
export function enableFreshImports(dirs: readonly string[]): void {
  if (registered) return;
  registered = true;
  const urls = dirs.map((d) => pathToFileURL(d.endsWith('/') ? d : `${d}/`).href);
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { dirs: urls } });
}

/** The URL to import a plugin file at a version (null: the plain URL, as at startup). */
export function versionedUrl(file: string, version: string | null): string {
  const url = pathToFileURL(file);
  if (version === null) return url.href;
  url.searchParams.set(QUERY, version);
  versions.add(`${file}\u0000${version}`);
  return url.href;
}

/** Distinct plugin versions imported so far (each stays in memory). */
export function versionsLoaded(): number {
  return versions.size;
}
