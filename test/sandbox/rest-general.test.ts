import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await createSandbox(options);
  sandboxes.push(sb);
  return sb;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

describe('rate limits', () => {
  it('sends X-RateLimit-* headers on every response of a limited route, 429s included', async () => {
    const sb = await start({ rest: { buckets: { 'commands.read': { limit: 3, windowMs: 10_000 } } } });
    const path = `/applications/${sb.applicationId}/commands`;
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await api(sb.restUrl, 'GET', path, { token: sb.botToken }));
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(seen.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    for (const r of seen) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      expect(r.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      expect(Number(r.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
    }
    const limited = seen[3]!;
    expect(limited.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(10);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.headers.get('x-ratelimit-global')).toBeNull();
    expect(sb.counters.rest429s).toBe(1);
  });

  it('splits a bucket by top-level resource (guild), shares the hash across guilds', async () => {
    const sb = await start({ rest: { buckets: { 'commands.read': { limit: 1, windowMs: 10_000 } } } });
    const [g1, g2] = sb.state.guildIds;
    const a = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/guilds/${g1}/commands`, { token: sb.botToken });
    const b = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/guilds/${g2}/commands`, { token: sb.botToken });
    const a2 = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/guilds/${g1}/commands`, { token: sb.botToken });
    expect([a.status, b.status, a2.status]).toEqual([200, 200, 429]);
    expect(a.headers.get('x-ratelimit-bucket')).toBe(b.headers.get('x-ratelimit-bucket'));
  });

  it('resets the bucket after its window', async () => {
    const sb = await start({ rest: { buckets: { 'users.me': { limit: 1, windowMs: 1000 } } } });
    expect((await api(sb.restUrl, 'GET', '/users/@me', { token: sb.botToken })).status).toBe(200);
    expect((await api(sb.restUrl, 'GET', '/users/@me', { token: sb.botToken })).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await api(sb.restUrl, 'GET', '/users/@me', { token: sb.botToken })).status).toBe(200);
  });

  it('enforces the global per-second limit with X-RateLimit-Global and scope global', async () => {
    const sb = await start({ rest: { globalPerSecond: 3, buckets: { 'commands.read': { limit: 100, windowMs: 1000 } } } });
    const path = `/applications/${sb.applicationId}/commands`;
    const results = await Promise.all(Array.from({ length: 5 }, () => api(sb.restUrl, 'GET', path, { token: sb.botToken })));
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(limited).toHaveLength(2);
    expect(limited[0]!.headers.get('x-ratelimit-global')).toBe('true');
    expect(limited[0]!.headers.get('x-ratelimit-scope')).toBe('global');
    expect(limited[0]!.body.global).toBe(true);
    expect(limited[0]!.body.message).toBe('You are being rate limited.');
  });
});

describe('errors and routing', () => {
  it('answers what it does not model with its own marker: 501, code -1, X-Sandbox-Unmodelled, never a service error', async () => {
    const sb = await start();
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', `/guilds/${sb.state.guildIds[0]!}/onboarding`],
      // A modelled path with a method the sandbox does not model.
      ['DELETE', '/gateway/bot'],
      ['PATCH', `/applications/${sb.applicationId}/commands`],
      // The service's literal segments where a modelled route has an id: not "search is not a snowflake".
      ['GET', `/guilds/${sb.state.guildIds[0]!}/roles/member-counts`],
    ] as const) {
      const r = await api(sb.restUrl, method, path, { token: sb.botToken });
      expect([method, path, r.status]).toEqual([method, path, 501]);
      expect(r.headers.get('x-sandbox-unmodelled')).toBe('true');
      expect(r.body).toMatchObject({ code: -1, unmodelled: { method, path } });
      expect(r.body.message).toContain('does not model');
    }
    // The reason phrase carries the marker too (clients that keep only statusText on a 5xx still show it).
    const raw = await fetch(`${sb.restUrl}/nope`, { headers: { authorization: `Bot ${sb.botToken}` } });
    expect(raw.statusText).toBe('Not Modelled By The Gatehouse Sandbox');
    // Interaction and webhook tokens are never echoed.
    const hook = await api(sb.restUrl, 'PUT', `/webhooks/${sb.applicationId}/secret-token/messages/@original`, { token: sb.botToken });
    expect(hook.status).toBe(501);
    expect(JSON.stringify(hook.body)).not.toContain('secret-token');
  });

  it('still answers a bad id in those positions as the service does (50035 at the parameter)', async () => {
    const sb = await start();
    const r = await api(sb.restUrl, 'GET', `/guilds/${sb.state.guildIds[0]!}/members/searching`, { token: sb.botToken });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 50035, errors: { user_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } } });
  });

  it('percent-decodes fixed path segments like the service (/users/%40me is /users/@me)', async () => {
    const sb = await start();
    const me = await api(sb.restUrl, 'GET', '/users/%40me', { token: sb.botToken });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(sb.applicationId);
    const app = await api(sb.restUrl, 'GET', '/applications/%40me', { token: sb.botToken });
    expect(app.status).toBe(200);
    const cmds = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/%63ommands`, { token: sb.botToken });
    expect(cmds.status).toBe(200);
  });

  it('invalid version / invalid JSON / invalid content type in the service shapes', async () => {
    const sb = await start();
    const base = sb.restUrl.replace(/\/v10$/, '');
    // A path segment that is not valid percent-encoding names no resource.
    const garbled = await api(sb.restUrl, 'GET', `/applications/%E0%A4%A/commands`, { token: sb.botToken });
    expect([garbled.status, garbled.body]).toEqual([404, { message: '404: Not Found', code: 0 }]);
    const v8 = await api(`${base}/v8`, 'GET', '/gateway');
    expect(v8.status).toBe(400);
    expect(v8.body.code).toBe(50041);
    const badJson = await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: '{"name":' });
    expect(badJson.status).toBe(400);
    expect(badJson.body.code).toBe(50109);
    const badType = await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(badType.status).toBe(400);
    expect(badType.body.code).toBe(50035);
  });

  it('401 with the observed body for a missing, malformed or wrong token', async () => {
    const sb = await start();
    for (const authorization of [undefined, sb.botToken, 'Bot wrong', 'Bearer nope']) {
      const r = await api(sb.restUrl, 'GET', '/users/@me', { headers: authorization ? { authorization } : {} });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: '401: Unauthorized', code: 0 });
    }
  });
});

