/**
 * Incoming webhooks of the sandbox through gatehouse's REST client: create / list / get / modify / delete with the
 * bot's token (MANAGE_WEBHOOKS) and with the webhook's token (no auth, no `user`), name rules, WEBHOOKS_UPDATE
 * (GUILD_WEBHOOKS), executing (wait, thread_id) and the webhook's messages, which land in the channel
 * (MESSAGE_CREATE with webhook_id, the webhook as author). Interaction follow-ups on the same paths still answer
 * as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  createWebhook,
  deleteWebhook,
  deleteWebhookMessage,
  deleteWebhookWithToken,
  editWebhook,
  editWebhookMessage,
  editWebhookWithToken,
  executeWebhook,
  getWebhook,
  getWebhookMessage,
  getWebhookWithToken,
  listChannelWebhooks,
  listGuildWebhooks,
  RestClient,
} from '../../src/rest/index.js';
import { createSandbox, DEFAULT_BUCKETS, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const GUILDS = 1;
const GUILD_WEBHOOKS = 1 << 5;
const GUILD_MESSAGES = 1 << 9;
const MANAGE_WEBHOOKS = 1n << 29n;
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

async function start(intents = GUILDS | GUILD_WEBHOOKS | GUILD_MESSAGES) {
  const buckets = Object.fromEntries(Object.keys(DEFAULT_BUCKETS).map((n) => [n, { limit: 1000, windowMs: 1000 }]));
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 8 }, gateway: { identifyWindowMs: 0 }, rest: { buckets } });
  sandboxes.push(sb);
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  const botRole = roles[roles.length - 1]!;
  const grant = async (bits: bigint) => {
    const role = (await api(sb.restUrl, 'GET', `/guilds/${g}/roles/${botRole}`, { token: sb.botToken })).body as { permissions: string };
    sb.state.channels.updateRole(g, botRole, { permissions: (BigInt(role.permissions) | bits).toString() });
  };
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const client = (await identified(sb.gatewayUrl, sb.botToken, { intents })).client;
  clients.push(client);
  return { sb, g, channel: sb.state.channelIds(g)[0]!, other: sb.state.channelIds(g)[1]!, grant, rest, client };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('managing webhooks with the bot token', () => {
  it('needs MANAGE_WEBHOOKS: 403 / 50013 before, the webhook after, WEBHOOKS_UPDATE sent', async () => {
    const { sb, g, channel, grant, rest, client } = await start();
    const denied = await refusal(createWebhook(rest, channel, { name: 'Relay' }));
    expect([denied.status, denied.code]).toEqual([403, 50013]);
    expect((await refusal(listGuildWebhooks(rest, g))).code).toBe(50013);
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Relay', avatar: PNG }, { reason: 'bridge' });
    expect(hook).toMatchObject({ type: 1, name: 'Relay', channel_id: channel, guild_id: g, application_id: sb.applicationId, user: { id: sb.applicationId } });
    expect(hook.avatar).toMatch(/^[0-9a-f]{32}$/);
    expect(hook.token).toMatch(/^[A-Za-z0-9_-]{68}$/);
    expect(hook.url).toBe(`${sb.restUrl}/webhooks/${hook.id}/${hook.token}`);
    expect((await client.nextDispatch('WEBHOOKS_UPDATE')).d).toEqual({ guild_id: g, channel_id: channel });
    expect((await listChannelWebhooks(rest, channel)).map((w) => w.id)).toEqual([hook.id]);
    expect((await listGuildWebhooks(rest, g)).map((w) => w.id)).toEqual([hook.id]);
    expect(await getWebhook(rest, hook.id)).toEqual(hook);
  });

  it('refuses bad names: missing, over 80, containing clyde or discord in any case', async () => {
    const { channel, grant, rest } = await start();
    await grant(MANAGE_WEBHOOKS);
    const missing = await refusal(createWebhook(rest, channel, {} as { name: string }));
    expect(missing.fieldErrors).toEqual([{ path: 'name', code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }]);
    const long = await refusal(createWebhook(rest, channel, { name: 'x'.repeat(81) }));
    expect(long.fieldErrors[0]!.code).toBe('BASE_TYPE_BAD_LENGTH');
    for (const [name, part] of [['ClydeBot', 'clyde'], ['my DISCORD relay', 'discord']] as const) {
      const bad = await refusal(createWebhook(rest, channel, { name }));
      expect([bad.status, bad.code]).toEqual([400, 50035]);
      expect(bad.fieldErrors).toEqual([{ path: 'name', code: 'USERNAME_INVALID_CONTAINS', message: `Username cannot contain "${part}"` }]);
    }
    const avatar = await refusal(createWebhook(rest, channel, { name: 'ok', avatar: 'not an image' }));
    expect(avatar.fieldErrors[0]!.path).toBe('avatar');
    expect(await listChannelWebhooks(rest, channel)).toEqual([]);
  });

  it('modifies (name, avatar, move to another channel) and deletes, each with WEBHOOKS_UPDATE', async () => {
    const { g, channel, other, grant, rest, client } = await start();
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Relay' });
    await client.nextDispatch('WEBHOOKS_UPDATE');
    const moved = await editWebhook(rest, hook.id, { name: 'Mover', avatar: null, channel_id: other });
    expect(moved).toMatchObject({ id: hook.id, name: 'Mover', avatar: null, channel_id: other });
    const events = [await client.nextDispatch('WEBHOOKS_UPDATE'), await client.nextDispatch('WEBHOOKS_UPDATE')].map((p) => p.d);
    expect(events).toEqual(expect.arrayContaining([{ guild_id: g, channel_id: other }, { guild_id: g, channel_id: channel }]));
    expect(await listChannelWebhooks(rest, channel)).toEqual([]);
    const badMove = await refusal(editWebhook(rest, hook.id, { channel_id: '100000000000000001' }));
    expect([badMove.status, badMove.code]).toEqual([404, 10003]);
    await deleteWebhook(rest, hook.id);
    expect((await client.nextDispatch('WEBHOOKS_UPDATE')).d).toEqual({ guild_id: g, channel_id: other });
    const gone = await refusal(getWebhook(rest, hook.id));
    expect([gone.status, gone.code]).toEqual([404, 10015]);
  });

  it('15 per channel (400 / 30007); a deleted channel takes its webhooks with it', async () => {
    const { sb, g, channel, grant, rest } = await start();
    await grant(MANAGE_WEBHOOKS);
    for (let i = 0; i < 15; i++) await createWebhook(rest, channel, { name: `hook ${i}` });
    const full = await refusal(createWebhook(rest, channel, { name: 'one more' }));
    expect([full.status, full.code]).toEqual([400, 30007]);
    const made = sb.state.channels.createChannel(g, { name: 'temp' }) as { id: string };
    const hook = await createWebhook(rest, made.id, { name: 'Temp' });
    sb.state.channels.deleteChannel(made.id);
    expect((await refusal(getWebhook(rest, hook.id))).code).toBe(10015);
    expect((await listGuildWebhooks(rest, g)).map((w) => w.channel_id)).toEqual(Array.from({ length: 15 }, () => channel));
  });

  it('without GUILD_WEBHOOKS no WEBHOOKS_UPDATE arrives', async () => {
    const { channel, grant, rest, client } = await start(GUILDS | GUILD_MESSAGES);
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Quiet' });
    await executeWebhook(rest, hook.id, hook.token!, { content: 'marker' });
    await client.nextDispatch('MESSAGE_CREATE');
    expect(client.dispatches('WEBHOOKS_UPDATE')).toEqual([]);
  });
});

describe('the webhook token', () => {
  it('gets and modifies without auth and without `user`; a wrong token is 401 / 50027', async () => {
    const { sb, channel, grant, rest } = await start();
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Relay' });
    const anon = new RestClient({ baseUrl: sb.restUrl, retries: 0 });
    rests.push(anon);
    const got = await getWebhookWithToken(anon, hook.id, hook.token!);
    expect(got.id).toBe(hook.id);
    expect('user' in got).toBe(false);
    const renamed = await editWebhookWithToken(anon, hook.id, hook.token!, { name: 'Renamed' });
    expect(renamed.name).toBe('Renamed');
    expect('user' in renamed).toBe(false);
    const wrong = await refusal(getWebhookWithToken(anon, hook.id, 'x'.repeat(68)));
    expect([wrong.status, wrong.code]).toEqual([401, 50027]);
    const unknown = await refusal(getWebhookWithToken(anon, '100000000000000001', hook.token!));
    expect([unknown.status, unknown.code]).toEqual([404, 10015]);
    await deleteWebhookWithToken(anon, hook.id, hook.token!);
    expect((await refusal(getWebhookWithToken(anon, hook.id, hook.token!))).code).toBe(10015);
  });
});

describe('executing a webhook', () => {
  it('posts to the channel: 204 without wait, the message with wait; MESSAGE_CREATE with webhook_id', async () => {
    const { sb, g, channel, grant, rest, client } = await start();
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Relay' });
    const anon = new RestClient({ baseUrl: sb.restUrl, retries: 0 });
    rests.push(anon);
    expect(await executeWebhook(anon, hook.id, hook.token!, { content: 'no wait' })).toBeUndefined();
    const first = await client.nextDispatch('MESSAGE_CREATE');
    expect(first.d).toMatchObject({ content: 'no wait', webhook_id: hook.id, guild_id: g, channel_id: channel, author: { id: hook.id, username: 'Relay', bot: true } });
    expect('member' in (first.d as object)).toBe(false);
    const msg = await executeWebhook(anon, hook.id, hook.token!, { content: 'waited', username: 'Announcer' }, { wait: true });
    expect(msg).toMatchObject({ content: 'waited', webhook_id: hook.id, channel_id: channel, author: { id: hook.id, username: 'Announcer' } });
    const listed = (await api(sb.restUrl, 'GET', `/channels/${channel}/messages`, { token: sb.botToken })).body as Array<{ id: string }>;
    expect(listed.map((m) => m.id)).toContain(msg.id);
    const empty = await refusal(executeWebhook(anon, hook.id, hook.token!, {}, { wait: true }));
    expect(empty.code).toBe(50006);
    const clyde = await refusal(executeWebhook(anon, hook.id, hook.token!, { content: 'x', username: 'clyde' }));
    expect(clyde.fieldErrors[0]).toMatchObject({ path: 'username', code: 'USERNAME_INVALID_CONTAINS' });
    expect((await refusal(executeWebhook(anon, hook.id, 'y'.repeat(68), { content: 'x' }))).code).toBe(50027);
  });

  it('thread_id posts in a thread of the webhook channel; another channel is 10003', async () => {
    const { sb, g, channel, grant, rest } = await start();
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Relay' });
    const thread = sb.state.channels.createThread(channel, { name: 'talk' }) as { id: string };
    const msg = await executeWebhook(rest, hook.id, hook.token!, { content: 'in thread' }, { wait: true, threadId: thread.id });
    expect(msg.channel_id).toBe(thread.id);
    const got = await getWebhookMessage(rest, hook.id, hook.token!, msg.id, { threadId: thread.id });
    expect(got.id).toBe(msg.id);
    expect((await refusal(getWebhookMessage(rest, hook.id, hook.token!, msg.id))).code).toBe(10008);
    const notOurs = await refusal(executeWebhook(rest, hook.id, hook.token!, { content: 'x' }, { wait: true, threadId: sb.state.channelIds(g)[1]! }));
    expect([notOurs.status, notOurs.code]).toEqual([404, 10003]);
  });

  it("gets, edits and deletes the webhook's messages (MESSAGE_UPDATE / MESSAGE_DELETE); others' are 10008", async () => {
    const { sb, g, channel, grant, rest, client } = await start();
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, channel, { name: 'Relay' });
    const second = await createWebhook(rest, channel, { name: 'Other' });
    const msg = await executeWebhook(rest, hook.id, hook.token!, { content: 'v1' }, { wait: true });
    expect((await getWebhookMessage(rest, hook.id, hook.token!, msg.id)).content).toBe('v1');
    const edited = await editWebhookMessage(rest, hook.id, hook.token!, msg.id, { content: 'v2' });
    expect(edited.content).toBe('v2');
    expect(edited.edited_timestamp).not.toBeNull();
    expect((await client.nextDispatch('MESSAGE_UPDATE')).d).toMatchObject({ id: msg.id, content: 'v2', webhook_id: hook.id });
    expect((await refusal(getWebhookMessage(rest, second.id, second.token!, msg.id))).code).toBe(10008);
    const botMsg = (await api(sb.restUrl, 'POST', `/channels/${channel}/messages`, { token: sb.botToken, body: { content: 'bot' } })).body as { id: string };
    expect((await refusal(editWebhookMessage(rest, hook.id, hook.token!, botMsg.id, { content: 'x' }))).code).toBe(10008);
    await deleteWebhookMessage(rest, hook.id, hook.token!, msg.id);
    expect((await client.nextDispatch('MESSAGE_DELETE')).d).toEqual({ id: msg.id, channel_id: channel, guild_id: g });
    expect((await refusal(getWebhookMessage(rest, hook.id, hook.token!, msg.id))).code).toBe(10008);
  });

  it('interaction follow-ups on the same paths still answer as before', async () => {
    const { sb, g, rest } = await start();
    const owner = sb.state.memberIds(g).find((id) => id !== sb.applicationId)!;
    await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'ping', description: 'Pong' } });
    const record = await sb.invoke({ name: 'ping', guildId: g, userId: owner });
    await api(sb.restUrl, 'POST', `/interactions/${record.id}/${record.token}/callback`, { body: { type: 5 } });
    const followup = await executeWebhook(rest, sb.applicationId, record.token, { content: 'follow' }, { wait: true });
    expect(followup).toMatchObject({ content: 'follow', webhook_id: sb.applicationId, application_id: sb.applicationId });
    expect((await getWebhookMessage(rest, sb.applicationId, record.token, followup.id)).content).toBe('follow');
    const wrong = await refusal(executeWebhook(rest, sb.applicationId, 'z'.repeat(60), { content: 'x' }));
    expect([wrong.status, wrong.code]).toEqual([401, 50027]);
    const unknownApp = await refusal(executeWebhook(rest, '100000000000000001', record.token, { content: 'x' }));
    expect([unknownApp.status, unknownApp.code]).toEqual([404, 10015]);
  });
});
