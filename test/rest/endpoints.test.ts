import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as api from '../../src/rest/index.js';
import { RequestRefusedError, RestClient, bearerAuth } from '../../src/rest/index.js';
import { startFakeApi, type FakeApi, type RecordedRequest } from './helpers/fake-api.js';
import { redact } from '../../src/util/redact.js';

const BOT = 'endpoint-test-bot-token';
const APP = '111111111111111111';
const GUILD = '222222222222222222';
const CMD = '333333333333333333';
const INTERACTION = '444444444444444444';
const ITOKEN = 'aW50ZXJhY3Rpb246NDQ0NDQ0NDQ0NDQ0NDQ0NDQ0OmV4YW1wbGV0b2tlbg';

let server: FakeApi;
let rest: RestClient;

beforeEach(async () => {
  server = await startFakeApi();
  rest = new RestClient({ baseUrl: server.baseUrl, token: BOT });
});
afterEach(async () => {
  rest.close();
  await server.close();
});

function last(): RecordedRequest {
  const r = server.requests.at(-1);
  if (!r) throw new Error('no request reached the server');
  return r;
}
const json = (r: RecordedRequest): unknown => JSON.parse(r.body);

describe('auth and headers', () => {
  it('sends Bot auth by default, a Bearer token per request, and nothing with auth: false', async () => {
    await api.getCurrentUser(rest);
    expect(last().headers.authorization).toBe(`Bot ${BOT}`);
    await api.getCurrentUser(rest, { auth: bearerAuth('user-access-token') });
    expect(last().headers.authorization).toBe('Bearer user-access-token');
    await api.getGateway(rest);
    expect(last().headers.authorization).toBeUndefined();
  });

  it('sends the User-Agent in the form DiscordBot ($url, $version)', async () => {
    await api.getGatewayBot(rest);
    expect(last().headers['user-agent']).toBe('DiscordBot (https://github.com/gatehouse/gatehouse, 0.2.0)');
    const suffixed = new RestClient({ baseUrl: server.baseUrl, token: BOT, userAgentSuffix: 'mybot/2' });
    await api.getGatewayBot(suffixed);
    suffixed.close();
    expect(last().headers['user-agent']).toMatch(/^DiscordBot \(https:\/\/github\.com\/gatehouse\/gatehouse, \d+\.\d+\.\d+\) mybot\/2$/);
  });

  it('refuses locally to edit command permissions with a bot token (spec 5 rule 3)', async () => {
    const perms = [{ id: GUILD, type: 1, permission: true }] as const;
    // Through the default (bot) credentials, by hand:
    const byHand = await rest
      .request({
        method: 'PUT',
        route: '/applications/{application_id}/guilds/{guild_id}/commands/{command_id}/permissions',
        params: { application_id: APP, guild_id: GUILD, command_id: CMD },
        body: { permissions: perms },
      })
      .catch((e: unknown) => e);
    expect(byHand).toBeInstanceOf(RequestRefusedError);
    expect(byHand).toMatchObject({ reason: 'bearer-required', method: 'PUT' });
    expect((byHand as Error).message).toContain('applications.commands.permissions.update');
    expect((byHand as Error).message).toContain('a Bot token is rejected by the service');

    // A bot token smuggled in as the "bearer" token:
    const botShaped = 'MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB';
    const smuggled = await api
      .editCommandPermissions(rest, APP, GUILD, CMD, [...perms], { bearerToken: botShaped })
      .catch((e: unknown) => e);
    expect(smuggled).toMatchObject({ name: 'RequestRefusedError', reason: 'bearer-required' });
    const sameAsBot = await api
      .editCommandPermissions(rest, APP, GUILD, CMD, [...perms], { bearerToken: BOT })
      .catch((e: unknown) => e);
    expect(sameAsBot).toMatchObject({ reason: 'bearer-required' });
    expect(server.requests).toHaveLength(0);

    // With a user's Bearer token it goes out.
    await api.editCommandPermissions(rest, APP, GUILD, CMD, [...perms], { bearerToken: 'oauth-user-token' });
    expect(last()).toMatchObject({
      method: 'PUT',
      path: `/applications/${APP}/guilds/${GUILD}/commands/${CMD}/permissions`,
    });
    expect(last().headers.authorization).toBe('Bearer oauth-user-token');
    expect(json(last())).toEqual({ permissions: perms });
  });

  it('refuses the disabled batch permissions edit and more than 100 overwrites', async () => {
    const batch = await rest
      .request({
        method: 'PUT',
        route: '/applications/{application_id}/guilds/{guild_id}/commands/permissions',
        params: { application_id: APP, guild_id: GUILD },
        body: [],
        auth: bearerAuth('oauth-user-token'),
      })
      .catch((e: unknown) => e);
    expect(batch).toMatchObject({ name: 'RequestRefusedError', reason: 'endpoint-disabled' });
    expect('batchEditCommandPermissions' in api).toBe(false);

    const tooMany = Array.from({ length: 101 }, (_, i) => ({ id: String(10n ** 17n + BigInt(i)), type: 2 as const, permission: true }));
    await expect(
      api.editCommandPermissions(rest, APP, GUILD, CMD, tooMany, { bearerToken: 'oauth-user-token' }),
    ).rejects.toMatchObject({ reason: 'invalid-input' });
    expect(server.requests).toHaveLength(0);
  });

  it('sends X-Audit-Log-Reason URL-encoded', async () => {
    await api.setVoiceChannelStatus(rest, '555', 'Playing: chess', { reason: 'café night' });
    expect(last().headers['x-audit-log-reason']).toBe('caf%C3%A9%20night');
  });
});

