/**
 * The runtime: composes REST, cache, plugins, command sync, interaction routing and the gateway into a bot.
 *
 * Start order matters: plugins load and their commands sync before the gateway connects, and plugin setup
 * runs before the first dispatch, so every interaction finds its handler. Per dispatch the order is
 * cache -> interaction router -> plugin events, so handlers always see an updated cache.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import { createCache, type Cache } from '../cache/index.js';
import {
  ClusterCoordinator,
  clusterNamespace,
  commandSetFingerprint,
  type ClusterCoordinatorOptions,
} from '../cluster/index.js';
import {
  ShardManager,
  type DispatchHook,
  type MemberRequestResult,
  type RequestMembersOptions,
  type ShardManagerOptions,
} from '../gateway/index.js';
import { InteractionRouter } from '../interactions/router.js';
import { PluginHost } from '../plugins/host.js';
import { getCurrentApplication, RestClient, type RestClientOptions } from '../rest/index.js';
import type { Sandbox } from '../sandbox/contract.js';
import { registerSecret } from '../util/redact.js';
import { INTENT_BITS } from '../api/intents.js';
import { CacheUpkeep } from './cache-upkeep.js';
import { intentBits, LOOPBACK_HOSTS, type Config } from './config.js';
import { logSyncResult, syncPluginCommands, type CommandSyncResult } from './command-sync.js';
import { OpsServer, type Readiness } from './http-server.js';
import { createMetrics, type RuntimeMetrics } from './metrics.js';
import { createLogger } from './logger.js';
import { gatewayBotPort, interactionTransport } from './rest-adapters.js';

export interface RuntimeOptions {
  config: Config;
  log?: Logger;
  /** Working directory for plugin directories. */
  cwd?: string;
  /** Use this sandbox instead of starting one when no token is configured (tests share one). */
  sandbox?: Sandbox;
  /** Overrides for the shard manager (tests shorten windows). */
  gateway?: Partial<Omit<ShardManagerOptions, 'token' | 'intents' | 'gatewayBot' | 'onDispatch'>>;
  rest?: Partial<RestClientOptions>;
  /** Defer an interaction automatically when its handler has not answered after this long. Default 2000. */
  deferAfterMs?: number;
  /** Overrides for the cluster coordinator (tests shorten leases and waits). */
  cluster?: Partial<Omit<ClusterCoordinatorOptions, 'redis' | 'prefix' | 'totalShards' | 'shardIds' | 'logger'>>;
  /** Called for every dispatch, with its seq, after the runtime handled it (tooling and tests). */
  observeDispatch?: DispatchHook;
}

