/**
 * Channels, permission overwrites and threads in the sandbox: REST writes with the bot's permission checks (the
 * overwrites taking effect on its own requests), the CHANNEL_* / THREAD_* events with the state kept, and the
 * sandbox's own verbs (programmatic and admin API) that set the scene.
 */
import { describe, expect, it } from 'vitest';
import { api, botCall as call, useSandboxSuite } from './helpers.js';

const suite = useSandboxSuite();
const { connect } = suite;

const GUILDS = 1;
const GUILD_MEMBERS = 1 << 1;
const VIEW_CHANNEL = 1n << 10n;
const SEND_MESSAGES = 1n << 11n;
const MANAGE_ROLES = 1n << 28n;
const MANAGE_CHANNELS = 1n << 4n;
const THREADS = (1n << 34n) | (1n << 35n) | (1n << 36n) | (1n << 38n);

async function start() {
  const sb = await suite.start({ seed: { guilds: 1, membersPerGuild: 8 }, gateway: { identifyWindowMs: 0 } });
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  const botRole = roles[roles.length - 1]!;
  const general = sb.state.channelIds(g)[0]!;
  /** Give the bot's own role these bits besides what it has. */
  const grant = async (bits: bigint) => {
    const role = (await call(sb, 'GET', `/guilds/${g}/roles/${botRole}`)).body as { permissions: string };
    sb.state.channels.updateRole(g, botRole, { permissions: (BigInt(role.permissions) | bits).toString() });
  };
  const members = sb.state.memberIds(g).filter((id) => id !== sb.applicationId);
  return { sb, g, botRole, general, grant, plain: members[4]! };
}

const MISSING_PERMISSIONS = { message: 'Missing Permissions', code: 50013 };
const MISSING_ACCESS = { message: 'Missing Access', code: 50001 };

