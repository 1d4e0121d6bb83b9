/**
 * Channels and their messages (discord-api-docs "Channel" and "Message" resources): GET /channels/{id} (guild
 * channels and the bot's DMs), the bot's messages there: create (200; replies with `message_reference`, files
 * from multipart bodies), get, list (`limit` 1-100, default 50, `around` / `before` / `after`, newest first),
 * edit (200) and delete (204). Each change is dispatched as the service does (MESSAGE_CREATE / MESSAGE_UPDATE /
 * MESSAGE_DELETE: GUILD_MESSAGES on the guild's shard, DIRECT_MESSAGES on shard 0 for DMs) and recorded for the
 * admin API and the CLI. Only the bot's own messages exist: other users do not post in the sandbox.
 */
import type { SandboxCore } from '../../core.js';
import { addTreeError, SandboxApiError, emptyErrorTree, Errors, invalidFormBody } from '../../errors.js';
import { updateChannel } from '../../state/channels.js';
import { attachmentObjects, baseMessage, checkMessage, editableFlags, editMessage, flagsOf, keptAttachments, MessageFlags, type UploadedFile } from '../../interactions/messages.js';
import type { MessageRecord } from '../../state/messages.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import { channelObject, messageDispatchJson, userObject } from '../../state/serialize.js';
import { jsonValue } from '../body.js';
import { compareSnowflakes, queryParams, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { lastMessage } from './guilds.js';
import { uploadsOf } from './interactions.js';
import { dmChannelObject } from './users.js';
import { isObject } from '../../../util/is-object.js';

type Json = Record<string, unknown>;

/** Where a channel id points: a guild channel, or a DM the bot opened. */
type Place = { kind: 'guild'; guild: GuildRecord; channel: ChannelRecord } | { kind: 'dm'; channelId: string; recipientId: string };

/** Channel types the bot can post in: guild text, DM, voice (text in voice), announcement, threads, stage. */
const MESSAGEABLE = new Set([0, 1, 2, 5, 10, 11, 12, 13]);

/** Flags a channel message may be created with (no EPHEMERAL: that is for interaction responses). */
const CREATE_FLAGS = MessageFlags.SUPPRESS_EMBEDS | MessageFlags.SUPPRESS_NOTIFICATIONS | MessageFlags.IS_VOICE_MESSAGE | MessageFlags.IS_COMPONENTS_V2;

function hasContent(m: Json): boolean {
  return (
    (typeof m.content === 'string' && m.content.length > 0) ||
    (Array.isArray(m.embeds) && m.embeds.length > 0) ||
    (Array.isArray(m.components) && m.components.length > 0) ||
    (Array.isArray(m.attachments) && m.attachments.length > 0) ||
    (Array.isArray(m.sticker_items) && m.sticker_items.length > 0) ||
    isObject(m.poll)
  );
}

export function channelRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const messages = store.messages;
  const botId = store.applicationId;

  const placeOf = (ctx: RestContext, extra: Record<string, string> = {}): Place => {
    snowflakeParams(ctx, { channelId: 'channel_id', ...extra });
    const id = ctx.params.channelId!;
    const inGuild = store.guildChannel(id);
    if (inGuild) return { kind: 'guild', ...inGuild };
    const dm = messages.dm(id);
    if (dm) return { kind: 'dm', channelId: dm.id, recipientId: dm.recipientId };
    throw Errors.unknownChannel();
  };

  const channelIdOf = (place: Place): string => (place.kind === 'guild' ? place.channel.id : place.channelId);
  const guildIdOf = (place: Place): string | null => (place.kind === 'guild' ? place.guild.id : null);

  /** The bot must see the channel (50001) and, for `need`, hold that permission (50013). */
  const requirePermission = (place: Place, need: bigint): void => {
    if (place.kind === 'dm') return;
    const perms = store.channelPermissionsOf(place.guild, place.channel, botId);
    if ((perms & P.VIEW_CHANNEL) === 0n) throw Errors.missingAccess();
    if ((perms & need) !== need) throw Errors.missingPermissions();
  };

  /**
   * A thread takes messages while open; a message unarchives an archived one unless it is locked, which only
   * MANAGE_THREADS may post in (160005 otherwise). Counts go up as on the service.
   */
  const sendableThread = (place: Place & { kind: 'guild' }): void => {
    const t = place.channel.thread!;
    if (t.locked && (store.channelPermissionsOf(place.guild, place.channel, botId) & P.MANAGE_THREADS) === 0n) throw new SandboxApiError(403, 160005, 'Thread is locked');
    if (t.archived) updateChannel(store, place.guild, place.channel, { archived: false });
    t.messageCount++;
    t.totalMessageSent++;
  };

  /** The gateway form of a message: REST object plus guild_id and the author's partial member in guilds. */
  const dispatchJson = (place: Place, message: Json): string =>
    place.kind === 'dm' ? messageDispatchJson(null, undefined, message) : messageDispatchJson(place.guild, store.members(place.guild).get(botId), message);

  const uploaded = (channelId: string, uploads: readonly UploadedFile[]): Json[] => attachmentObjects(channelId, uploads, () => store.ids.next());

  const create = (ctx: RestContext): Json => {
    const place = placeOf(ctx);
    if (place.kind === 'guild' && !MESSAGEABLE.has(place.channel.type)) throw Errors.wrongChannelType();
    const thread = place.kind === 'guild' ? place.channel.thread : undefined;
    requirePermission(place, thread !== undefined ? P.SEND_MESSAGES_IN_THREADS : P.SEND_MESSAGES);
    const uploads = uploadsOf(ctx);
    const data = checkMessage(jsonValue(ctx.body), { at: [], requireContent: true, allowedFlags: CREATE_FLAGS, files: uploads.length });
    if (thread !== undefined) sendableThread(place as Place & { kind: 'guild' });
    const channelId = channelIdOf(place);
    const guildId = guildIdOf(place);

    // A reply names a message of this channel; unknown ones are refused unless fail_if_not_exists is false.
    let reference: { record: MessageRecord; json: Json } | null = null;
    if (data.message_reference !== undefined && data.message_reference !== null) {
      const ref = data.message_reference;
      const tree = emptyErrorTree();
      if (!isObject(ref)) addTreeError(tree, ['message_reference'], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
      else {
        const refChannel = typeof ref.channel_id === 'string' ? ref.channel_id : channelId;
        const found = typeof ref.message_id === 'string' ? messages.get(refChannel, ref.message_id) : undefined;
        if (found) reference = { record: found, json: { type: 0, channel_id: found.channelId, message_id: found.id, ...(found.guildId ? { guild_id: found.guildId } : {}) } };
        // MESSAGE_REFERENCE_UNKNOWN_MESSAGE / "Unknown message" is what bots quote from the service.
        else if (ref.fail_if_not_exists !== false) addTreeError(tree, ['message_reference'], { code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' });
      }
      if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
    }

    const id = store.ids.next();
    const attachments = [...keptAttachments(data), ...uploaded(channelId, uploads)];
    const flags = typeof data.flags === 'number' ? data.flags : 0;
    const message = baseMessage({ id, type: reference ? 19 : 0, channelId, author: userObject(store.botUser), attachments, flags }, data);
    if (typeof data.nonce === 'string' || typeof data.nonce === 'number') message.nonce = data.nonce;
    if (reference) {
      message.message_reference = reference.json;
      message.referenced_message = reference.record.message;
    }
    const record = messages.add({ id, channelId, guildId, recipientId: place.kind === 'dm' ? place.recipientId : null, message, createdAt: Date.now() });
    store.emit(guildId, 'MESSAGE_CREATE', dispatchJson(place, record.message));
    return record.message;
  };

  const found = (ctx: RestContext): { place: Place; record: MessageRecord } => {
    const place = placeOf(ctx, { messageId: 'message_id' });
    requirePermission(place, P.READ_MESSAGE_HISTORY);
    const record = messages.get(channelIdOf(place), ctx.params.messageId!);
    if (!record) throw Errors.unknownMessage();
    return { place, record };
  };

  const edit = (ctx: RestContext): Json => {
    const { place, record } = found(ctx);
    if ((record.message.author as { id?: unknown } | undefined)?.id !== botId) throw Errors.cannotEditOthersMessage();
    const uploads = uploadsOf(ctx);
    const patch = checkMessage(jsonValue(ctx.body) ?? {}, { at: [], requireContent: false, allowedFlags: editableFlags(), files: uploads.length, existingFlags: flagsOf(record.message) });
    // `attachments` lists what stays (kept by id, uploads by index); without it the files are added (editedAttachments).
    const next = editMessage(record.message, patch, { uploads, attach: (u) => uploaded(record.channelId, u) });
    if (!hasContent(next)) throw Errors.emptyMessage();
    messages.edit(record, next);
    store.emit(record.guildId, 'MESSAGE_UPDATE', dispatchJson(place, next));
    return next;
  };

  const remove = (ctx: RestContext): void => {
    const { place, record } = found(ctx);
    messages.delete(record);
    const d: Json = { id: record.id, channel_id: record.channelId };
    if (place.kind === 'guild') d.guild_id = place.guild.id;
    store.emit(record.guildId, 'MESSAGE_DELETE', JSON.stringify(d));
  };

  const list = (ctx: RestContext): Json[] => {
    const place = placeOf(ctx);
    requirePermission(place, 0n);
    // "If the current user is missing the READ_MESSAGE_HISTORY permission in the channel, then no messages will
    // be returned" (discord-api-docs, Get Channel Messages).
    if (place.kind === 'guild' && (store.channelPermissionsOf(place.guild, place.channel, botId) & P.READ_MESSAGE_HISTORY) === 0n) return [];
    const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 50 } }, ['around', 'before', 'after']);
    const limit = q.ints.get('limit')!;
    const all = messages.live(channelIdOf(place)); // newest first
    const around = q.snowflakes.get('around');
    const before = q.snowflakes.get('before');
    const after = q.snowflakes.get('after');
    let picked: MessageRecord[];
    if (around !== undefined) {
      const newer = all.filter((r) => compareSnowflakes(r.id, around) > 0);
      const older = all.filter((r) => compareSnowflakes(r.id, around) <= 0);
      const take = Math.ceil(limit / 2);
      picked = [...newer.slice(Math.max(0, newer.length - (limit - Math.min(take, older.length)))), ...older.slice(0, take)].slice(0, limit);
    } else if (before !== undefined) {
      picked = all.filter((r) => compareSnowflakes(r.id, before) < 0).slice(0, limit);
    } else if (after !== undefined) {
      const newer = all.filter((r) => compareSnowflakes(r.id, after) > 0);
      picked = newer.slice(Math.max(0, newer.length - limit));
    } else {
      picked = all.slice(0, limit);
    }
    return picked.map((r) => r.message);
  };

  return [
    {
      method: 'GET',
      path: '/channels/:channelId',
      bucket: 'channels.read',
      major: 'channelId',
      auth: 'bot',
      handler: (ctx) => {
        const place = placeOf(ctx);
        if (place.kind === 'dm') return { status: 200, body: dmChannelObject(core, messages.dm(place.channelId)!) };
        requirePermission(place, 0n);
        return { status: 200, body: { ...channelObject(place.channel, place.guild.id), ...lastMessage(core, place.channel.type, place.channel.id) } };
      },
    },
    { method: 'GET', path: '/channels/:channelId/messages', bucket: 'messages.read', major: 'channelId', auth: 'bot', handler: (ctx) => ({ status: 200, body: list(ctx) }) },
    { method: 'POST', path: '/channels/:channelId/messages', bucket: 'messages.create', major: 'channelId', auth: 'bot', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    {
      method: 'GET',
      path: '/channels/:channelId/messages/:messageId',
      bucket: 'messages.read',
      major: 'channelId',
      auth: 'bot',
      handler: (ctx) => ({ status: 200, body: found(ctx).record.message }),
    },
    { method: 'PATCH', path: '/channels/:channelId/messages/:messageId', bucket: 'messages.edit', major: 'channelId', auth: 'bot', handler: (ctx) => ({ status: 200, body: edit(ctx) }) },
    {
      method: 'DELETE',
      path: '/channels/:channelId/messages/:messageId',
      bucket: 'messages.delete',
      major: 'channelId',
      auth: 'bot',
      handler: (ctx) => {
        remove(ctx);
        return { status: 204 };
      },
    },
  ];
}
