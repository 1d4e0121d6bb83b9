/**
 * REST reads of users, guilds and channels from the sandbox's state, and the bot's own writes (messages in
 * guild channels and DMs, its username, nick and application), with the service's error codes and dispatches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 15 }, ...options, gateway: { identifyWindowMs: 0, ...options.gateway } });
  sandboxes.push(sb);
  return sb;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const GUILDS = 1;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MESSAGES = 1 << 9;
const DIRECT_MESSAGES = 1 << 12;

async function connect(sb: Sandbox, intents: number) {
  const r = await identified(sb.gatewayUrl, sb.botToken, { intents });
  clients.push(r.client);
  return r.client;
}

function call(sb: Sandbox, method: string, path: string, body?: unknown) {
  return api(sb.restUrl, method, path, { token: sb.botToken, ...(body !== undefined ? { body } : {}) });
}

function firstText(sb: Sandbox, guildId: string): Promise<string> {
  return call(sb, 'GET', `/guilds/${guildId}/channels`).then((r) => (r.body as Array<{ id: string; type: number }>).find((c) => c.type === 0)!.id);
}

describe('users', () => {
  it('GET /users/{id}: a user object; 10013 for nobody; 50035 for an id that is not a snowflake', async () => {
    const sb = await start();
    const g = sb.state.guildIds[0]!;
    const someone = sb.state.memberIds(g)[3]!;
    const ok = await call(sb, 'GET', `/users/${someone}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: someone, discriminator: '0', avatar: null });
    expect(ok.body.bot).toBeUndefined();
    const nobody = await call(sb, 'GET', '/users/123456789012345678');
    expect([nobody.status, nobody.body]).toEqual([404, { message: 'Unknown User', code: 10013 }]);
    const bad = await call(sb, 'GET', '/users/abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 50035, message: 'Invalid Form Body', errors: { user_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value "abc" is not snowflake.' }] } } });
  });

  it('PATCH /users/@me changes the bot username everywhere and fires USER_UPDATE; 2-32 characters', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const client = await connect(sb, GUILDS);
    const r = await call(sb, 'PATCH', '/users/@me', { username: 'renamed-bot' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: sb.applicationId, username: 'renamed-bot', bot: true });
    const update = await client.nextDispatch('USER_UPDATE');
    expect(update.d).toMatchObject({ id: sb.applicationId, username: 'renamed-bot' });
    expect((await call(sb, 'GET', '/users/@me')).body.username).toBe('renamed-bot');
    const member = await call(sb, 'GET', `/guilds/${sb.state.guildIds[0]!}/members/${sb.applicationId}`);
    expect(member.body.user.username).toBe('renamed-bot');
    const short = await call(sb, 'PATCH', '/users/@me', { username: 'x' });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual({ username: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 2 and 32 in length.' }] } });
  });

  it('GET /users/@me/guilds: partial guilds with banner, permissions, paging and counts; bearer needs guilds', async () => {
    const sb = await start({ seed: { guilds: 5, membersPerGuild: 15 } });
    const all = await call(sb, 'GET', '/users/@me/guilds');
    expect(all.status).toBe(200);
    const ids = (all.body as Array<{ id: string }>).map((g) => g.id);
    expect(ids).toEqual([...sb.state.guildIds].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    expect(all.body[0]).toEqual({ id: ids[0], name: expect.any(String), icon: null, banner: null, owner: false, permissions: expect.stringMatching(/^\d+$/), features: [] });
    const page = await call(sb, 'GET', `/users/@me/guilds?limit=2&after=${ids[1]!}&with_counts=true`);
    expect((page.body as Array<{ id: string }>).map((g) => g.id)).toEqual(ids.slice(2, 4));
    expect(page.body[0]).toMatchObject({ approximate_member_count: 16, approximate_presence_count: 0 });
    const before = await call(sb, 'GET', `/users/@me/guilds?limit=2&before=${ids[4]!}`);
    expect((before.body as Array<{ id: string }>).map((g) => g.id)).toEqual(ids.slice(2, 4));
    expect((await call(sb, 'GET', '/users/@me/guilds?limit=0')).status).toBe(400);
    // A user's own guilds with the guilds scope: the owner (user 0) is in every guild, a regular in one.
    const owner = sb.state.memberIds(sb.state.guildIds[0]!)[1]!;
    const mine = await api(sb.restUrl, 'GET', '/users/@me/guilds', { bearer: sb.issueBearerToken(['guilds'], owner) });
    expect(mine.body).toHaveLength(5);
    expect(mine.body[0]).toMatchObject({ owner: true });
    const loner = sb.state.memberIds(sb.state.guildIds[2]!).at(-1)!;
    const theirs = await api(sb.restUrl, 'GET', '/users/@me/guilds', { bearer: sb.issueBearerToken(['guilds'], loner) });
    expect((theirs.body as Array<{ id: string }>).map((g) => g.id)).toEqual([sb.state.guildIds[2]]);
    expect((await api(sb.restUrl, 'GET', '/users/@me/guilds', { bearer: sb.issueBearerToken(['identify']) })).status).toBe(401);
  });
});

describe('guilds', () => {
  it('guild, roles, one role, channels; 10004 / 10011 for unknown ids', async () => {
    const sb = await start();
    const g = sb.state.guildIds[0]!;
    const guild = await call(sb, 'GET', `/guilds/${g}?with_counts=true`);
    expect(guild.status).toBe(200);
    expect(guild.body).toMatchObject({ id: g, approximate_member_count: 16, approximate_presence_count: 0 });
    expect(guild.body.roles[0].id).toBe(g);
    expect((await call(sb, 'GET', `/guilds/${g}`)).body.approximate_member_count).toBeUndefined();
    const roles = await call(sb, 'GET', `/guilds/${g}/roles`);
    expect(roles.body).toEqual(guild.body.roles);
    const role = await call(sb, 'GET', `/guilds/${g}/roles/${roles.body[1].id}`);
    expect(role.body).toEqual(roles.body[1]);
    expect((await call(sb, 'GET', `/guilds/${g}/roles/123456789012345678`)).body).toEqual({ message: 'Unknown Role', code: 10011 });
    const channels = await call(sb, 'GET', `/guilds/${g}/channels`);
    expect(channels.body.map((c: { type: number }) => c.type)).toEqual([0, 0, 2]);
    expect(channels.body[0]).toMatchObject({ guild_id: g, name: 'general', last_message_id: null });
    expect((await call(sb, 'GET', '/guilds/123456789012345678')).body).toEqual({ message: 'Unknown Guild', code: 10004 });
  });

  it('a member; 10007 for a user of another guild, 10013 for nobody', async () => {
    const sb = await start();
    const [g1, g2] = sb.state.guildIds as [string, string];
    const own = sb.state.memberIds(g1)[2]!;
    const m = await call(sb, 'GET', `/guilds/${g1}/members/${own}`);
    expect(m.status).toBe(200);
    expect(m.body).toMatchObject({ user: { id: own }, roles: expect.any(Array), deaf: false, mute: false });
    const other = sb.state.memberIds(g2).at(-1)!;
    expect((await call(sb, 'GET', `/guilds/${g1}/members/${other}`)).body).toEqual({ message: 'Unknown Member', code: 10007 });
    expect((await call(sb, 'GET', `/guilds/${g1}/members/123456789012345678`)).body).toEqual({ message: 'Unknown User', code: 10013 });
  });

  it('the member list: limit (default 1, at most 1000), after; needs GUILD_MEMBERS enabled (50001)', async () => {
    const sb = await start();
    const g = sb.state.guildIds[0]!;
    const sorted = sb.state.memberIds(g).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const one = await call(sb, 'GET', `/guilds/${g}/members`);
    expect(one.body.map((m: { user: { id: string } }) => m.user.id)).toEqual(sorted.slice(0, 1));
    const page = await call(sb, 'GET', `/guilds/${g}/members?limit=5&after=${sorted[4]!}`);
    expect(page.body.map((m: { user: { id: string } }) => m.user.id)).toEqual(sorted.slice(5, 10));
    const big = await call(sb, 'GET', `/guilds/${g}/members?limit=1001`);
    expect(big.status).toBe(400);
    expect(Object.keys(big.body.errors)).toEqual(['limit']);
    const locked = await start({ gateway: { allowedIntents: 1 } });
    expect((await call(locked, 'GET', `/guilds/${locked.state.guildIds[0]!}/members`)).body).toEqual({ message: 'Missing Access', code: 50001 });
  });

  it('PATCH /guilds/{id}/members/@me (also as %40me) sets the bot nick and fires GUILD_MEMBER_UPDATE', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const g = sb.state.guildIds[0]!;
    const client = await connect(sb, GUILDS);
    const r = await call(sb, 'PATCH', `/guilds/${g}/members/%40me`, { nick: 'Sandy' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ nick: 'Sandy', user: { id: sb.applicationId } });
    // About the bot's own member: delivered without GUILD_MEMBERS.
    expect((await client.nextDispatch('GUILD_MEMBER_UPDATE')).d).toMatchObject({ guild_id: g, nick: 'Sandy' });
    const avatar = await call(sb, 'PATCH', `/guilds/${g}/members/@me`, { avatar: 'data:image/png;base64,AAAA' });
    expect(avatar.status).toBe(501);
  });
});

describe('channel messages', () => {
  it('create, read, list, edit, delete in a guild channel, each dispatched with GUILD_MESSAGES and recorded', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const g = sb.state.guildIds[0]!;
    const channel = await firstText(sb, g);
    const client = await connect(sb, GUILDS | GUILD_MESSAGES);
    const deaf = await connect(sb, GUILDS);

    const sent = await call(sb, 'POST', `/channels/${channel}/messages`, { content: 'hello', nonce: 'n1' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ content: 'hello', channel_id: channel, type: 0, author: { id: sb.applicationId, bot: true }, nonce: 'n1', edited_timestamp: null });
    const created = await client.nextDispatch('MESSAGE_CREATE');
    expect(created.d).toMatchObject({ id: sent.body.id, guild_id: g, member: { roles: expect.any(Array) } });
    expect(sent.body.guild_id).toBeUndefined();

    const second = await call(sb, 'POST', `/channels/${channel}/messages`, { content: 'reply', message_reference: { message_id: sent.body.id } });
    expect(second.body).toMatchObject({ type: 19, message_reference: { message_id: sent.body.id, channel_id: channel, guild_id: g }, referenced_message: { id: sent.body.id } });
    expect((await call(sb, 'GET', `/channels/${channel}/messages/${sent.body.id}`)).body).toEqual(sent.body);
    const listed = await call(sb, 'GET', `/channels/${channel}/messages?limit=10`);
    expect(listed.body.map((m: { id: string }) => m.id)).toEqual([second.body.id, sent.body.id]);
    expect((await call(sb, 'GET', `/channels/${channel}/messages?after=${sent.body.id}`)).body.map((m: { id: string }) => m.id)).toEqual([second.body.id]);
    expect((await call(sb, 'GET', `/channels/${channel}`)).body.last_message_id).toBe(second.body.id);

    const edited = await call(sb, 'PATCH', `/channels/${channel}/messages/${sent.body.id}`, { content: 'hello, edited' });
    expect(edited.status).toBe(200);
    expect(edited.body.content).toBe('hello, edited');
    expect(edited.body.edited_timestamp).toEqual(expect.any(String));
    expect((await client.nextDispatch('MESSAGE_UPDATE')).d).toMatchObject({ id: sent.body.id, content: 'hello, edited', guild_id: g });
    const emptied = await call(sb, 'PATCH', `/channels/${channel}/messages/${sent.body.id}`, { content: '' });
    expect(emptied.body).toEqual({ message: 'Cannot send an empty message', code: 50006 });

    const del = await call(sb, 'DELETE', `/channels/${channel}/messages/${sent.body.id}`);
    expect(del.status).toBe(204);
    expect((await client.nextDispatch('MESSAGE_DELETE')).d).toEqual({ id: sent.body.id, channel_id: channel, guild_id: g });
    expect((await call(sb, 'GET', `/channels/${channel}/messages/${sent.body.id}`)).body).toEqual({ message: 'Unknown Message', code: 10008 });

    // Without GUILD_MESSAGES a session hears nothing of it.
    expect(deaf.dispatches().filter((p) => p.t!.startsWith('MESSAGE_'))).toEqual([]);
    // Recorded, the deleted one included, and readable back through the contract and the admin API.
    const records = sb.messages({ channelId: channel });
    expect(records.map((r) => [r.id, r.edits, r.deletedAt !== null])).toEqual([
      [sent.body.id, 1, true],
      [second.body.id, 0, false],
    ]);
    expect(records[0]!.message.content).toBe('hello, edited');
    const admin = await fetch(`${sb.adminUrl}/messages?guild_id=${g}`).then((r) => r.json() as Promise<Array<{ id: string }>>);
    expect(admin.map((r) => r.id)).toEqual([sent.body.id, second.body.id]);
  });

  it('spec §7 and §8 limits: 25 fields an embed, 5 action rows, 40 components with IS_COMPONENTS_V2', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 }, rest: { buckets: { 'messages.create': { limit: 100, windowMs: 1000 } } } });
    const channel = await firstText(sb, sb.state.guildIds[0]!);
    const fields = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    const button = (i: number): unknown => ({ type: 2, style: 1, label: `b${i}`, custom_id: `b${i}` });
    const rows = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ type: 1, components: [button(i)] }));
    const send = (body: unknown) => call(sb, 'POST', `/channels/${channel}/messages`, body);
    expect((await send({ embeds: [{ title: 'ok', fields: fields(25) }] })).status).toBe(200);
    const manyFields = await send({ embeds: [{ title: 'ok' }, { title: 'x', fields: fields(26) }] });
    expect(manyFields.body.errors).toEqual({ embeds: { 1: { fields: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' }] } } } });
    expect((await send({ content: 'x', components: rows(5) })).status).toBe(200);
    const sixRows = await send({ content: 'x', components: rows(6) });
    expect(sixRows.body.errors).toEqual({ components: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 5 or fewer in length.' }] } });
    // With IS_COMPONENTS_V2 the top level is not limited, the total is: 20 rows of one button are 40 components.
    const v2 = 1 << 15;
    const v2Message = await send({ flags: v2, components: rows(20) });
    expect(v2Message.status).toBe(200);
    // An edit that does not restate the flag edits a message that has it: 6 top-level rows are fine there.
    expect((await call(sb, 'PATCH', `/channels/${channel}/messages/${v2Message.body.id}`, { components: rows(6) })).status).toBe(200);
    expect((await send({ flags: v2, components: [...rows(20), { type: 10, content: 'one more' }] })).status).toBe(400);
    // Nested deeper than any layout allows counts as over, not as a stack overflow.
    let deep: unknown = { type: 10, content: 'x' };
    for (let i = 0; i < 1_000; i++) deep = { type: 17, components: [deep] };
    expect((await send({ flags: v2, components: [deep] })).status).toBe(400);
  });

  it('the service errors: 10003, 50006, content over 2000, unknown reply target, a voice channel is fine', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const g = sb.state.guildIds[0]!;
    const channel = await firstText(sb, g);
    expect((await call(sb, 'POST', '/channels/123456789012345678/messages', { content: 'x' })).body).toEqual({ message: 'Unknown Channel', code: 10003 });
    expect((await call(sb, 'POST', `/channels/${channel}/messages`, {})).body).toEqual({ message: 'Cannot send an empty message', code: 50006 });
    const long = await call(sb, 'POST', `/channels/${channel}/messages`, { content: 'x'.repeat(2001) });
    expect(long.body.errors).toEqual({ content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } });
    const reply = await call(sb, 'POST', `/channels/${channel}/messages`, { content: 'x', message_reference: { message_id: '123456789012345678' } });
    expect(reply.body.errors).toEqual({ message_reference: { _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' }] } });
    const lenient = await call(sb, 'POST', `/channels/${channel}/messages`, { content: 'x', message_reference: { message_id: '123456789012345678', fail_if_not_exists: false } });
    expect([lenient.status, lenient.body.type]).toEqual([200, 0]);
    const voice = (await call(sb, 'GET', `/guilds/${g}/channels`)).body.find((c: { type: number }) => c.type === 2).id;
    expect((await call(sb, 'POST', `/channels/${voice}/messages`, { content: 'in voice' })).status).toBe(200);
    expect((await call(sb, 'GET', `/channels/${channel}/messages?limit=101`)).status).toBe(400);
  });

  it('DMs: POST /users/@me/channels opens one channel per user; messages there go to shard 0 with DIRECT_MESSAGES', async () => {
    const sb = await start({ seed: { guilds: 2, membersPerGuild: 5 } });
    const user = sb.state.memberIds(sb.state.guildIds[1]!)[2]!;
    const shard0 = await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS | DIRECT_MESSAGES, shard: [0, 2] });
    const shard1 = await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS | DIRECT_MESSAGES, shard: [1, 2] });
    clients.push(shard0.client, shard1.client);
    const dm = await call(sb, 'POST', '/users/@me/channels', { recipient_id: user });
    expect(dm.status).toBe(200);
    expect(dm.body).toMatchObject({ type: 1, recipients: [{ id: user }], last_message_id: null });
    expect((await call(sb, 'POST', '/users/@me/channels', { recipient_id: user })).body.id).toBe(dm.body.id);
    const sent = await call(sb, 'POST', `/channels/${dm.body.id}/messages`, { content: 'psst' });
    expect(sent.status).toBe(200);
    const event = await shard0.client.nextDispatch('MESSAGE_CREATE');
    expect(event.d).toMatchObject({ id: sent.body.id, channel_id: dm.body.id, content: 'psst' });
    expect((event.d as { guild_id?: string }).guild_id).toBeUndefined();
    expect(shard1.client.dispatches('MESSAGE_CREATE')).toEqual([]);
    expect((await call(sb, 'GET', `/channels/${dm.body.id}`)).body.last_message_id).toBe(sent.body.id);
    expect(sb.messages({ channelId: dm.body.id })).toMatchObject([{ recipientId: user, guildId: null, message: { content: 'psst' } }]);
    expect((await call(sb, 'POST', '/users/@me/channels', { recipient_id: '123456789012345678' })).body).toEqual({ message: 'Invalid Recipient(s)', code: 50033 });
    const missing = await call(sb, 'POST', '/users/@me/channels', {});
    expect(missing.body.errors).toEqual({ recipient_id: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] } });
  });
});

/** A multipart body as clients send files: `payload_json` plus `files[n]` parts. */
function multipart(payload: unknown, files: Array<[string, string]>): FormData {
  const form = new FormData();
  form.append('payload_json', JSON.stringify(payload));
  files.forEach(([name, text], n) => form.append(`files[${n}]`, new Blob([text], { type: 'text/plain' }), name));
  return form;
}

