/** Rules both backends share: option checks, page limits, entitlement query owners, hooks. */
import { DEFAULT_CACHE_OPTIONS, type CacheOptions, type EntitlementOwner, type EntitlementQuery } from './types.js';

export interface CacheHooks {
  /** Called for every rejected payload (e.g. to log it at debug level). */
  onReject?: (event: string, reason: string) => void;
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
