/**
 * Invites through gatehouse's REST client: create (CREATE_INSTANT_INVITE; max_age, max_uses, temporary, unique),
 * list per channel (MANAGE_CHANNELS) and per guild (MANAGE_GUILD), resolve by code (with_counts; expired ones are
 * gone) and revoke (MANAGE_CHANNELS or MANAGE_GUILD), with INVITE_CREATE / INVITE_DELETE under GUILD_INVITES.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, createChannelInvite, deleteInvite, getInvite, listChannelInvites, listGuildInvites, RestClient } from '../../src/rest/index.js';
import { createSandbox, DEFAULT_BUCKETS, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, sleep, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const GUILDS = 1;
const GUILD_INVITES = 1 << 6;
const CREATE_INSTANT_INVITE = 1n << 0n;
const MANAGE_CHANNELS = 1n << 4n;
const MANAGE_GUILD = 1n << 5n;

async function start(intents = GUILDS | GUILD_INVITES) {
  const buckets = Object.fromEntries(Object.keys(DEFAULT_BUCKETS).map((n) => [n, { limit: 1000, windowMs: 1000 }]));
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 8 }, gateway: { identifyWindowMs: 0 }, rest: { buckets } });
  sandboxes.push(sb);
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  const everyone = roles[0]!;
  const botRole = roles[roles.length - 1]!;
  const setBits = (role: string, bits: bigint) => sb.state.channels.updateRole(g, role, { permissions: bits.toString() });
  const permsOf = async (role: string) => BigInt(((await api(sb.restUrl, 'GET', `/guilds/${g}/roles/${role}`, { token: sb.botToken })).body as { permissions: string }).permissions);
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const client = (await identified(sb.gatewayUrl, sb.botToken, { intents })).client;
  clients.push(client);
  return { sb, g, everyone, botRole, setBits, permsOf, rest, client, channel: sb.state.channelIds(g)[0]!, other: sb.state.channelIds(g)[1]! };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('invites', () => {
  it('creates with the defaults, sends INVITE_CREATE, resolves by code, with counts on request', async () => {
    const { sb, g, channel, rest, client, botRole, setBits, permsOf } = await start();
    setBits(botRole, (await permsOf(botRole)) | MANAGE_CHANNELS);
    const inv = await createChannelInvite(rest, channel);
    expect(inv).toMatchObject({ type: 0, guild_id: g, channel: { id: channel }, inviter: { id: sb.applicationId }, uses: 0, max_uses: 0, max_age: 86_400, temporary: false });
    expect(inv.code).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(Date.parse(inv.expires_at!) - Date.parse((inv as { created_at: string }).created_at)).toBe(86_400_000);
    const event = await client.nextDispatch('INVITE_CREATE');
    expect(event.d).toMatchObject({ code: inv.code, guild_id: g, channel_id: channel, max_age: 86_400, max_uses: 0, temporary: false, uses: 0 });
    const anon = new RestClient({ baseUrl: sb.restUrl, retries: 0 });
    rests.push(anon);
    const resolved = await getInvite(anon, inv.code);
    expect(resolved).toMatchObject({ code: inv.code, guild: { id: g }, channel: { id: channel } });
    expect('approximate_member_count' in resolved).toBe(false);
    expect((await getInvite(anon, inv.code, { with_counts: true })).approximate_member_count).toBe(9);
    const unknown = await refusal(getInvite(anon, 'nothing'));
    expect([unknown.status, unknown.code]).toEqual([404, 10006]);
  });

  it('unique false reuses a live invite with the same settings; unique true makes a new one', async () => {
    const { channel, rest, botRole, setBits, permsOf } = await start();
    setBits(botRole, (await permsOf(botRole)) | MANAGE_CHANNELS);
    const a = await createChannelInvite(rest, channel, { max_age: 0, max_uses: 5 });
    expect(a.expires_at).toBeNull();
    expect((await createChannelInvite(rest, channel, { max_age: 0, max_uses: 5 })).code).toBe(a.code);
    const b = await createChannelInvite(rest, channel, { max_age: 0, max_uses: 5, unique: true });
    expect(b.code).not.toBe(a.code);
    expect((await createChannelInvite(rest, channel, { max_age: 0, max_uses: 6, temporary: true })).code).not.toBe(a.code);
    expect(await listChannelInvites(rest, channel)).toHaveLength(3);
  });

  it('validates max_age and max_uses (50035 at the field)', async () => {
    const { channel, rest } = await start();
    const bad = await refusal(createChannelInvite(rest, channel, { max_age: 604_801, max_uses: 101 }));
    expect([bad.status, bad.code]).toEqual([400, 50035]);
    expect(bad.fieldErrors.map((e) => [e.path, e.code])).toEqual([['max_age', 'NUMBER_TYPE_MAX'], ['max_uses', 'NUMBER_TYPE_MAX']]);
  });

  it('an invite past its max_age is gone', async () => {
    const { channel, rest, botRole, setBits, permsOf } = await start();
    setBits(botRole, (await permsOf(botRole)) | MANAGE_CHANNELS);
    const inv = await createChannelInvite(rest, channel, { max_age: 1, unique: true });
    expect((await getInvite(rest, inv.code)).code).toBe(inv.code);
    await sleep(2_100);
    expect((await refusal(getInvite(rest, inv.code))).code).toBe(10006);
    expect(await listChannelInvites(rest, channel)).toEqual([]);
  });

  it('permissions: CREATE_INSTANT_INVITE to create, MANAGE_CHANNELS / MANAGE_GUILD to list and revoke', async () => {
    const { g, everyone, botRole, setBits, permsOf, channel, other, rest } = await start();
    const inv = await createChannelInvite(rest, channel);
    expect((await refusal(listChannelInvites(rest, channel))).code).toBe(50013);
    expect((await refusal(listGuildInvites(rest, g))).code).toBe(50013);
    expect((await refusal(deleteInvite(rest, inv.code))).code).toBe(50013);
    const base = await permsOf(botRole);
    setBits(botRole, base | MANAGE_CHANNELS);
    expect((await listChannelInvites(rest, channel)).map((i) => i.code)).toEqual([inv.code]);
    setBits(botRole, base | MANAGE_GUILD);
    expect((await listGuildInvites(rest, g)).map((i) => i.code)).toEqual([inv.code]);
    const revoked = await deleteInvite(rest, inv.code, { reason: 'leaked' });
    expect(revoked.code).toBe(inv.code);
    expect((await refusal(getInvite(rest, inv.code))).code).toBe(10006);
    setBits(everyone, (await permsOf(everyone)) & ~CREATE_INSTANT_INVITE);
    const denied = await refusal(createChannelInvite(rest, other));
    expect([denied.status, denied.code]).toEqual([403, 50013]);
  });

  it('INVITE_DELETE on revoking; no invite events without GUILD_INVITES, or without MANAGE_CHANNELS', async () => {
    const { g, channel, rest, client, botRole, setBits, permsOf } = await start();
    const base = await permsOf(botRole);
    const unseen = await createChannelInvite(rest, channel, { unique: true });
    setBits(botRole, base | MANAGE_CHANNELS);
    const seen = await createChannelInvite(rest, channel, { unique: true });
    expect((await client.nextDispatch('INVITE_CREATE')).d).toMatchObject({ code: seen.code });
    expect(client.dispatches('INVITE_CREATE').map((p) => (p.d as { code: string }).code)).toEqual([seen.code]);
    await deleteInvite(rest, unseen.code);
    expect((await client.nextDispatch('INVITE_DELETE')).d).toEqual({ channel_id: channel, guild_id: g, code: unseen.code });
    const quiet = await start(GUILDS);
    quiet.setBits(quiet.botRole, (await quiet.permsOf(quiet.botRole)) | MANAGE_CHANNELS);
    await createChannelInvite(quiet.rest, quiet.channel);
    await sleep(200);
    expect(quiet.client.dispatches('INVITE_CREATE')).toEqual([]);
  });
});
