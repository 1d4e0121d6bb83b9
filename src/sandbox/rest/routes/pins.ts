/**
 * Pins, bulk delete and polls of the bot's messages (discord-api-docs "Message" and "Poll" resources).
 * Pins: PUT / DELETE /channels/{id}/messages/pins/{id} and the deprecated /channels/{id}/pins/{id} (PIN_MESSAGES;
 * 204; at most 250, 30003; CHANNEL_PINS_UPDATE, and on a pin the service's system message, type 6), the list
 * `{items: [{pinned_at, message}], has_more}` (`before` an ISO time, `limit` 1-50) and the deprecated plain list.
 * Bulk delete: 2-100 ids of messages at most two weeks old (50034), MANAGE_MESSAGES, MESSAGE_DELETE_BULK.
 * Typing: POST /channels/{id}/typing (204, TYPING_START).
 * Polls: end one early (200, the message; 520006 without a poll, 520001 when over; MESSAGE_UPDATE) and the
 * voters of an answer (`after`, `limit` 1-100, default 25).
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import type { MessageRecord } from '../../state/messages.js';
import { P } from '../../state/permissions.js';
import { expirePoll, pinTime, pollOpen, setPinned, votesOf } from '../../state/polls.js';
import { messageDispatchJson, partialMemberObject, userObject } from '../../state/serialize.js';
import type { SandboxStore } from '../../state/store.js';
import { jsonValue } from '../body.js';
import { compareSnowflakes, queryParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { FormErrors, type Json } from './guild-access.js';
import { channelPlace, messageAt, requirePerms, type ChannelPlace } from './message-access.js';

const MAX_PINS = 250;
const TWO_WEEKS_MS = 14 * 86_400_000;
/** Snowflake epoch (protocol §2): a message id's creation time. */
const EPOCH = 1_420_070_400_000n;

function pinned(store: SandboxStore, channelId: string): MessageRecord[] {
  return store.messages.live(channelId).filter((r) => pinTime(r) !== undefined).sort((a, b) => pinTime(b)! - pinTime(a)!);
}

function dispatchMessage(store: SandboxStore, place: ChannelPlace, t: string, message: Json): void {
  const json = place.guild ? messageDispatchJson(place.guild, store.members(place.guild).get(store.applicationId), message) : JSON.stringify(message);
  store.emit(place.guild?.id ?? null, t, json);
}

function pinsUpdate(store: SandboxStore, place: ChannelPlace): void {
  const last = pinned(store, place.channelId)[0];
  const d: Json = { channel_id: place.channelId, last_pin_timestamp: last ? new Date(pinTime(last)!).toISOString() : null };
  if (place.guild) d.guild_id = place.guild.id;
  store.emit(place.guild?.id ?? null, 'CHANNEL_PINS_UPDATE', JSON.stringify(d));
}

function setPin(store: SandboxStore, ctx: RestContext, pin: boolean): void {
  const { place, record } = messageAt(store, ctx);
  requirePerms(place, P.PIN_MESSAGES);
  if (pin === (pinTime(record) !== undefined)) return;
  if (pin && pinned(store, place.channelId).length >= MAX_PINS) throw new SandboxApiError(400, 30003, `Maximum number of pins reached for the channel (${MAX_PINS})`);
  setPinned(record, pin);
  pinsUpdate(store, place);
  if (!pin) return;
  // The service announces a pin in the channel with a system message that references the pinned one.
  const id = store.ids.next();
  const notice: Json = { id, type: 6, content: '', channel_id: place.channelId, author: userObject(store.botUser), attachments: [], embeds: [], mentions: [], mention_roles: [], pinned: false, mention_everyone: false, tts: false, timestamp: new Date().toISOString(), edited_timestamp: null, flags: 0, components: [], message_reference: { type: 0, channel_id: place.channelId, message_id: record.id, ...(place.guild ? { guild_id: place.guild.id } : {}) } };
  store.messages.add({ id, channelId: place.channelId, guildId: place.guild?.id ?? null, recipientId: place.guild ? null : (store.messages.dm(place.channelId)?.recipientId ?? null), message: notice, createdAt: Date.now() });
  dispatchMessage(store, place, 'MESSAGE_CREATE', notice);
}

function listPins(store: SandboxStore, ctx: RestContext, paged: boolean): unknown {
  const place = channelPlace(store, ctx);
  requirePerms(place, P.READ_MESSAGE_HISTORY);
  const all = pinned(store, place.channelId);
  if (!paged) return all.map((r) => r.message);
  const q = queryParams(ctx, { limit: { min: 1, max: 50, fallback: 50 } }, []);
  const before = ctx.query.get('before');
  const beforeMs = before === null ? Number.POSITIVE_INFINITY : Date.parse(before);
  const older = all.filter((r) => pinTime(r)! < beforeMs);
  const limit = q.ints.get('limit')!;
  return { items: older.slice(0, limit).map((r) => ({ pinned_at: new Date(pinTime(r)!).toISOString(), message: r.message })), has_more: older.length > limit };
}

