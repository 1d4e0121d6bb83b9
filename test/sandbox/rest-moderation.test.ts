/**
 * Guild-side writes of the sandbox: members (search, modify, timeout, kick, one role), roles (create, modify,
 * reorder, delete) and bans (get, list, create, remove, bulk), with the bot's own permission and hierarchy checks
 * (50013 / 50001 in the service's error shape) and the gateway events the service sends.
 */
import { describe, expect, it } from 'vitest';
import { botCall as call, useSandboxSuite } from './helpers.js';

const suite = useSandboxSuite();
const { connect } = suite;

const GUILDS = 1;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MODERATION = 1 << 2;

/** A sandbox with one guild; `moderator` gives the bot the seeded Moderator role besides its own. */
async function start(opts: { moderator?: boolean } = {}) {
  const sb = await suite.start({ seed: { guilds: 1, membersPerGuild: 12 }, gateway: { identifyWindowMs: 0 } });
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  const ids = { g, everyone: roles[0]!, moderator: roles[roles.length - 3]!, admin: roles[roles.length - 2]!, botRole: roles[roles.length - 1]! };
  if (opts.moderator) sb.state.updateMember(g, sb.applicationId, { roles: [ids.botRole, ids.moderator] });
  const members = sb.state.memberIds(g).filter((id) => id !== sb.applicationId);
  return { sb, ...ids, owner: members[0]!, mod: members[1]!, plain: members[5]! };
}

const MISSING_PERMISSIONS = { message: 'Missing Permissions', code: 50013 };

