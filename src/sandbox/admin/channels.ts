/**
 * Admin API entries for channels, threads, overwrites and roles (issue 29's sandbox verbs), over
 * state/channel-verbs.ts:
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

export interface AdminReply {
  status: number;
  body?: unknown;
}

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

/** A member's reaction or poll vote on a message of the bot. */
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

/** The entries above; null when the path is not one of them. */
export function channelAdmin(verbs: ChannelVerbs, method: string, parts: readonly string[], body: unknown): AdminReply | null {
  const [a, b, c, d] = parts;
  const is = (m: string, n: number): boolean => method === m && parts.length === n;
  if (a === 'guilds' && c === 'channels' && is('POST', 3)) {
    const o = obj(body);
    const name = optString(o, 'name');
    if (name === undefined) throw bad('name is required');
    const input = { ...pick(o, ['parentId', 'topic'], ['type', 'position'], ['nsfw']), name } as Parameters<ChannelVerbs['createChannel']>[1];
    if (o.overwrites !== undefined) {
      if (!Array.isArray(o.overwrites)) throw bad('overwrites must be an array');
      input.overwrites = o.overwrites.map((x) => overwriteOf(x));
    }
    return { status: 201, body: verbs.createChannel(b!, input) };
  }
  if (a === 'guilds' && c === 'roles' && is('PATCH', 4)) {
    return { status: 200, body: verbs.updateRole(b!, d!, pick(obj(body), ['name', 'permissions'], ['position'], [])) };
  }
  if (a !== 'channels' || b === undefined) return null;
  if (is('PATCH', 2)) return { status: 200, body: verbs.updateChannel(b, pick(obj(body), ['name', 'parentId', 'topic'], ['position'], ['nsfw', 'archived', 'locked'])) };
  if (is('DELETE', 2)) return (verbs.deleteChannel(b), { status: 204 });
  if (c === 'overwrites' && is('PUT', 4)) return (verbs.setOverwrite(b, overwriteOf(body, d)), { status: 204 });
  if (c === 'overwrites' && is('DELETE', 4)) return (verbs.deleteOverwrite(b, d!), { status: 204 });
  if (c === 'threads' && is('POST', 3)) {
    const o = obj(body);
    const name = optString(o, 'name');
    if (name === undefined) throw bad('name is required');
    return { status: 201, body: verbs.createThread(b, { ...pick(o, ['ownerId'], ['type'], []), name }) };
  }
  if (c === 'members' && (is('PUT', 4) || is('DELETE', 4))) return (verbs.setThreadMember(b, d!, method === 'PUT'), { status: 204 });
  if (c === 'messages' && is('POST', 5)) return messageVerb(verbs, b, d!, parts[4]!, obj(body));
  return null;
}