describe('endpoints: method, path, query and body', () => {
  const body = { name: 'roll', description: 'Roll a die' };
  const cases: Array<{ name: string; call: () => Promise<unknown>; method: string; path: string; query?: string; body?: unknown }> = [
    { name: 'get global commands', call: () => api.getGlobalCommands(rest, APP, { withLocalizations: true }), method: 'GET', path: `/applications/${APP}/commands`, query: 'with_localizations=true' },
    { name: 'create global command', call: () => api.createGlobalCommand(rest, APP, body), method: 'POST', path: `/applications/${APP}/commands`, body },
    { name: 'get global command', call: () => api.getGlobalCommand(rest, APP, CMD), method: 'GET', path: `/applications/${APP}/commands/${CMD}` },
    { name: 'edit global command', call: () => api.editGlobalCommand(rest, APP, CMD, { description: 'd' }), method: 'PATCH', path: `/applications/${APP}/commands/${CMD}`, body: { description: 'd' } },
    { name: 'delete global command', call: () => api.deleteGlobalCommand(rest, APP, CMD), method: 'DELETE', path: `/applications/${APP}/commands/${CMD}` },
    { name: 'bulk overwrite global', call: () => api.bulkOverwriteGlobalCommands(rest, APP, [body]), method: 'PUT', path: `/applications/${APP}/commands`, body: [body] },
    { name: 'get guild commands', call: () => api.getGuildCommands(rest, APP, GUILD), method: 'GET', path: `/applications/${APP}/guilds/${GUILD}/commands`, query: '' },
    { name: 'create guild command', call: () => api.createGuildCommand(rest, APP, GUILD, body), method: 'POST', path: `/applications/${APP}/guilds/${GUILD}/commands`, body },
    { name: 'get guild command', call: () => api.getGuildCommand(rest, APP, GUILD, CMD), method: 'GET', path: `/applications/${APP}/guilds/${GUILD}/commands/${CMD}` },
    { name: 'edit guild command', call: () => api.editGuildCommand(rest, APP, GUILD, CMD, { nsfw: true }), method: 'PATCH', path: `/applications/${APP}/guilds/${GUILD}/commands/${CMD}`, body: { nsfw: true } },
    { name: 'delete guild command', call: () => api.deleteGuildCommand(rest, APP, GUILD, CMD), method: 'DELETE', path: `/applications/${APP}/guilds/${GUILD}/commands/${CMD}` },
    { name: 'bulk overwrite guild', call: () => api.bulkOverwriteGuildCommands(rest, APP, GUILD, [body]), method: 'PUT', path: `/applications/${APP}/guilds/${GUILD}/commands`, body: [body] },
    { name: 'guild command permissions', call: () => api.getGuildCommandPermissions(rest, APP, GUILD), method: 'GET', path: `/applications/${APP}/guilds/${GUILD}/commands/permissions` },
    { name: 'command permissions', call: () => api.getCommandPermissions(rest, APP, GUILD, CMD), method: 'GET', path: `/applications/${APP}/guilds/${GUILD}/commands/${CMD}/permissions` },
    { name: 'current user', call: () => api.getCurrentUser(rest), method: 'GET', path: '/users/@me' },
    { name: 'current user guilds', call: () => api.getCurrentUserGuilds(rest, { limit: 50, after: '9' }), method: 'GET', path: '/users/@me/guilds', query: 'after=9&limit=50' },
    { name: 'gateway bot', call: () => api.getGatewayBot(rest), method: 'GET', path: '/gateway/bot' },
    { name: 'current application', call: () => api.getCurrentApplication(rest), method: 'GET', path: '/applications/@me' },
    { name: 'voice status', call: () => api.setVoiceChannelStatus(rest, '555', 'hi'), method: 'PUT', path: '/channels/555/voice-status', body: { status: 'hi' } },
    { name: 'thread members', call: () => api.getThreadMembers(rest, '556', { withMember: true, limit: 10 }), method: 'GET', path: '/channels/556/thread-members', query: 'with_member=true&limit=10' },
    { name: 'thread member', call: () => api.getThreadMember(rest, '556', '7'), method: 'GET', path: '/channels/556/thread-members/7' },
    { name: 'join thread', call: () => api.joinThread(rest, '556'), method: 'PUT', path: '/channels/556/thread-members/@me' },
    { name: 'add thread member', call: () => api.addThreadMember(rest, '556', '7'), method: 'PUT', path: '/channels/556/thread-members/7' },
    { name: 'lobby bulk members', call: () => api.bulkUpdateLobbyMembers(rest, '77', [{ id: '8' }]), method: 'POST', path: '/lobbies/77/members/bulk', body: [{ id: '8' }] },
    { name: 'role connection metadata', call: () => api.getRoleConnectionMetadata(rest, APP), method: 'GET', path: `/applications/${APP}/role-connections/metadata` },
    { name: 'update role connection metadata', call: () => api.updateRoleConnectionMetadata(rest, APP, []), method: 'PUT', path: `/applications/${APP}/role-connections/metadata`, body: [] },
    { name: 'user role connection', call: () => api.getCurrentUserRoleConnection(rest, APP, 'user-token'), method: 'GET', path: `/users/@me/applications/${APP}/role-connection` },
    { name: 'update user role connection', call: () => api.updateCurrentUserRoleConnection(rest, APP, 'user-token', { platform_name: 'x' }), method: 'PUT', path: `/users/@me/applications/${APP}/role-connection`, body: { platform_name: 'x' } },
    { name: 'list entitlements', call: () => api.listEntitlements(rest, APP, { sku_ids: ['1', '2'], exclude_ended: true }), method: 'GET', path: `/applications/${APP}/entitlements`, query: 'exclude_ended=true&sku_ids=1%2C2' },
    { name: 'get entitlement', call: () => api.getEntitlement(rest, APP, '9'), method: 'GET', path: `/applications/${APP}/entitlements/9` },
    { name: 'consume entitlement', call: () => api.consumeEntitlement(rest, APP, '9'), method: 'POST', path: `/applications/${APP}/entitlements/9/consume` },
    { name: 'create test entitlement', call: () => api.createTestEntitlement(rest, APP, { sku_id: '5', owner_id: '6', owner_type: 2 }), method: 'POST', path: `/applications/${APP}/entitlements`, body: { sku_id: '5', owner_id: '6', owner_type: 2 } },
    { name: 'delete test entitlement', call: () => api.deleteTestEntitlement(rest, APP, '9'), method: 'DELETE', path: `/applications/${APP}/entitlements/9` },
    { name: 'user entitlements', call: () => api.listCurrentUserEntitlements(rest, APP, 'user-token', { sku_ids: ['1'] }), method: 'GET', path: `/users/@me/applications/${APP}/entitlements`, query: 'sku_ids=1' },
    { name: 'skus', call: () => api.listSkus(rest, APP), method: 'GET', path: `/applications/${APP}/skus` },
    { name: 'sku subscriptions', call: () => api.listSkuSubscriptions(rest, '5', { user_id: '6' }), method: 'GET', path: '/skus/5/subscriptions', query: 'user_id=6' },
    { name: 'sku subscription', call: () => api.getSkuSubscription(rest, '5', '7'), method: 'GET', path: '/skus/5/subscriptions/7' },
    { name: 'interaction callback', call: () => api.createInteractionResponse(rest, INTERACTION, ITOKEN, { type: 4, data: { content: 'hi' } }), method: 'POST', path: `/interactions/${INTERACTION}/${ITOKEN}/callback`, query: '', body: { type: 4, data: { content: 'hi' } } },
    { name: 'interaction callback with response', call: () => api.createInteractionResponse(rest, INTERACTION, ITOKEN, { type: 5 }, { withResponse: true }), method: 'POST', path: `/interactions/${INTERACTION}/${ITOKEN}/callback`, query: 'with_response=true', body: { type: 5 } },
    { name: 'get original', call: () => api.getOriginalResponse(rest, APP, ITOKEN), method: 'GET', path: `/webhooks/${APP}/${ITOKEN}/messages/@original` },
    { name: 'edit original', call: () => api.editOriginalResponse(rest, APP, ITOKEN, { content: 'x' }), method: 'PATCH', path: `/webhooks/${APP}/${ITOKEN}/messages/@original`, body: { content: 'x' } },
    { name: 'delete original', call: () => api.deleteOriginalResponse(rest, APP, ITOKEN), method: 'DELETE', path: `/webhooks/${APP}/${ITOKEN}/messages/@original` },
    { name: 'create followup', call: () => api.createFollowup(rest, APP, ITOKEN, { content: 'f', flags: 64 }), method: 'POST', path: `/webhooks/${APP}/${ITOKEN}`, body: { content: 'f', flags: 64 } },
    { name: 'get followup', call: () => api.getFollowup(rest, APP, ITOKEN, '12'), method: 'GET', path: `/webhooks/${APP}/${ITOKEN}/messages/12` },
    { name: 'edit followup', call: () => api.editFollowup(rest, APP, ITOKEN, '12', { content: 'g' }), method: 'PATCH', path: `/webhooks/${APP}/${ITOKEN}/messages/12`, body: { content: 'g' } },
    { name: 'delete followup', call: () => api.deleteFollowup(rest, APP, ITOKEN, '12'), method: 'DELETE', path: `/webhooks/${APP}/${ITOKEN}/messages/12` },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      await c.call();
      const r = last();
      expect(r.method).toBe(c.method);
      expect(r.path).toBe(c.path);
      if (c.query !== undefined) expect(r.query.toString()).toBe(c.query);
      if (c.body !== undefined) {
        expect(r.headers['content-type']).toBe('application/json');
        expect(json(r)).toEqual(c.body);
      } else {
        expect(r.body).toBe('');
      }
    });
  }

  it('interaction routes carry no bot token', async () => {
    await api.createInteractionResponse(rest, INTERACTION, ITOKEN, { type: 1 });
    await api.createFollowup(rest, APP, ITOKEN, { content: 'x' });
    for (const r of server.requests) expect(r.headers.authorization).toBeUndefined();
  });

  it('create reports whether the name was new (201) or overwritten (200)', async () => {
    server.script('POST', /commands$/, [{ status: 201, body: { id: '1' } }, { status: 200, body: { id: '1' } }]);
    await expect(api.createGlobalCommand(rest, APP, body)).resolves.toEqual({ command: { id: '1' }, created: true });
    await expect(api.createGuildCommand(rest, APP, GUILD, body)).resolves.toEqual({ command: { id: '1' }, created: false });
  });

  it('204 answers resolve to undefined', async () => {
    server.onAny(() => ({ status: 204 }));
    await expect(api.createInteractionResponse(rest, INTERACTION, ITOKEN, { type: 6 })).resolves.toBeUndefined();
    await expect(api.deleteGlobalCommand(rest, APP, CMD)).resolves.toBeUndefined();
  });

  it('enforces the voice status and lobby bulk limits locally', async () => {
    await expect(api.setVoiceChannelStatus(rest, '555', 'x'.repeat(501))).rejects.toMatchObject({ reason: 'invalid-input' });
    await api.setVoiceChannelStatus(rest, '555', 'é'.repeat(500));
    const members = Array.from({ length: 26 }, (_, i) => ({ id: String(i + 1) }));
    await expect(api.bulkUpdateLobbyMembers(rest, '77', members)).rejects.toMatchObject({ reason: 'invalid-input' });
    await api.bulkUpdateLobbyMembers(rest, '77', members.slice(0, 25));
    expect(server.requests).toHaveLength(2);
  });

  it('uploads files as multipart with payload_json', async () => {
    await api.createFollowup(rest, APP, ITOKEN, { content: 'file' }, { files: [{ name: 'a.txt', data: new TextEncoder().encode('hello'), contentType: 'text/plain' }] });
    const r = last();
    expect(r.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(r.body).toContain('name="payload_json"');
    expect(r.body).toContain('{"content":"file"}');
    expect(r.body).toContain('name="files[0]"; filename="a.txt"');
    expect(r.body).toContain('hello');
  });
});

