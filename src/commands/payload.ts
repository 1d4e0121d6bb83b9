/**
 * From a plugin's definition to what is sent: the same JSON without the runtime-only fields.
 */
import { dict } from '../util/dict.js';
import { RUNTIME_FIELDS, type CommandDefinition, type CommandPayload } from './types.js';
import { isObject } from '../util/is-object.js';

/**
 * Copies a command without `run`, `autocomplete` and `guilds`, recursing into `options`, where subcommands
 * carry their own handlers. In options only `run`, and `autocomplete` on subcommands or when it is a
 * function, are stripped: on value options `autocomplete: true` is the API's own field. Anything else is copied as it is; untrusted input is
 * returned as-is when it is not an object, so validation still sees it.
 */
export function stripRuntimeFields(value: unknown, depth = 0): unknown {
  // Valid commands nest options 3 deep; a deeper (or cyclic) structure is cut off here and fails validation.
  if (!isObject(value) || depth > 4) return value;
  // Keys are copied as found (a definition may come from JSON): a `__proto__` key must stay a key, not become
  // the copy's prototype and lend it fields that validation would then read as the command's own.
  const out = dict<unknown>();
  for (const key of Object.keys(value)) {
    const v = value[key];
    const handlerField =
      depth === 0
        ? RUNTIME_FIELDS.has(key)
        : key === 'run' || (key === 'autocomplete' && (typeof v === 'function' || value.type === 1)) || (key === 'preconditions' && (value.type === 1 || value.type === 2));
    if (handlerField) {
      continue;
    }
    out[key] = key === 'options' && Array.isArray(v) ? v.map((o: unknown) => stripRuntimeFields(o, depth + 1)) : v;
  }
  return out;
}

/** The payload of a definition: the definition itself, minus handlers and `guilds`. */
export function toPayload<R, A>(def: CommandDefinition<R, A>): CommandPayload {
  return stripRuntimeFields(def) as CommandPayload;
}