describe('channel message attachments on edit', () => {
  const send = async (sb: Sandbox, method: string, path: string, form: FormData) => {
    const res = await fetch(`${sb.restUrl}${path}`, { method, headers: { authorization: `Bot ${sb.botToken}` }, body: form });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('files without `attachments` are added; `attachments` keeps what it names; an unknown id is 50035 and changes nothing', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const channel = await firstText(sb, sb.state.guildIds[0]!);
    const created = await send(sb, 'POST', `/channels/${channel}/messages`, multipart({ content: 'a' }, [['one.txt', '1']]));
    expect(created.status).toBe(200);
    const path = `/channels/${channel}/messages/${created.body.id}`;
    const one = created.body.attachments[0];

    // No `attachments` key: the message keeps its own and gains the upload.
    const added = await send(sb, 'PATCH', path, multipart({ content: 'b' }, [['two.txt', '22']]));
    expect(added.status).toBe(200);
    expect(added.body.attachments).toEqual([one, expect.objectContaining({ filename: 'two.txt', size: 2, url: expect.any(String), proxy_url: expect.any(String) })]);
    const two = added.body.attachments[1];

    // An id that is neither an attachment of the message nor an uploaded part is refused.
    const unknown = await send(sb, 'PATCH', path, multipart({ content: 'c', attachments: [{ id: one.id }, { id: '123456789012345678' }] }, []));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      message: 'Invalid Form Body',
      code: 50035,
      errors: { attachments: { 1: { _errors: [{ code: 'ATTACHMENT_NOT_FOUND', message: 'Attachment data not found' }] } } },
    });
    const noPart = await send(sb, 'PATCH', path, multipart({ attachments: [{ id: 0 }, { id: 1 }] }, [['three.txt', '333']]));
    expect(noPart.body.errors).toEqual({ attachments: { 1: { _errors: [{ code: 'ATTACHMENT_NOT_FOUND', message: 'Attachment data not found' }] } } });
    expect((await call(sb, 'GET', path)).body).toMatchObject({ content: 'b', attachments: [one, two] });

    // Listed: two kept (with a description), one dropped, the part `files[0]` (id 0) added.
    const kept = await send(sb, 'PATCH', path, multipart({ attachments: [{ id: two.id, description: 'the second' }, { id: 0 }] }, [['three.txt', '333']]));
    expect(kept.status).toBe(200);
    expect(kept.body.attachments).toEqual([{ ...two, description: 'the second' }, expect.objectContaining({ filename: 'three.txt', size: 3 })]);
    expect((await call(sb, 'GET', path)).body.attachments).toEqual(kept.body.attachments);
  });
});

