/**
 * The cache's public shapes: what a reader gets back (plain readonly views, built on read, never the
 * stored records), the configuration, and the interface both backends implement.
 *
 * Timestamps are milliseconds since the Unix epoch (null when the service sent null or nothing); ids
 * are snowflake strings.
 */

import type { CommandAccess, CommandPermissionEntry } from '../api/command-access.js';
import type { PermissionOverwrite } from '../api/permissions.js';
import type { Snowflake } from '../api/snowflake.js';

export interface UserView {
  readonly id: Snowflake;
  readonly username: string;
  readonly globalName: string | null;
  /** Avatar hash ("a_" prefix = animated), or null. */
  readonly avatar: string | null;
  /** "0" for users on unique usernames, the legacy 4-digit tag otherwise. */
  readonly discriminator: string;
  readonly bot: boolean;
  readonly system: boolean;
  /** The 1-4 character tag of the user's primary guild, when they display one. */
  readonly primaryGuildTag: string | null;
}

export interface MemberView {
  readonly guildId: Snowflake;
  readonly userId: Snowflake;
  readonly nick: string | null;
  /**
   * Role ids (never the @everyone role, which every member has), only roles the guild has: a role deleted, or
   * missing from the guild's complete role list (GUILD_CREATE, GUILD_UPDATE), is no member's. Order is not
   * meaningful.
   */
  readonly roles: readonly Snowflake[];
  readonly joinedAt: number | null;
  /** Guild-specific avatar and banner hashes. */
  readonly avatar: string | null;
  readonly banner: string | null;
  /** End of a timeout; a past value (or null) means the member is not timed out. */
  readonly communicationDisabledUntil: number | null;
  /** Guild member flags bit set (DID_REJOIN 1<<0, COMPLETED_ONBOARDING 1<<1, ...). */
  readonly flags: number;
  /** Membership screening not yet passed. */
  readonly pending: boolean;
  /** The member's user record, when users are cached. */
  readonly user: UserView | null;
}

export interface RoleColorsView {
  readonly primary: number;
  readonly secondary: number | null;
  readonly tertiary: number | null;
}

export interface RoleView {
  readonly id: Snowflake;
  readonly guildId: Snowflake;
  readonly name: string;
  /** Permission bit set (the wire carries it as a decimal string). */
  readonly permissions: bigint;
  readonly position: number;
  readonly colors: RoleColorsView;
}

export interface GuildView {
  readonly id: Snowflake;
  /** Null while the guild is known only from READY / an outage and no GUILD_CREATE arrived yet. */
  readonly name: string | null;
  readonly ownerId: Snowflake | null;
  /**
   * The service's member count: the baseline of the GUILD_CREATE that made the guild available (or of a
   * completed member sync), then +1/-1 per membership transition (a repeated join or leave counts once).
   */
  readonly memberCount: number | null;
  readonly unavailable: boolean;
  /** Ids of the guild's cached roles (empty when roles are not cached). */
  readonly roleIds: readonly Snowflake[];
}

/** One permission overwrite of a channel: `type` 0 role (the guild id for @everyone), 1 member. */
export type PermissionOverwriteView = PermissionOverwrite;

/** What a thread carries beyond a channel (the thread_metadata object, and its creator). */
export interface ThreadMetadataView {
  readonly archived: boolean;
  /** Only members with MANAGE_THREADS can unarchive it, send or edit in it (protocol §S3, thread state). */
  readonly locked: boolean;
  /** The user who created it (`owner_id`). */
  readonly ownerId: Snowflake | null;
  /** When it was archived or last changed its archived state, ms since the epoch. */
  readonly archiveTimestamp: number | null;
  /** Minutes of inactivity before it archives itself (60, 1440, 4320, 10080). */
  readonly autoArchiveDuration: number | null;
}

/** A guild channel or thread. */
export interface ChannelView {
  readonly id: Snowflake;
  readonly guildId: Snowflake;
  /** Channel type (0 text, 2 voice, 4 category, 5 announcement, 10-12 threads, 13 stage, 15 forum, 16 media). */
  readonly type: number;
  readonly name: string | null;
  /** The category of a channel, or the channel a thread belongs to. */
  readonly parentId: Snowflake | null;
  readonly position: number;
  /** Overwrites as the channel has them (a thread has none: its parent's apply, see permissionsOf). */
  readonly permissionOverwrites: readonly PermissionOverwriteView[];
  readonly nsfw: boolean;
  /** Slowmode seconds (rate_limit_per_user), 0 when off. */
  readonly rateLimitPerUser: number;
  /** Set for threads, null for other channels. */
  readonly thread: ThreadMetadataView | null;
}

