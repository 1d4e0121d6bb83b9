/**
 * The gateway side of the runtime: the serving shard set (a ShardManager, and its cluster coordinator in cluster
 * mode), the cache upkeep that follows its READYs, and live resharding (resharder.ts), during which a second
 * set runs beside it and a cutover decides which copy of each event is delivered.
 *
 * Every dispatch reaches `onDispatch` tagged with its set's generation: outside a reshard the serving set
 * delivers to the intake pipeline; during one the cutover does.
 *
 * Stop: a reshard under way is given up, the cluster member stops gaining or handing off shards, the shards
 * close (resumably when a session store keeps the sessions, i.e. in cluster mode), and the leases are released
 * right after the sessions are saved, so the next owner takes over while this process finishes. The seq saved
 * for the next owner is the last one handled here: every interaction up to it has a running handler.
 */
import {
  RedisIdentifyBudget,
  RedisReshardCoordination,
  ClusterKeys,
  type ClusterCoordinator,
} from '../../cluster/index.js';
import {
  GatewayFatalCloseError,
  LocalReshardCoordination,
  ShardFencedError,
  ShardManager,
  type Cutover,
  type ReshardPlan,
  type ShardManagerOptions,
} from '../../gateway/index.js';
import { intentBits } from '../config.js';
import type { IntakeService } from '../intake/intake-service.js';
import type { Service, StopOptions } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import { Resharder, type ReshardHost, type ShardSetHandle } from '../resharder.js';
import { gatewayBotPort } from '../rest-adapters.js';
import type { CacheService } from './cache-service.js';
import type { ClusterService } from './cluster-service.js';
import type { RestService } from './rest-service.js';

/** One shard set of this process: its generation, total, manager and (cluster mode) coordinator. */
export interface RuntimeShardSet extends ShardSetHandle {
  readonly manager: ShardManager;
  readonly coordinator: ClusterCoordinator | null;
}

