/**
 * Who is in a guild, through gatehouse's REST client against the sandbox: the bot leaving a guild (GUILD_DELETE,
 * the guild gone from REST) and joining it again by the state view (GUILD_CREATE), a user added with their
 * OAuth2 token (PUT /guilds/{id}/members/{user}), and a user reading their own member with a bearer token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, RestClient, addMember, getCurrentUserGuildMember, getCurrentUserGuilds, getGuild, getMember, leaveGuild } from '../../src/rest/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { identified, type RawGatewayClient } from './helpers.js';

const GUILDS = 1;
const GUILD_MEMBERS = 1 << 1;

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function start() {
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 12 }, gateway: { identifyWindowMs: 0 } });
  sandboxes.push(sb);
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const [g1, g2] = sb.state.guildIds as [string, string];
  return { sb, rest, g1, g2 };
}

async function connect(sb: Sandbox, intents: number): Promise<RawGatewayClient> {
  const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents });
  clients.push(client);
  await client.nextDispatch('GUILD_CREATE');
  await client.nextDispatch('GUILD_CREATE');
  return client;
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: number | null }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  return { status: e.status, code: e.code };
}

describe('the bot leaves a guild and joins it again', () => {
  it('GUILD_DELETE without unavailable; the guild is unknown to REST and its member events stop', async () => {
    const { sb, rest, g1, g2 } = await start();
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    await leaveGuild(rest, g1);
    const del = await client.nextDispatch('GUILD_DELETE');
    expect(del.d).toEqual({ id: g1 });
    expect((await getCurrentUserGuilds(rest)).map((g) => g.id)).toEqual([g2]);
    expect(await refusal(getGuild(rest, g1))).toEqual({ status: 404, code: 10004 });
    expect(await refusal(leaveGuild(rest, g1))).toEqual({ status: 404, code: 10004 });
    expect(sb.state.guildIds).toEqual([g2]);
    expect(sb.state.leftGuildIds).toEqual([g1]);
    // No member of the guild can come or go while the bot is away: no GUILD_MEMBER_* for it.
    expect(() => sb.state.addMember(g1)).toThrow(/unknown guild/);
    sb.state.addMember(g2);
    const add = await client.nextDispatch('GUILD_MEMBER_ADD');
    expect((add.d as { guild_id: string }).guild_id).toBe(g2);
    expect(client.dispatches('GUILD_MEMBER_ADD').map((p) => (p.d as { guild_id: string }).guild_id)).toEqual([g2]);
  });

  it('joinGuild: GUILD_CREATE as on a join, the bot a member again, REST and new sessions see the guild', async () => {
    const { sb, rest, g1, g2 } = await start();
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    sb.state.leaveGuild(g1);
    await client.nextDispatch('GUILD_DELETE');
    const before = Date.now();
    sb.state.joinGuild(g1);
    const create = await client.nextDispatch('GUILD_CREATE');
    const d = create.d as { id: string; joined_at: string; unavailable: boolean; members: Array<{ user: { id: string }; roles: string[] }> };
    expect(d.id).toBe(g1);
    expect(d.unavailable).toBe(false);
    expect(Date.parse(d.joined_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(d.members.map((m) => m.user.id)).toContain(sb.applicationId);
    expect((await getCurrentUserGuilds(rest)).map((g) => g.id).sort()).toEqual([g1, g2].sort());
    expect((await getGuild(rest, g1)).id).toBe(g1);
    expect(sb.state.leftGuildIds).toEqual([]);
    // The other members are as the seed makes them (a sandbox that never left agrees); only the bot joined anew.
    const same = await start();
    const owner = same.sb.state.memberIds(g1).find((id) => id !== sb.applicationId)!;
    expect(await getMember(rest, g1, owner)).toEqual(await getMember(same.rest, g1, owner));
    expect(Date.parse((await getMember(rest, g1, sb.applicationId)).joined_at ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(() => sb.state.joinGuild(g1)).toThrow(/is in guild/);
    const fresh = await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS });
    clients.push(fresh.client);
    expect((fresh.ready.d as { guilds: Array<{ id: string }> }).guilds.map((g) => g.id).sort()).toEqual([g1, g2].sort());
    const id = sb.state.addMember(g1);
    const add = await client.nextDispatch('GUILD_MEMBER_ADD');
    expect(add.d).toMatchObject({ guild_id: g1, user: { id } });
  });
});

describe('a guild install brings the bot back to a guild it left', () => {
  it('webhooks.install({ guildId }) with the bot scope: GUILD_CREATE, the guild known again', async () => {
    const { sb, rest, g1 } = await start();
    const client = await connect(sb, GUILDS);
    await leaveGuild(rest, g1);
    await client.nextDispatch('GUILD_DELETE');
    expect(() => sb.webhooks.install({ guildId: g1, scopes: ['applications.commands'] })).toThrow(/unknown guild/);
    expect(sb.state.leftGuildIds).toEqual([g1]);
    sb.webhooks.install({ guildId: g1 });
    expect((await client.nextDispatch('GUILD_CREATE')).d).toMatchObject({ id: g1 });
    expect(sb.state.leftGuildIds).toEqual([]);
    expect((await getGuild(rest, g1)).id).toBe(g1);
  });
});

describe('PUT /guilds/{id}/members/{user}: a user added with their access token', () => {
  /** A user of the second guild only. */
  function outsider(sb: Sandbox, g1: string, g2: string): string {
    const inFirst = new Set(sb.state.memberIds(g1));
    return sb.state.memberIds(g2).filter((id) => !inFirst.has(id)).at(-1)!;
  }

  it('201 with the member and GUILD_MEMBER_ADD, then 204 when already a member', async () => {
    const { sb, rest, g1, g2 } = await start();
    const client = await connect(sb, GUILDS | GUILD_MEMBERS);
    const user = outsider(sb, g1, g2);
    const token = sb.issueBearerToken(['identify', 'guilds.join'], user);
    const member = await addMember(rest, g1, user, { access_token: token });
    expect(member).toMatchObject({ user: { id: user }, roles: [], nick: null, mute: false, deaf: false });
    const add = await client.nextDispatch('GUILD_MEMBER_ADD');
    expect(add.d).toMatchObject({ guild_id: g1, user: { id: user } });
    expect(await addMember(rest, g1, user, { access_token: token })).toBeUndefined();
    expect(sb.state.memberIds(g1)).toContain(user);
  });

  it('refuses a token without guilds.join, of another user, a bad body, and fields the bot may not set', async () => {
    const { sb, rest, g1, g2 } = await start();
    const user = outsider(sb, g1, g2);
    const other = sb.state.memberIds(g2).filter((id) => id !== sb.applicationId)[0]!;
    expect(await refusal(addMember(rest, g1, user, { access_token: sb.issueBearerToken(['identify'], user) }))).toEqual({ status: 403, code: 50025 });
    expect(await refusal(addMember(rest, g1, user, { access_token: sb.issueBearerToken(['guilds.join'], other) }))).toEqual({ status: 403, code: 50025 });
    const token = sb.issueBearerToken(['guilds.join'], user);
    expect(await refusal(addMember(rest, g1, user, { access_token: token, nick: 'x'.repeat(33) }))).toEqual({ status: 400, code: 50035 });
    // The bot's own role has no MANAGE_NICKNAMES: a nick is refused, and nothing is added.
    expect(await refusal(addMember(rest, g1, user, { access_token: token, nick: 'Newbie' }))).toEqual({ status: 403, code: 50013 });
    expect(sb.state.memberIds(g1)).not.toContain(user);
    const everyone = sb.state.roleIds(g1)[0]!;
    sb.state.channels.updateRole(g1, everyone, { permissions: '0' });
    expect(await refusal(addMember(rest, g1, user, { access_token: token }))).toEqual({ status: 403, code: 50013 });
  });
});

