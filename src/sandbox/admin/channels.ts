/**
 * Admin API entries for channels, threads, overwrites and roles (issue 29's sandbox verbs), over
 * state/channel-verbs.ts (a route table for ./api.ts):
 *
 *   POST   /_sandbox/guilds/:guild/channels              { name, type?, parentId?, topic?, nsfw?, position?, overwrites? } -> channel
 *   PATCH  /_sandbox/guilds/:guild/roles/:role           { name?, permissions?, position? } -> role   (GUILD_ROLE_UPDATE)
 *   PATCH  /_sandbox/channels/:channel                   { name?, parentId?, topic?, nsfw?, position?, archived?, locked? } -> channel
 *   DELETE /_sandbox/channels/:channel                   (CHANNEL_DELETE / THREAD_DELETE)
 *   PUT    /_sandbox/channels/:channel/overwrites/:id    { type: 0 | 1, allow?, deny? }   (CHANNEL_UPDATE)
 *   DELETE /_sandbox/channels/:channel/overwrites/:id
 *   POST   /_sandbox/channels/:channel/threads           { name, type?, ownerId? } -> thread   (THREAD_CREATE)
 *   PUT    /_sandbox/channels/:thread/members/:user      (THREAD_MEMBERS_UPDATE)
 *   DELETE /_sandbox/channels/:thread/members/:user
 *   POST   /_sandbox/channels/:channel/messages/:message/reactions  { userId, emoji, remove? }  (MESSAGE_REACTION_ADD / _REMOVE)
 *   POST   /_sandbox/channels/:channel/messages/:message/votes      { userId, answerIds }        (MESSAGE_POLL_VOTE_*)
 *
 * Overwrites are `{id, type, allow, deny}` with bit sets as decimal strings, as on the wire.
 */
import type { ChannelVerbs, OverwriteInput } from '../state/channel-verbs.js';
import { bad, obj, optNumber, optString, type Json } from './fields.js';
import { param, type AdminContext, type AdminReply, type AdminRoute } from './types.js';

function optBool(o: Json, key: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw bad(`${key} must be true or false`);
  return v;
}

function overwriteOf(v: unknown, id?: string): OverwriteInput {
  const o = obj(v);
  const oid = id ?? optString(o, 'id');
  if (oid === undefined) throw bad('an overwrite needs an id');
  const type = o.type;
  if (type !== 0 && type !== 1) throw bad('an overwrite type is 0 (role) or 1 (member)');
  const allow = optString(o, 'allow');
  const deny = optString(o, 'deny');
  return { id: oid, type, ...(allow !== undefined ? { allow } : {}), ...(deny !== undefined ? { deny } : {}) };
}

/** Copies the named string / number / boolean fields that are present. */
function pick(o: Json, strings: readonly string[], numbers: readonly string[], bools: readonly string[]): Json {
  const out: Json = {};
  for (const k of strings) if (o[k] === null) out[k] = null; else if (optString(o, k) !== undefined) out[k] = o[k];
  for (const k of numbers) if (optNumber(o, k) !== undefined) out[k] = o[k];
  for (const k of bools) if (optBool(o, k) !== undefined) out[k] = o[k];
  return out;
}

/**
 * A member's reaction or poll vote on a message of the bot. The body is checked before the verb, so an unknown
 * verb with a bad body is refused as bad input; null for an unknown verb.
 */
function messageVerb(verbs: ChannelVerbs, channelId: string, messageId: string, what: string, o: Json): AdminReply | null {
  const userId = optString(o, 'userId');
  if (userId === undefined) throw bad('userId is required');
  if (what === 'reactions') {
    const emoji = optString(o, 'emoji');
    if (emoji === undefined) throw bad('emoji is required');
    verbs.react(channelId, messageId, userId, emoji, optBool(o, 'remove') !== true);
    return { status: 204 };
  }
  if (what === 'votes') {
    const ids = o.answerIds;
    if (!Array.isArray(ids) || !ids.every((x) => Number.isInteger(x))) throw bad('answerIds must be an array of answer ids');
    verbs.vote(channelId, messageId, userId, ids as number[]);
    return { status: 204 };
  }
  return null;
}

function createChannel(verbs: ChannelVerbs, guildId: string, body: unknown): AdminReply {
  const o = obj(body);
  const name = optString(o, 'name');
  if (name === undefined) throw bad('name is required');
  const input = { ...pick(o, ['parentId', 'topic'], ['type', 'position'], ['nsfw']), name } as Parameters<ChannelVerbs['createChannel']>[1];
  if (o.overwrites !== undefined) {
    if (!Array.isArray(o.overwrites)) throw bad('overwrites must be an array');
    input.overwrites = o.overwrites.map((x) => overwriteOf(x));
  }
  return { status: 201, body: verbs.createChannel(guildId, input) };
}

function createThread(verbs: ChannelVerbs, channelId: string, body: unknown): AdminReply {
  const o = obj(body);
  const name = optString(o, 'name');
  if (name === undefined) throw bad('name is required');
  return { status: 201, body: verbs.createThread(channelId, { ...pick(o, ['ownerId'], ['type'], []), name }) };
}

/** The entries above. */
export function channelAdminRoutes(verbs: ChannelVerbs): AdminRoute[] {
  const channel = (ctx: AdminContext): string => param(ctx, 'channel');
  const threadMember = (add: boolean) => (ctx: AdminContext): AdminReply => {
    verbs.setThreadMember(channel(ctx), param(ctx, 'user'), add);
    return { status: 204 };
  };
  return [
    { method: 'POST', path: '/guilds/:guild/channels', handler: (ctx) => createChannel(verbs, param(ctx, 'guild'), ctx.body) },
    {
      method: 'PATCH',
      path: '/guilds/:guild/roles/:role',
      handler: (ctx) => ({ status: 200, body: verbs.updateRole(param(ctx, 'guild'), param(ctx, 'role'), pick(obj(ctx.body), ['name', 'permissions'], ['position'], [])) }),
    },
    {
      method: 'PATCH',
      path: '/channels/:channel',
      handler: (ctx) => ({ status: 200, body: verbs.updateChannel(channel(ctx), pick(obj(ctx.body), ['name', 'parentId', 'topic'], ['position'], ['nsfw', 'archived', 'locked'])) }),
    },
    { method: 'DELETE', path: '/channels/:channel', handler: (ctx) => (verbs.deleteChannel(channel(ctx)), { status: 204 }) },
    { method: 'PUT', path: '/channels/:channel/overwrites/:id', handler: (ctx) => (verbs.setOverwrite(channel(ctx), overwriteOf(ctx.body, param(ctx, 'id'))), { status: 204 }) },
    { method: 'DELETE', path: '/channels/:channel/overwrites/:id', handler: (ctx) => (verbs.deleteOverwrite(channel(ctx), param(ctx, 'id')), { status: 204 }) },
    { method: 'POST', path: '/channels/:channel/threads', handler: (ctx) => createThread(verbs, channel(ctx), ctx.body) },
    { method: 'PUT', path: '/channels/:channel/members/:user', handler: threadMember(true) },
    { method: 'DELETE', path: '/channels/:channel/members/:user', handler: threadMember(false) },
    {
      method: 'POST',
      path: '/channels/:channel/messages/:message/:verb',
      handler: (ctx) => messageVerb(verbs, channel(ctx), param(ctx, 'message'), param(ctx, 'verb'), obj(ctx.body)),
    },
  ];
}
