/**
 * Command access (src/api/command-access.ts): one test per rule of the spec's section 2.7 and per step of the
 * documented permissions-v2 order (docs/protocol.md §15.6), each asserting what decided and at which level.
 */
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { allChannelsId, evaluateCommandAccess, type CommandAccessInput, type CommandPermissionEntry } from '../../src/api/command-access.js';
import { ALL_PERMISSIONS } from '../../src/api/permissions.js';

const GUILD = '100000000000000010';
const ALL_CHANNELS = '100000000000000009';
const APP = '900000000000000001';
const COMMAND = '800000000000000001';
const USER = '300000000000000001';
const CHANNEL = '700000000000000001';
const OTHER_CHANNEL = '700000000000000002';
const THREAD = '700000000000000003';
const R1 = '400000000000000001';
const R2 = '400000000000000002';
const MEMBER = P.ViewChannel | P.SendMessages | P.UseApplicationCommands;

const ch = (id: string, permission: boolean): CommandPermissionEntry => ({ id, type: 3, permission });
const user = (id: string, permission: boolean): CommandPermissionEntry => ({ id, type: 2, permission });
const role = (id: string, permission: boolean): CommandPermissionEntry => ({ id, type: 1, permission });

function access(over: Partial<CommandAccessInput> & { dmp?: string | null } = {}) {
  const { dmp, ...rest } = over;
  return evaluateCommandAccess({
    guildId: GUILD,
    applicationId: APP,
    userId: USER,
    roleIds: [R1, R2],
    channelId: CHANNEL,
    parentId: null,
    permissions: MEMBER,
    command: { id: COMMAND, name: 'ban', default_member_permissions: dmp === undefined ? null : dmp },
    commandPermissions: undefined,
    applicationPermissions: undefined,
    ...rest,
  });
}

describe('section 2.7 rules', () => {
  it('All Channels is the guild id minus one', () => {
    expect(allChannelsId(GUILD)).toBe(ALL_CHANNELS);
    expect(allChannelsId('81384788765712384')).toBe('81384788765712383');
  });

  it('@everyone (id = guild id) applies to every member', () => {
    const r = access({ commandPermissions: [role(GUILD, false)] });
    expect(r).toMatchObject({ allowed: false, reason: { kind: 'overwrite', level: 'command', target: 'everyone', id: GUILD } });
  });

  it('All Channels (id = guild id - 1) applies in every channel', () => {
    const r = access({ commandPermissions: [ch(ALL_CHANNELS, false)] });
    expect(r).toMatchObject({ allowed: false, reason: { kind: 'overwrite', level: 'command', target: 'all-channels', id: ALL_CHANNELS } });
  });

  it('id = application id: the settings apply to every command without its own', () => {
    const r = access({ applicationPermissions: [user(USER, false)] });
    expect(r).toMatchObject({ allowed: false, reason: { kind: 'overwrite', level: 'application', target: 'user', id: USER } });
  });

  it('a channel permission applies also to the threads in that channel', () => {
    const r = access({ channelId: THREAD, parentId: CHANNEL, commandPermissions: [ch(CHANNEL, false)] });
    expect(r).toMatchObject({ allowed: false, reason: { target: 'channel', id: CHANNEL, level: 'command' } });
    // A setting for the thread itself comes first.
    expect(access({ channelId: THREAD, parentId: CHANNEL, commandPermissions: [ch(CHANNEL, false), ch(THREAD, true)] })).toMatchObject({ allowed: true });
  });

  it('members with the Administrator permission can use every command, settings notwithstanding', () => {
    const r = access({ permissions: MEMBER | P.Administrator, dmp: '0', commandPermissions: [ch(CHANNEL, false), user(USER, false)] });
    expect(r).toMatchObject({ allowed: true, reason: { kind: 'administrator', owner: false } });
    expect(access({ permissions: ALL_PERMISSIONS, owner: true, dmp: '0' })).toMatchObject({ allowed: true, reason: { kind: 'administrator', owner: true } });
  });

  it('default_member_permissions "0": nobody but administrators, unless a setting allows', () => {
    expect(access({ dmp: '0' })).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: '0', via: null } });
    expect(access({ dmp: '0', commandPermissions: [role(R2, true)] })).toMatchObject({ allowed: true, reason: { kind: 'overwrite', level: 'command', target: 'role', id: R2 } });
  });

  it('default_member_permissions: the member needs every bit in this channel', () => {
    const need = String(P.BanMembers | P.PinMessages);
    const denied = access({ dmp: need, permissions: MEMBER | P.BanMembers });
    expect(denied).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: need, missing: P.PinMessages } });
    expect(denied.message).toMatch(/PinMessages/);
    expect(access({ dmp: need, permissions: MEMBER | P.BanMembers | P.PinMessages })).toMatchObject({ allowed: true, reason: { kind: 'default_member_permissions', value: need, missing: 0n } });
  });

  it('no default_member_permissions (null): everyone may', () => {
    expect(access()).toMatchObject({ allowed: true, reason: { kind: 'default_member_permissions', value: null, via: null } });
  });
});

