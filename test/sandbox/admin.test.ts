import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function start(options: Parameters<typeof createSandbox>[0] = {}) {
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 4, skus: 2 }, gateway: { identifyWindowMs: 0 }, ...options });
  sandboxes.push(sb);
  const admin = (method: string, path: string, body?: unknown) => api(sb.adminUrl, method, path, body === undefined ? {} : { body });
  return { sb, admin };
}

describe('admin HTTP API', () => {
  it('describes the sandbox and lists guilds, members, SKUs and counters', async () => {
    const { sb, admin } = await start();
    const info = await admin('GET', '');
    expect(info.body).toMatchObject({ restUrl: sb.restUrl, gatewayUrl: sb.gatewayUrl, adminUrl: sb.adminUrl, applicationId: sb.applicationId, botToken: sb.botToken });
    const guilds = (await admin('GET', '/guilds')).body;
    expect(guilds.map((g: any) => g.id)).toEqual(sb.state.guildIds);
    expect(guilds[0].member_count).toBe(5);
    expect((await admin('GET', `/guilds/${sb.state.guildIds[0]}/members`)).body).toEqual(sb.state.memberIds(sb.state.guildIds[0]!));
    expect((await admin('GET', '/skus')).body.map((s: any) => s.id)).toEqual(sb.state.skuIds);
    expect((await admin('GET', '/counters')).body).toMatchObject({ identifies: 0, restRequests: 0 });
    expect((await admin('GET', '/nope')).status).toBe(404);
  });

  it('adds, updates and removes members with the gateway events, and reports bad input', async () => {
    const { sb, admin } = await start();
    const guildId = sb.state.guildIds[0]!;
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 });
    clients.push(client);
    const added = await admin('POST', `/guilds/${guildId}/members`, { username: 'visitor', nick: 'V' });
    expect(added.status).toBe(201);
    expect(((await client.nextDispatch('GUILD_MEMBER_ADD')).d as any).user.id).toBe(added.body.id);
    expect((await admin('PATCH', `/guilds/${guildId}/members/${added.body.id}`, { nick: null })).status).toBe(204);
    expect(((await client.nextDispatch('GUILD_MEMBER_UPDATE')).d as any).nick).toBeNull();
    expect((await admin('DELETE', `/guilds/${guildId}/members/${added.body.id}`)).status).toBe(204);
    await client.nextDispatch('GUILD_MEMBER_REMOVE');
    const again = await admin('DELETE', `/guilds/${guildId}/members/${added.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('UNKNOWN_MEMBER');
    expect((await admin('POST', `/guilds/${guildId}/members`, { roles: ['1'] })).body.error).toBe('UNKNOWN_ROLE');
    expect((await admin('POST', '/guilds/1/members', {})).status).toBe(404);
    expect((await api(sb.adminUrl, 'POST', `/guilds/${guildId}/members`, { body: '{oops' })).status).toBe(400);
  });

  it('grants and ends entitlements (ENTITLEMENT_CREATE, ENTITLEMENT_UPDATE)', async () => {
    const { sb, admin } = await start();
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    const user = sb.state.memberIds(sb.state.guildIds[0]!)[3]!;
    const granted = await admin('POST', '/entitlements', { skuId: sb.state.skuIds[1], userId: user, subscription: true });
    expect(granted.status).toBe(201);
    expect(((await client.nextDispatch('ENTITLEMENT_CREATE')).d as any).id).toBe(granted.body.id);
    expect((await admin('POST', `/entitlements/${granted.body.id}/end`, { endsAt: '2030-01-01T00:00:00.000Z' })).status).toBe(204);
    expect(((await client.nextDispatch('ENTITLEMENT_UPDATE')).d as any).ends_at).toBe('2030-01-01T00:00:00.000Z');
    expect((await admin('POST', '/entitlements', { skuId: '1', userId: user })).body.error).toBe('UNKNOWN_SKU');
  });

  it('injects faults by shard', async () => {
    const { sb, admin } = await start();
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    expect((await admin('POST', '/faults/0', { fault: 'invalidate-session', resumable: true })).status).toBe(204);
    expect((await client.next((p) => p.op === 9)).d).toBe(true);
    expect((await admin('POST', '/faults/0', { fault: 'close', code: 4000 })).status).toBe(204);
    expect((await client.closed).code).toBe(4000);
    expect((await admin('POST', '/faults/0', { fault: 'reconnect' })).body.error).toBe('NO_SHARD');
    expect((await admin('POST', '/faults/0', { fault: 'explode' })).status).toBe(400);
  });

  it('issues OAuth2 tokens and codes for a user', async () => {
    const { sb, admin } = await start();
    const token = await admin('POST', '/oauth2/tokens', { scopes: ['identify'] });
    expect(token.status).toBe(201);
    expect((await api(sb.restUrl, 'GET', '/users/@me', { bearer: token.body.access_token })).status).toBe(200);
    const code = await admin('POST', '/oauth2/codes', { scopes: ['identify'], redirectUri: 'http://localhost/cb' });
    const creds = `client_id=${sb.clientId}&client_secret=${encodeURIComponent(sb.clientSecret)}`;
    const exchanged = await api(sb.restUrl, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=${code.body.code}&redirect_uri=${encodeURIComponent('http://localhost/cb')}&${creds}`,
    });
    expect(exchanged.status).toBe(200);
    expect((await admin('POST', '/oauth2/tokens', { scopes: [] })).status).toBe(400);
  });

  it('invokes, waits for the answer, and reads the interaction back', async () => {
    const { sb, admin } = await start();
    await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'ping', description: 'Ping' } });
    expect((await admin('GET', '/commands')).body.map((c: any) => c.name)).toEqual(['ping']);
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    void client.nextDispatch('INTERACTION_CREATE').then((p) => {
      const d = p.d as any;
      void api(sb.restUrl, 'POST', `/interactions/${d.id}/${d.token}/callback`, { body: { type: 4, data: { content: 'pong' } } });
    });
    const r = await admin('POST', '/invoke', { name: 'ping', guildId: sb.state.guildIds[0], wait: 5000, settle: 50 });
    expect(r.status).toBe(201);
    expect(r.body.callbacks).toEqual([{ type: 4, data: { content: 'pong' } }]);
    expect(r.body.original.content).toBe('pong');
    expect((await admin('GET', `/interactions/${r.body.id}`)).body.id).toBe(r.body.id);
    const bad = await admin('POST', '/invoke', { name: 'nope' });
    expect(bad.status).toBe(404);
    expect(bad.body.error).toBe('UNKNOWN_COMMAND');
    expect((await admin('POST', '/invoke', { name: 'ping', options: { x: [1] } })).status).toBe(400);
  });
});

