/**
 * Prototype pollution checks: the own keys of the built-in prototypes and constructors a polluting write would
 * land on (`o.__proto__.x = ...` reaches Object.prototype, `o.constructor.x = ...` reaches Object).
 */

const WATCHED = {
  'Object.prototype': Object.prototype,
  Object,
  'Function.prototype': Function.prototype,
  'Array.prototype': Array.prototype,
  'String.prototype': String.prototype,
} as const;

export type PrototypeSnapshot = Record<keyof typeof WATCHED, string[]>;

/** Every own key (names and symbols) of the watched objects, sorted. */
export function prototypeSnapshot(): PrototypeSnapshot {
  const out = {} as PrototypeSnapshot;
  for (const [name, target] of Object.entries(WATCHED) as Array<[keyof typeof WATCHED, object]>) {
    out[name] = Reflect.ownKeys(target).map(String).sort();
  }
  return out;
}

/** Remove keys added since `before` (so that one failing test does not poison the rest of the file). */
export function restorePrototypes(before: PrototypeSnapshot): void {
  for (const [name, target] of Object.entries(WATCHED) as Array<[keyof typeof WATCHED, object]>) {
    const keep = new Set(before[name]);
    for (const key of Reflect.ownKeys(target)) {
      if (!keep.has(String(key))) Reflect.deleteProperty(target, key);
    }
  }
}

/** Keys a hostile body places everywhere it can. */
export const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
