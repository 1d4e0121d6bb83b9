/**
 * Checks that a module's default export has the plugin shape (docs/plugins.md "Writing a plugin"), naming the field of
 * every problem. The API rules of the command definitions are checked later, by the commands model, with
 * every plugin's definitions together (so cross-plugin problems such as duplicate names show up too).
 */
import { COMPONENT_KINDS } from '../interactions/component-values.js';
import { compileCustomId, CustomIdPatternError } from '../interactions/custom-id.js';
import { suggestion } from '../util/did-you-mean.js';
import { closestEvent, DISPATCH_EVENT_NAMES } from './events.js';
import { commandPreconditionProblems, preconditionProblems, textProblems } from './preconditions/shape.js';
import type { PluginDefinition, PluginEventName } from './types.js';

/** Every plugin event: the gateway dispatches (src/plugins/events.ts), then those of no dispatch. */
export const PLUGIN_EVENTS: readonly PluginEventName[] = [...DISPATCH_EVENT_NAMES, 'raw', 'applicationAuthorized', 'applicationDeauthorized', 'webhookEvent', 'preconditionDenied'];

const TOP_LEVEL_KEYS = new Set(['name', 'commands', 'components', 'modals', 'config', 'on', 'setup', 'teardown', 'preconditions', 'preconditionTexts']);
const COMPONENT_KEYS = new Set(['customId', 'kind', 'run', 'preconditions']);
const MODAL_KEYS = new Set(['customId', 'run', 'deferEphemeral', 'preconditions']);
const KIND_NAMES = Object.keys(COMPONENT_KINDS);
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
        } else problems.push(...commandPreconditionProblems(c, `commands[${i}]`));
      });
    }
  }
  for (const list of ['components', 'modals'] as const) {
    const value = plugin[list];
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      problems.push({ path: list, message: `must be an array of handlers ({ customId, run }), not ${kindOf(value)}` });
      continue;
    }
    value.forEach((h: unknown, i) => problems.push(...handlerProblems(h, `${list}[${i}]`, list === 'components' ? COMPONENT_KEYS : MODAL_KEYS)));
  }
  problems.push(...preconditionProblems(plugin.preconditions, 'preconditions'), ...textProblems(plugin.preconditionTexts, 'preconditionTexts'));
  if (plugin.config !== undefined) {
    const standard = typeof plugin.config === 'object' && plugin.config !== null ? (plugin.config as Record<string, unknown>)['~standard'] : undefined;
    const validate = typeof standard === 'object' && standard !== null ? (standard as Record<string, unknown>).validate : undefined;
    if (typeof validate !== 'function') {
      problems.push({ path: 'config', message: 'must be a schema of the plugin\'s configuration section (a Standard Schema such as z.object({...}) from zod)' });
    }
  }
  if (plugin.on !== undefined) {
    if (typeof plugin.on !== 'object' || plugin.on === null || Array.isArray(plugin.on)) {
      problems.push({ path: 'on', message: `must be an object of event handlers, not ${kindOf(plugin.on)}` });
    } else {
      for (const [event, handler] of Object.entries(plugin.on)) {
        if (!(PLUGIN_EVENTS as readonly string[]).includes(event)) {
          const meant = closestEvent(event, PLUGIN_EVENTS);
          problems.push({
            path: `on.${event}`,
            message:
              meant !== null
                ? `unknown event; did you mean "${meant}"?`
                : 'unknown event (plugin events are the gateway dispatches in camelCase, such as messageCreate or guildMemberAdd, and raw, webhookEvent, applicationAuthorized, applicationDeauthorized; docs/plugins.md "Plugin events" lists them)',
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

/** A component or modal handler: a valid custom_id pattern, a run function, and known kinds. */
function handlerProblems(h: unknown, path: string, keys: ReadonlySet<string>): ShapeProblem[] {
  if (typeof h !== 'object' || h === null || Array.isArray(h)) {
    return [{ path, message: `must be a handler object ({ customId, run }), not ${kindOf(h)}` }];
  }
  const out: ShapeProblem[] = [];
  const handler = h as Record<string, unknown>;
  for (const key of Object.keys(handler)) {
    if (!keys.has(key)) out.push({ path: `${path}.${key}`, message: `unknown key${suggestion(key, keys)}` });
  }
  if (typeof handler.customId !== 'string') {
    out.push({ path: `${path}.customId`, message: `is required: an exact custom_id or a pattern such as "poll:{id}", not ${kindOf(handler.customId)}` });
  } else {
    try {
      compileCustomId(handler.customId);
    } catch (err) {
      if (!(err instanceof CustomIdPatternError)) throw err;
      out.push({ path: `${path}.customId`, message: err.message });
    }
  }
  if (typeof handler.run !== 'function') out.push({ path: `${path}.run`, message: `must be a function, not ${kindOf(handler.run)}` });
  out.push(...preconditionProblems(handler.preconditions, `${path}.preconditions`));
  if (handler.kind !== undefined) {
    const kinds = Array.isArray(handler.kind) ? (handler.kind as unknown[]) : [handler.kind];
    kinds.forEach((k) => {
      if (typeof k !== 'string' || !KIND_NAMES.includes(k)) {
        out.push({ path: `${path}.kind`, message: `${JSON.stringify(k)} is not a component kind${typeof k === 'string' ? suggestion(k, KIND_NAMES) : ''} (kinds: ${KIND_NAMES.join(', ')})` });
      }
    });
  }
  return out;
}

export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return checkPluginShape(value).length === 0;
}