describe('identity', () => {
  it('GET /users/@me answers for the bot token and for a bearer token with identify', async () => {
    const sb = await start();
    const bot = await api(sb.restUrl, 'GET', '/users/@me', { token: sb.botToken });
    expect(bot.body).toMatchObject({ id: sb.applicationId, bot: true });
    const owner = sb.state.memberIds(sb.state.guildIds[0]!)[1]!;
    const user = await api(sb.restUrl, 'GET', '/users/@me', { bearer: sb.issueBearerToken(['identify']) });
    expect(user.status).toBe(200);
    expect(user.body.id).toBe(owner);
    expect(user.body.bot).toBeUndefined();
    const noScope = await api(sb.restUrl, 'GET', '/users/@me', { bearer: sb.issueBearerToken(['guilds']) });
    expect(noScope.status).toBe(401);
  });

  it('GET /applications/@me needs the bot token and reports id and flags', async () => {
    const sb = await start({ gateway: { allowedIntents: 1 | 2 } });
    const app = await api(sb.restUrl, 'GET', '/applications/@me', { token: sb.botToken });
    expect(app.body.id).toBe(sb.applicationId);
    expect(app.body.flags & (1 << 15)).toBe(1 << 15); // GATEWAY_GUILD_MEMBERS_LIMITED
    expect(app.body.flags & (1 << 13)).toBe(0); // no presence intent allowed
    expect((await api(sb.restUrl, 'GET', '/applications/@me', { bearer: sb.issueBearerToken(['identify']) })).status).toBe(401);
  });
});

