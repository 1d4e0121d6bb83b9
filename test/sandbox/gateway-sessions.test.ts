import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { identified, RawGatewayClient, sleep, type GatewayPayload } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await createSandbox({ ...options, gateway: { identifyWindowMs: 0, ...options.gateway } });
  sandboxes.push(sb);
  return sb;
}

async function connect(sb: Sandbox, extra: Record<string, unknown> = {}, compress = false): Promise<{ client: RawGatewayClient; ready: GatewayPayload }> {
  const r = await identified(sb.gatewayUrl, sb.botToken, extra, { compress });
  clients.push(r.client);
  return r;
}

function raw(url: string, compress = false): RawGatewayClient {
  const c = new RawGatewayClient(url, { compress });
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const resumeUrl = (ready: GatewayPayload): string => (ready.d as { resume_gateway_url: string }).resume_gateway_url;
const sessionId = (ready: GatewayPayload): string => (ready.d as { session_id: string }).session_id;

describe('gateway: resume', () => {
  it('replays the dispatches missed while away, in order, then RESUMED', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3 } });
    const guildId = sb.state.guildIds[0]!;
    const { client: a, ready } = await connect(sb, { intents: 1 | 2 }, true);
    const create = await a.nextDispatch('GUILD_CREATE');
    sb.state.addMember(guildId, { username: 'first' });
    const first = await a.nextDispatch('GUILD_MEMBER_ADD');
    expect(first.s).toBe(create.s! + 1);
    a.close(4000);
    await a.closed;

    // While disconnected: two more events are sequenced and kept for replay.
    const u2 = sb.state.addMember(guildId, { username: 'second' });
    sb.state.removeMember(guildId, u2);

    const b = raw(resumeUrl(ready), true);
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: first.s } });
    const replayed1 = await b.nextDispatch('GUILD_MEMBER_ADD');
    const replayed2 = await b.nextDispatch('GUILD_MEMBER_REMOVE');
    const resumed = await b.nextDispatch('RESUMED');
    expect([replayed1.s, replayed2.s, resumed.s]).toEqual([first.s! + 1, first.s! + 2, first.s! + 3]);
    expect((replayed1.d as any).user.username).toBe('second');
    expect(sb.counters.resumes).toBe(1);

    // Live again on the new connection.
    sb.state.addMember(guildId, { username: 'third' });
    expect((await b.nextDispatch('GUILD_MEMBER_ADD')).s).toBe(resumed.s! + 1);
  });

  it('replays from an older seq too (what the client had last), not only from the newest', async () => {
    const sb = await start({ seed: { guilds: 3 } });
    const { client: a, ready } = await connect(sb, { intents: 1 });
    for (let i = 0; i < 3; i++) await a.nextDispatch('GUILD_CREATE');
    a.terminate();
    await a.closed;
    const b = raw(resumeUrl(ready));
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: 1 } });
    const seqs = [];
    for (let i = 0; i < 3; i++) seqs.push((await b.nextDispatch('GUILD_CREATE')).s);
    expect(seqs).toEqual([2, 3, 4]);
    expect((await b.nextDispatch('RESUMED')).s).toBe(5);
  });

  it('refuses RESUME on the main gateway URL (clients must use resume_gateway_url)', async () => {
    const sb = await start();
    const { client: a, ready } = await connect(sb);
    a.close(4000);
    await a.closed;
    const b = raw(sb.gatewayUrl);
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: 1 } });
    expect((await b.next((p) => p.op === 9)).d).toBe(false);
  });

  it('answers op 9 false for an unknown session, and for a session ended by a 1000 close', async () => {
    const sb = await start();
    const { client: a, ready } = await connect(sb);
    const unknown = raw(resumeUrl(ready));
    await unknown.next((p) => p.op === 10);
    unknown.send({ op: 6, d: { token: sb.botToken, session_id: 'f'.repeat(32), seq: 0 } });
    expect((await unknown.next((p) => p.op === 9)).d).toBe(false);

    a.close(1000);
    await a.closed;
    const b = raw(resumeUrl(ready));
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: 1 } });
    expect((await b.next((p) => p.op === 9)).d).toBe(false);
  });

  it('closes with 4007 when RESUME names a seq the session never sent', async () => {
    const sb = await start();
    const { client: a, ready } = await connect(sb);
    a.close(4000);
    await a.closed;
    const b = raw(resumeUrl(ready));
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: 999 } });
    expect((await b.closed).code).toBe(4007);
  });

  it('forgets a session after the resume window', async () => {
    const sb = await start({ gateway: { resumeWindowMs: 100 } });
    const { client: a, ready } = await connect(sb);
    a.close(4000);
    await a.closed;
    await sleep(250);
    const b = raw(resumeUrl(ready));
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: 1 } });
    expect((await b.next((p) => p.op === 9)).d).toBe(false);
  });

  it('answers op 9 false when the dispatches to replay are no longer buffered', async () => {
    const sb = await start({ seed: { guilds: 1 }, gateway: { replayBufferSize: 2 } });
    const { client: a, ready } = await connect(sb, { intents: 1 | 2 });
    await a.nextDispatch('GUILD_CREATE');
    a.close(4000);
    await a.closed;
    for (let i = 0; i < 4; i++) sb.state.addMember(sb.state.guildIds[0]!, { username: `gone${i}` });
    const b = raw(resumeUrl(ready));
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: sessionId(ready), seq: 2 } });
    expect((await b.next((p) => p.op === 9)).d).toBe(false);
  });

  it('4004 for RESUME with a wrong token', async () => {
    const sb = await start();
    const { ready } = await connect(sb);
    const b = raw(resumeUrl(ready));
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: 'wrong', session_id: sessionId(ready), seq: 1 } });
    expect((await b.closed).code).toBe(4004);
  });
});

