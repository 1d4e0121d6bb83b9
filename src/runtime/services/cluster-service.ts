/**
 * Cluster mode: several processes share the bot through Redis (REDIS_URL, cluster.enabled and a token; an
 * embedded sandbox is private to its process, so there is nothing to share). This service makes the coordinator
 * of the shard set the bot runs now (its generation and total as the last reshard recorded them); the command
 * sync takes its lock through it, and the shard sets service takes leases with it. A reshard replaces it.
 */
import {
  ClusterCoordinator,
  ClusterError,
  currentGeneration,
  generationNamespace,
} from '../../cluster/index.js';
import type { Service, StopOptions } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import { gatewayBotPort } from '../rest-adapters.js';
import type { CacheService } from './cache-service.js';
import type { RestService } from './rest-service.js';

export class ClusterService implements Service {
  readonly name = 'cluster';
  /** The coordinator of the serving shard set (null outside cluster mode). */
  coordinator: ClusterCoordinator | null = null;
  /**
   * The generation of the shard set that serves (0 until the bot's first reshard). Kept here, with the coordinator
   * of that set, also outside cluster mode: a reshard in one process moves it on just the same.
   */
  generation = 0;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    private readonly cache: CacheService,
  ) {}

  async start(): Promise<void> {
    const { config, log } = this.ctx;
    if (config.redisUrl === undefined || !config.cluster.enabled) return;
    if (config.token === undefined) {
      log.info('REDIS_URL is set but no DISCORD_TOKEN: the embedded sandbox runs in this process alone, cluster mode is off');
      return;
    }
    const { shards, transport } = config;
    // A bot resharded earlier runs the set its last reshard left (generation and total recorded in Redis).
    const recorded = transport === 'http' ? null : await currentGeneration(this.rest.fleetRedis(), this.rest.fleetNamespace);
    if (recorded !== null && shards.total !== 'auto' && shards.total !== recorded.total) {
      throw new ClusterError(
        `cluster: this bot was resharded to ${recorded.total} shards while shards.total is ${shards.total}; set shards.total ` +
          `(GATEHOUSE_SHARD_TOTAL) to ${recorded.total} or "auto"`,
      );
    }
    this.generation = recorded?.generation ?? 0;
    // Without shards (transport "http") the coordinator serves the command sync lock only.
    const total =
      transport === 'http'
        ? 1
        : (recorded?.total ?? (shards.total === 'auto' ? Math.max(1, (await gatewayBotPort(this.rest.client).getGatewayBot()).shards) : shards.total));
    if (this.cache.cache.backend === 'memory') {
      log.child({ component: 'cluster' }).warn(
        'cluster mode with the memory cache: a process that takes a shard over by RESUME has no cached guilds of it; use the Redis cache backend',
      );
    }
    this.coordinator = this.create(total, this.generation, shards.ids);
  }

  /** A coordinator for one shard set (generation) of this bot; identify buckets are the bot's, whatever the set. */
  create(total: number, generation: number, shardIds: readonly number[] | 'auto'): ClusterCoordinator {
    const { cluster, redisUrl } = this.ctx.config;
    const root = this.rest.fleetNamespace;
    return new ClusterCoordinator({
      redis: redisUrl!,
      prefix: generationNamespace(root, generation),
      identifyNamespace: root,
      totalShards: total,
      shardIds,
      leaseMs: cluster.leaseMs,
      ...(cluster.renewMs !== undefined ? { renewMs: cluster.renewMs } : {}),
      ...(cluster.maxShardsPerProcess > 0 ? { maxShardsPerProcess: cluster.maxShardsPerProcess } : {}),
      settleMs: cluster.settleMs,
      sessionTtlMs: cluster.sessionTtlMs,
      checkpointMs: cluster.checkpointMs,
      // Cache writes go out on their own connection: a stored seq must not overtake them (session-store.ts).
      beforeSessionWrite: async () => this.cache.current?.flush(),
      logger: this.ctx.log.child({ component: 'cluster' }),
      ...this.ctx.options.cluster,
    });
  }

  /** Leases are released by the shard sets service right after the sessions are saved; this closes the rest. */
  async stop(_options: StopOptions): Promise<void> {
    await this.coordinator?.stop();
  }
}