/** A member's voice connection state in a guild (cached when `cache.voiceStates` is on). */
export interface VoiceStateView {
  readonly guildId: Snowflake;
  readonly userId: Snowflake;
  /** The voice channel, null once they left. */
  readonly channelId: Snowflake | null;
  readonly sessionId: string;
  readonly deaf: boolean;
  readonly mute: boolean;
  readonly selfDeaf: boolean;
  readonly selfMute: boolean;
  readonly selfStream: boolean;
  readonly selfVideo: boolean;
  readonly suppress: boolean;
  readonly requestToSpeakTimestamp: number | null;
}

/**
 * A guild's command permission settings (protocol §S2.7) as the cache keeps them: per command id, or the application
 * id for the application-wide ones. `loaded`: the guild's full list was read from REST (GET
 * /applications/{application.id}/guilds/{guild.id}/commands/permissions) since the guild last became available;
 * until then only what APPLICATION_COMMAND_PERMISSIONS_UPDATE events brought is here, which is not the whole.
 */
export interface GuildCommandPermissionsView {
  readonly guildId: Snowflake;
  readonly loaded: boolean;
  /** Settings by command id (or application id). A Map: ids come from the wire. */
  readonly byTarget: ReadonlyMap<Snowflake, readonly CommandPermissionEntry[]>;
}

/** The command canUseCommand asks about: its id and default_member_permissions (an API command object fits). */
export interface CommandRef {
  readonly id: Snowflake;
  readonly application_id: Snowflake;
  readonly name?: string;
  readonly default_member_permissions?: string | null;
}

export interface EntitlementView {
  readonly id: Snowflake;
  readonly skuId: Snowflake;
  readonly applicationId: Snowflake | null;
  readonly userId: Snowflake | null;
  readonly guildId: Snowflake | null;
  /** 1 PURCHASE, 2 PREMIUM_SUBSCRIPTION, 3 DEVELOPER_GIFT, 4 TEST_MODE_PURCHASE, ... (protocol §13.1). */
  readonly type: number;
  readonly startsAt: number | null;
  /** Null while ongoing; set once the entitlement ends (protocol §S3). */
  readonly endsAt: number | null;
  readonly deleted: boolean;
  readonly consumed: boolean;
}

export interface EntitlementQuery {
  /** Exactly one of userId / guildId names the owner. */
  readonly userId?: Snowflake;
  readonly guildId?: Snowflake;
  readonly skuId: Snowflake;
  /** The moment to test (Date or ms since the epoch); defaults to now. */
  readonly at?: Date | number;
}

export type EntitlementOwner = { readonly userId: Snowflake } | { readonly guildId: Snowflake };

export interface MemberPageOptions {
  /** Return members whose user id is greater than this one (numerically). */
  readonly after?: Snowflake;
  /** 1-1000, default 100. */
  readonly limit?: number;
}

export interface MemberPage {
  readonly members: readonly MemberView[];
  /** Pass as `after` for the next page; null when this page is the last. */
  readonly next: Snowflake | null;
}

export interface CacheSizes {
  guilds: number;
  members: number;
  users: number;
  roles: number;
  entitlements: number;
  /** Guild channels (threads not included). */
  channels: number;
  threads: number;
  voiceStates: number;
}

/** Which resources are cached, and limits. Mirrors the `cache` section of the configuration. */
export interface CacheOptions {
  guilds: boolean;
  members: boolean;
  /** User records of cached members (a user stays while one of its memberships is cached). */
  users: boolean;
  roles: boolean;
  entitlements: boolean;
  /**
   * Guild channels and threads (with their permission overwrites, which permissionsOf needs in a channel), and
   * the guilds' command permission settings. On by default.
   */
  channels: boolean;
  /** Voice states of guild members (VOICE_STATE_UPDATE; needs the GUILD_VOICE_STATES intent). Off by default. */
  voiceStates: boolean;
  /** Members beyond this many per guild are not cached (0 = no cap). The bot's own member always is. */
  maxMembersPerGuild: number;
}