describe('the documented order (permissions v2)', () => {
  it('1a. a specific channel setting comes before All Channels', () => {
    expect(access({ commandPermissions: [ch(ALL_CHANNELS, false), ch(CHANNEL, true)] })).toMatchObject({ allowed: true, reason: { kind: 'default_member_permissions' } });
    expect(access({ commandPermissions: [ch(ALL_CHANNELS, true), ch(CHANNEL, false)] })).toMatchObject({ allowed: false, reason: { target: 'channel', id: CHANNEL } });
    // Another channel's setting does not apply here; All Channels does.
    expect(access({ commandPermissions: [ch(OTHER_CHANNEL, true), ch(ALL_CHANNELS, false)] })).toMatchObject({ allowed: false, reason: { target: 'all-channels' } });
  });

  it('1b. a channel false denies even a member whose user setting is true', () => {
    const r = access({ commandPermissions: [ch(CHANNEL, false), user(USER, true)] });
    expect(r).toMatchObject({ allowed: false, reason: { kind: 'overwrite', level: 'command', target: 'channel', id: CHANNEL, permission: false } });
  });

  it('1c. a channel true never grants on its own: the rest still has to allow', () => {
    const r = access({ dmp: '0', commandPermissions: [ch(CHANNEL, true)] });
    expect(r).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: '0' } });
  });

  it('1d. without command-level channel settings the application-level ones apply (channel, then All Channels)', () => {
    expect(access({ applicationPermissions: [ch(CHANNEL, false)] })).toMatchObject({ allowed: false, reason: { level: 'application', target: 'channel' } });
    expect(access({ applicationPermissions: [ch(ALL_CHANNELS, false)] })).toMatchObject({ allowed: false, reason: { level: 'application', target: 'all-channels' } });
    expect(access({ applicationPermissions: [ch(ALL_CHANNELS, false), ch(CHANNEL, true)] })).toMatchObject({ allowed: true });
  });

  it('1e. a command-level channel setting makes the application-level channel settings irrelevant', () => {
    expect(access({ commandPermissions: [ch(CHANNEL, true)], applicationPermissions: [ch(CHANNEL, false)] })).toMatchObject({ allowed: true });
    expect(access({ commandPermissions: [ch(ALL_CHANNELS, false)], applicationPermissions: [ch(CHANNEL, true)] })).toMatchObject({ allowed: false, reason: { level: 'command', target: 'all-channels' } });
  });

  it('2a. the user setting comes before roles', () => {
    expect(access({ commandPermissions: [user(USER, false), role(R1, true)] })).toMatchObject({ allowed: false, reason: { target: 'user', id: USER, level: 'command' } });
    expect(access({ commandPermissions: [user(USER, true), role(R1, false)] })).toMatchObject({ allowed: true, reason: { target: 'user' } });
  });

  it("2b. roles: one true among the member's roles is enough", () => {
    const r = access({ commandPermissions: [role(R1, false), role(R2, true)] });
    expect(r).toMatchObject({ allowed: true, reason: { kind: 'overwrite', target: 'role', id: R2, roles: [R1, R2] } });
  });

  it("2c. roles: every configured role of the member false denies (roles they lack do not count)", () => {
    const r = access({ commandPermissions: [role(R1, false), role('400000000000000099', true)] });
    expect(r).toMatchObject({ allowed: false, reason: { target: 'role', id: R1, roles: [R1] } });
  });

  it('2d. roles come before @everyone', () => {
    expect(access({ commandPermissions: [role(GUILD, false), role(R1, true)] })).toMatchObject({ allowed: true, reason: { target: 'role' } });
    expect(access({ commandPermissions: [role(GUILD, true), role(R1, false)] })).toMatchObject({ allowed: false, reason: { target: 'role' } });
  });

  it('2e. @everyone when neither the user nor their roles have a setting', () => {
    expect(access({ commandPermissions: [role(GUILD, true), role('400000000000000099', false)] })).toMatchObject({ allowed: true, reason: { target: 'everyone', id: GUILD } });
  });

  it('2f. command-level user/role settings decide outright, default_member_permissions notwithstanding', () => {
    const r = access({ dmp: String(P.BanMembers), commandPermissions: [user(USER, true)] });
    expect(r).toMatchObject({ allowed: true, reason: { kind: 'overwrite', level: 'command', target: 'user' } });
    // ...and application-level ones notwithstanding.
    expect(access({ commandPermissions: [role(R1, true)], applicationPermissions: [user(USER, false)] })).toMatchObject({ allowed: true, reason: { level: 'command' } });
  });

  it('2g. without command-level user/role settings the application-level ones apply: false denies', () => {
    const r = access({ applicationPermissions: [role(GUILD, false)] });
    expect(r).toMatchObject({ allowed: false, reason: { kind: 'overwrite', level: 'application', target: 'everyone' } });
  });

  it('2h. an application-level true still has to pass default_member_permissions', () => {
    const need = String(P.BanMembers);
    const denied = access({ dmp: need, applicationPermissions: [user(USER, true)] });
    expect(denied).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: need, via: { level: 'application', target: 'user', id: USER } } });
    expect(access({ dmp: '0', applicationPermissions: [role(R1, true)] })).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: '0', via: { target: 'role' } } });
    expect(access({ dmp: need, permissions: MEMBER | P.BanMembers, applicationPermissions: [role(R1, true)] })).toMatchObject({ allowed: true, reason: { kind: 'default_member_permissions', via: { target: 'role' } } });
  });

  it('2i. application-level settings fill in each missing kind separately', () => {
    // The command has a channel setting only: its user/role checks fall back to the application's.
    expect(access({ commandPermissions: [ch(CHANNEL, true)], applicationPermissions: [user(USER, false)] })).toMatchObject({ allowed: false, reason: { level: 'application', target: 'user' } });
    // The command has a user setting only: its channel checks fall back to the application's.
    expect(access({ commandPermissions: [user(USER, true)], applicationPermissions: [ch(ALL_CHANNELS, false)] })).toMatchObject({ allowed: false, reason: { level: 'application', target: 'all-channels' } });
  });

  it('3. with no setting anywhere, default_member_permissions decides', () => {
    expect(access({ dmp: String(P.ManageGuild) })).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', missing: P.ManageGuild, via: null } });
    expect(access({ dmp: 'not-bits' })).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: 'not-bits' } });
  });

  it('a setting for a member role typed as a user (or the reverse) does not apply', () => {
    expect(access({ dmp: '0', commandPermissions: [user(R1, true), role(USER, true)] })).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: '0' } });
  });

  it('every answer carries one line saying what decided', () => {
    expect(access({ commandPermissions: [ch(CHANNEL, false), user(USER, true)] }).message).toBe(`denied: /ban's setting for channel ${CHANNEL} is false`);
    expect(access({ commandPermissions: [role(R1, false), role(R2, false)] }).message).toBe(`denied: /ban's settings for every role of the member (${R1}, ${R2}) are false`);
    expect(access({ dmp: '0', applicationPermissions: [user(USER, true)] }).message).toBe(
      `denied: /ban's default_member_permissions is "0" (administrators only) (after the application's setting for user ${USER} allowed it)`,
    );
  });
});
