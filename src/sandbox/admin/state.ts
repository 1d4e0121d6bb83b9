/**
 * Admin API entries for the application's state a test arranges or reads (a route table for ./api.ts):
 *
 *   GET    /_sandbox/skus                              SKU objects
 *   POST   /_sandbox/entitlements                      { skuId, userId? | guildId?, subscription? } -> { id }
 *   POST   /_sandbox/entitlements/:id/end              { endsAt? }                                   (ENTITLEMENT_UPDATE)
 *   GET    /_sandbox/commands[?guild_id=]              registered commands of a scope
 *   GET    /_sandbox/messages[?channel_id=&guild_id=]  messages the bot sent (deleted ones too), oldest first
 *   POST   /_sandbox/oauth2/tokens                     { scopes, userId? } -> { access_token }
 *   POST   /_sandbox/oauth2/codes                      { scopes, userId?, redirectUri? } -> { code }
 */
import type { SandboxCore } from '../core.js';
import { SandboxError } from '../errors.js';
import { messageSnapshot } from '../state/messages.js';
import { skuObject } from '../state/serialize.js';
import type { SandboxStore } from '../state/store.js';
import { registerSecret } from '../../util/redact.js';
import { bad, obj, optString, optStrings } from './fields.js';
import { param, type AdminContext, type AdminReply, type AdminRoute } from './types.js';

function grantEntitlement(store: SandboxStore, body: unknown): AdminReply {
  const o = obj(body);
  const skuId = optString(o, 'skuId');
  if (!skuId) throw bad('skuId is required');
  const input: { skuId: string; userId?: string; guildId?: string; subscription?: boolean } = { skuId };
  const userId = optString(o, 'userId');
  const guildId = optString(o, 'guildId');
  if (userId !== undefined) input.userId = userId;
  if (guildId !== undefined) input.guildId = guildId;
  if (typeof o.subscription === 'boolean') input.subscription = o.subscription;
  return { status: 201, body: { id: store.grantEntitlement(input).id } };
}

function endEntitlement(store: SandboxStore, ctx: AdminContext): AdminReply {
  const o = obj(ctx.body, 'empty');
  const endsAt = optString(o, 'endsAt');
  const date = endsAt === undefined ? undefined : new Date(endsAt);
  if (date !== undefined && Number.isNaN(date.getTime())) throw bad('endsAt must be an ISO 8601 date');
  store.endEntitlement(param(ctx, 'id'), date);
  return { status: 204 };
}

function commands(core: SandboxCore, query: URLSearchParams): AdminReply {
  const guildId = query.get('guild_id');
  if (guildId !== null && !core.store.guild(guildId)) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${guildId}`);
  return { status: 200, body: core.commands.list(guildId) };
}

function messages(store: SandboxStore, query: URLSearchParams): AdminReply {
  const filter: { channelId?: string; guildId?: string } = {};
  const channelId = query.get('channel_id');
  const guildId = query.get('guild_id');
  if (channelId !== null) filter.channelId = channelId;
  if (guildId !== null) filter.guildId = guildId;
  return { status: 200, body: store.messages.all(filter).map(messageSnapshot) };
}

/** An OAuth2 access token or authorization code for a user (the user 0 of the seed by default). */
function oauth2(core: SandboxCore, what: 'tokens' | 'codes', body: unknown): AdminReply {
  const o = obj(body);
  const scopes = optStrings(o, 'scopes');
  if (!scopes || scopes.length === 0) throw bad('scopes must be a non-empty array of strings');
  const userId = optString(o, 'userId') ?? core.store.fixture.userId(0);
  if (!core.store.user(userId)) throw new SandboxError('UNKNOWN_USER', `unknown user ${userId}`);
  if (what === 'tokens') {
    const token = core.oauth.issue(scopes, userId);
    registerSecret(token.accessToken, { transient: true });
    return { status: 201, body: { access_token: token.accessToken, refresh_token: token.refreshToken, scope: scopes.join(' ') } };
  }
  return { status: 201, body: { code: core.oauth.issueCode(scopes, userId, optString(o, 'redirectUri') ?? null) } };
}

export function stateRoutes(core: SandboxCore): AdminRoute[] {
  const store = core.store;
  return [
    { method: 'GET', path: '/skus', handler: () => ({ status: 200, body: store.skus.map((s) => skuObject(s, store.applicationId)) }) },
    { method: 'POST', path: '/entitlements', handler: (ctx) => grantEntitlement(store, ctx.body) },
    { method: 'POST', path: '/entitlements/:id/end', handler: (ctx) => endEntitlement(store, ctx) },
    { method: 'GET', path: '/commands', handler: (ctx) => commands(core, ctx.query) },
    { method: 'GET', path: '/messages', handler: (ctx) => messages(store, ctx.query) },
    { method: 'POST', path: '/oauth2/tokens', handler: (ctx) => oauth2(core, 'tokens', ctx.body) },
    { method: 'POST', path: '/oauth2/codes', handler: (ctx) => oauth2(core, 'codes', ctx.body) },
  ];
}