describe('members', () => {
  it('search by prefix of username or nick, limit 1-1000 (default 1), query required', async () => {
    const { sb, g } = await start();
    const all = await call(sb, 'GET', `/guilds/${g}/members/search?query=&limit=1000`);
    expect(all.status).toBe(200);
    expect(all.body.length).toBe(13);
    const one = await call(sb, 'GET', `/guilds/${g}/members/search?query=${encodeURIComponent(all.body[3].user.username.slice(0, 3).toUpperCase())}`);
    expect(one.body).toHaveLength(1);
    expect(one.body[0].user.username.toLowerCase().startsWith(all.body[3].user.username.slice(0, 3).toLowerCase())).toBe(true);
    const missing = await call(sb, 'GET', `/guilds/${g}/members/search`);
    expect(missing.status).toBe(400);
    expect(missing.body.errors.query._errors[0].code).toBe('BASE_TYPE_REQUIRED');
  });

  it('without the permission: 403 / 50013 and nothing changes', async () => {
    const { sb, g, plain, moderator } = await start();
    for (const [method, path, body] of [
      ['PATCH', `/guilds/${g}/members/${plain}`, { nick: 'x' }],
      ['PATCH', `/guilds/${g}/members/${plain}`, { communication_disabled_until: new Date(Date.now() + 60_000).toISOString() }],
      ['DELETE', `/guilds/${g}/members/${plain}`, undefined],
      ['PUT', `/guilds/${g}/members/${plain}/roles/${moderator}`, undefined],
      ['PUT', `/guilds/${g}/bans/${plain}`, undefined],
      ['GET', `/guilds/${g}/bans`, undefined],
      ['POST', `/guilds/${g}/roles`, { name: 'r' }],
    ] as const) {
      const r = await call(sb, method, path, body);
      expect([method, path, r.status, r.body]).toEqual([method, path, 403, MISSING_PERMISSIONS]);
    }
    const m = await call(sb, 'GET', `/guilds/${g}/members/${plain}`);
    expect(m.body).toMatchObject({ nick: null, roles: [], communication_disabled_until: null });
  });

  it('nick, timeout and a role: 200 with the member as the service builds it, GUILD_MEMBER_UPDATE each', async () => {
    const { sb, g, plain, moderator, everyone } = await start({ moderator: true });
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    const extra = sb.state.roleIds(g).find((id) => ![everyone, moderator].includes(id) && id !== sb.state.roleIds(g).at(-1) && id !== sb.state.roleIds(g).at(-2))!;
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const r = await call(sb, 'PATCH', `/guilds/${g}/members/${plain}`, { nick: 'Quiet', communication_disabled_until: until });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ nick: 'Quiet', deaf: false, mute: false, user: { id: plain } });
    expect(Date.parse(r.body.communication_disabled_until)).toBe(Date.parse(until));
    const update = await client.nextDispatch('GUILD_MEMBER_UPDATE');
    expect(update.d).toMatchObject({ guild_id: g, nick: 'Quiet', user: { id: plain } });
    expect(Date.parse((update.d as { communication_disabled_until: string }).communication_disabled_until)).toBe(Date.parse(until));

    const put = await call(sb, 'PUT', `/guilds/${g}/members/${plain}/roles/${extra}`);
    expect(put.status).toBe(204);
    expect((await client.nextDispatch('GUILD_MEMBER_UPDATE')).d).toMatchObject({ guild_id: g, roles: [extra] });
    const del = await call(sb, 'DELETE', `/guilds/${g}/members/${plain}/roles/${extra}`);
    expect(del.status).toBe(204);
    expect((await client.nextDispatch('GUILD_MEMBER_UPDATE')).d).toMatchObject({ roles: [] });
    // Lifting the timeout: null.
    const lifted = await call(sb, 'PATCH', `/guilds/${g}/members/${plain}`, { communication_disabled_until: null });
    expect(lifted.body.communication_disabled_until).toBeNull();
  });

  it('the role hierarchy: roles at or above the bot, the owner, managed roles and admins refuse with 50013', async () => {
    const { sb, g, owner, plain, admin, botRole } = await start({ moderator: true });
    // The bot's own role is the highest; it may not lift another role to or above it.
    const moved = await call(sb, 'PATCH', `/guilds/${g}/roles`, [{ id: admin, position: 99 }]);
    expect(moved.status).toBe(403);
    expect((await call(sb, 'PUT', `/guilds/${g}/members/${plain}/roles/${botRole}`)).body).toEqual(MISSING_PERMISSIONS);
    expect((await call(sb, 'DELETE', `/guilds/${g}/members/${owner}`)).body).toEqual(MISSING_PERMISSIONS);
    expect((await call(sb, 'PATCH', `/guilds/${g}/members/${owner}`, { nick: 'x' })).body).toEqual(MISSING_PERMISSIONS);
    // User 0 owns the guild and has Admin: no timeout for either reason.
    expect((await call(sb, 'PATCH', `/guilds/${g}/members/${owner}`, { communication_disabled_until: new Date(Date.now() + 1000).toISOString() })).status).toBe(403);
    // A timeout more than 28 days ahead is a form error; voice changes need a member in voice (nobody is).
    const far = await call(sb, 'PATCH', `/guilds/${g}/members/${plain}`, { communication_disabled_until: new Date(Date.now() + 29 * 86_400_000).toISOString() });
    expect([far.status, far.body.code]).toEqual([400, 50035]);
    const mute = await call(sb, 'PATCH', `/guilds/${g}/members/${plain}`, { mute: true });
    expect([mute.status, mute.body]).toEqual([400, { message: 'Target user is not connected to voice', code: 40032 }]);
  });

  it('kick: 204, GUILD_MEMBER_REMOVE, then 10007', async () => {
    const { sb, g, plain } = await start({ moderator: true });
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    expect((await call(sb, 'DELETE', `/guilds/${g}/members/${plain}`)).status).toBe(204);
    expect((await client.nextDispatch('GUILD_MEMBER_REMOVE')).d).toMatchObject({ guild_id: g, user: { id: plain } });
    expect((await call(sb, 'GET', `/guilds/${g}/members/${plain}`)).body).toEqual({ message: 'Unknown Member', code: 10007 });
  });
});

