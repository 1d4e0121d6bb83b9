/**
 * The plugins a test names: plugin objects, plugin modules (a file, or a folder with an index file) and plugin
 * directories (every plugin in them, as `plugins.dirs` loads them).
 */
import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { importPlugin, isModuleFile, PluginLoadError, type PluginSource } from '../plugins/loader.js';
import { checkPluginShape } from '../plugins/shape.js';
import type { PluginDefinition } from '../plugins/types.js';

/** A plugin object (what `definePlugin` returns), or the path of a plugin module or of a plugin directory. */
export type PluginInput = PluginDefinition | string;

export interface ResolvedPlugins {
  /** Plugin directories, for `plugins.dirs`. */
  dirs: string[];
  /** Plugins to add one by one, in the order given. */
  modules: Array<{ plugin: PluginDefinition; source: PluginSource } | { source: PluginSource }>;
}

const INDEX_FILES = ['index.ts', 'index.mts', 'index.js', 'index.mjs'];

export function resolvePlugins(inputs: readonly PluginInput[], cwd: string): ResolvedPlugins {
  const dirs: string[] = [];
  const modules: ResolvedPlugins['modules'] = [];
  inputs.forEach((input, i) => {
    if (typeof input !== 'string') {
      if (input === null || typeof input !== 'object') {
        throw new TypeError(`plugins[${i}]: expected a plugin object (definePlugin) or a path; got ${input === null ? 'null' : typeof input}`);
      }
      const name = typeof input.name === 'string' ? input.name : `#${i}`;
      modules.push({ plugin: input, source: { file: join(cwd, `<plugin object ${name}>`), label: `plugin object "${name}" (plugins[${i}] of the test)` } });
      return;
    }
    const file = resolve(cwd, input);
    if (!existsSync(file)) throw new Error(`plugins[${i}]: ${input} does not exist (resolved against ${cwd})`);
    const rel = relative(cwd, file);
    const label = rel.startsWith('..') || rel === '' ? file : rel;
    if (statSync(file).isDirectory()) {
      const index = INDEX_FILES.map((n) => join(file, n)).find((f) => existsSync(f));
      if (index !== undefined) modules.push({ source: { file: index, label } });
      else dirs.push(file);
      return;
    }
    if (!isModuleFile(input)) throw new Error(`plugins[${i}]: ${input} is not a plugin module (.ts, .mts, .js or .mjs)`);
    modules.push({ source: { file, label } });
  });
  return { dirs, modules };
}

/** Import a module given by path (checked like a plugin under plugins/); objects are returned as they are. */
export async function pluginOf(entry: ResolvedPlugins['modules'][number]): Promise<{ plugin: PluginDefinition; source: PluginSource }> {
  if (!('plugin' in entry)) return importPlugin(entry.source);
  const problems = checkPluginShape(entry.plugin);
  if (problems.length > 0) throw new PluginLoadError(entry.source, problems.map((p) => `${p.path}: ${p.message}`));
  return entry;
}
