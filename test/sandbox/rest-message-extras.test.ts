/**
 * Reactions, pins, bulk delete and polls on the bot's messages: the state kept, the MESSAGE_REACTION_*,
 * CHANNEL_PINS_UPDATE, MESSAGE_DELETE_BULK and MESSAGE_POLL_VOTE_* events, the bot's permission checks, and a
 * poll built as the service builds it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUCKETS, type Sandbox } from '../../src/sandbox/index.js';
import { botCall as call, useSandboxSuite } from './helpers.js';

const suite = useSandboxSuite();

const GUILDS = 1;
const GUILD_MESSAGES = 1 << 9;
const GUILD_MESSAGE_REACTIONS = 1 << 10;
const GUILD_MESSAGE_POLLS = 1 << 24;
const MANAGE_MESSAGES = 1n << 13n;
const PIN_MESSAGES = 1n << 51n;

async function start() {
  // Buckets wide enough that the test's bursts are not limited (limits are tested in rest-faults / general).
  const buckets = Object.fromEntries(Object.keys(DEFAULT_BUCKETS).map((n) => [n, { limit: 1000, windowMs: 1000 }]));
  const sb = await suite.start({ seed: { guilds: 1, membersPerGuild: 8 }, gateway: { identifyWindowMs: 0 }, rest: { buckets } });
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  const botRole = roles[roles.length - 1]!;
  const grant = async (bits: bigint) => {
    const role = (await call(sb, 'GET', `/guilds/${g}/roles/${botRole}`)).body as { permissions: string };
    sb.state.channels.updateRole(g, botRole, { permissions: (BigInt(role.permissions) | bits).toString() });
  };
  const members = sb.state.memberIds(g).filter((id) => id !== sb.applicationId);
  const client = await suite.connect(sb, GUILDS | GUILD_MESSAGES | GUILD_MESSAGE_REACTIONS | GUILD_MESSAGE_POLLS);
  return { sb, g, channel: sb.state.channelIds(g)[0]!, grant, client, alice: members[3]!, bob: members[4]! };
}

async function post(sb: Sandbox, channel: string, body: unknown): Promise<string> {
  const r = await call(sb, 'POST', `/channels/${channel}/messages`, body);
  expect(r.status).toBe(200);
  return r.body.id as string;
}

const MISSING_PERMISSIONS = { message: 'Missing Permissions', code: 50013 };

describe('reactions', () => {
  it('own and others\', listed, removed one by one, by emoji and all, each with its event', async () => {
    const { sb, g, channel, grant, client, alice, bob } = await start();
    const m = await post(sb, channel, { content: 'vote' });
    const base = `/channels/${channel}/messages/${m}/reactions`;
    const thumbs = encodeURIComponent('👍');
    expect((await call(sb, 'PUT', `${base}/${thumbs}/@me`)).status).toBe(204);
    expect((await client.nextDispatch('MESSAGE_REACTION_ADD')).d).toMatchObject({ user_id: sb.applicationId, message_id: m, channel_id: channel, guild_id: g, emoji: { id: null, name: '👍' }, message_author_id: sb.applicationId });
    sb.state.channels.react(channel, m, alice, '👍');
    sb.state.channels.react(channel, m, bob, '🎉');
    expect((await client.nextDispatch('MESSAGE_REACTION_ADD')).d).toMatchObject({ user_id: alice, member: { user: { id: alice } } });
    const message = (await call(sb, 'GET', `/channels/${channel}/messages/${m}`)).body;
    expect(message.reactions).toEqual([
      { count: 2, count_details: { burst: 0, normal: 2 }, me: true, me_burst: false, emoji: { id: null, name: '👍' }, burst_colors: [] },
      { count: 1, count_details: { burst: 0, normal: 1 }, me: false, me_burst: false, emoji: { id: null, name: '🎉' }, burst_colors: [] },
    ]);
    const users = await call(sb, 'GET', `${base}/${thumbs}`);
    expect(users.body.map((u: { id: string }) => u.id).sort()).toEqual([sb.applicationId, alice].sort());
    expect((await call(sb, 'PUT', `${base}/${encodeURIComponent('party:123456789012345678')}/@me`)).body).toEqual({ message: 'Unknown Emoji', code: 10014 });
    // Others' reactions need MANAGE_MESSAGES.
    expect((await call(sb, 'DELETE', `${base}/${thumbs}/${alice}`)).body).toEqual(MISSING_PERMISSIONS);
    await grant(MANAGE_MESSAGES);
    expect((await call(sb, 'DELETE', `${base}/${thumbs}/${alice}`)).status).toBe(204);
    expect((await client.nextDispatch('MESSAGE_REACTION_REMOVE')).d).toMatchObject({ user_id: alice, emoji: { name: '👍' } });
    expect((await call(sb, 'DELETE', `${base}/${encodeURIComponent('🎉')}`)).status).toBe(204);
    expect((await client.nextDispatch('MESSAGE_REACTION_REMOVE_EMOJI')).d).toEqual({ channel_id: channel, message_id: m, guild_id: g, emoji: { id: null, name: '🎉' } });
    expect((await call(sb, 'DELETE', base)).status).toBe(204);
    expect((await client.nextDispatch('MESSAGE_REACTION_REMOVE_ALL')).d).toEqual({ channel_id: channel, message_id: m, guild_id: g });
    expect((await call(sb, 'GET', `/channels/${channel}/messages/${m}`)).body.reactions).toBeUndefined();
  });
});

describe('pins and bulk delete', () => {
  it('pin needs PIN_MESSAGES; CHANNEL_PINS_UPDATE and the system message; both lists; unpin', async () => {
    const { sb, g, channel, grant, client } = await start();
    const m = await post(sb, channel, { content: 'rules' });
    expect((await call(sb, 'PUT', `/channels/${channel}/messages/pins/${m}`)).body).toEqual(MISSING_PERMISSIONS);
    await grant(PIN_MESSAGES);
    expect((await call(sb, 'PUT', `/channels/${channel}/messages/pins/${m}`)).status).toBe(204);
    const update = await client.nextDispatch('CHANNEL_PINS_UPDATE');
    expect(update.d).toMatchObject({ channel_id: channel, guild_id: g });
    const notice = await client.next((p) => p.t === 'MESSAGE_CREATE' && (p.d as { type: number }).type === 6);
    expect(notice.d).toMatchObject({ message_reference: { message_id: m } });
    const list = await call(sb, 'GET', `/channels/${channel}/messages/pins`);
    expect(list.body).toMatchObject({ items: [{ message: { id: m, pinned: true } }], has_more: false });
    expect((await call(sb, 'GET', `/channels/${channel}/pins`)).body.map((x: { id: string }) => x.id)).toEqual([m]);
    expect((await call(sb, 'DELETE', `/channels/${channel}/pins/${m}`)).status).toBe(204);
    expect((await client.nextDispatch('CHANNEL_PINS_UPDATE')).d).toMatchObject({ last_pin_timestamp: null });
    expect((await call(sb, 'GET', `/channels/${channel}/messages/${m}`)).body.pinned).toBe(false);
  });

  it('bulk delete: MANAGE_MESSAGES, 2-100 ids, MESSAGE_DELETE_BULK, old ids 50034', async () => {
    const { sb, g, channel, grant, client } = await start();
    const ids = [await post(sb, channel, { content: 'a' }), await post(sb, channel, { content: 'b' })];
    expect((await call(sb, 'POST', `/channels/${channel}/messages/bulk-delete`, { messages: ids })).body).toEqual(MISSING_PERMISSIONS);
    await grant(MANAGE_MESSAGES);
    expect((await call(sb, 'POST', `/channels/${channel}/messages/bulk-delete`, { messages: [ids[0]] })).status).toBe(400);
    const old = ((BigInt(Date.now() - 15 * 86_400_000 - 1_420_070_400_000)) << 22n).toString();
    expect((await call(sb, 'POST', `/channels/${channel}/messages/bulk-delete`, { messages: [ids[0], old] })).body.code).toBe(50034);
    expect((await call(sb, 'POST', `/channels/${channel}/messages/bulk-delete`, { messages: ids })).status).toBe(204);
    expect((await client.nextDispatch('MESSAGE_DELETE_BULK')).d).toEqual({ ids, channel_id: channel, guild_id: g });
    expect((await call(sb, 'GET', `/channels/${channel}/messages`)).body).toEqual([]);
  });

  it('typing: 204 and TYPING_START with the bot as the typer', async () => {
    const { sb, g, channel } = await start();
    const typingClient = await suite.connect(sb, GUILDS | (1 << 11));
    expect((await call(sb, 'POST', `/channels/${channel}/typing`)).status).toBe(204);
    expect((await typingClient.nextDispatch('TYPING_START')).d).toMatchObject({ channel_id: channel, guild_id: g, user_id: sb.applicationId, member: { user: { id: sb.applicationId } } });
  });
});

describe('polls', () => {
  it('built as the service builds it; votes change the results; ending it finalizes; voters listed', async () => {
    const { sb, channel, client, alice, bob } = await start();
    const m = await post(sb, channel, { poll: { question: { text: 'Lunch?' }, answers: [{ poll_media: { text: 'Pizza' } }, { poll_media: { text: 'Soup' } }], duration: 2 } });
    const created = (await call(sb, 'GET', `/channels/${channel}/messages/${m}`)).body;
    expect(created.poll).toMatchObject({ question: { text: 'Lunch?' }, answers: [{ answer_id: 1, poll_media: { text: 'Pizza' } }, { answer_id: 2 }], allow_multiselect: false, layout_type: 1, results: { is_finalized: false, answer_counts: [] } });
    expect(Date.parse(created.poll.expiry) - Date.now()).toBeGreaterThan(3_600_000);
    expect(created.poll.duration).toBeUndefined();
    sb.state.channels.vote(channel, m, alice, [1]);
    sb.state.channels.vote(channel, m, bob, [2]);
    expect((await client.nextDispatch('MESSAGE_POLL_VOTE_ADD')).d).toMatchObject({ user_id: alice, answer_id: 1, message_id: m });
    expect(() => sb.state.channels.vote(channel, m, alice, [1, 2])).toThrow(/one answer/);
    sb.state.channels.vote(channel, m, alice, [2]);
    expect((await client.nextDispatch('MESSAGE_POLL_VOTE_REMOVE')).d).toMatchObject({ user_id: alice, answer_id: 1 });
    const voters = await call(sb, 'GET', `/channels/${channel}/polls/${m}/answers/2`);
    expect(voters.body.users.map((u: { id: string }) => u.id).sort()).toEqual([alice, bob].sort());
    const ended = await call(sb, 'POST', `/channels/${channel}/polls/${m}/expire`);
    expect(ended.body.poll.results).toEqual({ is_finalized: true, answer_counts: [{ id: 2, count: 2, me_voted: false }] });
    expect((await client.nextDispatch('MESSAGE_UPDATE')).d).toMatchObject({ id: m, poll: { results: { is_finalized: true } } });
    expect((await call(sb, 'POST', `/channels/${channel}/polls/${m}/expire`)).body).toEqual({ message: 'Poll expired', code: 520001 });
    const plain = await post(sb, channel, { content: 'no poll' });
    expect((await call(sb, 'POST', `/channels/${channel}/polls/${plain}/expire`)).body).toEqual({ message: 'Cannot expire a non-poll message', code: 520006 });
  });
});
