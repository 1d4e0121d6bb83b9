/** Rules both backends share: option checks, page limits, entitlement query owners, hooks, shard routing. */
import { DEFAULT_CACHE_OPTIONS, type CacheOptions, type EntitlementOwner, type EntitlementQuery, type StaleScope } from './types.js';

/** A write the Redis backend could not store. */
export interface CacheWriteFailure {
  readonly error: Error;
  /** The dispatch (or background step, e.g. "guild removal") the write came from. */
  readonly event: string;
  /** The guild it concerned, when it concerned one. */
  readonly guildId: string | null;
}

export interface CacheHooks {
  /**
   * A payload (or one record in it) without the documented shape was ignored. `reason` starts with the
   * field path, e.g. `members[3].user.id: expected a snowflake string, got number`.
   */
  onReject?: (event: string, reason: string) => void;
  /** A write failed (Redis backend). Reported once per failed command, where it happened. */
  onWriteError?: (failure: CacheWriteFailure) => void;
  /**
   * Something is stale after a failed write: re-request it (an all-member request and the guild from REST; the
   * entitlements from REST), then call `recovered(scope)`. Called once per scope until it is recovered.
   */
  onStale?: (scope: StaleScope) => void;
  /** Clock for membership-transition records and entitlement tombstones (tests). Default Date.now. */
  now?: () => number;
}

/**
 * Membership transitions (joins and leaves) are remembered per guild for this long, and at most
 * MAX_TRANSITIONS of them: a repeated delivery (a replay after a crash, a service duplicate) comes well within
 * it, since a session is resumable for minutes only.
 */
export const TRANSITION_WINDOW_MS = 15 * 60_000;
export const MAX_TRANSITIONS = 10_000;

/**
 * A deleted entitlement's tombstone (its stamp, kept so that an interaction's older copy cannot bring it back and
 * an entitlement sync does not list it again) is kept this long, and at most this many: like the transitions, it
 * only has to outlive the reorderings and replays it guards against. Expired tombstones are removed by the next
 * deletion (the oldest first), so with deletions going on none is older than the window; without, at most the
 * count stays. Without the bound a bot with steady deletions grew about 120 bytes per deleted entitlement.
 */
export const ENTITLEMENT_TOMBSTONE_MS = 15 * 60_000;
export const MAX_ENTITLEMENT_TOMBSTONES = 10_000;

/** The shard a guild's events go to: (guild_id >> 22) % shard count (protocol §8.3). */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** What a value is, for reject reasons (the value itself is never echoed: it may be long or hostile). */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length === 0 ? 'an empty string' : 'a string that is not a snowflake';
  return typeof v;
}

export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;

export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new RangeError(`members page limit must be an integer from 1 to ${MAX_PAGE}; got ${String(limit)}`);
  }
  return limit;
}

export function checkOptions(options: Partial<CacheOptions>): CacheOptions {
  const merged = { ...DEFAULT_CACHE_OPTIONS, ...options };
  if (!Number.isInteger(merged.maxMembersPerGuild) || merged.maxMembersPerGuild < 0) {
    throw new RangeError(`cache.maxMembersPerGuild must be a non-negative integer; got ${String(merged.maxMembersPerGuild)}`);
  }
  // Users are the users of cached members: without members there is nothing to hold them.
  if (!merged.members) merged.users = false;
  return merged;
}

/** The owner named by an entitlement query: exactly one of userId / guildId. */
export function ownerOf(query: EntitlementQuery): EntitlementOwner {
  const hasUser = query.userId !== undefined;
  const hasGuild = query.guildId !== undefined;
  if (hasUser === hasGuild) throw new TypeError('hasEntitlement needs exactly one of userId or guildId');
  return hasUser ? { userId: query.userId! } : { guildId: query.guildId! };
}
