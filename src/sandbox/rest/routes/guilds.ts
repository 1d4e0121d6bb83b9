/**
 * Guild reads from the sandbox's state (discord-api-docs "Guild" resource): the guild (`with_counts`), its
 * roles, one role, its channels, one member, the member list (`limit` 1-1000, default 1, `after`; needs the
 * GUILD_MEMBERS privileged intent enabled for the app), and PATCH /guilds/{id}/members/@me (the bot's nick;
 * GUILD_MEMBER_UPDATE). Unknown ids answer the service's codes: 10004 guild, 10011 role, 10007 member, 10013 user.
 */
import { INTENT_BITS } from '../../../api/intents.js';
import type { SandboxCore } from '../../core.js';
import { addTreeError, emptyErrorTree, Errors, invalidFormBody, unmodelled } from '../../errors.js';
import type { GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import { channelObject, guildObject, memberObject, roleObject } from '../../state/serialize.js';
import { jsonValue } from '../body.js';
import { compareSnowflakes, queryParams, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { queryBool } from './commands.js';

export function guildRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  /** The guild of the route, with its id checked (50035 when not a snowflake, 10004 when unknown). */
  const guildOf = (ctx: RestContext, extra: Record<string, string> = {}): GuildRecord => {
    snowflakeParams(ctx, { guildId: 'guild_id', ...extra });
    const guild = store.guild(ctx.params.guildId!);
    if (!guild) throw Errors.unknownGuild();
    return guild;
  };

  const member = (guild: GuildRecord, userId: string): Record<string, unknown> => {
    const m = store.members(guild).get(userId);
    if (!m) {
      // An id that is nobody's is an unknown user; a user who is not in the guild is an unknown member.
      if (!store.user(userId)) throw Errors.unknownUser();
      throw Errors.unknownMember();
    }
    return memberObject(m, store.userOf(m));
  };

  const listMembers = (ctx: RestContext): unknown[] => {
    const guild = guildOf(ctx);
    // "This endpoint requires the GUILD_MEMBERS Privileged Intent" (discord-api-docs); without it: Missing Access.
    if ((core.options.gateway.allowedIntents & INTENT_BITS.GUILD_MEMBERS) === 0) throw Errors.missingAccess();
    const q = queryParams(ctx, { limit: { min: 1, max: 1000, fallback: 1 } }, ['after']);
    const limit = q.ints.get('limit')!;
    const after = q.snowflakes.get('after') ?? '0';
    // Ordered by user id; `after` is the highest user id of the previous page.
    const ids = [...store.members(guild).keys()].filter((id) => compareSnowflakes(id, after) > 0).sort(compareSnowflakes).slice(0, limit);
    return ids.map((id) => member(guild, id));
  };

  const editMe = (ctx: RestContext): Record<string, unknown> => {
    const guild = guildOf(ctx);
    const body = jsonValue(ctx.body) ?? {};
    const tree = emptyErrorTree();
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      addTreeError(tree, [], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
      throw invalidFormBody(tree);
    }
    const o = body as Record<string, unknown>;
    for (const field of ['avatar', 'banner', 'bio']) {
      if (o[field] !== undefined && o[field] !== null) {
        // Guild profiles are not modelled; refusing says so instead of pretending it took.
        throw unmodelled('PATCH', `/guilds/${guild.id}/members/@me`, `the member field "${field}" (guild profiles)`);
      }
    }
    let nick: string | null | undefined;
    if (o.nick !== undefined) {
      const n = o.nick;
      if (n === null || n === '') nick = null;
      else if (typeof n !== 'string') addTreeError(tree, ['nick'], { code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' });
      else if ([...n].length > 32) addTreeError(tree, ['nick'], { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 32 or fewer in length.' });
      else nick = n;
    }
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
    if (nick !== undefined) {
      if ((store.permissionsOf(guild, store.applicationId) & P.CHANGE_NICKNAME) === 0n) throw Errors.missingPermissions();
      store.updateMember(guild.id, store.applicationId, { nick });
    }
    return member(guild, store.applicationId);
  };

  return [
    {
      method: 'GET',
      path: '/guilds/:guildId',
      bucket: 'guilds.read',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => {
        const guild = guildOf(ctx);
        const body = guildObject(guild);
        if (queryBool(ctx.query.get('with_counts'))) {
          body.approximate_member_count = store.memberCount(guild);
          body.approximate_presence_count = 0;
        }
        return { status: 200, body };
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/roles',
      bucket: 'guilds.read',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => ({ status: 200, body: guildOf(ctx).roles.map(roleObject) }),
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/roles/:roleId',
      bucket: 'guilds.read',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => {
        const role = guildOf(ctx, { roleId: 'role_id' }).roles.find((r) => r.id === ctx.params.roleId);
        if (!role) throw Errors.unknownRole();
        return { status: 200, body: roleObject(role) };
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/channels',
      bucket: 'guilds.read',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => {
        const guild = guildOf(ctx);
        return { status: 200, body: guild.channels.map((c) => ({ ...channelObject(c, guild.id), ...lastMessage(core, c.type, c.id) })) };
      },
    },
    { method: 'GET', path: '/guilds/:guildId/members', bucket: 'guilds.members', major: 'guildId', auth: 'bot', handler: (ctx) => ({ status: 200, body: listMembers(ctx) }) },
    {
      method: 'GET',
      path: '/guilds/:guildId/members/:userId',
      bucket: 'guilds.read',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => ({ status: 200, body: member(guildOf(ctx, { userId: 'user_id' }), ctx.params.userId!) }),
    },
    { method: 'PATCH', path: '/guilds/:guildId/members/@me', bucket: 'guilds.member.edit', major: 'guildId', auth: 'bot', handler: (ctx) => ({ status: 200, body: editMe(ctx) }) },
  ];
}

/** `last_message_id` of a text channel from the messages the bot sent (other channel types have none). */
export function lastMessage(core: SandboxCore, type: number, channelId: string): Record<string, unknown> {
  return type === 0 || type === 2 ? { last_message_id: core.store.messages.lastMessageId(channelId) } : {};
}
