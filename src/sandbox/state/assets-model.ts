/**
 * Records of a guild's expressions and events (discord-api-docs "Emoji", "Sticker", "Guild Scheduled Event",
 * "Stage Instance" resources): kept on the guild record, made on first use, and serialized by assets-serialize.
 */

/** A custom emoji of a guild or of the application. */
export interface EmojiRecord {
  id: string;
  name: string;
  /** Role ids allowed to use it (empty: everyone). */
  roles: string[];
  animated: boolean;
  /** Who uploaded it (the bot, for every emoji made through the API). */
  userId: string;
}

/** A guild sticker (type 2). */
export interface StickerRecord {
  id: string;
  guildId: string;
  name: string;
  description: string | null;
  tags: string;
  /** 1 PNG, 2 APNG, 3 LOTTIE, 4 GIF. */
  formatType: number;
  userId: string;
}

/** A guild scheduled event. */
export interface ScheduledEventRecord {
  id: string;
  guildId: string;
  /** 1 stage instance, 2 voice, 3 external. */
  entityType: number;
  channelId: string | null;
  creatorId: string;
  name: string;
  description: string | null;
  /** ISO 8601. */
  start: string;
  end: string | null;
  /** 1 scheduled, 2 active, 3 completed, 4 canceled. */
  status: number;
  privacyLevel: number;
  /** entity_metadata.location of an external event. */
  location: string | null;
  /** User ids subscribed ("interested"), in the order they subscribed. */
  users: Set<string>;
}

/** A live stage instance of a stage channel. */
export interface StageInstanceRecord {
  id: string;
  guildId: string;
  channelId: string;
  topic: string;
  privacyLevel: number;
  scheduledEventId: string | null;
}