describe('gateway: routing and intents', () => {
  it('routes guild events to shard (guild_id >> 22) % num_shards and guild-less ones to shard 0', async () => {
    const sb = await start({ seed: { guilds: 6, membersPerGuild: 2, skus: 1 } });
    const s0 = await connect(sb, { intents: 1 | 2, shard: [0, 2] });
    const s1 = await connect(sb, { intents: 1 | 2, shard: [1, 2] });
    const shardOf = (id: string): number => Number((BigInt(id) >> 22n) % 2n);
    const expected0 = sb.state.guildIds.filter((id) => shardOf(id) === 0);
    const expected1 = sb.state.guildIds.filter((id) => shardOf(id) === 1);
    expect(expected0.length).toBeGreaterThan(0);
    expect(expected1.length).toBeGreaterThan(0);
    expect((s0.ready.d as any).guilds.map((g: any) => g.id)).toEqual(expected0);
    expect((s1.ready.d as any).guilds.map((g: any) => g.id)).toEqual(expected1);

    sb.state.addMember(expected1[0]!, { username: 'routed' });
    const add = await s1.client.nextDispatch('GUILD_MEMBER_ADD');
    expect((add.d as any).guild_id).toBe(expected1[0]);

    const someone = sb.state.memberIds(expected0[0]!)[1]!;
    const entitlementId = sb.state.grantEntitlement({ skuId: sb.state.skuIds[0]!, userId: someone });
    const ent = await s0.client.nextDispatch('ENTITLEMENT_CREATE');
    expect((ent.d as any).id).toBe(entitlementId);

    // Shard 1 saw neither the shard-0 entitlement nor anything about shard-0 guilds.
    s1.client.send({ op: 1, d: null });
    await s1.client.next((p) => p.op === 11);
    expect(s1.client.dispatches('ENTITLEMENT_CREATE')).toHaveLength(0);
    expect(s0.client.dispatches('GUILD_MEMBER_ADD')).toHaveLength(0);
  });

  it('filters by intent, except GUILD_MEMBER_UPDATE about the bot itself', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3 } });
    const guildId = sb.state.guildIds[0]!;
    const { client } = await connect(sb, { intents: 1 });
    await client.nextDispatch('GUILD_CREATE');
    const userId = sb.state.addMember(guildId, { username: 'hidden' });
    sb.state.updateMember(guildId, userId, { nick: 'still hidden' });
    sb.state.updateMember(guildId, sb.applicationId, { nick: 'Robo' });
    const own = await client.nextDispatch('GUILD_MEMBER_UPDATE');
    expect((own.d as any).user.id).toBe(sb.applicationId);
    expect((own.d as any).nick).toBe('Robo');
    expect(client.dispatches('GUILD_MEMBER_ADD')).toHaveLength(0);
    expect(client.dispatches('GUILD_MEMBER_UPDATE')).toHaveLength(1);
  });

  it('emits GUILD_MEMBER_ADD / UPDATE / REMOVE with the member and guild_id', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3, rolesPerGuild: 5 } });
    const guildId = sb.state.guildIds[0]!;
    const { client } = await connect(sb, { intents: 1 | 2 });
    const g = (await client.nextDispatch('GUILD_CREATE')).d as any;
    const role = g.roles.find((r: any) => r.name === 'Moderator').id;
    const id = sb.state.addMember(guildId, { username: 'newbie', nick: 'Newbie' });
    const add = (await client.nextDispatch('GUILD_MEMBER_ADD')).d as any;
    expect(add).toMatchObject({ guild_id: guildId, nick: 'Newbie', roles: [], pending: false, user: { id, username: 'newbie' } });
    sb.state.updateMember(guildId, id, { roles: [role], nick: null });
    const upd = (await client.nextDispatch('GUILD_MEMBER_UPDATE')).d as any;
    expect(upd).toMatchObject({ guild_id: guildId, nick: null, roles: [role], user: { id } });
    sb.state.removeMember(guildId, id);
    const rem = (await client.nextDispatch('GUILD_MEMBER_REMOVE')).d as any;
    expect(rem).toMatchObject({ guild_id: guildId, user: { id, username: 'newbie' } });
    expect(sb.state.memberIds(guildId)).not.toContain(id);
  });

  it('emits ENTITLEMENT_CREATE, and ENTITLEMENT_UPDATE only when an end is set', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3, skus: 2 } });
    const { client } = await connect(sb, { intents: 1 });
    const user = sb.state.memberIds(sb.state.guildIds[0]!)[1]!;
    const id = sb.state.grantEntitlement({ skuId: sb.state.skuIds[1]!, userId: user, subscription: true });
    const created = (await client.nextDispatch('ENTITLEMENT_CREATE')).d as any;
    expect(created).toMatchObject({ id, sku_id: sb.state.skuIds[1], user_id: user, ends_at: null, type: 1, deleted: false });
    const ends = new Date(Date.now() + 86_400_000);
    sb.state.endEntitlement(id, ends);
    const updated = (await client.nextDispatch('ENTITLEMENT_UPDATE')).d as any;
    expect(updated.ends_at).toBe(ends.toISOString());
    expect(client.dispatches('ENTITLEMENT_UPDATE')).toHaveLength(1);
  });
});

