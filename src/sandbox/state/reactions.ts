/**
 * Reactions on the bot's messages (discord-api-docs "Message" resource: reaction object, Create / Delete
 * Reaction): who reacted with which emoji, kept beside the message record, and the message's `reactions` field
 * rebuilt from them (absent when there are none, as the service leaves it out). Each change dispatches
 * MESSAGE_REACTION_ADD / _REMOVE / _REMOVE_ALL / _REMOVE_EMOJI with `guild_id` (and the reactor's `member` on
 * an add) in guilds.
 */
import type { MessageRecord } from './messages.js';
import { partialMemberObject } from './serialize.js';
import type { SandboxStore } from './store.js';

export type Json = Record<string, unknown>;

/** An emoji as reactions carry it: unicode (`id` null) or custom (`name:id`). */
export interface ReactionEmoji {
  id: string | null;
  name: string;
  /** Custom animated emojis say so in reactions and their events. */
  animated?: true;
}

interface ReactionState {
  emoji: ReactionEmoji;
  /** User ids in the order they reacted. */
  users: Set<string>;
}

const byMessage = new WeakMap<MessageRecord, Map<string, ReactionState>>();

/** The key of an emoji (`name:id` for custom ones, the character itself for unicode). */
export function emojiKey(e: ReactionEmoji): string {
  return e.id === null ? e.name : `${e.name}:${e.id}`;
}

/** The emoji of a path segment: `name:id` (a leading `a:` for animated ones is dropped) or a unicode emoji. */
export function parseEmoji(segment: string): ReactionEmoji | null {
  const custom = /^(?:a:)?([\w~-]{1,32}):(\d{1,20})$/.exec(segment);
  if (custom) return { name: custom[1]!, id: custom[2]! };
  if (segment.length === 0 || segment.length > 64 || /[\s:]/.test(segment)) return null;
  return { id: null, name: segment };
}

export function reactionsOf(record: MessageRecord): Map<string, ReactionState> {
  let map = byMessage.get(record);
  if (map === undefined) byMessage.set(record, (map = new Map()));
  return map;
}

/** Rebuild the message's `reactions` from the state (absent when none remain). */
function refresh(record: MessageRecord, botId: string): void {
  const list = [...reactionsOf(record).values()].filter((r) => r.users.size > 0);
  if (list.length === 0) {
    delete record.message.reactions;
    return;
  }
  record.message.reactions = list.map((r) => ({
    count: r.users.size,
    count_details: { burst: 0, normal: r.users.size },
    me: r.users.has(botId),
    me_burst: false,
    emoji: { ...r.emoji },
    burst_colors: [],
  }));
}

function base(record: MessageRecord, emoji?: ReactionEmoji): Json {
  const d: Json = { channel_id: record.channelId, message_id: record.id };
  if (record.guildId !== null) d.guild_id = record.guildId;
  if (emoji) d.emoji = { ...emoji };
  return d;
}

/** A user reacts; false when they had already reacted with that emoji (nothing is sent then). */
export function addReaction(store: SandboxStore, record: MessageRecord, userId: string, emoji: ReactionEmoji): boolean {
  const map = reactionsOf(record);
  const key = emojiKey(emoji);
  let r = map.get(key);
  if (r === undefined) map.set(key, (r = { emoji, users: new Set() }));
  if (r.users.has(userId)) return false;
  r.users.add(userId);
  refresh(record, store.applicationId);
  const d: Json = { user_id: userId, ...base(record, emoji), burst: false, burst_colors: [], type: 0 };
  const author = (record.message.author as { id?: string } | undefined)?.id;
  if (author !== undefined) d.message_author_id = author;
  if (record.guildId !== null) {
    const m = store.member(record.guildId, userId);
    if (m) d.member = { ...partialMemberObject(m), user: JSON.parse(store.userJsonOf(m)) as Json };
  }
  store.emit(record.guildId, 'MESSAGE_REACTION_ADD', JSON.stringify(d));
  return true;
}

/** A user's reaction goes; false when there was none. */
export function removeReaction(store: SandboxStore, record: MessageRecord, userId: string, emoji: ReactionEmoji): boolean {
  const r = reactionsOf(record).get(emojiKey(emoji));
  if (r === undefined || !r.users.delete(userId)) return false;
  if (r.users.size === 0) reactionsOf(record).delete(emojiKey(emoji));
  refresh(record, store.applicationId);
  store.emit(record.guildId, 'MESSAGE_REACTION_REMOVE', JSON.stringify({ user_id: userId, ...base(record, emoji), burst: false, type: 0 }));
  return true;
}

/** Every reaction of one emoji (MESSAGE_REACTION_REMOVE_EMOJI), or of all (emoji undefined: _REMOVE_ALL). */
export function clearReactions(store: SandboxStore, record: MessageRecord, emoji?: ReactionEmoji): void {
  if (emoji === undefined) reactionsOf(record).clear();
  else reactionsOf(record).delete(emojiKey(emoji));
  refresh(record, store.applicationId);
  store.emit(record.guildId, emoji === undefined ? 'MESSAGE_REACTION_REMOVE_ALL' : 'MESSAGE_REACTION_REMOVE_EMOJI', JSON.stringify(base(record, emoji)));
}

/** Users who reacted with an emoji, in user-id order (`after`, `limit`), as GET .../reactions/{emoji} pages. */
export function reactors(record: MessageRecord, emoji: ReactionEmoji): string[] {
  const r = reactionsOf(record).get(emojiKey(emoji));
  return r === undefined ? [] : [...r.users];
}
