/**
 * Routes a user's OAuth2 bearer token reaches (discord-api-docs "User" resource; protocol §S4.4 for the role
 * connection): GET /users/@me/connections (scope `connections`; the sandbox's users have linked no accounts, so
 * `[]`; a bot has none either), GET/PUT/DELETE /users/@me/applications/{id}/role-connection (scope
 * `role_connections.write`) and GET /users/@me/applications/{id}/entitlements (the user's entitlements of the
 * app, any scope). A bot token on the user-only routes is 20001, a token without the scope 401.
 *
 * Role connections: the sandbox has no role-connection metadata records of the app, so metadata is checked for
 * its shape only (at most 5 keys of at most 50 characters, values strings of at most 100), not against records.
 */
import type { SandboxCore } from '../../core.js';
import { Errors } from '../../errors.js';
import { entitlementObject } from '../../state/serialize.js';
import { isSnowflake } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { queryBool } from './commands.js';
import { FormErrors, objectBody, type Json } from './guild-access.js';
import { bearerWith } from './guild-membership.js';
import { isObject } from '../../../util/is-object.js';

const METADATA_KEYS = 5;
const METADATA_KEY_LENGTH = 50;
const METADATA_VALUE_LENGTH = 100;

interface RoleConnection {
  platformName: string | null;
  platformUsername: string | null;
  metadata: Map<string, string>;
}

/** As the service answers it: `platform_name` only when set (the description has it optional, not nullable). */
function roleConnectionObject(c: RoleConnection | undefined): Json {
  const o: Json = { platform_username: c?.platformUsername ?? null, metadata: Object.fromEntries(c?.metadata ?? []) };
  if (c !== undefined && c.platformName !== null) o.platform_name = c.platformName;
  return o;
}

function roleConnectionBody(body: Json): RoleConnection {
  const form = new FormErrors();
  const name = form.string(body, 'platform_name', 0, 50);
  const username = form.string(body, 'platform_username', 0, 100);
  const metadata = new Map<string, string>();
  const m = body.metadata;
  if (m !== undefined && m !== null) {
    if (!isObject(m)) form.add(['metadata'], 'MODEL_TYPE_CONVERT', 'Expected an object/dictionary.');
    else {
      const entries = Object.entries(m);
      if (entries.length > METADATA_KEYS) form.add(['metadata'], 'BASE_TYPE_MAX_LENGTH', `Must be ${METADATA_KEYS} or fewer in length.`);
      for (const [key, value] of entries) {
        if (key.length < 1 || key.length > METADATA_KEY_LENGTH || !/^[a-z0-9_]+$/.test(key)) form.add(['metadata', key], 'BASE_TYPE_BAD_LENGTH', `Keys must be 1-${METADATA_KEY_LENGTH} characters of a-z, 0-9 or _.`);
        else if (typeof value !== 'string') form.add(['metadata', key], 'STRING_TYPE_CONVERT', 'Could not interpret the value as string.');
        else if ([...value].length > METADATA_VALUE_LENGTH) form.add(['metadata', key], 'BASE_TYPE_MAX_LENGTH', `Must be ${METADATA_VALUE_LENGTH} or fewer in length.`);
        else metadata.set(key, value);
      }
    }
  }
  form.throwIfAny();
  return { platformName: typeof name === 'string' ? name : null, platformUsername: typeof username === 'string' ? username : null, metadata };
}

export function oauth2UserRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  /** Role connections by user id (one per user of this application). */
  const connections = new Map<string, RoleConnection>();

  const ownApp = (ctx: RestContext): void => {
    if (!isSnowflake(ctx.params.applicationId!)) throw Errors.notFound();
    if (ctx.params.applicationId !== store.applicationId) throw Errors.notAuthorizedForApplication();
  };

  /** The bearer's entitlements of this application, deleted ones left out; `sku_ids` and `exclude_consumed` filter. */
  const userEntitlements = (ctx: RestContext): Json[] => {
    if (ctx.auth.kind !== 'bearer') throw ctx.auth.kind === 'bot' ? Errors.botsCannotUse() : Errors.unauthorized();
    const userId = ctx.auth.token.userId;
    ownApp(ctx);
    const skuIds = (ctx.query.get('sku_ids') ?? '').split(',').filter((s) => s.length > 0);
    const excludeConsumed = queryBool(ctx.query.get('exclude_consumed'));
    return [...store.entitlements.values()]
      .filter((e) => e.userId === userId && !e.deleted && (skuIds.length === 0 || skuIds.includes(e.skuId)) && !(excludeConsumed && e.consumed))
      .map((e) => entitlementObject(e, store.applicationId));
  };

  const connectionsOf = (ctx: RestContext): Json[] => {
    if (ctx.auth.kind === 'bearer' && !ctx.auth.token.scopes.has('connections')) throw Errors.unauthorized();
    return [];
  };

  const roleConnection = (ctx: RestContext): { status: number; body?: Json } => {
    const { userId } = bearerWith(ctx, 'role_connections.write');
    ownApp(ctx);
    if (ctx.method === 'GET') return { status: 200, body: roleConnectionObject(connections.get(userId)) };
    if (ctx.method === 'DELETE') {
      connections.delete(userId);
      return { status: 204 };
    }
    const next = roleConnectionBody(objectBody(ctx));
    connections.set(userId, next);
    return { status: 200, body: roleConnectionObject(next) };
  };

  const one = '/users/@me/applications/:applicationId/role-connection';
  return [
    { method: 'GET', path: '/users/@me/connections', bucket: 'users.oauth2', auth: 'bot-or-bearer', handler: (ctx) => ({ status: 200, body: connectionsOf(ctx) }) },
    { method: 'GET', path: one, bucket: 'users.oauth2', auth: 'bot-or-bearer', handler: roleConnection },
    { method: 'PUT', path: one, bucket: 'users.oauth2', auth: 'bot-or-bearer', handler: roleConnection },
    { method: 'DELETE', path: one, bucket: 'users.oauth2', auth: 'bot-or-bearer', handler: roleConnection },
    { method: 'GET', path: '/users/@me/applications/:applicationId/entitlements', bucket: 'entitlements', auth: 'bot-or-bearer', handler: (ctx) => ({ status: 200, body: userEntitlements(ctx) }) },
  ];
}
