/** The cache layer: compact records of guilds, members, users, roles and entitlements. */
export * from './types.js';
export { dispatchProblem, entitlementProblem, reduce, type CacheSink, type GuildPayload, type MemberPayload } from './reducer.js';
export { isEntitlementActive } from './entitlements.js';
export { commandAccessFromParts, permissionsFromParts, type PermissionParts } from './access.js';
export { MemoryCache } from './memory/memory-cache.js';
export { type CacheHooks, type CacheWriteFailure, ENTITLEMENT_TOMBSTONE_MS, MAX_ENTITLEMENT_TOMBSTONES, MAX_PAGE, MAX_TRANSITIONS, TRANSITION_WINDOW_MS, shardOf } from './shared.js';
export { RedisCache, CacheWriteError, type RedisCacheOptions } from './redis/redis-cache.js';
export { CacheKeys, LAYOUT_VERSION } from './redis/keys.js';
export { StaleRecovery, type RecoveryLog, type RecoveryPort, type StaleRecoveryOptions } from './recovery.js';
export { cacheNamespace, createCache, type CacheConfig, type CreateCacheDeps } from './create.js';