describe('oauth2 token endpoint', () => {
  const form = (body: string, auth?: string) => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    body,
  });

  it('client_credentials with Basic auth or body credentials; wrong secret is invalid_client', async () => {
    const sb = await start();
    const basic = `Basic ${Buffer.from(`${sb.clientId}:${sb.clientSecret}`).toString('base64')}`;
    const viaBasic = await api(sb.restUrl, 'POST', '/oauth2/token', form('grant_type=client_credentials&scope=identify%20applications.commands.update', basic));
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'identify applications.commands.update' });
    expect(viaBasic.body.refresh_token).toBeUndefined();
    const viaBody = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=client_credentials&scope=identify&client_id=${sb.clientId}&client_secret=${encodeURIComponent(sb.clientSecret)}`));
    expect(viaBody.status).toBe(200);
    const me = await api(sb.restUrl, 'GET', '/users/@me', { bearer: viaBody.body.access_token });
    expect(me.status).toBe(200);
    const wrong = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=client_credentials&scope=identify&client_id=${sb.clientId}&client_secret=nope`));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    // The versionless path of the docs works too.
    const versionless = await api(sb.restUrl.replace(/\/v10$/, ''), 'POST', '/oauth2/token', form('grant_type=client_credentials&scope=identify', basic));
    expect(versionless.status).toBe(200);
    // A Basic credential that is not URL-encoded text is a bad client, not a server error.
    const garbled = `Basic ${Buffer.from(`${sb.clientId}:100%`).toString('base64')}`;
    const bad = await api(sb.restUrl, 'POST', '/oauth2/token', form('grant_type=client_credentials&scope=identify', garbled));
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_client');
  });

  it('authorization_code: a code is exchanged once, with the same redirect_uri; refresh works', async () => {
    const sb = await start();
    const creds = `client_id=${sb.clientId}&client_secret=${encodeURIComponent(sb.clientSecret)}`;
    const code = sb.issueAuthorizationCode(['identify', 'guilds'], { redirectUri: 'http://localhost/cb' });
    const wrongUri = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=authorization_code&code=${code}&redirect_uri=http%3A%2F%2Fevil&${creds}`));
    expect(wrongUri.status).toBe(400);
    expect(wrongUri.body.error).toBe('invalid_grant');
    const code2 = sb.issueAuthorizationCode(['identify', 'guilds'], { redirectUri: 'http://localhost/cb' });
    const ok = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=authorization_code&code=${code2}&redirect_uri=http%3A%2F%2Flocalhost%2Fcb&${creds}`));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', scope: 'identify guilds', refresh_token: expect.any(String) });
    const again = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=authorization_code&code=${code2}&redirect_uri=http%3A%2F%2Flocalhost%2Fcb&${creds}`));
    expect(again.body.error).toBe('invalid_grant');
    const refreshed = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=refresh_token&refresh_token=${ok.body.refresh_token}&${creds}`));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(ok.body.access_token);
    expect((await api(sb.restUrl, 'GET', '/users/@me', { bearer: ok.body.access_token })).status).toBe(401);
    expect((await api(sb.restUrl, 'GET', '/users/@me', { bearer: refreshed.body.access_token })).status).toBe(200);
    const unsupported = await api(sb.restUrl, 'POST', '/oauth2/token', form(`grant_type=password&${creds}`));
    expect(unsupported.body.error).toBe('unsupported_grant_type');
  });
});

