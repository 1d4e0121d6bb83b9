/** Shared REST limits in Redis (every process of one bot); takes an ioredis connection from the caller. */
export { SharedRateLimits, withRestScripts, type SharedRateLimitsOptions, type SharedRateLimitsStats } from './shared-rate-limits.js';
export { REST_LIMIT_SCRIPTS } from './scripts.js';