export const DEFAULT_CACHE_OPTIONS: CacheOptions = {
  guilds: true,
  members: true,
  users: true,
  roles: true,
  entitlements: true,
  channels: true,
  voiceStates: false,
  maxMembersPerGuild: 0,
};

/** Read side, identical for both backends. */
export interface CacheReader {
  getGuild(guildId: Snowflake): Promise<GuildView | undefined>;
  getMember(guildId: Snowflake, userId: Snowflake): Promise<MemberView | undefined>;
  getUser(userId: Snowflake): Promise<UserView | undefined>;
  getRole(guildId: Snowflake, roleId: Snowflake): Promise<RoleView | undefined>;
  /** Roles of a guild, ordered by position then id. */
  getRoles(guildId: Snowflake): Promise<RoleView[]>;
  /** Members of a guild ordered by user id, one page at a time. */
  getMembers(guildId: Snowflake, options?: MemberPageOptions): Promise<MemberPage>;
  /** The guild's member count as the service reports it (see GuildView.memberCount). */
  memberCount(guildId: Snowflake): Promise<number | undefined>;
  getEntitlement(entitlementId: Snowflake): Promise<EntitlementView | undefined>;
  /** Every cached entitlement of a user or a guild, active or not. */
  entitlementsOf(owner: EntitlementOwner): Promise<EntitlementView[]>;
  /** True iff the owner holds an entitlement to the SKU that is active at `at` (see isEntitlementActive). */
  hasEntitlement(query: EntitlementQuery): Promise<boolean>;
  sizes(): Promise<CacheSizes>;
  /** A guild channel or thread by id. */
  getChannel(channelId: Snowflake): Promise<ChannelView | undefined>;
  /** A guild's channels (threads not included), ordered by position then id. */
  getChannels(guildId: Snowflake): Promise<ChannelView[]>;
  /** A guild's cached threads (of one parent channel when given), ordered by id. */
  getThreads(guildId: Snowflake, parentId?: Snowflake): Promise<ChannelView[]>;
  getVoiceState(guildId: Snowflake, userId: Snowflake): Promise<VoiceStateView | undefined>;
  /** Voice states of a guild's members in a voice channel, ordered by user id. */
  getVoiceStates(guildId: Snowflake): Promise<VoiceStateView[]>;
  /**
   * A member's permissions (src/api/permissions.ts): in the channel or thread when `channelId` is given, else
   * guild-wide. Undefined when the cache lacks what it takes: the guild and its owner, the @everyone role, the
   * member (the owner needs none), or the channel (and a thread's parent).
   */
  permissionsOf(guildId: Snowflake, userId: Snowflake, channelId?: Snowflake): Promise<bigint | undefined>;
  /** The command permission settings cached for a guild (see GuildCommandPermissionsView). */
  getCommandPermissions(guildId: Snowflake): Promise<GuildCommandPermissionsView | undefined>;
  /**
   * Whether the member may use the command in the channel, and why (command permissions v2, src/api/command-access.ts).
   * Undefined when the cache cannot tell: what permissionsOf needs, or the guild's command permissions were not
   * loaded (see GuildCommandPermissionsView.loaded; the plugin context's canUseCommand loads them).
   */
  canUseCommand(guildId: Snowflake, userId: Snowflake, channelId: Snowflake, command: CommandRef): Promise<CommandAccess | undefined>;
}

/**
 * Replaces one guild's member set with the answer to an all-member request (op 8 with query "" and limit 0).
 * Begun before the request is sent; every member written while it is open (the request's chunks, and member
 * events arriving meanwhile) counts as present.
 */
export interface MemberSync {
  readonly guildId: Snowflake;
  /**
   * Every chunk arrived: members of the guild not written since begin are removed, and `memberCount` (how many
   * members the request returned) becomes the guild's member_count. Resolves once done (the Redis backend
   * removes in bounded batches). A sync superseded by a later one for the same guild does nothing. Rejects
   * (removing nothing) when a write of the guild failed since begin: the answer is not all in the cache.
   */
  commit(memberCount?: number): Promise<void>;
  /** The request failed or was given up: nothing is removed. */
  abort(): void;
}

