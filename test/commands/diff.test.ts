/**
 * Normalization and diff: a definition and what the service sends back compare equal when nothing changed,
 * whatever the key order, the omitted defaults and the server-only fields; a change is named by its path.
 */
import { describe, expect, it } from 'vitest';
import {
  commandsEqual,
  diffCommand,
  normalizeCommand,
  toRequestBody,
  toServerCommand,
} from '../../src/commands/index.js';
import { clone, fixture } from './helpers.js';

type Def = Record<string, unknown>;

/** Rebuilds an object with its keys in reverse order, recursively (arrays keep their order). */
function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).reverse()) out[k] = reorder((v as Def)[k]);
  return out;
}

const local: Def = {
  name: 'ban',
  description: 'Ban a member',
  default_member_permissions: '4',
  options: [
    { type: 6, name: 'user', description: 'The member', required: true },
    { type: 3, name: 'reason', description: 'Why', name_localizations: { fr: 'raison', de: 'grund' } },
    { type: 7, name: 'log', description: 'Log channel', channel_types: [5, 0] },
  ],
  run: () => undefined,
};

/** What the service answers for `local` (GET with_localizations=true), written out by hand, keys shuffled. */
const fetched: Def = {
  version: '1290000000000000001',
  nsfw: false,
  options: [
    { required: true, description: 'The member', name: 'user', type: 6, name_localizations: null, description_localizations: null },
    { description_localizations: null, name_localizations: { de: 'grund', fr: 'raison' }, type: 3, required: false, name: 'reason', description: 'Why' },
    { name: 'log', type: 7, description: 'Log channel', channel_types: [0, 5] },
  ],
  name_localizations: null,
  description_localizations: {},
  integration_types: [0],
  contexts: null,
  dm_permission: true,
  default_permission: true,
  default_member_permissions: '4',
  description: 'Ban a member',
  name: 'ban',
  type: 1,
  application_id: '1100000000000000000',
  id: '1290000000000000000',
  name_localized: 'ban',
  description_localized: 'Ban a member',
};

