/**
 * Crossposting through gatehouse's REST client: only in announcement channels (50024 elsewhere), once (40033),
 * SEND_MESSAGES for the bot's own message and MANAGE_MESSAGES too for a webhook's, MESSAGE_UPDATE with the
 * CROSSPOSTED flag.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, createMessage, createWebhook, crosspostMessage, executeWebhook, RestClient } from '../../src/rest/index.js';
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
const GUILD_MESSAGES = 1 << 9;
const MANAGE_MESSAGES = 1n << 13n;
const MANAGE_WEBHOOKS = 1n << 29n;

async function start() {
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
  const news = (sb.state.channels.createChannel(g, { name: 'news', type: 5 }) as { id: string }).id;
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const client = (await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS | GUILD_MESSAGES })).client;
  clients.push(client);
  return { sb, g, news, text: sb.state.channelIds(g)[0]!, grant, rest, client };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('crossposting', () => {
  it("publishes the bot's own message once: CROSSPOSTED flag, MESSAGE_UPDATE, then 40033", async () => {
    const { g, news, rest, client } = await start();
    const msg = await createMessage(rest, news, { content: 'release notes' });
    const published = await crosspostMessage(rest, news, msg.id);
    expect(published.id).toBe(msg.id);
    expect(published.flags! & 1).toBe(1);
    expect(published.edited_timestamp).toBeNull();
    const update = await client.nextDispatch('MESSAGE_UPDATE');
    expect(update.d).toMatchObject({ id: msg.id, guild_id: g, flags: 1 });
    const again = await refusal(crosspostMessage(rest, news, msg.id));
    expect([again.status, again.code]).toEqual([400, 40033]);
  });

  it('refuses other channel types (50024) and unknown messages (10008)', async () => {
    const { news, text, rest } = await start();
    const msg = await createMessage(rest, text, { content: 'plain' });
    const wrong = await refusal(crosspostMessage(rest, text, msg.id));
    expect([wrong.status, wrong.code]).toEqual([400, 50024]);
    const unknown = await refusal(crosspostMessage(rest, news, '100000000000000001'));
    expect([unknown.status, unknown.code]).toEqual([404, 10008]);
  });

  it("needs MANAGE_MESSAGES for a message the bot did not send (a webhook's)", async () => {
    const { news, grant, rest } = await start();
    await grant(MANAGE_WEBHOOKS);
    const hook = await createWebhook(rest, news, { name: 'Feed' });
    const posted = await executeWebhook(rest, hook.id, hook.token!, { content: 'from the feed' }, { wait: true });
    const denied = await refusal(crosspostMessage(rest, news, posted.id));
    expect([denied.status, denied.code]).toEqual([403, 50013]);
    await grant(MANAGE_MESSAGES);
    expect((await crosspostMessage(rest, news, posted.id)).flags! & 1).toBe(1);
  });
});
