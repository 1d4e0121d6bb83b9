/**
 * `gatehouse/runtime`: for embedders, who run a bot from their own program rather than `gatehouse start`. The
 * Runtime and its options, the configuration loader, the logger, the shard manager, the REST client and its
 * rate-limit stores (in-process, or shared through Redis), and the cache types. Errors are in `gatehouse`; the
 * two an embedder meets first (ConfigError, StartupError) are repeated here.
 */
export { Runtime, type RuntimeOptions, type RuntimeState, type ReadyInfo } from '../runtime/runtime.js';
export { loadConfig, intentBits, usesEmbeddedSandbox, isProduction, ConfigError, type Config, type ConfigInput } from '../runtime/config.js';
export { StartupError } from '../runtime/startup-error.js';
export { createLogger, type Logger } from '../runtime/logger.js';
export { ShardManager, type ShardInfo, type ShardStatus, type ShardManagerOptions, type ReshardPlan } from '../gateway/index.js';
export {
  RestClient,
  DEFAULT_API_URL,
  restClientFromConfig,
  LocalRateLimits,
  botAuth,
  bearerAuth,
  basicAuth,
  type RestClientOptions,
  type RestEvents,
  type RestStats,
  type QueueDepth,
  type RateLimitStore,
  type LocalRateLimitsOptions,
  type RestAuth,
} from '../rest/index.js';
export { SharedRateLimits, type SharedRateLimitsOptions } from '../rest/redis/index.js';
export type { Cache, CacheSizes, EntitlementQuery, MemberPage } from '../cache/index.js';
