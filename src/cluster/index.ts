/** Cluster layer: several processes share one bot through Redis (leases, identify queue, sessions, sync lock). */
export {
  ClusterCoordinator,
  type ClusterCoordinatorEvents,
  type ClusterCoordinatorOptions,
  type ShardHandler,
  type ShardLossReason,
} from './coordinator.js';
export { ShardLeases, fairShare, newMemberId, type ClaimResult, type HeartbeatResult } from './leases.js';
export { RedisIdentifyQueue, type RedisIdentifyQueueOptions } from './redis-identify-queue.js';
export { RedisIdentifyBudget, type RedisIdentifyBudgetOptions } from './redis-identify-budget.js';
export { RedisSessionStore, type RedisSessionStoreOptions, type SaveOutcome } from './session-store.js';
export {
  CommandSyncLock,
  commandSetFingerprint,
  type CommandSyncLockOptions,
  type CommandSyncLockResult,
  type CommandSyncRunOptions,
} from './command-sync-lock.js';
export { ClusterKeys, clusterNamespace } from './keys.js';
export {
  RedisReshardCoordination,
  currentGeneration,
  generationNamespace,
  type RedisReshardCoordinationOptions,
} from './redis-reshard-coordination.js';
export { CLUSTER_SCRIPTS, withClusterScripts, type ClusterScriptName } from './scripts.js';
export { ClusterError, IdentifyQueueTimeoutError, ShardCountMismatchError } from './errors.js';
export { MemoryCooldowns, RedisCooldowns, type CooldownStore, type CooldownVerdict } from './cooldowns.js';
