/**
 * Who is in a guild, beyond the seeded members (discord-api-docs "User" and "Guild" resources):
 * - DELETE /users/@me/guilds/{guild_id}: the bot leaves; GUILD_DELETE without `unavailable`, and the guild is
 *   unknown from then on (10004, as for any guild the bot is not in).
 * - PUT /guilds/{guild_id}/members/{user_id}: the bot adds a user with the user's access token (scope
 *   `guilds.join`, for that user); 201 with the member and GUILD_MEMBER_ADD, 204 when already a member. The bot
 *   needs CREATE_INSTANT_INVITE, and for `nick`, `roles`, `mute`, `deaf` the permission each one takes.
 * - GET /users/@me/guilds/{guild_id}/member: the bearer's own member (scope `guilds.members.read`).
 */
import type { SandboxCore } from '../../core.js';
import { Errors, unmodelled } from '../../errors.js';
import type { GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import { memberObject } from '../../state/serialize.js';
import { isSnowflake, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { FormErrors, guildOf, objectBody, requireGuildPermission, requireRoleBelow, roleOf, type Json } from './guild-access.js';

/** The bearer token of a user-only route with `scope` (a bot token: 20001; the scope missing: 401). */
export function bearerWith(ctx: RestContext, scope: string): { userId: string } {
  if (ctx.auth.kind === 'bot') throw Errors.botsCannotUse();
  if (ctx.auth.kind !== 'bearer' || !ctx.auth.token.scopes.has(scope)) throw Errors.unauthorized();
  return { userId: ctx.auth.token.userId };
}

interface AddMemberBody {
  accessToken: string;
  nick?: string;
  roles?: string[];
  mute?: boolean;
  deaf?: boolean;
}

/** The body of PUT /guilds/{id}/members/{user}: `access_token` required, the rest optional (50035 otherwise). */
function addMemberBody(body: Json): AddMemberBody {
  const form = new FormErrors();
  const token = body.access_token;
  if (token === undefined || token === null) form.add(['access_token'], 'BASE_TYPE_REQUIRED', 'This field is required');
  else if (typeof token !== 'string') form.add(['access_token'], 'STRING_TYPE_CONVERT', 'Could not interpret the value as string.');
  const nick = form.string(body, 'nick', 1, 32);
  const mute = form.bool(body, 'mute');
  const deaf = form.bool(body, 'deaf');
  let roles: string[] | undefined;
  const r = body.roles;
  if (r !== undefined && r !== null) {
    if (!Array.isArray(r)) form.add(['roles'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else {
      r.forEach((id: unknown, i) => {
        if (typeof id !== 'string' || !isSnowflake(id)) form.add(['roles', i], 'NUMBER_TYPE_COERCE', `Value "${String(id)}" is not snowflake.`);
      });
      roles = r.filter((id): id is string => typeof id === 'string');
    }
  }
  form.throwIfAny();
  return {
    accessToken: token as string,
    ...(typeof nick === 'string' ? { nick } : {}),
    ...(roles !== undefined ? { roles } : {}),
    ...(mute !== undefined ? { mute } : {}),
    ...(deaf !== undefined ? { deaf } : {}),
  };
}

export function guildMembershipRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const leave = (ctx: RestContext): void => {
    const guild = guildOf(store, ctx);
    if (guild.ownerId === store.applicationId) throw unmodelled(ctx.method, ctx.path, 'a bot leaving a guild it owns');
    store.leaveGuild(guild.id);
  };

  /** Each field the bot sets on the new member needs the permission that field takes. */
  const requireFieldPermissions = (guild: GuildRecord, add: AddMemberBody): void => {
    let need = P.CREATE_INSTANT_INVITE;
    if (add.nick !== undefined) need |= P.MANAGE_NICKNAMES;
    if (add.roles !== undefined && add.roles.length > 0) need |= P.MANAGE_ROLES;
    if (add.mute === true) need |= P.MUTE_MEMBERS;
    if (add.deaf === true) need |= P.DEAFEN_MEMBERS;
    requireGuildPermission(store, guild, need);
    for (const id of add.roles ?? []) {
      const role = roleOf(guild, id);
      if (role.id === guild.id || role.managed) throw Errors.missingPermissions();
      requireRoleBelow(store, guild, role);
    }
  };

  const addMember = (ctx: RestContext): { status: number; body?: Json } => {
    const guild = guildOf(store, ctx, { userId: 'user_id' });
    const userId = ctx.params.userId!;
    const add = addMemberBody(objectBody(ctx));
    const token = core.oauth.get(add.accessToken);
    // The token must be the user's own, with guilds.join (discord-api-docs "Add Guild Member").
    if (token === undefined || token.clientCredentials || token.userId !== userId || !token.scopes.has('guilds.join')) throw Errors.invalidOAuthToken();
    const user = store.user(userId);
    if (user === undefined) throw Errors.unknownUser();
    const existing = store.members(guild).get(userId);
    if (existing !== undefined) return { status: 204 };
    requireFieldPermissions(guild, add);
    if (guild.bans?.has(userId) === true) throw Errors.bannedFromGuild();
    store.addMember(guild.id, { id: userId, ...add });
    return { status: 201, body: memberObject(store.members(guild).get(userId)!, user) };
  };

  const ownMember = (ctx: RestContext): Json => {
    const { userId } = bearerWith(ctx, 'guilds.members.read');
    snowflakeParams(ctx, { guildId: 'guild_id' });
    const guild = store.guild(ctx.params.guildId!);
    const member = guild === undefined ? undefined : store.members(guild).get(userId);
    // A guild the user is not in is as unknown to them as one that does not exist.
    if (member === undefined) throw Errors.unknownGuild();
    return memberObject(member, store.userOf(member));
  };

  return [
    { method: 'DELETE', path: '/users/@me/guilds/:guildId', bucket: 'users.guilds.leave', auth: 'bot', handler: (ctx) => (leave(ctx), { status: 204 }) },
    { method: 'PUT', path: '/guilds/:guildId/members/:userId', bucket: 'guilds.members.add', major: 'guildId', auth: 'bot', handler: addMember },
    { method: 'GET', path: '/users/@me/guilds/:guildId/member', bucket: 'users.oauth2', auth: 'bot-or-bearer', handler: (ctx) => ({ status: 200, body: ownMember(ctx) }) },
  ];
}
