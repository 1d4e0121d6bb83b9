/** The cache layer: compact records of guilds, members, users, roles and entitlements. */
export * from './types.js';
export { reduce, type CacheSink, type GuildPayload, type MemberPayload } from './reducer.js';
export { isEntitlementActive } from './entitlements.js';
export { MemoryCache } from './memory/memory-cache.js';
export { type CacheHooks, MAX_PAGE } from './shared.js';
export { RedisCache, CacheWriteError, type RedisCacheOptions } from './redis/redis-cache.js';
export { CacheKeys } from './redis/keys.js';
export { createCache, type CacheConfig, type CreateCacheDeps } from './create.js';