describe('loopback only', () => {
  it('refuses any host but 127.0.0.1 and ::1', async () => {
    await expect(createSandbox({ host: '0.0.0.0' as never })).rejects.toThrow(/127\.0\.0\.1/);
  });

  it('listens on ::1 when asked', async () => {
    const sb = await createSandbox({ host: '::1' }).catch((e: unknown) => e);
    if (sb instanceof Error) return; // no IPv6 loopback on this machine
    sandboxes.push(sb as Sandbox);
    expect((sb as Sandbox).restUrl).toMatch(/^http:\/\/\[::1\]:\d+\/api\/v10$/);
    expect((await api((sb as Sandbox).restUrl, 'GET', '/gateway')).status).toBe(200);
  });
});

describe('uploads and entry points', () => {
  it('keeps files of a multipart response as attachments; more than 10 MiB per file is 413 / 40005', async () => {
    // The 10 MiB refusal comes first; on a loaded machine it took longer than the 3-second answer window (the
    // answer then failed with 10062 once in a while), so the window is wide here: it is not what this tests.
    const { sb } = await start({ rest: { buckets: { 'interaction.callback': { limit: 50, windowMs: 1000 } }, interactionResponseMs: 60_000 } });
    await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'pic', description: 'Pic' } });
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    const rec = await sb.invoke({ name: 'pic', guildId: sb.state.guildIds[0] });
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ type: 4, data: { attachments: [{ id: 0, filename: 'cat.png' }] } }));
    form.append('files[0]', new Blob([new Uint8Array(2048)], { type: 'image/png' }), 'cat.png');
    const tooBig = new FormData();
    tooBig.append('payload_json', JSON.stringify({ type: 4, data: { content: 'x' } }));
    tooBig.append('files[0]', new Blob([new Uint8Array(10 * 1024 * 1024 + 1)]), 'huge.bin');
    const big = await fetch(`${sb.restUrl}/interactions/${rec.id}/${rec.token}/callback`, { method: 'POST', body: tooBig });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: number }).code).toBe(40005);
    const res = await fetch(`${sb.restUrl}/interactions/${rec.id}/${rec.token}/callback`, { method: 'POST', body: form });
    expect(res.status).toBe(204);
    expect(rec.original!.attachments).toEqual([expect.objectContaining({ filename: 'cat.png', size: 2048, content_type: 'image/png' })]);
  });

  it('an entry point with handler 1 reaches the app (type 4 data); handler 2 is the service\'s own', async () => {
    const { sb } = await start({ activities: true });
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    await expect(sb.invoke({ name: 'Launch', type: 4, guildId: sb.state.guildIds[0] })).rejects.toThrow(/handler 2/);
    await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'Launch', type: 4, description: 'Play', handler: 1 } });
    const rec = await sb.invoke({ name: 'Launch', type: 4, guildId: sb.state.guildIds[0] });
    expect((rec.payload.data as any).type).toBe(4);
    const r = await api(sb.restUrl, 'POST', `/interactions/${rec.id}/${rec.token}/callback`, { body: { type: 12 } });
    expect(r.status).toBe(204);
  });
});