/**
 * Replaces the cached entitlements with the application's list from REST (GET
 * /applications/{application.id}/entitlements, all pages), without losing entitlement events that arrive while
 * the pages are read: an entitlement written or deleted by an event after begin keeps what the event said.
 */
export interface EntitlementSync {
  /** One page of the listing, as REST returned it (entitlement objects; malformed ones are rejected). */
  add(entitlements: readonly unknown[]): void;
  /** The listing is complete: cached entitlements it did not list, and no event touched since begin, are removed. */
  commit(): Promise<void>;
  abort(): void;
}

/**
 * Replaces a guild's command permission settings with the answer to GET
 * /applications/{application.id}/guilds/{guild.id}/commands/permissions, begun before the request is sent: a
 * command whose settings an APPLICATION_COMMAND_PERMISSIONS_UPDATE changed since begin keeps what the event said.
 */
export interface CommandPermissionsLoad {
  readonly guildId: Snowflake;
  /** The answer (guild application command permissions objects; malformed entries are rejected). */
  commit(list: readonly unknown[]): Promise<void>;
  abort(): void;
}

/** What a failed Redis write concerned (see CacheHooks.onWriteError / onStale). */
export type StaleScope = { readonly guildId: Snowflake } | { readonly entitlements: true };

export interface Cache extends CacheReader {
  readonly backend: 'memory' | 'redis';
  readonly options: Readonly<CacheOptions>;
  /** False while the backend's store cannot be reached (Redis down); always true in memory. */
  readonly reachable: boolean;
  /**
   * Feed one gateway dispatch (`t` and `d` of an op 0 payload). Unknown event names are ignored; a
   * payload that does not have the documented shape is counted in `stats().rejected` and ignored.
   * Never keeps `d` or any object inside it. Synchronous: the Redis backend queues the writes and
   * sends them as one pipeline (see flush). Returns false when it refused the payload, or a part of it that
   * is not an entry of a list (exactly when `dispatchProblem` finds a problem): typed plugin events are not
   * handed such a payload.
   */
  apply(t: string, d: unknown): boolean;
  /**
   * Resolves once every write queued so far is stored, or its failure recorded: the guild it concerned is
   * marked stale (CacheHooks.onStale) in Redis as well, so that a restarted process recovers it too. Rejects
   * (CacheWriteError) only when that record could not be written either, so a caller that must not move past a
   * lost write (the cluster's session checkpoint) can hold back. Reads wait for queued writes but never see
   * their errors. No-op in memory.
   */
  flush(): Promise<void>;
  /**
   * Resolves once the background work started so far is done: a fresh READY's removal of the shard's guilds it
   * no longer lists, the member and user release of removed guilds (in batches), member and entitlement sync
   * commits. Until then reads may still show what that work removes. Immediate in memory.
   */
  settled(): Promise<void>;
  /** Start replacing a guild's member set from an all-member request (see MemberSync). */
  beginMemberSync(guildId: Snowflake): MemberSync;
  /** Start replacing the entitlements from REST (see EntitlementSync). */
  beginEntitlementSync(): EntitlementSync;
  /** Start replacing a guild's command permission settings from REST (see CommandPermissionsLoad). */
  beginCommandPermissionsLoad(guildId: Snowflake): CommandPermissionsLoad;
  /**
   * Guilds marked stale after a failed write, by any process sharing this cache (Redis), that were not
   * recovered yet; the entitlements are stale when `entitlements` is true.
   */
  stale(): Promise<{ guildIds: Snowflake[]; entitlements: boolean }>;
  /** The guild (or the entitlements) was fetched again after being stale: clear the mark. */
  recovered(scope: StaleScope): Promise<void>;
  /** Remove the members for which `predicate` is true, in one guild or in all; returns how many. */
  sweepMembers(predicate: (member: MemberView) => boolean, guildId?: Snowflake): Promise<number>;
  stats(): CacheStats;
  close(): Promise<void>;
}

export interface CacheStats {
  /** Dispatches of events the cache handles (rejected ones included). */
  applied: number;
  /** Dispatches (or records inside them) ignored because their shape was not the documented one. */
  rejected: number;
  /** Members not cached because of maxMembersPerGuild. */
  capped: number;
  /** Writes to Redis that failed (each one also marked what it concerned stale). */
  writeErrors: number;
}
