/**
 * Wire JSON of emojis, stickers, scheduled events and stage instances, as the service builds them (discord-api-docs
 * "Emoji", "Sticker", "Guild Scheduled Event", "Stage Instance" objects). The uploader / creator user object is
 * passed in by the caller, which decides whether the answer carries it.
 */
import type { EmojiRecord, ScheduledEventRecord, StageInstanceRecord, StickerRecord } from './assets-model.js';

export type Json = Record<string, unknown>;

export function emojiObject(e: EmojiRecord, user?: Json): Json {
  const o: Json = { id: e.id, name: e.name, roles: [...e.roles], require_colons: true, managed: false, animated: e.animated, available: true };
  if (user !== undefined) o.user = user;
  return o;
}

export function stickerObject(s: StickerRecord, user?: Json): Json {
  const o: Json = {
    id: s.id,
    name: s.name,
    tags: s.tags,
    type: 2,
    format_type: s.formatType,
    description: s.description,
    available: true,
    guild_id: s.guildId,
  };
  if (user !== undefined) o.user = user;
  return o;
}

/** A scheduled event; `userCount` only when the request asked `with_user_count`. */
export function scheduledEventObject(ev: ScheduledEventRecord, creator: Json | undefined, userCount?: number): Json {
  const o: Json = {
    id: ev.id,
    guild_id: ev.guildId,
    name: ev.name,
    description: ev.description,
    channel_id: ev.channelId,
    creator_id: ev.creatorId,
    image: null,
    scheduled_start_time: ev.start,
    scheduled_end_time: ev.end,
    status: ev.status,
    entity_type: ev.entityType,
    entity_id: null,
    recurrence_rule: null,
    privacy_level: ev.privacyLevel,
    guild_scheduled_event_exceptions: [],
    entity_metadata: ev.entityType === 3 ? { location: ev.location ?? '' } : null,
  };
  if (creator !== undefined) o.creator = creator;
  if (userCount !== undefined) o.user_count = userCount;
  return o;
}

export function stageInstanceObject(s: StageInstanceRecord): Json {
  return {
    id: s.id,
    guild_id: s.guildId,
    channel_id: s.channelId,
    topic: s.topic,
    privacy_level: s.privacyLevel,
    discoverable_disabled: true,
    guild_scheduled_event_id: s.scheduledEventId,
  };
}
