/**
 * INTERACTION_CREATE payloads as the gateway delivers them (parsed JSON, so `__proto__` is an own key): option
 * names and resolved ids that are prototype keys behave like any other, and values of the wrong type never
 * reach `ctx.options`; `interactionProblem` names the first field that is not what the protocol says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { APIApplicationCommandInteractionDataOption, APIInteractionDataResolved } from 'discord-api-types/v10';
import { parseOptions } from '../../src/interactions/options.js';
import { interactionProblem } from '../../src/interactions/shape.js';
import { HOSTILE_KEYS, prototypeSnapshot, restorePrototypes } from '../helpers/prototypes.js';

const before = prototypeSnapshot();
afterEach(() => restorePrototypes(before));

function options(json: string): APIApplicationCommandInteractionDataOption[] {
  return JSON.parse(json) as APIApplicationCommandInteractionDataOption[];
}

describe('ctx.options', () => {
  it('an option named __proto__, constructor or prototype carries its string value', () => {
    const parsed = parseOptions(options(JSON.stringify(HOSTILE_KEYS.map((name) => ({ type: 3, name, value: `v-${name}` })))), undefined);
    for (const key of HOSTILE_KEYS) expect(parsed.options[key], key).toBe(`v-${key}`);
    expect(Object.keys(parsed.options)).toEqual([...HOSTILE_KEYS]);
  });

  it('an object value for a STRING option never shows up as other properties', () => {
    const parsed = parseOptions(options('[{"type":3,"name":"__proto__","value":{"admin":true}},{"type":3,"name":"text","value":{"admin":true}}]'), undefined);
    const bag = parsed.options as Record<string, unknown>;
    expect(bag.admin).toBeUndefined();
    expect(bag['__proto__']).toBeUndefined();
    expect(bag.text).toBeUndefined();
    expect(Object.keys(bag)).toEqual([]);
    expect(prototypeSnapshot()).toEqual(before);
  });

  it('reads nothing that was not sent: constructor, toString and hasOwnProperty are absent', () => {
    const parsed = parseOptions(options('[{"type":4,"name":"sides","value":6}]'), undefined);
    const bag = parsed.options as Record<string, unknown>;
    expect(bag.sides).toBe(6);
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) expect(bag[key], key).toBeUndefined();
  });

  it('values of the wrong type for their option type are left out', () => {
    const parsed = parseOptions(
      options('[{"type":4,"name":"n","value":"12"},{"type":5,"name":"b","value":"true"},{"type":6,"name":"u","value":7},{"type":10,"name":"x","value":null},{"type":3,"name":"ok","value":"yes"}]'),
      undefined,
    );
    expect(Object.keys(parsed.options)).toEqual(['ok']);
  });

  it('resolved maps are read by own id only (an id "constructor" resolves to nothing)', () => {
    const resolved = JSON.parse('{"users":{"111":{"id":"111","username":"ann"}},"roles":{},"channels":{}}') as APIInteractionDataResolved;
    const parsed = parseOptions(
      options('[{"type":6,"name":"who","value":"constructor"},{"type":8,"name":"role","value":"__proto__"},{"type":9,"name":"m","value":"toString"},{"type":7,"name":"c","value":"hasOwnProperty"}]'),
      resolved,
    );
    expect(parsed.options.who).toEqual({ kind: 'user', id: 'constructor', user: undefined, member: undefined });
    expect(parsed.options.role).toEqual({ kind: 'role', id: '__proto__', role: undefined });
    expect(parsed.options.m).toEqual({ kind: 'user', id: 'toString', user: undefined, member: undefined });
    expect(parsed.options.c).toEqual({ kind: 'channel', id: 'hasOwnProperty', channel: undefined });
  });

  it('an option list that is not a list, or items that are not options, yield no values', () => {
    expect(parseOptions('nope' as unknown as APIApplicationCommandInteractionDataOption[], undefined).options).toEqual({});
    expect(Object.keys(parseOptions(options('[null, 3, {"name":1,"type":3,"value":"x"}]'), undefined).options)).toEqual([]);
  });
});

describe('interactionProblem', () => {
  const valid = {
    id: '1100000000000000001',
    application_id: '1100000000000000002',
    type: 2,
    token: 'tok',
    version: 1,
    guild_id: '1100000000000000003',
    member: { user: { id: '1100000000000000004' }, roles: [] },
    data: { id: '1100000000000000005', name: 'roll', type: 1, options: [{ type: 4, name: 'sides', value: 6 }] },
  };
  const withData = (data: unknown) => ({ ...valid, data: { ...valid.data, ...(data as object) } });

  it('accepts what the protocol sends', () => {
    expect(interactionProblem(valid)).toBeNull();
    expect(interactionProblem({ ...valid, type: 4, data: { ...valid.data, options: [{ type: 4, name: 'sides', value: '1', focused: true }] } })).toBeNull();
    expect(interactionProblem({ ...valid, type: 1, data: undefined })).toBeNull();
  });

  it('names the first field that is wrong', () => {
    const cases: Array<[unknown, string]> = [
      [null, '(payload)'],
      [{ ...valid, id: 5 }, 'id'],
      [{ ...valid, token: '' }, 'token'],
      [{ ...valid, member: { user: { id: 12 } } }, 'member.user.id'],
      [{ ...valid, member: undefined }, 'user'],
      [{ ...valid, data: 'x' }, 'data'],
      [withData({ name: 3 }), 'data.name'],
      [withData({ options: {} }), 'data.options'],
      [withData({ options: [{ type: 3, name: 'text', value: { admin: true } }] }), 'data.options[0].value'],
      [withData({ options: [{ type: 1, name: 'sub', options: [{ type: 4, name: 'n', value: 'x' }] }] }), 'data.options[0].options[0].value'],
      [withData({ options: [{ type: 99, name: 'n', value: 1 }] }), 'data.options[0].type'],
      [withData({ resolved: { users: [] } }), 'data.resolved.users'],
      [withData({ type: 2, options: undefined }), 'data.target_id'],
      [{ ...valid, type: 3, data: { custom_id: 4 } }, 'data.custom_id'],
    ];
    for (const [payload, path] of cases) expect(interactionProblem(payload)?.path, path).toBe(path);
  });

  it('says what was expected and what came', () => {
    const p = interactionProblem(JSON.parse(JSON.stringify(withData({ options: [{ type: 3, name: '__proto__', value: { admin: true } }] }))));
    expect(p).toEqual({ path: 'data.options[0].value', reason: 'expected a string (STRING), got an object' });
    const { token: _token, ...tokenless } = valid as Record<string, unknown>;
    expect(interactionProblem(tokenless)?.reason).toBe('expected a string, got nothing');
  });
});
