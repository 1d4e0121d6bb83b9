/**
 * Users (discord-api-docs "User" resource): GET /users/{id}, PATCH /users/@me (the bot's username, avatar,
 * banner; USER_UPDATE), GET /users/@me/guilds (partial guilds with `banner`, protocol §S4.4) and POST
 * /users/@me/channels (open a DM; the same channel every time for a recipient).
 */
import type { SandboxCore } from '../../core.js';
import { addTreeError, emptyErrorTree, Errors, invalidFormBody } from '../../errors.js';
import type { GuildRecord } from '../../state/model.js';
import type { DmChannelRecord } from '../../state/messages.js';
import { userObject } from '../../state/serialize.js';
import { jsonValue } from '../body.js';
import { compareSnowflakes, isSnowflake, queryParams, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { queryBool } from './commands.js';
import { imageHash } from './identity.js';
import { isObject } from '../../../util/is-object.js';

/** A DM channel object (type 1) as the service returns it. */
export function dmChannelObject(core: SandboxCore, dm: DmChannelRecord): Record<string, unknown> {
  const user = core.store.user(dm.recipientId);
  return {
    id: dm.id,
    type: 1,
    last_message_id: core.store.messages.lastMessageId(dm.id),
    flags: 0,
    recipients: user ? [userObject(user)] : [],
  };
}

/** A partial guild of GET /users/@me/guilds for a member (`userId`) of it. */
function partialGuild(core: SandboxCore, guild: GuildRecord, userId: string, withCounts: boolean): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: guild.id,
    name: guild.name,
    icon: null,
    banner: null,
    owner: guild.ownerId === userId,
    permissions: core.store.permissionsOf(guild, userId).toString(),
    features: [],
  };
  if (withCounts) {
    o.approximate_member_count = core.store.memberCount(guild);
    o.approximate_presence_count = 0;
  }
  return o;
}

export function userRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const editMe = (ctx: RestContext): Record<string, unknown> => {
    const body = jsonValue(ctx.body) ?? {};
    const tree = emptyErrorTree();
    if (!isObject(body)) {
      addTreeError(tree, [], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
      throw invalidFormBody(tree);
    }
    const patch: { username?: string; avatar?: string | null; banner?: string | null } = {};
    if (body.username !== undefined) {
      const u = body.username;
      // Length 2-32 as the service words it (matrix-org/matrix-appservice-discord#123: "username: Must be
      // between 2 and 32 in length.").
      if (typeof u !== 'string') addTreeError(tree, ['username'], { code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' });
      else if ([...u.trim()].length < 2 || [...u.trim()].length > 32) addTreeError(tree, ['username'], { code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 2 and 32 in length.' });
      else patch.username = u.trim();
    }
    const avatar = imageHash(tree, 'avatar', body.avatar);
    if (avatar !== undefined) patch.avatar = avatar;
    const banner = imageHash(tree, 'banner', body.banner);
    if (banner !== undefined) patch.banner = banner;
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
    const user = store.editBotUser(patch);
    return { ...userObject(user), verified: true, mfa_enabled: false, email: null, locale: 'en-US' };
  };

  const myGuilds = (ctx: RestContext): unknown[] => {
    let userId: string;
    if (ctx.auth.kind === 'bot') userId = store.applicationId;
    else if (ctx.auth.kind === 'bearer') {
      // OAuth2: the `guilds` scope (discord-api-docs "Get Current User Guilds").
      if (!ctx.auth.token.scopes.has('guilds')) throw Errors.unauthorized();
      userId = ctx.auth.token.userId;
    } else throw Errors.unauthorized();
    const q = queryParams(ctx, { limit: { min: 1, max: 200, fallback: 200 } }, ['before', 'after']);
    const limit = q.ints.get('limit')!;
    const before = q.snowflakes.get('before');
    const after = q.snowflakes.get('after');
    const withCounts = queryBool(ctx.query.get('with_counts'));
    const mine = store.guilds
      .filter((g) => store.isMember(g, userId))
      .filter((g) => (after === undefined || compareSnowflakes(g.id, after) > 0) && (before === undefined || compareSnowflakes(g.id, before) < 0))
      .sort((a, b) => compareSnowflakes(a.id, b.id));
    // `before` alone pages backwards: the guilds just before it.
    const page = before !== undefined && after === undefined ? mine.slice(Math.max(0, mine.length - limit)) : mine.slice(0, limit);
    return page.map((g) => partialGuild(core, g, userId, withCounts));
  };

  const openDm = (ctx: RestContext): Record<string, unknown> => {
    const body = jsonValue(ctx.body);
    const tree = emptyErrorTree();
    const recipient = isObject(body) ? body.recipient_id : undefined;
    if (recipient === undefined || recipient === null) addTreeError(tree, ['recipient_id'], { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
    else if (typeof recipient !== 'string' || !isSnowflake(recipient)) addTreeError(tree, ['recipient_id'], { code: 'NUMBER_TYPE_COERCE', message: `Value "${String(recipient)}" is not snowflake.` });
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
    const id = recipient as string;
    const user = store.user(id);
    if (!user) throw Errors.invalidRecipients();
    // The sandbox's only bot user is the app itself; a DM with oneself carries no messages.
    if (user.bot) throw Errors.cannotMessageUser();
    return dmChannelObject(core, store.messages.openDm(id).channel);
  };

  return [
    {
      method: 'GET',
      path: '/users/:userId',
      bucket: 'users.read',
      auth: 'bot',
      handler: (ctx) => {
        snowflakeParams(ctx, { userId: 'user_id' });
        const user = store.user(ctx.params.userId!);
        if (!user) throw Errors.unknownUser();
        return { status: 200, body: userObject(user) };
      },
    },
    { method: 'PATCH', path: '/users/@me', bucket: 'users.edit', auth: 'bot', handler: (ctx) => ({ status: 200, body: editMe(ctx) }) },
    { method: 'GET', path: '/users/@me/guilds', bucket: 'users.guilds', auth: 'bot-or-bearer', handler: (ctx) => ({ status: 200, body: myGuilds(ctx) }) },
    { method: 'POST', path: '/users/@me/channels', bucket: 'users.dm', auth: 'bot', handler: (ctx) => ({ status: 200, body: openDm(ctx) }) },
  ];
}
