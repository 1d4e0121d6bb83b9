/**
 * Checks that a module's default export has the plugin shape (design.md contract 4), naming the field of
 * every problem. The API rules of the command definitions are checked later, by the commands model, with
 * every plugin's definitions together (so cross-plugin problems such as duplicate names show up too).
 */
import type { PluginDefinition, PluginEventName } from './types.js';

export const PLUGIN_EVENTS: readonly PluginEventName[] = [
  'ready',
  'guildCreate',
  'guildDelete',
  'guildMemberAdd',
  'guildMemberUpdate',
  'guildMemberRemove',
  'entitlementCreate',
  'entitlementUpdate',
  'entitlementDelete',
  'commandPermissionsUpdate',
  'raw',
  'applicationAuthorized',
  'applicationDeauthorized',
  'webhookEvent',
];

const TOP_LEVEL_KEYS = new Set(['name', 'commands', 'on', 'setup', 'teardown']);
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export interface ShapeProblem {
  /** Field path inside the plugin object, e.g. `on.guildMemberAd` or `commands[2]`. */
  path: string;
  message: string;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** Levenshtein distance, for "did you mean" on misspelt keys; inputs are short. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

function suggestion(key: string, known: Iterable<string>): string {
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best === null ? '' : `; did you mean "${best}"?`;
}

/** Problems of a module's default export; an empty list means it is a PluginDefinition. */
export function checkPluginShape(value: unknown): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: '(default export)', message: `must be a plugin object (definePlugin({...})), not ${kindOf(value)}` }];
  }
  const plugin = value as Record<string, unknown>;
  for (const key of Object.keys(plugin)) {
    if (!TOP_LEVEL_KEYS.has(key)) {
      problems.push({ path: key, message: `unknown key${suggestion(key, TOP_LEVEL_KEYS)}` });
    }
  }
  if (typeof plugin.name !== 'string') {
    problems.push({ path: 'name', message: `is required and must be a string, not ${kindOf(plugin.name)}` });
  } else if (!NAME.test(plugin.name)) {
    problems.push({
      path: 'name',
      message: 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
    });
  }
  if (plugin.commands !== undefined) {
    if (!Array.isArray(plugin.commands)) {
      problems.push({ path: 'commands', message: `must be an array of command definitions, not ${kindOf(plugin.commands)}` });
    } else {
      plugin.commands.forEach((c: unknown, i) => {
        if (typeof c !== 'object' || c === null || Array.isArray(c)) {
          problems.push({ path: `commands[${i}]`, message: `must be a command definition object, not ${kindOf(c)}` });
        }
      });
    }
  }
  if (plugin.on !== undefined) {
    if (typeof plugin.on !== 'object' || plugin.on === null || Array.isArray(plugin.on)) {
      problems.push({ path: 'on', message: `must be an object of event handlers, not ${kindOf(plugin.on)}` });
    } else {
      for (const [event, handler] of Object.entries(plugin.on)) {
        if (!(PLUGIN_EVENTS as readonly string[]).includes(event)) {
          problems.push({
            path: `on.${event}`,
            message: `unknown event${suggestion(event, PLUGIN_EVENTS)} (events: ${PLUGIN_EVENTS.join(', ')})`,
          });
        } else if (typeof handler !== 'function') {
          problems.push({ path: `on.${event}`, message: `must be a function, not ${kindOf(handler)}` });
        }
      }
    }
  }
  for (const hook of ['setup', 'teardown'] as const) {
    if (plugin[hook] !== undefined && typeof plugin[hook] !== 'function') {
      problems.push({ path: hook, message: `must be a function, not ${kindOf(plugin[hook])}` });
    }
  }
  return problems;
}

export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return checkPluginShape(value).length === 0;
}