function bulkDelete(store: SandboxStore, ctx: RestContext): void {
  const place = channelPlace(store, ctx);
  requirePerms(place, P.MANAGE_MESSAGES);
  const body = jsonValue(ctx.body);
  const ids = typeof body === 'object' && body !== null ? (body as Json).messages : undefined;
  const form = new FormErrors();
  if (!Array.isArray(ids)) form.add(['messages'], 'BASE_TYPE_REQUIRED', 'This field is required');
  else if (ids.length < 2 || ids.length > 100) form.add(['messages'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 2 and 100 in length.');
  else ids.forEach((id: unknown, i) => (typeof id !== 'string' || !/^\d{1,20}$/.test(id) ? form.add(['messages', i], 'NUMBER_TYPE_COERCE', `Value "${String(id)}" is not snowflake.`) : undefined));
  form.throwIfAny();
  const unique = [...new Set(ids as string[])];
  if (unique.some((id) => Number((BigInt(id) >> 22n) + EPOCH) < Date.now() - TWO_WEEKS_MS)) throw new SandboxApiError(400, 50034, 'You can only bulk delete messages that are under 14 days old.');
  // Ids that name no message count toward the limits and are otherwise ignored, as on the service.
  const found = unique.map((id) => store.messages.get(place.channelId, id)).filter((r): r is MessageRecord => r !== undefined);
  for (const r of found) store.messages.delete(r);
  if (found.length === 0) return;
  const d: Json = { ids: found.map((r) => r.id), channel_id: place.channelId };
  if (place.guild) d.guild_id = place.guild.id;
  store.emit(place.guild?.id ?? null, 'MESSAGE_DELETE_BULK', JSON.stringify(d));
}

function endPoll(store: SandboxStore, ctx: RestContext): Json {
  const { place, record } = messageAt(store, ctx);
  if (record.message.poll === undefined) throw new SandboxApiError(400, 520006, 'Cannot expire a non-poll message');
  if ((record.message.author as { id?: string }).id !== store.applicationId) throw Errors.cannotEditOthersMessage();
  if (!pollOpen(record)) throw new SandboxApiError(400, 520001, 'Poll expired');
  expirePoll(store, record);
  dispatchMessage(store, place, 'MESSAGE_UPDATE', record.message);
  return record.message;
}

function voters(store: SandboxStore, ctx: RestContext): Json {
  const { place, record } = messageAt(store, ctx);
  requirePerms(place, P.READ_MESSAGE_HISTORY);
  const answerId = Number(ctx.params.answerId);
  if (record.message.poll === undefined || !Number.isInteger(answerId)) throw Errors.unknownMessage();
  const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 25 } }, ['after']);
  const after = q.snowflakes.get('after') ?? '0';
  const ids = [...(votesOf(record).get(answerId) ?? [])].filter((id) => compareSnowflakes(id, after) > 0).sort(compareSnowflakes);
  return { users: ids.slice(0, q.ints.get('limit')!).map((id) => userObject(store.user(id)!)) };
}

/** POST /channels/{id}/typing: 204 and TYPING_START (the bot's member in guilds, the time in unix seconds). */
function typing(store: SandboxStore, ctx: RestContext): void {
  const place = channelPlace(store, ctx);
  requirePerms(place, place.channel?.thread !== undefined ? P.SEND_MESSAGES_IN_THREADS : P.SEND_MESSAGES);
  const d: Json = { channel_id: place.channelId, user_id: store.applicationId, timestamp: Math.floor(Date.now() / 1000) };
  if (place.guild) {
    d.guild_id = place.guild.id;
    const bot = store.member(place.guild.id, store.applicationId);
    if (bot) d.member = { ...partialMemberObject(bot), user: userObject(store.botUser) };
  }
  store.emit(place.guild?.id ?? null, 'TYPING_START', JSON.stringify(d));
}

export function pinRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const r = { major: 'channelId', auth: 'bot' } as const;
  const noContent = (fn: (ctx: RestContext) => void) => (ctx: RestContext) => (fn(ctx), { status: 204 });
  return [
    { ...r, method: 'GET', path: '/channels/:channelId/messages/pins', bucket: 'pins', handler: (ctx) => ({ status: 200, body: listPins(store, ctx, true) }) },
    { ...r, method: 'PUT', path: '/channels/:channelId/messages/pins/:messageId', bucket: 'pins', handler: noContent((ctx) => setPin(store, ctx, true)) },
    { ...r, method: 'DELETE', path: '/channels/:channelId/messages/pins/:messageId', bucket: 'pins', handler: noContent((ctx) => setPin(store, ctx, false)) },
    { ...r, method: 'GET', path: '/channels/:channelId/pins', bucket: 'pins', handler: (ctx) => ({ status: 200, body: listPins(store, ctx, false) }) },
    { ...r, method: 'PUT', path: '/channels/:channelId/pins/:messageId', bucket: 'pins', handler: noContent((ctx) => setPin(store, ctx, true)) },
    { ...r, method: 'DELETE', path: '/channels/:channelId/pins/:messageId', bucket: 'pins', handler: noContent((ctx) => setPin(store, ctx, false)) },
    { ...r, method: 'POST', path: '/channels/:channelId/messages/bulk-delete', bucket: 'messages.bulk', handler: noContent((ctx) => bulkDelete(store, ctx)) },
    { ...r, method: 'POST', path: '/channels/:channelId/typing', bucket: 'typing', handler: noContent((ctx) => typing(store, ctx)) },
    { ...r, method: 'POST', path: '/channels/:channelId/polls/:messageId/expire', bucket: 'polls', handler: (ctx) => ({ status: 200, body: endPoll(store, ctx) }) },
    { ...r, method: 'GET', path: '/channels/:channelId/polls/:messageId/answers/:answerId', bucket: 'polls', handler: (ctx) => ({ status: 200, body: voters(store, ctx) }) },
  ];
}