describe('entitlements and SKUs', () => {
  it('lists entitlements with filters, gets one, and lists SKUs', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5, skus: 3 }, rest: { buckets: { entitlements: { limit: 100, windowMs: 1000 } } } });
    const base = `/applications/${sb.applicationId}/entitlements`;
    const seeded = (await api(sb.restUrl, 'GET', base, { token: sb.botToken })).body;
    expect(seeded).toHaveLength(2);
    const [durable, sub] = sb.state.skuIds;
    const byUser = (await api(sb.restUrl, 'GET', `${base}?user_id=${seeded[0].user_id}`, { token: sb.botToken })).body;
    expect(byUser).toHaveLength(1);
    const bySku = (await api(sb.restUrl, 'GET', `${base}?sku_ids=${sub},${durable}`, { token: sb.botToken })).body;
    expect(bySku).toHaveLength(2);
    expect((await api(sb.restUrl, 'GET', `${base}?sku_ids=${sb.state.skuIds[2]}`, { token: sb.botToken })).body).toEqual([]);
    const limited = (await api(sb.restUrl, 'GET', `${base}?limit=1`, { token: sb.botToken })).body;
    expect(limited).toHaveLength(1);
    const after = (await api(sb.restUrl, 'GET', `${base}?after=${limited[0].id}`, { token: sb.botToken })).body;
    expect(after.map((e: any) => e.id)).toEqual([seeded[1].id]);
    expect((await api(sb.restUrl, 'GET', `${base}?limit=101`, { token: sb.botToken })).status).toBe(400);
    // Ended ones stay listed unless exclude_ended.
    sb.state.endEntitlement(seeded[1].id, new Date(Date.now() - 1000));
    expect((await api(sb.restUrl, 'GET', base, { token: sb.botToken })).body).toHaveLength(2);
    expect((await api(sb.restUrl, 'GET', `${base}?exclude_ended=true`, { token: sb.botToken })).body).toHaveLength(1);
    const one = await api(sb.restUrl, 'GET', `${base}/${seeded[0].id}`, { token: sb.botToken });
    expect(one.body).toMatchObject({ id: seeded[0].id, application_id: sb.applicationId, deleted: false });
    expect((await api(sb.restUrl, 'GET', `${base}/123456789012345678`, { token: sb.botToken })).body.code).toBe(10029);
    const skus = (await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/skus`, { token: sb.botToken })).body;
    expect(skus.map((s: any) => s.type)).toEqual([2, 5, 6, 3]);
  });

  it('test entitlements: create (ENTITLEMENT_CREATE), 40074 twice, delete (ENTITLEMENT_DELETE); others cannot be deleted', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5, skus: 3 } });
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    const base = `/applications/${sb.applicationId}/entitlements`;
    const user = sb.state.memberIds(sb.state.guildIds[0]!)[4]!;
    const created = await api(sb.restUrl, 'POST', base, { token: sb.botToken, body: { sku_id: sb.state.skuIds[0], owner_id: user, owner_type: 2 } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ sku_id: sb.state.skuIds[0], user_id: user, type: 4 });
    expect(created.body.starts_at).toBeUndefined();
    expect(((await client.nextDispatch('ENTITLEMENT_CREATE')).d as any).id).toBe(created.body.id);
    const twice = await api(sb.restUrl, 'POST', base, { token: sb.botToken, body: { sku_id: sb.state.skuIds[0], owner_id: user, owner_type: 2 } });
    expect(twice.body.code).toBe(40074);
    expect((await api(sb.restUrl, 'DELETE', `${base}/${created.body.id}`, { token: sb.botToken })).status).toBe(204);
    expect(((await client.nextDispatch('ENTITLEMENT_DELETE')).d as any).deleted).toBe(true);
    const seeded = (await api(sb.restUrl, 'GET', base, { token: sb.botToken })).body[0];
    const refused = await api(sb.restUrl, 'DELETE', `${base}/${seeded.id}`, { token: sb.botToken });
    expect(refused.body).toEqual({ message: 'Only test entitlements can be deleted', code: 40019 });
  });

  it('consume: consumables only (40018 otherwise), then consumed: true', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5, skus: 3 } });
    const base = `/applications/${sb.applicationId}/entitlements`;
    const user = sb.state.memberIds(sb.state.guildIds[0]!)[4]!;
    const durable = (await api(sb.restUrl, 'GET', base, { token: sb.botToken })).body[0];
    expect((await api(sb.restUrl, 'POST', `${base}/${durable.id}/consume`, { token: sb.botToken })).body.code).toBe(40018);
    const coins = sb.state.grantEntitlement({ skuId: sb.state.skuIds[2]!, userId: user });
    expect((await api(sb.restUrl, 'POST', `${base}/${coins}/consume`, { token: sb.botToken })).status).toBe(204);
    expect((await api(sb.restUrl, 'GET', `${base}/${coins}`, { token: sb.botToken })).body.consumed).toBe(true);
  });
});