export type RuntimeState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Runtime {
  readonly config: Config;
  readonly log: Logger;
  private stateValue: RuntimeState = 'created';
  private sandboxValue: Sandbox | null;
  private ownsSandbox = false;
  private restValue: RestClient | null = null;
  private cacheValue: Cache | null = null;
  private hostValue: PluginHost | null = null;
  private routerValue: InteractionRouter<unknown, unknown> | null = null;
  private gatewayValue: ShardManager | null = null;
  private clusterValue: ClusterCoordinator | null = null;
  private applicationIdValue: string | null = null;
  private syncValue: CommandSyncResult | null = null;
  /** Interactions being handled; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private acceptingInteractions = false;
  private dispatchCount = 0;
  private ops: OpsServer | null = null;
  private metrics: RuntimeMetrics | null = null;
  private opsAddressValue: { host: string; port: number } | null = null;
  /** Entitlement syncs, stale-state recovery, member syncs of all-member requests (cache-upkeep.ts). */
  private upkeep: CacheUpkeep | null = null;

  constructor(private readonly options: RuntimeOptions) {
    this.config = options.config;
    this.log = options.log ?? createLogger({ level: options.config.log.level, pretty: options.config.log.pretty });
    this.sandboxValue = options.sandbox ?? null;
  }

  get state(): RuntimeState {
    return this.stateValue;
  }
  get sandbox(): Sandbox | null {
    return this.sandboxValue;
  }
  get rest(): RestClient {
    return required(this.restValue, 'rest');
  }
  get cache(): Cache {
    return required(this.cacheValue, 'cache');
  }
  get plugins(): PluginHost {
    return required(this.hostValue, 'plugins');
  }
  get router(): InteractionRouter<unknown, unknown> {
    return required(this.routerValue, 'router');
  }
  get gateway(): ShardManager {
    return required(this.gatewayValue, 'gateway');
  }
  /** The cluster coordinator, when several processes share the bot (REDIS_URL and a token set). */
  get cluster(): ClusterCoordinator | null {
    return this.clusterValue;
  }
  get applicationId(): string {
    return required(this.applicationIdValue, 'applicationId');
  }
  /** The startup sync's outcome (null when sync is off). */
  get commandSync(): CommandSyncResult | null {
    return this.syncValue;
  }
  /** Dispatches handled since start. */
  get dispatches(): number {
    return this.dispatchCount;
  }
  get interactionsInFlight(): number {
    return this.inFlight.size;
  }
  /** Where /healthz, /readyz and /metrics listen (null when disabled or not started). */
  get opsAddress(): { host: string; port: number } | null {
    return this.opsAddressValue;
  }
  /** Components that may not exist yet (metrics and readiness read them at any time). */
  get parts(): { rest: RestClient | null; cache: Cache | null; gateway: ShardManager | null } {
    return { rest: this.restValue, cache: this.cacheValue, gateway: this.gatewayValue };
  }

  /**
   * Ready when running and every owned shard is READY (or RESUMED). A cluster member owning no shard (a
   * standby while others hold them all) is ready too: it serves and takes shards over when needed.
   */
  readiness(): Readiness {
    const shards = this.gatewayValue?.status() ?? [];
    const owns = shards.length > 0 || this.clusterValue !== null;
    // A Redis the process needs (the Redis cache, cluster mode) that cannot be reached makes it not ready.
    const cacheRedis = this.cacheValue?.backend === 'redis' ? this.cacheValue.reachable : null;
    const clusterRedis = this.clusterValue !== null ? this.clusterValue.redisReachable : null;
    const redisDown = cacheRedis === false || clusterRedis === false;
    const ready = this.stateValue === 'running' && owns && shards.every((s) => s.status === 'ready') && !redisDown;
    return {
      ready,
      detail: {
        state: this.stateValue,
        shards: shards.map((s) => ({ id: s.id, status: s.status, latencyMs: s.latencyMs })),
        ...(cacheRedis !== null || clusterRedis !== null ? { redis: redisDown ? 'unreachable' : 'ok' } : {}),
      },
    };
  }

  /** Health and metrics endpoint; up from the start of `start()` so /readyz can say "not yet". */
  private async startOps(): Promise<void> {
    const http = this.config.http;
    if (!http.enabled || this.ops !== null) return;
    this.metrics = createMetrics(this);
    const ops = new OpsServer({
      host: http.host,
      port: http.port,
      registry: this.metrics.registry,
      readiness: () => this.readiness(),
      log: this.log.child({ component: 'http' }),
    });
    this.opsAddressValue = await ops.listen();
    this.ops = ops;
    const { host, port } = this.opsAddressValue;
    if (!LOOPBACK_HOSTS.has(http.host)) {
      this.log.warn({ host: http.host }, 'health and metrics listen on every interface (http.host); keep the port private');
    }
    this.log.info(`health and metrics on http://${host.includes(':') ? `[${host}]` : host}:${port} (/healthz /readyz /metrics)`);
  }

  /** Connect REST (starting the embedded sandbox when there is no token) and learn the application id. */
  async connect(): Promise<void> {
    if (this.restValue !== null) return;
    let { token, apiUrl } = this.config;
    if (token === undefined) {
      if (this.sandboxValue === null) {
        const { createSandbox } = await import('../sandbox/index.js');
        const s = this.config.sandbox;
        this.sandboxValue = await createSandbox({
          port: s.port,
          seed: { guilds: s.guilds, membersPerGuild: s.membersPerGuild },
          activities: s.activities,
          logger: this.log,
        });
        this.ownsSandbox = true;
      }
      token = this.sandboxValue.botToken;
      apiUrl = this.sandboxValue.restUrl;
      this.log.info({ rest: apiUrl, gateway: this.sandboxValue.gatewayUrl }, 'no DISCORD_TOKEN: using the local sandbox');
    }
    registerSecret(token);
    this.restValue = new RestClient({
      baseUrl: apiUrl,
      token,
      logger: this.log,
      ...this.options.rest,
    });
    this.metrics?.attach();
    this.applicationIdValue = this.config.applicationId ?? (await getCurrentApplication(this.restValue)).id;
  }

  /** Load plugins (without running setup). */
  async loadPlugins(): Promise<PluginHost> {
    await this.connect();
    if (this.hostValue !== null) return this.hostValue;
    const cache = this.ensureCache();
    const host = new PluginHost({
      log: this.log.child({ component: 'plugins' }),
      services: {
        cache,
        rest: this.rest,
        applicationId: this.applicationId,
        requestMembers: (o) => this.requestMembers(o),
      },
      pluginConfig: this.config.plugins.config,
      disabled: this.config.plugins.disabled,
      ...(this.options.cwd !== undefined ? { cwd: this.options.cwd } : {}),
    });
    await host.load(this.config.plugins.dirs);
    this.hostValue = host;
    return host;
  }

  /**
   * Validate, diff and (unless dryRun) sync every plugin's commands. The outcome is logged unless `quiet`
   * (the CLI prints it itself).
   */
  async syncCommands(options: { dryRun?: boolean; quiet?: boolean } = {}): Promise<CommandSyncResult> {
    const host = await this.loadPlugins();
    const result = await syncPluginCommands({
      host,
      rest: this.rest,
      applicationId: this.applicationId,
      ...(this.config.commands.devGuildId !== undefined ? { devGuildId: this.config.commands.devGuildId } : {}),
      dryRun: options.dryRun === true,
      log: this.log.child({ component: 'commands' }),
    });
    if (options.quiet !== true) logSyncResult(result, this.log.child({ component: 'commands' }));
    return result;
  }

  private ensureCache(): Cache {
    if (this.cacheValue !== null) return this.cacheValue;
    const log = this.log.child({ component: 'cache' });
    const cache = createCache(this.config.cache, {
      ...(this.config.redisUrl !== undefined ? { redisUrl: this.config.redisUrl } : {}),
      // Keys are namespaced per bot, as the cluster keys are: two bots sharing a Redis never share a guild.
      applicationId: this.applicationId,
      logger: log,
      hooks: {
        onReject: (event, reason) => log.debug({ event, reason }, 'dispatch not cached: unexpected shape'),
        onWriteError: (f) => log.warn({ err: f.error, guild: f.guildId, event: f.event }, 'cache write failed; the guild is marked stale and fetched again'),
        onStale: (scope) => this.upkeep?.recovery.add(scope),
      },
    });
    this.cacheValue = cache;
    this.upkeep = new CacheUpkeep({
      cache,
      rest: this.rest,
      applicationId: this.applicationId,
      gateway: () => this.gatewayValue,
      membersIntent: (intentBits(this.config) & INTENT_BITS.GUILD_MEMBERS) !== 0,
      log,
    });
    return cache;
  }

  /**
   * Op 8 through the shard of the guild; an all-member request replaces the guild's cached member set with its
   * answer (see CacheUpkeep.requestMembers).
   */
  requestMembers(options: RequestMembersOptions): Promise<MemberRequestResult> {
    return this.upkeep !== null ? this.upkeep.requestMembers(this.gateway, options) : this.gateway.requestMembers(options);
  }

  /** Start everything; resolves when every owned shard is READY. */
  async start(): Promise<void> {
    if (this.stateValue !== 'created') throw new Error(`runtime cannot start from state ${this.stateValue}`);
    this.stateValue = 'starting';
    try {
      await this.startOps();
      await this.connect();
      const host = await this.loadPlugins();
      const coordinator = await this.createCoordinator();
      if (this.config.commands.sync) {
        this.syncValue = coordinator !== null ? await this.syncCommandsOnce(coordinator) : await this.syncCommands();
      }

      const router = new InteractionRouter<unknown, unknown>({
        transport: interactionTransport(this.rest),
        log: this.log.child({ component: 'interactions' }),
        servicesFor: (plugin) => {
          const hosted = host.loaded.find((p) => p.name === plugin);
          if (hosted === undefined) throw new Error(`no plugin named ${plugin}`);
          const c = hosted.context;
          return { log: c.log, config: c.config, cache: c.cache, plugin: c };
        },
        ...(this.options.deferAfterMs !== undefined ? { deferAfterMs: this.options.deferAfterMs } : {}),
      });
      await host.setupAll();
      host.registerRoutes(router, {
        ...(this.config.commands.devGuildId !== undefined ? { devGuildId: this.config.commands.devGuildId } : {}),
      });
      this.routerValue = router;
      this.acceptingInteractions = true;

      // Entitlements from REST before the first interaction: a restarted process knows its subscribers at once.
      await this.upkeep?.start();

      const { shards, gateway } = this.config;
      // In cluster mode the shards of this process are the ones it holds leases for.
      const shardIds = coordinator !== null ? await coordinator.start() : shards.ids;
      const manager = new ShardManager({
        token: this.tokenForGateway(),
        intents: intentBits(this.config),
        gatewayBot: gatewayBotPort(this.rest),
        totalShards: coordinator !== null ? coordinator.totalShards : shards.total,
        shardIds,
        compress: gateway.compress,
        largeThreshold: gateway.largeThreshold,
        logger: this.log,
        ...(coordinator !== null
          ? { identifyQueue: (info) => coordinator.identifyQueue(info), sessionStore: coordinator.sessionStore }
          : {}),
        onDispatch: (shardId, t, d, s) => this.onDispatch(shardId, t, d, s),
        ...this.options.gateway,
      });
      this.gatewayValue = manager;
      // A fresh session on shard 0 syncs entitlements again; stale guilds of the shard are fetched again.
      manager.on('ready', (shardId, resumed) => this.upkeep?.onShardReady(shardId, resumed));
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
      if (coordinator !== null) {
        coordinator.manage({
          start: (id) => manager.addShard(id),
          // A handoff still holds the lease: save the session for the next owner. A fenced shard's lease is
          // someone else's already: keep the session alive on the service but leave the store to the new owner.
          stop: async (id, reason) => {
            await manager.removeShard(id, { resumable: true, persist: reason === 'handoff' });
          },
        });
      }
      this.stateValue = 'running';
    } catch (err) {
      this.stateValue = 'running';
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Cluster mode when Redis is configured, cluster.enabled is on and a token is set (an embedded sandbox is
   * private to its process, so there is nothing to share). The shard total must be known to split it: "auto"
   * asks GET /gateway/bot here.
   */
  private async createCoordinator(): Promise<ClusterCoordinator | null> {
    const { redisUrl, token, cluster, shards } = this.config;
    if (redisUrl === undefined || !cluster.enabled) return null;
    if (token === undefined) {
      this.log.info('REDIS_URL is set but no DISCORD_TOKEN: the embedded sandbox runs in this process alone, cluster mode is off');
      return null;
    }
    if (this.clusterValue !== null) return this.clusterValue;
    const total = shards.total === 'auto' ? Math.max(1, (await gatewayBotPort(this.rest).getGatewayBot()).shards) : shards.total;
    const log = this.log.child({ component: 'cluster' });
    if (this.cacheValue?.backend === 'memory') {
      log.warn(
        'cluster mode with the memory cache: a process that takes a shard over by RESUME has no cached guilds of it; use the Redis cache backend',
      );
    }
    this.clusterValue = new ClusterCoordinator({
      redis: redisUrl,
      prefix: clusterNamespace(cluster.prefix, this.applicationId),
      totalShards: total,
      shardIds: shards.ids,
      leaseMs: cluster.leaseMs,
      ...(cluster.renewMs !== undefined ? { renewMs: cluster.renewMs } : {}),
      ...(cluster.maxShardsPerProcess > 0 ? { maxShardsPerProcess: cluster.maxShardsPerProcess } : {}),
      settleMs: cluster.settleMs,
      sessionTtlMs: cluster.sessionTtlMs,
      checkpointMs: cluster.checkpointMs,
      // Cache writes go out on their own connection: a stored seq must not overtake them (session-store.ts).
      beforeSessionWrite: async () => this.cacheValue?.flush(),
      logger: log,
      ...this.options.cluster,
    });
    return this.clusterValue;
  }

  /** The startup sync in cluster mode: one process syncs, the others wait for it and skip (null result). */
  private async syncCommandsOnce(coordinator: ClusterCoordinator): Promise<CommandSyncResult | null> {
    const host = await this.loadPlugins();
    const devGuildId = this.config.commands.devGuildId;
    const fingerprint = commandSetFingerprint(
      host.commands().map((c) => c.command),
      devGuildId !== undefined ? { devGuildId } : {},
    );
    const outcome = await coordinator.withCommandSyncLock(() => this.syncCommands(), {
      fingerprint,
      // A scope that failed (or a sync that could not run) is left for the next process to try again.
      isComplete: (r) => r.status === 'synced' && r.summary.scopes.every((scope) => scope.error === undefined),
    });
    if (outcome.ran) return outcome.result;
    const log = this.log.child({ component: 'commands' });
    if (outcome.reason === 'timeout') log.warn('another process held the command sync lock too long; starting without syncing');
    else log.info('commands already synced by another process of this bot');
    return null;
  }

  private tokenForGateway(): string {
    return this.config.token ?? required(this.sandboxValue, 'sandbox').botToken;
  }

  /** Hot path: one call per dispatch of every shard. */
  private onDispatch(shardId: number, t: string, d: unknown, s: number): void {
    this.dispatchCount++;
    this.cacheValue?.apply(t, d);
    if (t === 'INTERACTION_CREATE') this.routeInteraction(d as APIInteraction);
    this.hostValue?.dispatch(shardId, t, d);
    this.options.observeDispatch?.(shardId, t, d, s);
  }

  private routeInteraction(interaction: APIInteraction): void {
    if (!this.acceptingInteractions || this.routerValue === null) return;
    const handling = this.routerValue.handle(interaction).catch((err: unknown) => {
      this.log.error({ err }, 'interaction routing failed');
    });
    this.inFlight.add(handling);
    void handling.finally(() => this.inFlight.delete(handling));
  }

  /**
   * Stop: take no new interactions, let in-flight ones answer (bounded), close shards (resumable when a
   * session store keeps the sessions), tear plugins down, close cache and REST.
   */
  async stop(options: { graceMs?: number; resumable?: boolean } = {}): Promise<void> {
    if (this.stateValue === 'stopping' || this.stateValue === 'stopped') return;
    this.stateValue = 'stopping';
    this.acceptingInteractions = false;
    this.upkeep?.stop();
    const grace = options.graceMs ?? 10_000;
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, grace);
        }),
      ]);
      clearTimeout(timer);
    }
    // With a session store (cluster mode) shards close resumably by default, so the next owner RESUMEs.
    const resumable = options.resumable ?? this.clusterValue !== null;
    const steps: Array<[string, () => Promise<unknown> | unknown]> = [
      // No shard gained or handed off from here on; leases stay renewed until the sessions are saved.
      ['cluster', () => this.clusterValue?.suspend()],
      ['gateway', () => this.gatewayValue?.close({ resumable })],
      ['cluster', () => this.clusterValue?.stop()],
      ['plugins', () => this.hostValue?.teardownAll()],
      ['cache', () => this.cacheValue?.close()],
      ['rest', () => this.restValue?.close()],
      ['sandbox', () => (this.ownsSandbox ? this.sandboxValue?.close() : undefined)],
      ['http', () => this.ops?.close()],
    ];
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        this.log.warn({ err, component: name }, 'error while stopping');
      }
    }
    this.metrics?.detach();
    this.stateValue = 'stopped';
  }
}

function required<T>(value: T | null, name: string): T {
  if (value === null) throw new Error(`runtime: ${name} is not available before start()`);
  return value;
}
