/**
 * The sandbox's own command permissions v2 evaluation (src/sandbox/state/command-permissions.ts): one test per
 * rule of protocol §S2.7 and per box of the documented order (protocol §15.6, the change-log flowchart), each
 * asserting what decided. test/api/command-access-sandbox.test.ts holds it together with the runtime's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { CommandPermissionStore, evaluateCommandUse, type CommandPermission, type CommandUse } from '../../src/sandbox/state/command-permissions.js';
import { api, identified } from './helpers.js';

const GUILD = '100000000000000010';
const ALL_CHANNELS = '100000000000000009';
const APP = '900000000000000001';
const COMMAND = '800000000000000001';
const OTHER_COMMAND = '800000000000000002';
const USER = '300000000000000001';
const CHANNEL = '700000000000000001';
const THREAD = '700000000000000003';
const R1 = '400000000000000001';
const R2 = '400000000000000002';
const R3 = '400000000000000003';
const ADMINISTRATOR = 1n << 3n;
const KICK = 1n << 1n;
const BAN = 1n << 2n;
const VIEW_SEND_USE = (1n << 10n) | (1n << 11n) | (1n << 31n);

const ch = (id: string, permission: boolean): CommandPermission => ({ id, type: 3, permission });
const user = (id: string, permission: boolean): CommandPermission => ({ id, type: 2, permission });
const role = (id: string, permission: boolean): CommandPermission => ({ id, type: 1, permission });

interface Case {
  command?: CommandPermission[];
  app?: CommandPermission[];
  dmp?: string | null;
  use?: Partial<CommandUse>;
}

function verdict(c: Case) {
  const store = new CommandPermissionStore(APP);
  if (c.command) store.set(GUILD, COMMAND, c.command);
  if (c.app) store.set(GUILD, APP, c.app);
  return evaluateCommandUse(store, {
    guildId: GUILD,
    commandId: COMMAND,
    userId: USER,
    roleIds: [R1, R2],
    channelId: CHANNEL,
    threadParentId: null,
    permissions: VIEW_SEND_USE,
    defaultMemberPermissions: c.dmp === undefined ? null : c.dmp,
    ...c.use,
  });
}

describe('administrators', () => {
  it('an administrator uses every command, whatever the settings and default_member_permissions say', () => {
    const r = verdict({ command: [ch(CHANNEL, false), user(USER, false)], app: [role(GUILD, false)], dmp: '0', use: { permissions: VIEW_SEND_USE | ADMINISTRATOR } });
    expect(r).toEqual({ allowed: true, why: 'administrators can use every command' });
  });
});

describe('channel checks (first)', () => {
  it("the command's setting for the channel: false denies even a member whose own setting is true", () => {
    expect(verdict({ command: [ch(CHANNEL, false), user(USER, true)] })).toEqual({ allowed: false, why: `the command's setting for channel ${CHANNEL} is false` });
  });

  it("the command's All Channels setting (guild id - 1) when it has none for the channel", () => {
    expect(verdict({ command: [ch(ALL_CHANNELS, false)] })).toEqual({ allowed: false, why: "the command's All Channels setting is false" });
    // The channel's own setting comes before All Channels.
    expect(verdict({ command: [ch(ALL_CHANNELS, false), ch(CHANNEL, true)] }).allowed).toBe(true);
  });

  it('a channel true never grants on its own: default_member_permissions still decides', () => {
    expect(verdict({ command: [ch(CHANNEL, true)], dmp: '0' })).toEqual({ allowed: false, why: 'default_member_permissions is "0" (administrators only)' });
    expect(verdict({ app: [ch(ALL_CHANNELS, true)], dmp: '0' }).allowed).toBe(false);
  });

  it("a command-level channel setting shadows the application's channel settings", () => {
    expect(verdict({ command: [ch(ALL_CHANNELS, true)], app: [ch(CHANNEL, false)] }).allowed).toBe(true);
  });

  it("without any command-level channel setting, the application's for the channel, else its All Channels", () => {
    expect(verdict({ app: [ch(CHANNEL, false)] })).toEqual({ allowed: false, why: `the application's setting for channel ${CHANNEL} is false` });
    expect(verdict({ app: [ch(ALL_CHANNELS, false)] })).toEqual({ allowed: false, why: "the application's All Channels setting is false" });
    expect(verdict({ app: [ch(ALL_CHANNELS, false), ch(CHANNEL, true)] }).allowed).toBe(true);
    // The command's member settings do not lift an application channel denial.
    expect(verdict({ command: [user(USER, true)], app: [ch(CHANNEL, false)] }).allowed).toBe(false);
  });

  it("a channel's setting covers its threads; the thread's own comes first", () => {
    const inThread = { channelId: THREAD, threadParentId: CHANNEL };
    expect(verdict({ command: [ch(CHANNEL, false)], use: inThread })).toEqual({ allowed: false, why: `the command's setting for channel ${CHANNEL} is false` });
    expect(verdict({ command: [ch(CHANNEL, false), ch(THREAD, true)], use: inThread }).allowed).toBe(true);
    expect(verdict({ command: [ch(THREAD, false)] }).allowed).toBe(true);
  });
});

describe('member checks at command level (decide outright)', () => {
  it("the user's setting: true allows despite default_member_permissions \"0\" and the application's denials", () => {
    expect(verdict({ command: [user(USER, true)], app: [user(USER, false), role(GUILD, false)], dmp: '0' })).toEqual({ allowed: true, why: `the command's setting for user ${USER} is true` });
  });

  it("the user's setting: false denies even when one of the member's roles is allowed", () => {
    expect(verdict({ command: [user(USER, false), role(R1, true)] })).toEqual({ allowed: false, why: `the command's setting for user ${USER} is false` });
  });

  it('roles: one true among the member\'s roles is enough; roles the member lacks do not count', () => {
    expect(verdict({ command: [role(R1, false), role(R2, true)], dmp: '0' })).toEqual({ allowed: true, why: `the command's setting for role ${R2} is true` });
    expect(verdict({ command: [role(R1, false), role(R3, true)], dmp: null })).toEqual({ allowed: false, why: `the command's settings for the member's roles (${R1}) are all false` });
  });

  it("@everyone (id = guild id) when neither the user nor the member's roles have a setting", () => {
    expect(verdict({ command: [role(GUILD, true)], dmp: '0' })).toEqual({ allowed: true, why: "the command's @everyone setting is true" });
    expect(verdict({ command: [role(GUILD, false)] })).toEqual({ allowed: false, why: "the command's @everyone setting is false" });
    // A role setting of the member comes before @everyone.
    expect(verdict({ command: [role(GUILD, false), role(R1, true)] }).allowed).toBe(true);
  });

  it("command-level member settings shadow the application's", () => {
    expect(verdict({ command: [role(GUILD, true)], app: [user(USER, false)] }).allowed).toBe(true);
  });

  it("another command's settings do not apply", () => {
    const store = new CommandPermissionStore(APP);
    store.set(GUILD, OTHER_COMMAND, [user(USER, false)]);
    const use: CommandUse = { guildId: GUILD, commandId: COMMAND, userId: USER, roleIds: [], channelId: CHANNEL, threadParentId: null, permissions: VIEW_SEND_USE, defaultMemberPermissions: null };
    expect(evaluateCommandUse(store, use).allowed).toBe(true);
  });
});

describe('member checks at application level (id = application id), then default_member_permissions', () => {
  it('each kind of check falls back on its own: a command with only a channel setting reads the application\'s member settings', () => {
    expect(verdict({ command: [ch(CHANNEL, true)], app: [user(USER, false)] })).toEqual({ allowed: false, why: `the application's setting for user ${USER} is false` });
  });

  it('the user, else the roles (one true is enough), else @everyone; a false denies', () => {
    expect(verdict({ app: [user(USER, false), role(R1, true)] }).allowed).toBe(false);
    expect(verdict({ app: [role(R1, false), role(R2, false)] })).toEqual({ allowed: false, why: `the application's settings for the member's roles (${R1}, ${R2}) are all false` });
    expect(verdict({ app: [role(GUILD, false)] })).toEqual({ allowed: false, why: "the application's @everyone setting is false" });
    expect(verdict({ app: [role(GUILD, false), role(R2, true)] }).allowed).toBe(true);
  });

  it('an application-level true still has to pass default_member_permissions', () => {
    expect(verdict({ app: [user(USER, true)], dmp: '0' }).allowed).toBe(false);
    expect(verdict({ app: [role(R1, true)], dmp: String(KICK) })).toEqual({ allowed: false, why: `the member lacks default_member_permissions bits ${KICK}` });
    expect(verdict({ app: [role(GUILD, true)], dmp: String(KICK), use: { permissions: VIEW_SEND_USE | KICK } })).toEqual({ allowed: true, why: 'the member has default_member_permissions' });
    expect(verdict({ app: [user(USER, true)], dmp: null }).allowed).toBe(true);
  });
});

describe('default_member_permissions (no setting decided)', () => {
  it('null allows everyone', () => {
    expect(verdict({ dmp: null })).toEqual({ allowed: true, why: 'no default_member_permissions' });
  });

  it('"0" allows administrators only', () => {
    expect(verdict({ dmp: '0' })).toEqual({ allowed: false, why: 'default_member_permissions is "0" (administrators only)' });
    expect(verdict({ dmp: '0', use: { permissions: ADMINISTRATOR } }).allowed).toBe(true);
  });

  it('otherwise the member needs every bit in the channel', () => {
    expect(verdict({ dmp: String(KICK | BAN), use: { permissions: VIEW_SEND_USE | KICK } })).toEqual({ allowed: false, why: `the member lacks default_member_permissions bits ${BAN}` });
    expect(verdict({ dmp: String(KICK | BAN), use: { permissions: VIEW_SEND_USE | KICK | BAN } }).allowed).toBe(true);
  });

  it('an unreadable value fails closed', () => {
    expect(verdict({ dmp: 'lots' }).allowed).toBe(false);
  });
});

describe('where a member invokes: threads and channel overwrites (sandbox.invoke)', () => {
  const SCOPE = 'applications.commands.permissions.update';
  const MANAGE_MESSAGES = 1n << 13n;
  const open: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  async function scene() {
    const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 8 }, gateway: { heartbeatIntervalMs: 600_000 } });
    open.push(() => sb.close());
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    open.push(() => client.terminate());
    const guildId = sb.state.guildIds[0]!;
    const [general, other] = sb.state.channelIds(guildId);
    const plain = sb.state.memberIds(guildId).filter((id) => id !== sb.applicationId)[4]!;
    const created = await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/guilds/${guildId}/commands`, {
      token: sb.botToken,
      body: { name: 'purge', description: 'x', default_member_permissions: String(MANAGE_MESSAGES) },
    });
    const commandId = created.body.id as string;
    const thread = sb.state.channels.createThread(general!, { name: 'talk' }).id as string;
    const use = async (channelId: string): Promise<string> => {
      try {
        await sb.invoke({ name: 'purge', guildId, userId: plain, channelId });
        await client.nextDispatch('INTERACTION_CREATE');
        return 'allowed';
      } catch (err) {
        return String(err);
      }
    };
    return { sb, guildId, general: general!, other: other!, plain, commandId, thread, use };
  }

  it("a channel's setting covers the threads in it", async () => {
    const { sb, guildId, general, plain, commandId, thread, use } = await scene();
    const r = await api(sb.restUrl, 'PUT', `/applications/${sb.applicationId}/guilds/${guildId}/commands/${commandId}/permissions`, {
      bearer: sb.issueBearerToken([SCOPE]),
      body: { permissions: [{ id: general, type: 3, permission: false }, { id: plain, type: 2, permission: true }] },
    });
    expect(r.status).toBe(200);
    expect(await use(thread)).toMatch(new RegExp(`may not use 'purge' in channel ${thread} .*the command's setting for channel ${general} is false`));
  });

  it('default_member_permissions is checked against the permissions in that channel (overwrites included)', async () => {
    const { sb, general, other, plain, use } = await scene();
    sb.state.channels.setOverwrite(general, { id: plain, type: 1, allow: MANAGE_MESSAGES });
    expect(await use(general)).toBe('allowed');
    expect(await use(other)).toMatch(/lacks default_member_permissions/);
  });
});