describe('gateway: request guild members (op 8)', () => {
  it('answers with chunks of at most 1000 members, chunk_index / chunk_count and the nonce', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 2400 } });
    const guildId = sb.state.guildIds[0]!;
    const { client } = await connect(sb, { intents: 1 | 2 });
    client.send({ op: 8, d: { guild_id: guildId, query: '', limit: 0, nonce: 'n-1' } });
    const chunks = [];
    for (let i = 0; i < 3; i++) chunks.push((await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any);
    expect(chunks.map((c) => c.members.length)).toEqual([1000, 1000, 401]);
    expect(chunks.map((c) => [c.chunk_index, c.chunk_count])).toEqual([[0, 3], [1, 3], [2, 3]]);
    expect(chunks.every((c) => c.nonce === 'n-1' && c.guild_id === guildId)).toBe(true);
    const ids = new Set(chunks.flatMap((c) => c.members.map((m: any) => m.user.id)));
    expect(ids.size).toBe(2401);
  });

  it('reports not_found for user_ids (small ids echoed as numbers, as the service does)', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const guildId = sb.state.guildIds[0]!;
    const member = sb.state.memberIds(guildId)[2]!;
    const { client } = await connect(sb, { intents: 1 });
    client.send({ op: 8, d: { guild_id: guildId, user_ids: [member, '123123', '999999999999999999'] } });
    const chunk = (await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any;
    expect(chunk.members.map((m: any) => m.user.id)).toEqual([member]);
    expect(chunk.not_found).toEqual([123123, '999999999999999999']);
    expect(chunk).toMatchObject({ chunk_index: 0, chunk_count: 1 });
    expect(chunk.nonce).toBeUndefined();
  });

  it('adds presences: [] when asked with GUILD_PRESENCES, and not without it', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3 } });
    const guildId = sb.state.guildIds[0]!;
    const member = sb.state.memberIds(guildId)[1]!;
    const { client } = await connect(sb, { intents: 1 | 256 });
    client.send({ op: 8, d: { guild_id: guildId, user_ids: [member], presences: true, nonce: 'p' } });
    expect(((await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any).presences).toEqual([]);
    const { client: other } = await connect(sb, { intents: 1 });
    other.send({ op: 8, d: { guild_id: guildId, user_ids: [member], presences: true } });
    expect(((await other.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any).presences).toBeUndefined();
  });

  it('matches a username prefix with a limit', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3 } });
    const guildId = sb.state.guildIds[0]!;
    for (const name of ['zed1', 'zed2', 'zed3', 'other']) sb.state.addMember(guildId, { username: name });
    const { client } = await connect(sb, { intents: 1 | 2 });
    client.send({ op: 8, d: { guild_id: guildId, query: 'ZED', limit: 2 } });
    const chunk = (await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any;
    expect(chunk.members.map((m: any) => m.user.username)).toEqual(['zed1', 'zed2']);
  });

  it('answers an all-members request only once per window per guild; the rest get RATE_LIMITED', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 3 }, gateway: { memberRequestWindowMs: 1500 } });
    const guildId = sb.state.guildIds[0]!;
    const { client } = await connect(sb, { intents: 1 | 2 });
    client.send({ op: 8, d: { guild_id: guildId, query: '', limit: 0, nonce: 'a' } });
    await client.nextDispatch('GUILD_MEMBERS_CHUNK');
    client.send({ op: 8, d: { guild_id: guildId, query: '', limit: 0, nonce: 'b' } });
    const limited = await client.nextDispatch('RATE_LIMITED');
    const d = limited.d as any;
    expect(d.opcode).toBe(8);
    expect(d.meta).toEqual({ guild_id: guildId, nonce: 'b' });
    expect(d.retry_after).toBeGreaterThan(0);
    expect(d.retry_after).toBeLessThanOrEqual(1.5);
    // Not a disconnect, and other requests (user_ids, prefix) are not limited.
    client.send({ op: 8, d: { guild_id: guildId, query: 'own', limit: 1, nonce: 'c' } });
    expect(((await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any).nonce).toBe('c');
    await sleep(1600);
    client.send({ op: 8, d: { guild_id: guildId, query: '', limit: 0, nonce: 'd' } });
    expect(((await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any).nonce).toBe('d');
  });

  it('sends nothing for an all-members request without the GUILD_MEMBERS intent', async () => {
    const sb = await start({ seed: { guilds: 1 } });
    const { client } = await connect(sb, { intents: 1 });
    client.send({ op: 8, d: { guild_id: sb.state.guildIds[0], query: '', limit: 0 } });
    client.send({ op: 1, d: null });
    await client.next((p) => p.op === 11);
    await sleep(50);
    expect(client.dispatches('GUILD_MEMBERS_CHUNK')).toHaveLength(0);
  });

  it('closes with 4001 for a malformed op 8', async () => {
    const sb = await start({ seed: { guilds: 1 } });
    const { client } = await connect(sb, { intents: 1 | 2 });
    client.send({ op: 8, d: { guild_id: sb.state.guildIds[0], query: '' } });
    expect((await client.closed).code).toBe(4001);
  });
});