describe('the application', () => {
  it('PATCH /applications/@me edits the given fields; limited intent flags switch the privileged intents', async () => {
    const sb = await start();
    const r = await call(sb, 'PATCH', '/applications/@me', { description: 'A better bot', tags: ['dice', 'fun'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: sb.applicationId, description: 'A better bot', tags: ['dice', 'fun'] });
    expect((await call(sb, 'GET', '/applications/@me')).body).toMatchObject({ description: 'A better bot', tags: ['dice', 'fun'] });
    // Clearing GATEWAY_GUILD_MEMBERS_LIMITED: IDENTIFY with GUILD_MEMBERS is now a disallowed intent (4014).
    const flags = (r.body.flags as number) & ~(1 << 15);
    expect((await call(sb, 'PATCH', '/applications/@me', { flags })).body.flags & (1 << 15)).toBe(0);
    const { RawGatewayClient } = await import('./helpers.js');
    const c = new RawGatewayClient(sb.gatewayUrl);
    clients.push(c);
    await c.next((p) => p.op === 10);
    c.identify(sb.botToken, { intents: GUILDS | GUILD_MEMBERS });
    expect((await c.closed).code).toBe(4014);
    const tooMany = await call(sb, 'PATCH', '/applications/@me', { tags: ['a', 'b', 'c', 'd', 'e', 'f'] });
    expect(tooMany.body.errors).toEqual({ tags: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 5 or fewer in length.' }] } });
    expect((await call(sb, 'GET', '/applications/@me')).body.tags).toEqual(['dice', 'fun']);
    // The endpoint URL is verified with a signed PING as the service does: nothing answers on port 1.
    const endpoint = await call(sb, 'PATCH', '/applications/@me', { interactions_endpoint_url: 'http://127.0.0.1:1/i' });
    expect(endpoint.status).toBe(400);
    expect(endpoint.body.errors).toMatchObject({
      interactions_endpoint_url: { _errors: [{ code: 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID' }] },
    });
    expect((await call(sb, 'GET', '/applications/@me')).body.interactions_endpoint_url).toBeNull();
  });
});