describe('channels and overwrites', () => {
  it('create, modify, delete: MANAGE_CHANNELS, 201 / 200, CHANNEL_CREATE / UPDATE / DELETE', async () => {
    const { sb, g, grant } = await start();
    const client = await connect(sb, GUILDS);
    expect((await call(sb, 'POST', `/guilds/${g}/channels`, { name: 'logs' })).body).toEqual(MISSING_PERMISSIONS);
    await grant(MANAGE_CHANNELS);
    const created = await call(sb, 'POST', `/guilds/${g}/channels`, { name: 'logs', topic: 'what happened' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 0, name: 'logs', topic: 'what happened', guild_id: g, permission_overwrites: [], rate_limit_per_user: 0 });
    const id = created.body.id as string;
    expect((await client.nextDispatch('CHANNEL_CREATE')).d).toMatchObject({ id, name: 'logs', guild_id: g });
    const edited = await call(sb, 'PATCH', `/channels/${id}`, { name: 'mod-log', rate_limit_per_user: 5 });
    expect(edited.body).toMatchObject({ id, name: 'mod-log', rate_limit_per_user: 5, topic: 'what happened' });
    expect((await client.nextDispatch('CHANNEL_UPDATE')).d).toMatchObject({ id, name: 'mod-log' });
    const bad = await call(sb, 'POST', `/guilds/${g}/channels`, { type: 99 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['type']);
    const deleted = await call(sb, 'DELETE', `/channels/${id}`);
    expect([deleted.status, deleted.body.name]).toEqual([200, 'mod-log']);
    expect((await client.nextDispatch('CHANNEL_DELETE')).d).toMatchObject({ id });
    expect((await call(sb, 'GET', `/channels/${id}`)).body).toEqual({ message: 'Unknown Channel', code: 10003 });
  });

  it('overwrites take effect on the bot: a hidden channel is 50001, a muted one 50013; PUT / DELETE need MANAGE_ROLES', async () => {
    const { sb, g, botRole, general, grant } = await start();
    const client = await connect(sb, GUILDS);
    expect((await call(sb, 'PUT', `/channels/${general}/permissions/${g}`, { type: 0, deny: SEND_MESSAGES.toString() })).body).toEqual(MISSING_PERMISSIONS);
    await grant(MANAGE_ROLES);
    const put = await call(sb, 'PUT', `/channels/${general}/permissions/${g}`, { type: 0, deny: SEND_MESSAGES.toString() });
    expect(put.status).toBe(204);
    const update = await client.nextDispatch('CHANNEL_UPDATE');
    expect(update.d).toMatchObject({ id: general, permission_overwrites: [{ id: g, type: 0, allow: '0', deny: SEND_MESSAGES.toString() }] });
    expect((await call(sb, 'POST', `/channels/${general}/messages`, { content: 'hi' })).body).toEqual(MISSING_PERMISSIONS);
    // The bot's role overwrite comes after @everyone's and gives the bit back.
    await call(sb, 'PUT', `/channels/${general}/permissions/${botRole}`, { type: 0, allow: SEND_MESSAGES.toString() });
    expect((await call(sb, 'POST', `/channels/${general}/messages`, { content: 'hi' })).status).toBe(200);
    // Only bits the bot holds may be given.
    expect((await call(sb, 'PUT', `/channels/${general}/permissions/${g}`, { type: 0, allow: '8' })).body).toEqual(MISSING_PERMISSIONS);
    // Hidden from the bot's role: nothing is visible.
    sb.state.channels.setOverwrite(general, { id: botRole, type: 0, deny: VIEW_CHANNEL.toString() });
    expect((await call(sb, 'GET', `/channels/${general}`)).body).toEqual(MISSING_ACCESS);
    sb.state.channels.deleteOverwrite(general, botRole);
    expect((await call(sb, 'DELETE', `/channels/${general}/permissions/${g}`)).status).toBe(204);
    expect((await call(sb, 'GET', `/channels/${general}`)).body.permission_overwrites).toEqual([]);
    expect((await call(sb, 'DELETE', `/channels/${general}/permissions/${g}`)).body).toEqual({ message: 'Unknown Overwrite', code: 10009 });
  });
});

describe('threads', () => {
  it('from a message and without one; members; archive; lists; delete, each with its THREAD_* event', async () => {
    const { sb, g, general, grant, plain } = await start();
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    const msg = (await call(sb, 'POST', `/channels/${general}/messages`, { content: 'topic' })).body as { id: string };
    expect((await call(sb, 'POST', `/channels/${general}/messages/${msg.id}/threads`, { name: 't' })).body).toEqual(MISSING_PERMISSIONS);
    await grant(THREADS);
    const t = await call(sb, 'POST', `/channels/${general}/messages/${msg.id}/threads`, { name: 'discussion', auto_archive_duration: 60 });
    expect(t.status).toBe(201);
    expect(t.body).toMatchObject({ id: msg.id, type: 11, parent_id: general, owner_id: sb.applicationId, thread_metadata: { archived: false, auto_archive_duration: 60, locked: false } });
    expect((await client.nextDispatch('THREAD_CREATE')).d).toMatchObject({ id: msg.id, newly_created: true });
    expect((await client.nextDispatch('THREAD_MEMBER_UPDATE')).d).toMatchObject({ id: msg.id, user_id: sb.applicationId, guild_id: g });
    const again = await call(sb, 'POST', `/channels/${general}/messages/${msg.id}/threads`, { name: 'again' });
    expect(again.body).toEqual({ message: 'A thread has already been created for this message', code: 160004 });
    expect((await call(sb, 'GET', `/channels/${general}/messages/${msg.id}`)).body.thread).toMatchObject({ id: msg.id });

    expect((await call(sb, 'POST', `/channels/${msg.id}/messages`, { content: 'in the thread' })).status).toBe(200);
    expect((await call(sb, 'PUT', `/channels/${msg.id}/thread-members/${plain}`)).status).toBe(204);
    const added = await client.nextDispatch('THREAD_MEMBERS_UPDATE');
    expect(added.d).toMatchObject({ id: msg.id, added_members: [{ user_id: sb.applicationId }] });
    const members = await call(sb, 'GET', `/channels/${msg.id}/thread-members`);
    expect(members.body.map((m: { user_id: string }) => m.user_id).sort()).toEqual([sb.applicationId, plain].sort());

    const privateThread = await call(sb, 'POST', `/channels/${general}/threads`, { name: 'staff' });
    expect(privateThread.body).toMatchObject({ type: 12, thread_metadata: { invitable: true } });
    expect((await call(sb, 'GET', `/guilds/${g}/threads/active`)).body.threads).toHaveLength(2);

    const archived = await call(sb, 'PATCH', `/channels/${msg.id}`, { archived: true });
    expect(archived.body.thread_metadata.archived).toBe(true);
    expect((await client.nextDispatch('THREAD_UPDATE')).d).toMatchObject({ id: msg.id, thread_metadata: { archived: true } });
    expect((await call(sb, 'PUT', `/channels/${msg.id}/thread-members/${plain}`)).body).toEqual({ message: 'Thread is archived', code: 50083 });
    const publicArchive = await call(sb, 'GET', `/channels/${general}/threads/archived/public`);
    expect(publicArchive.body).toMatchObject({ threads: [{ id: msg.id }], has_more: false, members: [{ user_id: sb.applicationId }] });
    expect((await call(sb, 'GET', `/guilds/${g}/threads/active`)).body.threads).toHaveLength(1);

    expect((await call(sb, 'DELETE', `/channels/${msg.id}`)).status).toBe(200);
    expect((await client.nextDispatch('THREAD_DELETE')).d).toEqual({ id: msg.id, guild_id: g, parent_id: general, type: 11 });
  });
});

describe('the sandbox verbs (issue 29)', () => {
  it('admin API: channels, overwrites, threads and members, roles, with their events', async () => {
    const { sb, g, plain, botRole } = await start();
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    const admin = (method: string, path: string, body?: unknown) => api(sb.adminUrl, method, path, body === undefined ? {} : { body });
    const made = await admin('POST', `/guilds/${g}/channels`, { name: 'rules', overwrites: [{ id: g, type: 0, deny: VIEW_CHANNEL.toString() }] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'rules', permission_overwrites: [{ id: g, type: 0, deny: '1024' }] });
    expect((await client.nextDispatch('CHANNEL_CREATE')).d).toMatchObject({ name: 'rules' });
    // @everyone's overwrite applies to everything the roles give: the bot's role needs an overwrite of its own.
    expect((await call(sb, 'GET', `/channels/${made.body.id}`)).body).toEqual(MISSING_ACCESS);
    expect((await admin('PUT', `/channels/${made.body.id}/overwrites/${botRole}`, { type: 0, allow: '1024' })).status).toBe(204);
    expect((await call(sb, 'GET', `/channels/${made.body.id}`)).status).toBe(200);
    const thread = await admin('POST', `/channels/${sb.state.channelIds(g)[0]!}/threads`, { name: 'help', ownerId: plain });
    expect(thread.body).toMatchObject({ name: 'help', owner_id: plain, type: 11 });
    expect((await client.nextDispatch('THREAD_CREATE')).d).toMatchObject({ owner_id: plain });
    expect((await admin('PUT', `/channels/${thread.body.id}/members/${sb.applicationId}`)).status).toBe(204);
    expect((await client.nextDispatch('THREAD_MEMBER_UPDATE')).d).toMatchObject({ user_id: sb.applicationId });
    expect((await admin('PATCH', `/channels/${thread.body.id}`, { locked: true })).body.thread_metadata.locked).toBe(true);
    expect((await admin('PATCH', `/guilds/${g}/roles/${botRole}`, { name: 'Renamed' })).body.name).toBe('Renamed');
    expect((await client.nextDispatch('GUILD_ROLE_UPDATE')).d).toMatchObject({ role: { id: botRole, name: 'Renamed' } });
    expect((await admin('DELETE', `/channels/${made.body.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/channels/${made.body.id}`)).status).toBe(404);
    expect((await admin('POST', `/guilds/${g}/channels`, {})).status).toBe(400);
  });
});
