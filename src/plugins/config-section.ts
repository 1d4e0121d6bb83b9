/**
 * A plugin's configuration section: `plugins.config.<name>` from the config files, with environment values
 * applied (so a container sets it without a file), then checked by the plugin's schema when it has one.
 *
 * Environment scheme: `GATEHOUSE_PLUGIN__<PLUGIN>__<KEY>[__<KEY>...]=value`. Names are matched without regard
 * to case or separators: `GATEHOUSE_PLUGIN__WORD_COUNT__MAX_WORDS` sets `plugins.config["word-count"].maxWords`
 * (the key is matched against the schema's keys and the section's, else SNAKE_CASE becomes camelCase).
 * A value is JSON when it parses as JSON (numbers, true/false, null, arrays, objects), except numbers too long
 * to be exact (snowflakes stay strings); anything else is a string. When the schema rejects a number or a
 * boolean that came from the environment, the text is tried as a string.
 */
import { deepDict, dict } from '../util/dict.js';
import type { PluginConfigBag, PluginConfigResult, PluginConfigSchema } from './types.js';

/** One environment variable of the scheme, split into its parts (upper snake case, as written). */
export interface PluginEnvSetting {
  readonly variable: string;
  readonly plugin: string;
  readonly path: readonly string[];
  readonly value: string;
}

export const PLUGIN_ENV_PREFIX = 'GATEHOUSE_PLUGIN__';

/** The variables of the scheme in an environment (malformed names are returned as problems). */
export function pluginEnvSettings(env: NodeJS.ProcessEnv): { settings: PluginEnvSetting[]; problems: string[] } {
  const settings: PluginEnvSetting[] = [];
  const problems: string[] = [];
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(PLUGIN_ENV_PREFIX) || value === undefined) continue;
    const parts = variable.slice(PLUGIN_ENV_PREFIX.length).split('__');
    if (parts.length < 2 || parts.some((p) => p.length === 0)) {
      problems.push(`${variable}: expected ${PLUGIN_ENV_PREFIX}<PLUGIN>__<KEY> (double underscores between plugin and key)`);
      continue;
    }
    const [plugin, ...path] = parts as [string, ...string[]];
    settings.push({ variable, plugin, path, value });
  }
  return { settings, problems };
}

/** `word-count` and `wordCount` both become `WORD_COUNT`: the form environment names use. */
export function envName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

function camel(snake: string): string {
  return snake.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The value an environment variable stands for (see the scheme above). */
export function parseEnvValue(raw: string): unknown {
  const text = raw.trim();
  if (text === '') return raw;
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === 'number' && (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v)) || text.replace(/[-+.eE]/g, '').length > 15)) return raw;
    return v;
  } catch {
    return raw;
  }
}

type Plain = Record<string, unknown>;

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Keys a zod object schema declares (duck-typed; other schema libraries give none, which is fine). */
function schemaKeys(schema: unknown, path: readonly string[]): string[] {
  let node: unknown = schema;
  for (const key of path) {
    const shape = isPlain(node) && isPlain((node as { shape?: unknown }).shape) ? ((node as { shape: Plain }).shape) : null;
    if (shape === null || !Object.prototype.hasOwnProperty.call(shape, key)) return [];
    node = unwrap(shape[key]);
  }
  node = unwrap(node);
  const shape = isPlain(node) ? (node as { shape?: unknown }).shape : undefined;
  return isPlain(shape) ? Object.keys(shape) : [];
}

/**
 * Keys of the section a zod object schema does not declare, at every level it declares objects. zod strips
 * them silently, so a misspelt key (`maxDrink` for `maxDrinks`) would leave the default in force without a
 * word. Objects that accept extra keys (`z.looseObject`, a catchall) and strict ones (zod reports those
 * itself) are left alone, as are schemas of other libraries (no shape to compare with).
 */
function unknownKeys(schema: unknown, values: unknown, path: readonly string[]): string[][] {
  const node = objectSchemaAt(schema, path);
  if (node === null || !isPlain(values)) return [];
  const shape = (node as { shape: Plain }).shape;
  const out: string[][] = [];
  for (const key of Object.keys(values)) {
    if (!Object.prototype.hasOwnProperty.call(shape, key)) out.push([...path, key]);
    else out.push(...unknownKeys(schema, values[key], [...path, key]));
  }
  return out;
}

/** The zod object schema at a path, when it is one that drops unknown keys; else null. */
function objectSchemaAt(schema: unknown, path: readonly string[]): Plain | null {
  let node: unknown = unwrap(schema);
  for (const key of path) {
    const shape = isPlain(node) ? (node as { shape?: unknown }).shape : undefined;
    if (!isPlain(shape) || !Object.prototype.hasOwnProperty.call(shape, key)) return null;
    node = unwrap(shape[key]);
  }
  if (!isPlain(node) || !isPlain((node as { shape?: unknown }).shape)) return null;
  const def = (node as { def?: { type?: unknown; catchall?: unknown } }).def;
  if (def?.type !== 'object' || def.catchall !== undefined) return null;
  return node;
}