export class ShardSetsService implements Service {
  readonly name = 'shard sets';
  /** The serving manager (null before start). */
  manager: ShardManager | null = null;
  /** The resharding engine (null without shards or with fixed shard ids). */
  resharder: Resharder<RuntimeShardSet> | null = null;
  /** While a reshard's cutover runs: which set's dispatches go where (gateway/cutover.ts). */
  private cutover: { oldGeneration: number; newGeneration: number; cutover: Cutover } | null = null;
  private checkTimer: NodeJS.Timeout | null = null;
  /** The fleet's identify budget (cluster mode with shared limits): one for every shard set of this process. */
  private identifyBudget: RedisIdentifyBudget | null = null;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    private readonly cache: CacheService,
    private readonly cluster: ClusterService,
    private readonly intake: IntakeService,
    /** Whether the runtime is running (the periodic recommendation check runs only then). */
    private readonly running: () => boolean,
  ) {}

  get gateway(): ShardManager {
    if (this.manager === null) throw new Error('runtime: gateway is not available before start()');
    return this.manager;
  }

  async start(signal: AbortSignal): Promise<void> {
    // Entitlements from REST before the first interaction: a restarted process knows its subscribers at once.
    await this.cache.upkeep.start();
    signal.throwIfAborted();
    const coordinator = this.cluster.coordinator;
    // In cluster mode the shards of this process are the ones it holds leases for.
    const shardIds = coordinator !== null ? await coordinator.start() : this.ctx.config.shards.ids;
    signal.throwIfAborted();
    const total = coordinator !== null ? coordinator.totalShards : this.ctx.config.shards.total;
    const manager = this.createManager(this.cluster.generation, total, shardIds, coordinator);
    this.manager = manager;
    await this.launch(manager, coordinator);
    signal.throwIfAborted();
    this.setupResharding();
  }

  async stop(options: StopOptions): Promise<void> {
    if (this.cache.current !== null) this.cache.upkeep.stop();
    if (this.checkTimer !== null) clearInterval(this.checkTimer);
    this.checkTimer = null;
    const steps: Array<[string, () => Promise<unknown> | undefined]> = [
      // A reshard under way is given up first: its new set closes, the serving set stops as usual.
      ['reshard', () => this.resharder?.close()],
      // No shard gained or handed off from here on; leases stay renewed until the sessions are saved.
      ['cluster', () => this.cluster.coordinator?.suspend()],
      ['gateway', () => this.manager?.close({ resumable: options.resumable })],
      ['cluster', () => this.cluster.coordinator?.stop()],
    ];
    for (const [component, step] of steps) {
      try {
        await step();
      } catch (err) {
        this.ctx.log.warn({ err, component }, 'error while stopping');
      }
    }
  }

  /** Hot path: every dispatch of every shard, tagged with its set's generation. */
  private onDispatch(generation: number, shardId: number, t: string, d: unknown, s: number): void {
    const cut = this.cutover;
    if (cut === null) {
      // A set being replaced or given up delivers nothing once the cutover is over.
      if (generation === this.cluster.generation) this.intake.pipeline.dispatch(shardId, t, d, s);
    } else if (generation === cut.newGeneration) {
      cut.cutover.fromNew(shardId, t, d, s);
    } else if (generation === cut.oldGeneration) {
      cut.cutover.fromOld(shardId, t, d, s);
    }
  }

  /**
   * A shard manager for one shard set. `extra` overrides (the new set of a single-process reshard shares the
   * old one's identify queue and budget).
   */
  private createManager(
    generation: number,
    total: number | 'auto',
    shardIds: readonly number[] | 'auto',
    coordinator: ClusterCoordinator | null,
    extra: Partial<ShardManagerOptions> = {},
  ): ShardManager {
    const { config, options, log, anomalies } = this.ctx;
    if (coordinator !== null && this.rest.sharesLimits) this.identifyBudget ??= this.sharedIdentifyBudget();
    const manager = new ShardManager({
      token: this.rest.token,
      intents: intentBits(config),
      gatewayBot: gatewayBotPort(this.rest.client),
      totalShards: coordinator !== null ? coordinator.totalShards : total,
      shardIds,
      compress: config.gateway.compress,
      largeThreshold: config.gateway.largeThreshold,
      logger: log,
      anomalies,
      ...(coordinator !== null
        ? { identifyQueue: (info) => coordinator.identifyQueue(info), sessionStore: coordinator.sessionStore, fence: coordinator.shardFence }
        : {}),
      ...(this.identifyBudget !== null && coordinator !== null ? { identifyBudget: this.identifyBudget } : {}),
      onDispatch: (shardId, t, d, s) => this.onDispatch(generation, shardId, t, d, s),
      ...options.gateway,
      ...extra,
    });
    manager.on('stopped', (shardId, error) => {
      // A fenced shard runs on in another process; anything else stopped for good needs the operator.
      if (error === null || error instanceof ShardFencedError) return;
      if (generation !== this.cluster.generation) return; // a set being replaced or given up
      if (error instanceof GatewayFatalCloseError && error.code === 4011 && this.resharder !== null && config.shards.reshard.on4011) {
        log.error({ err: error, shard: shardId }, `shard ${shardId} closed with 4011 (sharding required): resharding`);
        void this.reshard({ reason: '4011' }).catch((e: unknown) => log.error({ err: e }, 'could not start a reshard after 4011'));
        return;
      }
      log.fatal({ err: error, shard: shardId }, `shard ${shardId} stopped for good and /readyz reports not ready: ${error.message}`);
    });
    return manager;
  }

  /** The day's session starts of the whole bot, counted in Redis by every process. */
  private sharedIdentifyBudget(): RedisIdentifyBudget {
    const gatewayBot = gatewayBotPort(this.rest.client);
    return new RedisIdentifyBudget({
      redis: this.rest.fleetRedis(),
      key: new ClusterKeys(this.rest.fleetNamespace).identifyBudget,
      refresh: async () => (await gatewayBot.getGatewayBot()).session_start_limit,
      logger: this.ctx.log.child({ component: 'gateway' }),
    });
  }

  /** Start a manager (resolves when its shards are READY); in cluster mode checkpoint its sessions and follow the leases. */
  private async launch(manager: ShardManager, coordinator: ClusterCoordinator | null): Promise<void> {
    // A fresh session on shard 0 syncs entitlements again; stale guilds of the shard are fetched again.
    const upkeep = this.cache.upkeep;
    manager.on('ready', (shardId, resumed) => upkeep.onShardReady(shardId, resumed));
    if (coordinator !== null) {
      // Seqs are checkpointed while shards run (a SIGKILLed process saves nothing), and at once for a new
      // session: until then a crash would leave nothing to resume.
      coordinator.trackSessions(() => manager.sessions());
      manager.on('ready', (_shardId, resumed) => {
        // 'ready' comes just before the READY dispatch reaches the cache: checkpoint once it has.
        if (!resumed) queueMicrotask(() => coordinator.checkpointSoon());
      });
    }
    await manager.start();
    // A handoff still holds the lease: save the session for the next owner. A fenced shard's lease is someone
    // else's already: keep the session alive on the service but leave the store to the new owner.
    coordinator?.manage({
      start: (id) => manager.addShard(id),
      stop: async (id, reason) => {
        await manager.removeShard(id, { resumable: true, persist: reason === 'handoff' });
      },
    });
  }

  // ---- resharding ----------------------------------------------------------------------------------------------

  /** Resharding runs where this process's shard ids are "auto" (all of them, or a fair share in cluster mode). */
  private setupResharding(): void {
    const { config, log } = this.ctx;
    if (config.shards.ids !== 'auto' || this.manager === null) return;
    const coordination =
      this.cluster.coordinator !== null
        ? new RedisReshardCoordination({
            redis: this.rest.fleetRedis(),
            root: this.rest.fleetNamespace,
            member: () => this.cluster.coordinator?.memberId ?? null,
            logger: log.child({ component: 'reshard' }),
          })
        : new LocalReshardCoordination();
    const r = config.shards.reshard;
    this.resharder = new Resharder<RuntimeShardSet>(this.reshardHost(), coordination, {
      settleMs: r.settleMs,
      dedupeWindowMs: r.dedupeWindowMs,
      warmTimeoutMs: r.warmTimeoutMs,
      logger: log,
    });
    if (r.checkMs > 0) {
      this.checkTimer = setInterval(() => void this.checkRecommendedShards(), r.checkMs);
      this.checkTimer.unref();
    }
  }

  /**
   * Move the bot to another shard count without a restart (every process takes part). `shards` defaults to
   * GET /gateway/bot's recommendation; after a 4011 with no higher recommendation, twice the shards run now.
   * Resolves with the plan started (or the one under way), or null when refused.
   */
  async reshard(options: { shards?: number; reason?: string } = {}): Promise<ReshardPlan | null> {
    const resharder = this.resharder;
    if (resharder === null) {
      throw new Error('resharding needs the gateway transport and shards.ids "auto" (this process runs a fixed list of shards)');
    }
    const current = this.gateway.shardCount;
    let to = options.shards;
    if (to === undefined) {
      const recommended = (await gatewayBotPort(this.rest.client).getGatewayBot()).shards;
      to = recommended > current ? recommended : options.reason === '4011' ? current * 2 : recommended;
    }
    return resharder.propose(to, options.reason ?? 'operator');
  }

  private async checkRecommendedShards(): Promise<void> {
    if (!this.running() || this.resharder?.underWay !== null) return;
    try {
      const recommended = (await gatewayBotPort(this.rest.client).getGatewayBot()).shards;
      if (recommended > this.gateway.shardCount) await this.reshard({ shards: recommended, reason: 'recommended' });
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not check the recommended shard count');
    }
  }

  private reshardHost(): ReshardHost<RuntimeShardSet> {
    return {
      current: () => {
        const manager = this.gateway;
        const generation = this.cluster.generation;
        return { generation, total: manager.shardCount, manager, coordinator: this.cluster.coordinator, shardIds: () => manager.shardIds };
      },
      startSet: (plan) => this.startShardSet(plan),
      setCutover: (cutover) => {
        this.cutover = cutover;
      },
      deliver: (shardId, t, d, s) => this.intake.pipeline.dispatch(shardId, t, d, s),
      cacheHas: async (guildId) => {
        const cache = this.cache.cache;
        await cache.flush();
        return (await cache.getGuild(guildId)) !== undefined;
      },
      swap: (set) => {
        this.manager = set.manager;
        if (set.coordinator !== null) this.cluster.coordinator = set.coordinator;
        this.cluster.generation = set.generation;
      },
      closeSet: (set) => closeShardSet(set),
    };
  }

  /** This process's part of a reshard's new set, READY. */
  private async startShardSet(plan: ReshardPlan): Promise<RuntimeShardSet> {
    const old = this.gateway;
    if (this.cluster.coordinator === null) {
      // One process: the new set identifies through the old one's queue and budget.
      const manager = this.createManager(plan.generation, plan.to, 'auto', null, {
        ...(old.identifyQueueInUse !== null ? { identifyQueue: old.identifyQueueInUse } : {}),
        identifyBudget: old.identifyBudget,
      });
      try {
        await manager.start();
      } catch (error) {
        await manager.close().catch(() => undefined);
        throw error;
      }
      return { generation: plan.generation, total: plan.to, manager, coordinator: null, shardIds: () => manager.shardIds };
    }
    const coordinator = this.cluster.create(plan.to, plan.generation, 'auto');
    const ids = await coordinator.start();
    const manager = this.createManager(plan.generation, plan.to, ids, coordinator);
    const set: RuntimeShardSet = { generation: plan.generation, total: plan.to, manager, coordinator, shardIds: () => manager.shardIds };
    try {
      await this.launch(manager, coordinator);
    } catch (error) {
      await closeShardSet(set).catch(() => undefined);
      throw error;
    }
    return set;
  }
}

/** Close a shard set for good: its sessions end (the other set carries on) and its leases are released. */
async function closeShardSet(set: RuntimeShardSet): Promise<void> {
  await set.coordinator?.suspend();
  await set.manager.close({ resumable: false });
  await set.coordinator?.stop();
}