describe('normalization', () => {
  it('a fetched command with reordered keys, filled defaults and server-only fields diffs as unchanged', () => {
    const d = diffCommand(local, fetched, 'global');
    expect(d.changes).toEqual([]);
    expect(d.equal).toBe(true);
    expect(commandsEqual(local, reorder(fetched), 'global')).toBe(true);
    expect(commandsEqual(reorder(local), fetched, 'global')).toBe(true);
  });

  it('fills the defaults the service fills', () => {
    expect(normalizeCommand({ name: 'ping', description: 'Pong' }, 'global')).toEqual({
      type: 1,
      name: 'ping',
      name_localizations: null,
      description: 'Pong',
      description_localizations: null,
      default_member_permissions: null,
      nsfw: false,
    });
    expect(normalizeCommand({ type: 2, name: 'Info' }, 'guild')).toMatchObject({ type: 2, description: '', description_localizations: null });
    expect(normalizeCommand({ type: 4, name: 'Launch' }, 'global')).toMatchObject({ handler: 2, description: '' });
    expect(normalizeCommand({ name: 'x', description: 'y', options: [{ type: 3, name: 'a', description: 'b' }] }, 'global').options).toEqual([
      { type: 3, name: 'a', name_localizations: null, description: 'b', description_localizations: null, required: false },
    ]);
  });

  it('gives localization dictionaries one key order, so equal commands serialize the same', () => {
    const a = normalizeCommand({ name: 'x', description: 'y', name_localizations: { fr: 'a', de: 'b', 'en-US': 'c' } }, 'global');
    const b = normalizeCommand({ name_localizations: { 'en-US': 'c', fr: 'a', de: 'b' }, description: 'y', name: 'x' }, 'global');
    expect(Object.keys(a.name_localizations!)).toEqual(['de', 'en-US', 'fr']);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  const same: Array<[string, Def, Def]> = [
    ['absent, null and empty localizations', {}, { name_localizations: null, description_localizations: {} }],
    ['null vs empty localizations', { name_localizations: {} }, { name_localizations: null }],
    ['localization key order', { description_localizations: { fr: 'a', de: 'b', ja: 'c' } }, { description_localizations: { ja: 'c', de: 'b', fr: 'a' } }],
    ['nsfw absent vs false', { nsfw: false }, {}],
    ['default_member_permissions absent vs null', {}, { default_member_permissions: null }],
    ['default_member_permissions with leading zeros', { default_member_permissions: '0008' }, { default_member_permissions: '8' }],
    ['type absent vs 1', {}, { type: 1 }],
    ['empty options vs none', { options: [] }, {}],
    ['contexts in another order', { contexts: [2, 0, 1] }, { contexts: [0, 1, 2] }],
    ['integration_types in another order', { integration_types: [1, 0] }, { integration_types: [0, 1] }],
    ['dm_permission null vs true', { dm_permission: null }, { dm_permission: true }],
    ['default_permission null vs true (its default)', { default_permission: null }, { default_permission: true }],
  ];
  for (const [what, a, b] of same) {
    it(`treats as equal: ${what}`, () => {
      const base = { name: 'ping', description: 'Pong' };
      expect(diffCommand({ ...base, ...a }, { ...base, ...b }, 'global').changes).toEqual([]);
    });
  }

  it('treats option defaults as equal: required false, autocomplete false, empty choices/channel_types', () => {
    const a = { name: 'x', description: 'y', options: [{ type: 3, name: 'a', description: 'b', required: false, autocomplete: false, choices: [] }, { type: 7, name: 'c', description: 'd', channel_types: [] }] };
    const b = { name: 'x', description: 'y', options: [{ type: 3, name: 'a', description: 'b' }, { type: 7, name: 'c', description: 'd' }] };
    expect(commandsEqual(a, b, 'guild')).toBe(true);
  });

  it('USER and MESSAGE commands: no description locally equals "" from the service', () => {
    expect(commandsEqual({ type: 2, name: 'Info' }, { type: 2, name: 'Info', description: '', description_localizations: null, id: '1', version: '2' }, 'guild')).toBe(true);
  });

  it('leaves integration_types, contexts, dm_permission and default_permission to the service when the definition omits them', () => {
    const remote = { ...fetched, integration_types: [0, 1], contexts: [0, 1, 2], dm_permission: false, default_permission: false };
    expect(commandsEqual(local, remote, 'global')).toBe(true);
    const d = diffCommand({ ...local, contexts: [0] }, remote, 'global');
    expect(d.fields).toEqual(['contexts']);
    expect(d.changes.map((c) => c.path)).toEqual(['contexts[1]', 'contexts[2]']);
  });

  it('ignores global-only fields in guild scope', () => {
    const remote = { ...fetched, guild_id: '1', contexts: [0, 1], integration_types: [0, 1], dm_permission: false };
    expect(commandsEqual({ ...local, contexts: [0] }, remote, 'guild')).toBe(true);
  });

  it('entry point: handler absent locally equals the default 2, not 1', () => {
    const launch = { type: 4, name: 'Launch', description: '', handler: 2, id: '9', version: '1' };
    expect(commandsEqual({ type: 4, name: 'Launch' }, launch, 'global')).toBe(true);
    expect(diffCommand({ type: 4, name: 'Launch' }, { ...launch, handler: 1 }, 'global').fields).toEqual(['handler']);
  });

  it('round-trips every fixture command through toServerCommand unchanged', () => {
    for (const [file, scope] of [['moderation-global.json', 'global'], ['moderation-guild.json', 'guild']] as const) {
      fixture(file).forEach((def, i) => {
        const server = toServerCommand(def, scope, { id: `${1000 + i}`, applicationId: '1', version: '1', guildId: '7' });
        expect(server.id).toBe(`${1000 + i}`);
        expect(diffCommand(def, reorder(server), scope).changes).toEqual([]);
      });
    }
  });
});

describe('diff', () => {
  it('one changed description is one changed field, named by its path', () => {
    const d = diffCommand({ ...local, description: 'Ban someone' }, fetched, 'global');
    expect(d.equal).toBe(false);
    expect(d.fields).toEqual(['description']);
    expect(d.changes).toEqual([{ path: 'description', segments: ['description'], before: 'Ban a member', after: 'Ban someone' }]);
  });

  it('names a nested change: a choice name deep in a subcommand', () => {
    const def = clone(fixture('moderation-global.json')[11]) as Def; // modlog
    const server = toServerCommand(def, 'global', { id: '5', applicationId: '1', version: '1' });
    const changed = clone(def);
    (((changed.options as Def[])[1]!.options as Def[])[0]!.choices as Def[])[2]!.name = 'Time-outs';
    const d = diffCommand(changed, server, 'global');
    expect(d.fields).toEqual(['options']);
    expect(d.changes.map((c) => c.path)).toEqual(['options[1].options[0].choices[2].name']);
  });

  it('names an added option, a removed option, a required flag and a localization', () => {
    const added = { ...local, options: [...(local.options as Def[]), { type: 5, name: 'silent', description: 'Quietly' }] };
    expect(diffCommand(added, fetched, 'global').changes.map((c) => [c.path, c.before])).toEqual([['options[3]', undefined]]);
    const removed = { ...local, options: (local.options as Def[]).slice(0, 2) };
    expect(diffCommand(removed, fetched, 'global').changes.map((c) => [c.path, c.after])).toEqual([['options[2]', undefined]]);
    const opts = clone(local.options) as Def[];
    opts[1]!.required = true;
    opts[1]!.name_localizations = { fr: 'motif', de: 'grund' };
    expect(diffCommand({ ...local, options: opts }, fetched, 'global').changes.map((c) => c.path)).toEqual([
      'options[1].name_localizations.fr',
      'options[1].required',
    ]);
  });

  it('sees option order as a change (it is the order users see)', () => {
    const opts = clone(local.options) as Def[];
    [opts[1], opts[2]] = [opts[2]!, opts[1]!];
    expect(commandsEqual({ ...local, options: opts }, fetched, 'global')).toBe(false);
  });
});

describe('request bodies', () => {
  it('carries no description for USER and MESSAGE commands, and the id for bulk items', () => {
    expect(toRequestBody(normalizeCommand({ type: 3, name: 'Quote' }, 'global'))).toEqual({
      type: 3,
      name: 'Quote',
      name_localizations: null,
      default_member_permissions: null,
      nsfw: false,
    });
    expect(toRequestBody(normalizeCommand({ name: 'a', description: 'b' }, 'guild'), '42')).toMatchObject({ id: '42', name: 'a' });
  });
});
