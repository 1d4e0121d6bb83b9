import type { EmojiRecord, ScheduledEventRecord, StageInstanceRecord, StickerRecord } from './assets-model.js';
import type { OverwriteRecord } from './permissions.js';

/**
 * The sandbox's records. They are compact on purpose: a 1,000 x 1,000 fixture holds a million members, so
 * records keep only what payloads need and carry a cached JSON serialization that is dropped on change.
 */

export interface UserRecord {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
  /** The user's client locale (interaction `locale`). */
  locale: string;
  /** Avatar and banner hashes (only the bot's can be set, with PATCH /users/@me). */
  avatar?: string | null;
  banner?: string | null;
  /** Cached JSON of the user object. */
  json?: string;
}

export interface MemberRecord {
  userId: string;
  /** Fixture user index (the user record is generated from it on demand); -1 for users kept in the store. */
  userIndex: number;
  nick: string | null;
  roles: string[];
  /** Epoch ms. */
  joinedAt: number;
  flags: number;
  /** Epoch ms of a timeout's end (PATCH communication_disabled_until); absent or null when none was set. */
  communicationDisabledUntil?: number | null;
  /** Server mute / deafen (voice). */
  mute?: boolean;
  deaf?: boolean;
}

export interface RoleRecord {
  id: string;
  name: string;
  color: number;
  hoist: boolean;
  position: number;
  permissions: bigint;
  managed: boolean;
  mentionable: boolean;
  botId?: string;
}

export interface ChannelRecord {
  id: string;
  type: number;
  name: string;
  position: number;
  parentId: string | null;
  topic: string | null;
  nsfw: boolean;
  /** Permission overwrites (seeded channels have none). */
  overwrites?: OverwriteRecord[];
  rateLimitPerUser?: number;
  bitrate?: number;
  userLimit?: number;
  /** Threads (types 10, 11, 12) only. */
  thread?: ThreadState;
}

/** A thread's metadata and members (discord-api-docs "Thread Metadata Object", "Thread Member Object"). */
export interface ThreadState {
  ownerId: string;
  archived: boolean;
  locked: boolean;
  autoArchiveDuration: number;
  /** Epoch ms of the last archive-state change (or the creation). */
  archiveTimestamp: number;
  invitable: boolean;
  createTimestamp: number;
  /** Members by user id: epoch ms they joined. */
  members: Map<string, number>;
  messageCount: number;
  totalMessageSent: number;
}

/** A ban of a guild. */
export interface BanRecord {
  userId: string;
  reason: string | null;
}

export interface GuildRecord {
  id: string;
  /** Position in the fixture (drives lazy member generation). -1 for guilds created later. */
  index: number;
  name: string;
  ownerId: string;
  preferredLocale: string;
  joinedAt: string;
  premiumTier: number;
  roles: RoleRecord[];
  channels: ChannelRecord[];
  /** Members by user id, materialized from the fixture on first use. */
  members: Map<string, MemberRecord> | null;
  /** Member count before materialization. */
  seededMemberCount: number;
  /** Serialized GUILD_CREATE payloads per variant; cleared whenever the guild changes. */
  payloadCache: Map<string, Buffer>;
  /** Threads (active and archived), apart from `channels` as GUILD_CREATE keeps them. */
  threads?: ChannelRecord[];
  /** Bans by user id, made on first ban. */
  bans?: Map<string, BanRecord>;
  /** Custom emojis, stickers, scheduled events and stage instances by id (assets-model.ts), made on first use. */
  emojis?: Map<string, EmojiRecord>;
  stickers?: Map<string, StickerRecord>;
  scheduledEvents?: Map<string, ScheduledEventRecord>;
  stageInstances?: Map<string, StageInstanceRecord>;
  /** Guild fields PATCH /guilds/{id} set (keys as the service writes them), over the defaults of a guild object. */
  settings?: Map<string, unknown>;
}

export interface SkuRecord {
  id: string;
  type: number;
  name: string;
  slug: string;
  flags: number;
}

export interface EntitlementRecord {
  id: string;
  skuId: string;
  userId: string | null;
  guildId: string | null;
  type: number;
  deleted: boolean;
  consumed: boolean;
  startsAt: string | null;
  endsAt: string | null;
  /** Test entitlements (POST /entitlements) may be deleted; others may not (40019). */
  test: boolean;
  subscriptionId: string | null;
}