describe('GET /users/@me/guilds/{id}/member with the user\'s bearer token', () => {
  it('the member with guilds.members.read; 401 without the scope, 20001 for the bot, 10004 outside the guild', async () => {
    const { sb, rest, g1, g2 } = await start();
    const owner = sb.state.memberIds(g1).filter((id) => id !== sb.applicationId)[0]!;
    const token = sb.issueBearerToken(['guilds.members.read'], owner);
    const member = await getCurrentUserGuildMember(rest, g1, token);
    expect(member).toMatchObject({ user: { id: owner }, joined_at: expect.any(String) });
    expect(await refusal(getCurrentUserGuildMember(rest, g1, sb.issueBearerToken(['identify'], owner)))).toEqual({ status: 401, code: 0 });
    const inFirst = new Set(sb.state.memberIds(g1));
    const stranger = sb.state.memberIds(g2).filter((id) => !inFirst.has(id)).at(-1)!;
    expect(await refusal(getCurrentUserGuildMember(rest, g1, sb.issueBearerToken(['guilds.members.read'], stranger)))).toEqual({ status: 404, code: 10004 });
    const bot = await fetch(`${sb.restUrl}/users/@me/guilds/${g1}/member`, { headers: { authorization: `Bot ${sb.botToken}` } });
    expect([bot.status, await bot.json()]).toEqual([403, { message: 'Bots cannot use this endpoint', code: 20001 }]);
  });
});