describe('oauth2', () => {
  it('exchanges an authorization code with a form-encoded body and no Authorization header', async () => {
    await api.exchangeAuthorizationCode(rest, {
      clientId: '123',
      clientSecret: 'client-secret-value',
      code: 'the-code',
      redirectUri: 'https://example.org/cb?x=1',
    });
    const r = last();
    expect(r).toMatchObject({ method: 'POST', path: '/oauth2/token' });
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(r.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
      client_id: '123',
      client_secret: 'client-secret-value',
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://example.org/cb?x=1',
    });
  });

  it('gets a client-credentials token with HTTP Basic auth', async () => {
    await api.getClientCredentialsToken(rest, {
      clientId: '123',
      clientSecret: 'client-secret-value',
      scopes: ['applications.commands.update', 'identify'],
    });
    const r = last();
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('123:client-secret-value').toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'applications.commands.update identify',
    });
  });

  it('registers the tokens it receives with the redactor', async () => {
    server.script('POST', /^\/oauth2\/token$/, [
      { status: 200, body: { access_token: 'issued-access-token-123', refresh_token: 'issued-refresh-token-456', token_type: 'Bearer', expires_in: 604800, scope: 'identify' } },
    ]);
    const t = await api.exchangeAuthorizationCode(rest, { clientId: '123', clientSecret: 'client-secret-value', code: 'c', redirectUri: 'https://example.org/cb' });
    expect(t.access_token).toBe('issued-access-token-123');
    expect(redact('a issued-access-token-123 b issued-refresh-token-456')).toBe('a [redacted] b [redacted]');
  });

  it('refreshes an access token', async () => {
    await api.refreshAccessToken(rest, { clientId: '123', clientSecret: 'client-secret-value', refreshToken: 'rt' });
    expect(Object.fromEntries(new URLSearchParams(last().body))).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'rt' });
  });
});

describe('request validation', () => {
  it('rejects a missing route param without echoing values', async () => {
    await expect(
      rest.request({ method: 'GET', route: '/channels/{channel_id}', params: {} as { channel_id: string } }),
    ).rejects.toThrow('route /channels/{channel_id}: param "channel_id" must be a non-empty string');
  });

  it('URL-encodes param values', async () => {
    await rest.request({ method: 'GET', route: '/webhooks/{webhook_id}/{webhook_token}', params: { webhook_id: '81384788765712384', webhook_token: '../users/@me' } });
    expect(last().path).toBe('/webhooks/81384788765712384/..%2Fusers%2F%40me');
  });

  it('refuses an id param that is not a snowflake before sending anything', async () => {
    const sent = server.requests.length;
    await expect(rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '../users/@me' } })).rejects.toThrow(
      'route /channels/{channel_id}: param "channel_id" must be a snowflake',
    );
    await expect(rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '0123' } })).rejects.toThrow(/must be a snowflake/);
    expect(server.requests.length).toBe(sent);
  });
});
