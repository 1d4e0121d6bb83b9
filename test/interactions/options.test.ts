import { describe, expect, it } from 'vitest';
import type { APIApplicationCommandInteractionDataOption, APIInteractionDataResolved } from 'discord-api-types/v10';
import { parseOptions } from '../../src/interactions/options.js';
import { isUserInstallOnly } from '../../src/interactions/context.js';

const resolved = {
  users: { '111': { id: '111', username: 'ann', discriminator: '0', global_name: null, avatar: null } },
  members: { '111': { roles: [], joined_at: '2020-01-01T00:00:00.000000+00:00', permissions: '0', flags: 0, deaf: false, mute: false } },
  roles: { '222': { id: '222', name: 'mods', color: 0, hoist: false, position: 1, permissions: '0', managed: false, mentionable: true, flags: 0 } },
  channels: { '333': { id: '333', name: 'general', type: 0, permissions: '0' } },
  attachments: { '444': { id: '444', filename: 'a.png', size: 3, url: 'u', proxy_url: 'p' } },
} as unknown as APIInteractionDataResolved;

describe('parseOptions', () => {
  it('reads a plain command into typed values with resolved objects', () => {
    const options = [
      { type: 4, name: 'sides', value: 20 },
      { type: 3, name: 'label', value: 'x' },
      { type: 5, name: 'loud', value: true },
      { type: 6, name: 'who', value: '111' },
      { type: 8, name: 'role', value: '222' },
      { type: 7, name: 'where', value: '333' },
      { type: 9, name: 'ping', value: '222' },
      { type: 9, name: 'ping2', value: '111' },
      { type: 11, name: 'file', value: '444' },
      { type: 10, name: 'ratio', value: 0.5 },
    ] as APIApplicationCommandInteractionDataOption[];
    const parsed = parseOptions(options, resolved);
    expect(parsed.path).toEqual([]);
    expect(parsed.focused).toBeNull();
    expect(parsed.options.sides).toBe(20);
    expect(parsed.options.label).toBe('x');
    expect(parsed.options.loud).toBe(true);
    expect(parsed.options.ratio).toBe(0.5);
    expect(parsed.options.who).toMatchObject({ kind: 'user', id: '111', user: { username: 'ann' }, member: { permissions: '0' } });
    expect(parsed.options.role).toMatchObject({ kind: 'role', role: { name: 'mods' } });
    expect(parsed.options.where).toMatchObject({ kind: 'channel', channel: { name: 'general' } });
    expect(parsed.options.ping).toMatchObject({ kind: 'role', id: '222' });
    expect(parsed.options.ping2).toMatchObject({ kind: 'user', id: '111' });
    expect(parsed.options.file).toMatchObject({ kind: 'attachment', attachment: { filename: 'a.png' } });
  });

  it('follows a group and a subcommand to the leaf options', () => {
    const options = [
      { type: 2, name: 'config', options: [{ type: 1, name: 'set', options: [{ type: 3, name: 'key', value: 'k' }] }] },
    ] as APIApplicationCommandInteractionDataOption[];
    expect(parseOptions(options, undefined)).toEqual({ path: ['config', 'set'], options: { key: 'k' }, focused: null });
    const sub = [{ type: 1, name: 'list' }] as APIApplicationCommandInteractionDataOption[];
    expect(parseOptions(sub, undefined)).toEqual({ path: ['list'], options: {}, focused: null });
  });

  it('marks the focused option of an autocomplete and keeps partial input as typed', () => {
    const options = [
      { type: 3, name: 'query', value: 'dra', focused: true },
      { type: 4, name: 'limit', value: 5 },
    ] as unknown as APIApplicationCommandInteractionDataOption[];
    const parsed = parseOptions(options, undefined);
    expect(parsed.focused).toEqual({ name: 'query', type: 3, value: 'dra' });
    expect(parsed.options).toEqual({ query: 'dra', limit: 5 });
  });

  it('unresolved ids still yield their id', () => {
    const parsed = parseOptions([{ type: 6, name: 'who', value: '999' }] as APIApplicationCommandInteractionDataOption[], undefined);
    expect(parsed.options.who).toEqual({ kind: 'user', id: '999', user: undefined, member: undefined });
  });
});

describe('isUserInstallOnly', () => {
  it('is true only when the user-install key alone authorized the interaction', () => {
    expect(isUserInstallOnly({ authorizing_integration_owners: { '1': '111' } })).toBe(true);
    expect(isUserInstallOnly({ authorizing_integration_owners: { '0': '5', '1': '111' } })).toBe(false);
    expect(isUserInstallOnly({ authorizing_integration_owners: { '0': '5' } })).toBe(false);
    expect(isUserInstallOnly({})).toBe(false);
  });
});
