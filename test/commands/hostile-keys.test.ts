/**
 * The commands model takes keys from outside (locale maps of bodies the sandbox validates, of commands the
 * service sends back, of definitions read from JSON): `__proto__`, `constructor` and `prototype` are keys there
 * like any other, never a way into a prototype.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  addTreeError,
  diffCommand,
  emptyErrorTree,
  normalizeCommand,
  problemsToErrorTree,
  stripRuntimeFields,
  validateCommand,
  validateDefinitions,
} from '../../src/commands/index.js';
import { HOSTILE_KEYS, prototypeSnapshot, restorePrototypes } from '../helpers/prototypes.js';

const before = prototypeSnapshot();
afterEach(() => restorePrototypes(before));

/** JSON text, since an object literal's `__proto__` sets the prototype instead of making a key. */
function parse(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

describe('error trees', () => {
  it('a problem under a locale key __proto__ or constructor lands in the tree under that key', () => {
    const def = parse('{"name":"x","description":"d","name_localizations":{"__proto__":"a","constructor":"b","prototype":"c","de":"ok"}}');
    const tree = problemsToErrorTree(validateCommand(def, { scope: 'global' }));
    const locs = tree.name_localizations as Record<string, { _errors: Array<{ code: string }> }>;
    expect(Object.keys(locs).sort()).toEqual([...HOSTILE_KEYS].sort());
    for (const key of HOSTILE_KEYS) expect(locs[key]!._errors[0]!.code).toBe('ENUM_TYPE_COERCE');
    expect(prototypeSnapshot()).toEqual(before);
    expect(Object.getPrototypeOf(locs)).toBeNull();
    // The tree serializes with those keys as any other.
    const wire = JSON.parse(JSON.stringify(tree)) as { name_localizations: Record<string, unknown> };
    expect(Object.hasOwn(wire.name_localizations, '__proto__')).toBe(true);
  });

  it('later trees keep their leaves: a polluting path in one request does not empty the next answer', () => {
    const first = emptyErrorTree();
    addTreeError(first, ['name_localizations', '__proto__'], { code: 'A', message: 'a' });
    addTreeError(first, ['name_localizations', 'constructor', 'prototype'], { code: 'B', message: 'b' });
    const second = emptyErrorTree();
    addTreeError(second, ['name'], { code: 'C', message: 'c' });
    expect(JSON.parse(JSON.stringify(second))).toEqual({ name: { _errors: [{ code: 'C', message: 'c' }] } });
    expect(prototypeSnapshot()).toEqual(before);
  });

  it('a path segment named _errors adds to the leaf list of its node instead of replacing it', () => {
    const tree = emptyErrorTree();
    addTreeError(tree, ['name_localizations'], { code: 'A', message: 'a' });
    addTreeError(tree, ['name_localizations', '_errors'], { code: 'B', message: 'b' });
    expect(JSON.parse(JSON.stringify(tree))).toEqual({ name_localizations: { _errors: [{ code: 'A', message: 'a' }, { code: 'B', message: 'b' }] } });
  });
});

describe('normalize and diff', () => {
  it('normalized localizations keep a __proto__ key as a key', () => {
    const n = normalizeCommand(parse('{"name":"x","description":"d","name_localizations":{"__proto__":"p","de":"x"}}'), 'global');
    expect(Object.keys(n.name_localizations!)).toEqual(['__proto__', 'de']);
    expect(n.name_localizations!['__proto__']).toBe('p');
  });

  it('a registered localization the definition lacks is a change, also under constructor or __proto__', () => {
    const local = { name: 'x', description: 'd', name_localizations: { de: 'x' } };
    for (const key of HOSTILE_KEYS) {
      const registered = parse(`{"name":"x","description":"d","name_localizations":{"de":"x","${key}":"y"}}`);
      const diff = diffCommand(local, registered, 'global');
      expect(diff.equal, key).toBe(false);
      expect(diff.changes.map((c) => c.path)).toEqual([`name_localizations.${key}`]);
    }
  });
});

describe('definitions read from JSON', () => {
  it('a __proto__ key never lends the payload fields: validation sees what the definition itself has', () => {
    const def = parse('{"name":"x","__proto__":{"description":"from the prototype"}}');
    const payload = stripRuntimeFields(def) as Record<string, unknown>;
    expect(payload.description).toBeUndefined();
    expect(Object.hasOwn(payload, '__proto__')).toBe(true);
    const problems = validateDefinitions([def]);
    expect(problems.map((p) => `${p.path} ${p.code}`)).toContain('[0].description BASE_TYPE_REQUIRED');
  });
});