/** Optional/default wrappers around an object schema (zod's `unwrap()` / `removeDefault()`). */
function unwrap(node: unknown): unknown {
  let current = node;
  for (let i = 0; i < 4 && isPlain(current); i++) {
    const def = (current as { def?: { innerType?: unknown } }).def;
    if (def?.innerType === undefined) break;
    current = def.innerType;
  }
  return current;
}

export interface ResolvedSection {
  config: PluginConfigBag;
  /** Where each dotted key came from (for messages). */
  origins: Map<string, string>;
  /** What keeps the plugin from loading. */
  problems: string[];
  /** What is wrong but leaves the plugin running (a section that is not an object: it gets none). */
  notes: string[];
}

/**
 * The plugin's section with its environment settings applied, validated by its schema. Problems name the
 * plugin and the key, and where the value came from.
 */
export function resolveSection(
  plugin: string,
  section: unknown,
  settings: readonly PluginEnvSetting[],
  schema: PluginConfigSchema<unknown> | undefined,
): ResolvedSection {
  const base = `plugins.config.${plugin}`;
  const problems: string[] = [];
  const notes: string[] = [];
  const origins = new Map<string, string>();
  // Keys of a section without a schema come from config files and the environment: a prototype-free copy.
  let values: Plain = dict();
  if (section !== undefined) {
    if (isPlain(section)) values = deepDict(section) as Plain;
    else notes.push(`${base} must be an object of settings, not ${section === null ? 'null' : Array.isArray(section) ? 'an array' : typeof section}; the plugin gets none`);
  }
  const fromEnv: Array<{ path: string[]; raw: string }> = [];
  for (const s of settings) {
    // Match each segment against the keys at its level: the section's own, then the schema's.
    const keys: string[] = [];
    let level: unknown = values;
    for (const segment of s.path) {
      const known = new Set([...(isPlain(level) ? Object.keys(level) : []), ...schemaKeys(schema, keys)]);
      const key = [...known].find((k) => envName(k) === segment) ?? camel(segment);
      keys.push(key);
      level = isPlain(level) && Object.prototype.hasOwnProperty.call(level, key) ? level[key] : undefined;
    }
    // Names from the environment become object keys: never the ones that reach a prototype.
    if (keys.some((k) => UNSAFE_KEYS.has(k))) {
      problems.push(`${s.variable}: ${keys.join('.')} cannot be set`);
      continue;
    }
    setAt(values, keys, parseEnvValue(s.value));
    origins.set(keys.join('.'), `environment variable ${s.variable}`);
    fromEnv.push({ path: keys, raw: s.value });
  }
  if (problems.length > 0 || schema === undefined) return { config: Object.freeze(values), origins, problems, notes };

  for (const path of unknownKeys(schema, values, [])) {
    const dotted = path.join('.');
    const from = origins.get(dotted);
    const known = schemaKeys(schema, path.slice(0, -1));
    problems.push(`${base}.${dotted}${from !== undefined ? ` (from ${from})` : ''}: unknown key; plugin "${plugin}" has ${known.length === 0 ? 'no keys there' : known.map((k) => `"${k}"`).join(', ')}`);
  }
  if (problems.length > 0) return { config: dict(), origins, problems, notes };

  let result = validate(schema, values);
  if (result === 'async') {
    return { config: dict(), origins, problems: [`${base}: the plugin's config schema validates asynchronously; use a synchronous schema`], notes };
  }
  if (result.issues !== undefined) {
    // A number or boolean the environment produced may have been meant as text: try those as strings. The
    // retry stands only when it passes; otherwise the first issues are the ones that say what is wrong
    // (`Too big: expected number to be <=10`, not the string's `expected number, received string`).
    const failing = new Set(result.issues.map((i) => pathOf(i.path).join('.')));
    const retry = deepDict(values) as Plain;
    let retried = false;
    for (const e of fromEnv) {
      if (!failing.has(e.path.join('.'))) continue;
      setAt(retry, e.path, e.raw);
      retried = true;
    }
    const again = retried ? validate(schema, retry) : 'async';
    if (again !== 'async' && again.issues === undefined) result = again;
  }
  if (result.issues !== undefined) {
    for (const issue of result.issues) {
      const path = pathOf(issue.path);
      const dotted = path.join('.');
      const from = origins.get(dotted);
      problems.push(`${base}${dotted === '' ? '' : `.${dotted}`}${from !== undefined ? ` (from ${from})` : ''}: ${issue.message}`);
    }
    return { config: dict(), origins, problems, notes };
  }
  const output = result.value;
  return { config: (isPlain(output) ? output : { value: output }) as PluginConfigBag, origins, problems, notes };
}

function validate(schema: PluginConfigSchema<unknown>, value: unknown): PluginConfigResult<unknown> | 'async' {
  const r = schema['~standard'].validate(value);
  return r instanceof Promise ? 'async' : r;
}

function pathOf(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string[] {
  return (path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p));
}

function setAt(root: Plain, path: readonly string[], value: unknown): void {
  let node = root;
  path.forEach((key, i) => {
    if (i === path.length - 1) node[key] = value;
    else node = isPlain(node[key]) ? (node[key] as Plain) : (node[key] = dict());
  });
}
