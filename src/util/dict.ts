/**
 * Objects keyed by text that came from outside (payloads, bodies, option names, locales, config sections).
 *
 * A plain `{}` inherits from Object.prototype: writing `o["__proto__"] = v` replaces its prototype instead of
 * storing a value, and reading `o["constructor"]` or `o["toString"]` finds a function nobody sent. A dictionary
 * made here has no prototype, so every key, those included, is an ordinary own key. It still serializes as
 * JSON like any object, which is why it is used instead of a Map where the value goes on the wire or to users.
 */

/** An empty object without a prototype. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A prototype-free copy of an object's own enumerable string keys (shallow). */
export function dictFrom<T>(source: Readonly<Record<string, T>>): Record<string, T> {
  const out = dict<T>();
  for (const key of Object.keys(source)) out[key] = source[key]!;
  return out;
}

/** The value stored under `key` in `source` itself, never one inherited from a prototype. */
export function own<T>(source: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return source !== null && source !== undefined && Object.hasOwn(source, key) ? source[key] : undefined;
}

/**
 * A deep, prototype-free copy of JSON-like data: objects become dictionaries, arrays stay arrays, anything else is
 * kept as it is. Depth is bounded (deeper levels are kept by reference) so that hostile nesting cannot exhaust
 * the stack.
 */
export function deepDict(value: unknown, depth = 0): unknown {
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => deepDict(v, depth + 1));
  const out = dict<unknown>();
  for (const key of Object.keys(value)) out[key] = deepDict((value as Record<string, unknown>)[key], depth + 1);
  return out;
}