describe('roles', () => {
  it('create, modify, reorder, delete with GUILD_ROLE_* events; only bits the bot holds', async () => {
    const { sb, g, plain } = await start({ moderator: true });
    const client = await connect(sb, GUILDS);
    const created = await call(sb, 'POST', `/guilds/${g}/roles`, { name: 'Muted', color: 0x123456, permissions: '0' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'Muted', color: 0x123456, position: 1, permissions: '0', managed: false, hoist: false, mentionable: false });
    expect(created.body.tags).toBeUndefined();
    // Positions stay distinct: every other role moved up one.
    const positions = ((await call(sb, 'GET', `/guilds/${g}/roles`)).body as Array<{ position: number }>).map((r) => r.position);
    expect(new Set(positions).size).toBe(positions.length);
    const id = created.body.id as string;
    expect((await client.nextDispatch('GUILD_ROLE_CREATE')).d).toMatchObject({ guild_id: g, role: { id, name: 'Muted' } });
    // ADMINISTRATOR is not the bot's to give.
    expect((await call(sb, 'POST', `/guilds/${g}/roles`, { permissions: '8' })).body).toEqual(MISSING_PERMISSIONS);
    const defaults = await call(sb, 'POST', `/guilds/${g}/roles`, {});
    expect(defaults.body).toMatchObject({ name: 'new role' });

    const edited = await call(sb, 'PATCH', `/guilds/${g}/roles/${id}`, { name: 'Silenced', hoist: true });
    expect(edited.body).toMatchObject({ id, name: 'Silenced', hoist: true, color: 0x123456 });
    // Creating roles moved the others up (a GUILD_ROLE_UPDATE each, this one too) before this edit's own update.
    const own = await client.next((p) => p.t === 'GUILD_ROLE_UPDATE' && (p.d as { role: { name: string } }).role.name === 'Silenced');
    expect(own.d).toMatchObject({ guild_id: g, role: { id, name: 'Silenced' } });
    const moved = await call(sb, 'PATCH', `/guilds/${g}/roles`, [{ id, position: 2 }]);
    expect(moved.status).toBe(200);
    expect(moved.body.find((r: { id: string }) => r.id === id).position).toBe(2);

    await call(sb, 'PUT', `/guilds/${g}/members/${plain}/roles/${id}`);
    expect((await call(sb, 'DELETE', `/guilds/${g}/roles/${id}`)).status).toBe(204);
    expect((await client.nextDispatch('GUILD_ROLE_DELETE')).d).toEqual({ guild_id: g, role_id: id });
    expect((await call(sb, 'GET', `/guilds/${g}/members/${plain}`)).body.roles).toEqual([]);
    expect((await call(sb, 'GET', `/guilds/${g}/roles/${id}`)).body).toEqual({ message: 'Unknown Role', code: 10011 });
    expect((await call(sb, 'DELETE', `/guilds/${g}/roles/${g}`)).body).toEqual({ message: 'Invalid Role', code: 50028 });
  });
});

describe('bans', () => {
  it('ban a member: 204, GUILD_BAN_ADD then GUILD_MEMBER_REMOVE, reason from the audit-log header', async () => {
    const { sb, g, plain } = await start({ moderator: true });
    const client = await connect(sb, GUILDS | GUILD_MEMBERS | GUILD_MODERATION);
    const r = await call(sb, 'PUT', `/guilds/${g}/bans/${plain}`, { delete_message_seconds: 60 }, { 'x-audit-log-reason': encodeURIComponent('spam & more') });
    expect(r.status).toBe(204);
    const add = await client.nextDispatch('GUILD_BAN_ADD');
    expect(add.d).toMatchObject({ guild_id: g, user: { id: plain } });
    const remove = await client.nextDispatch('GUILD_MEMBER_REMOVE');
    expect(remove.s!).toBeGreaterThan(add.s!);
    const ban = await call(sb, 'GET', `/guilds/${g}/bans/${plain}`);
    expect(ban.body).toMatchObject({ reason: 'spam & more', user: { id: plain } });
    expect((await call(sb, 'GET', `/guilds/${g}/bans`)).body).toHaveLength(1);
    expect((await call(sb, 'DELETE', `/guilds/${g}/bans/${plain}`)).status).toBe(204);
    expect((await client.nextDispatch('GUILD_BAN_REMOVE')).d).toMatchObject({ guild_id: g, user: { id: plain } });
    expect((await call(sb, 'GET', `/guilds/${g}/bans/${plain}`)).body).toEqual({ message: 'Unknown Ban', code: 10026 });
    expect((await call(sb, 'DELETE', `/guilds/${g}/bans/${plain}`)).status).toBe(404);
    const bad = await call(sb, 'PUT', `/guilds/${g}/bans/${plain}`, { delete_message_seconds: 700_000 });
    expect([bad.status, bad.body.code]).toEqual([400, 50035]);
  });

  it('bulk-ban needs MANAGE_GUILD too; banned and failed users; 500000 when none', async () => {
    const { sb, g, owner, plain } = await start({ moderator: true });
    const others = sb.state.memberIds(g).filter((id) => id !== sb.applicationId).slice(6, 9);
    const r = await call(sb, 'POST', `/guilds/${g}/bulk-ban`, { user_ids: [plain, owner, ...others] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ banned_users: [plain, ...others], failed_users: [owner] });
    const none = await call(sb, 'POST', `/guilds/${g}/bulk-ban`, { user_ids: [plain] });
    expect([none.status, none.body]).toEqual([400, { message: 'Failed to ban users', code: 500000 }]);
    const list = await call(sb, 'GET', `/guilds/${g}/bans?limit=2`);
    expect(list.body).toHaveLength(2);
  });
});
