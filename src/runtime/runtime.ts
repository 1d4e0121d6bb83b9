/**
 * The runtime: composes REST, cache, plugins, command sync, interaction routing and the gateway into a bot.
 *
 * Start order matters: plugins load and their commands sync before the gateway connects, and plugin setup
 * runs before the first dispatch, so every interaction finds its handler. Per dispatch the order is
 * cache -> interaction router -> plugin events, so handlers always see an updated cache.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createCache, dispatchProblem, type Cache } from '../cache/index.js';
import {
  ClusterCoordinator,
  ClusterKeys,
  clusterNamespace,
  commandSetFingerprint,
  currentGeneration,
  generationNamespace,
  RedisIdentifyBudget,
  RedisReshardCoordination,
  ClusterError,
  type ClusterCoordinatorOptions,
} from '../cluster/index.js';
import { Resharder, type ReshardHost, type ShardSetHandle } from './reshard.js';

/** One shard set of this process: its generation, total, manager and (cluster mode) coordinator. */
interface RuntimeShardSet extends ShardSetHandle {
  readonly manager: ShardManager;
  readonly coordinator: ClusterCoordinator | null;
}
import {
  GatewayFatalCloseError,
  LocalReshardCoordination,
  ShardFencedError,
  ShardManager,
  type Cutover,
  type DispatchHook,
  type MemberRequestResult,
  type RequestMembersOptions,
  type ReshardPlan,
  type ShardManagerOptions,
} from '../gateway/index.js';
import { InteractionRouter } from '../interactions/router.js';
import { interactionProblem } from '../interactions/shape.js';
import { PluginHost } from '../plugins/host.js';
import { getCurrentApplication, RestClient, RestError, type RestClientOptions } from '../rest/index.js';
import { SharedRateLimits } from '../rest/redis/index.js';
import { openFleetRedis } from './fleet-redis.js';
import type { Sandbox } from '../sandbox/contract.js';
import { AnomalyLog, anomalyFromText } from '../util/anomaly-log.js';
import { registerSecret } from '../util/redact.js';
import { INTENT_BITS } from '../api/intents.js';
import { CacheUpkeep } from './cache-upkeep.js';
import { intentBits, isProduction, LOOPBACK_HOSTS, usesEmbeddedSandbox, type Config } from './config.js';
import { applicationFacts, logSyncResult, syncPluginCommands, type ApplicationFacts, type CommandSyncResult } from './command-sync.js';
import { OpsServer, type Readiness } from './http-server.js';
import { createMetrics, type RuntimeMetrics } from './metrics.js';
import { createLogger } from './logger.js';
import { StartupError } from './startup-error.js';
import { gatewayBotPort, interactionTransport } from './rest-adapters.js';
import { HttpEndpoint } from './http-endpoint.js';
import {
  dedupeTtlMs,
  MemorySeenKeys,
  RedisSeenKeys,
  WEBHOOK_DEDUPE_MAX_KEYS,
  WEBHOOK_DEDUPE_TTL_MS,
  WebhookEventHandler,
  type SeenKeys,
} from './webhook-events.js';
import { RecentKeys, type RequestOutcome } from '../transports/http/index.js';

/**
 * Interaction ids handled lately, so that an interaction is handled once whichever way it came (gateway and
 * HTTP both, or a signed request replayed inside the timestamp window): 10 minutes or the newest 50,000.
 */
const INTERACTION_DEDUPE_TTL_MS = 10 * 60_000;
const INTERACTION_DEDUPE_MAX_KEYS = 50_000;

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
  /**
   * Production rules: without a token the bot does not fall back to the embedded sandbox unless
   * `sandbox.mode` is "embedded" (see usesEmbeddedSandbox). Default: NODE_ENV=production.
   */
  production?: boolean;
}

export type RuntimeState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped';

/** Who the bot is and what its shards hold, from READY (the "logged in as" line). */
export interface ReadyInfo {
  userId: string;
  username: string;
  /** Guilds in READY, summed over this process's shards. */
  guilds: number;
  shards: number;
}

export class Runtime {
  readonly config: Config;
  readonly log: Logger;
  private stateValue: RuntimeState = 'created';
  /** The stop under way or done (null before stop() is called). */
  private stopRun: Promise<void> | null = null;
  private sandboxValue: Sandbox | null;
  private ownsSandbox = false;
  private restValue: RestClient | null = null;
  private cacheValue: Cache | null = null;
  private hostValue: PluginHost | null = null;
  private routerValue: InteractionRouter<unknown, unknown> | null = null;
  private gatewayValue: ShardManager | null = null;
  private clusterValue: ClusterCoordinator | null = null;
  /** The connection of the fleet-wide limits and resharding (cluster mode). */
  private fleetRedisValue: Redis | null = null;
  /** The fleet's identify budget (cluster mode with shared limits): one for every shard set of this process. */
  private identifyBudgetValue: RedisIdentifyBudget | null = null;
  /** The generation of the shard set that serves (0 until the bot's first reshard). */
  private generationValue = 0;
  /** While a reshard's cutover runs: which set's dispatches go where (gateway/cutover.ts). */
  private cutoverValue: { oldGeneration: number; newGeneration: number; cutover: Cutover } | null = null;
  private resharderValue: Resharder<RuntimeShardSet> | null = null;
  private reshardCheckTimer: NodeJS.Timeout | null = null;
  private applicationIdValue: string | null = null;
  private syncValue: CommandSyncResult | null = null;
  /** The application's facts for validation, read once (a dev reload syncs again and again). */
  private factsValue: ApplicationFacts | null = null;
  /** Interactions being handled; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<void>>();
  /** HTTP intake (interactions endpoint and webhook events); the gateway stops taking by closing its shards. */
  private acceptingInteractions = false;
  private dispatchCount = 0;
  private ops: OpsServer | null = null;
  private metrics: RuntimeMetrics | null = null;
  private opsAddressValue: { host: string; port: number } | null = null;
  /** Payloads that break the protocol (gateway, cache, interactions): warned once per kind and window. */
  private readonly anomalies: AnomalyLog;
  private endpointValue: HttpEndpoint | null = null;
  private webhookEventsValue: WebhookEventHandler | null = null;
  private seenWebhookEvents: SeenKeys | null = null;
  /** The application's public key from GET /applications/@me, when the configuration names none. */
  private verifyKeyValue: string | null = null;
  /** The public key the endpoint verifies with. */
  private endpointKey: string | null = null;
  /** The sandbox whose URLs this runtime pointed at its endpoint (they are cleared at stop). */
  private sandboxPointedHere: Sandbox | null = null;
  /**
   * Entitlement events seen (transport "both"): they arrive by gateway and by webhook, and plugins get each once.
   * The cache applies both copies (the same state twice).
   */
  private readonly seenEntitlementEvents: RecentKeys | null;
  private readonly seenInteractions: RecentKeys;
  /** Requests to the signed endpoint by `path\toutcome\tstatus` (for metrics). */
  readonly endpointRequests = new Map<string, number>();
  /** READY of each shard: the bot user and its guild count. */
  private readonly readyShards = new Map<number, { userId: string; username: string; guilds: number }>();
  /** Entitlement syncs, stale-state recovery, member syncs of all-member requests (cache-upkeep.ts). */
  private upkeep: CacheUpkeep | null = null;

  constructor(private readonly options: RuntimeOptions) {
    this.config = options.config;
    this.log = options.log ?? createLogger({ level: options.config.log.level, pretty: options.config.log.pretty });
    this.sandboxValue = options.sandbox ?? null;
    this.anomalies = new AnomalyLog(this.log.child({ component: 'protocol' }));
    this.seenEntitlementEvents = this.config.transport === 'both' ? new RecentKeys(10_000, 15 * 60_000) : null;
    // A replay of a signed interaction is let in as long as its timestamp is inside the window: remember as long.
    this.seenInteractions = new RecentKeys(
      INTERACTION_DEDUPE_MAX_KEYS,
      dedupeTtlMs(this.config.endpoint.timestampWindowSeconds, INTERACTION_DEDUPE_TTL_MS),
    );
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
  /** Received payloads that were not what the protocol says (each reported at warn, rate-limited per kind). */
  get malformedPayloads(): number {
    return this.anomalies.count;
  }
  get interactionsInFlight(): number {
    return this.inFlight.size;
  }
  /** Where /healthz, /readyz and /metrics listen (null when disabled or not started). */
  get opsAddress(): { host: string; port: number } | null {
    return this.opsAddressValue;
  }
  /** The signed HTTP endpoint (transport "both" or "http"), once listening. */
  get endpoint(): HttpEndpoint | null {
    return this.endpointValue;
  }
  /** True when there is no token and the runtime runs against its own (embedded) sandbox. */
  get embedded(): boolean {
    return this.config.token === undefined;
  }
  /** The bot and its guilds as the READYs of this process's shards said (null before the first READY). */
  get readyInfo(): ReadyInfo | null {
    const shards = [...this.readyShards.values()];
    const first = shards[0];
    if (first === undefined) return null;
    return { userId: first.userId, username: first.username, guilds: shards.reduce((n, s) => n + s.guilds, 0), shards: shards.length };
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
    const httpOnly = this.config.transport === 'http';
    const owns = httpOnly || shards.length > 0 || this.clusterValue !== null;
    const endpointUp = this.config.transport === 'gateway' || (this.endpointValue !== null && this.endpointValue.address !== null);
    // A Redis the process needs (the Redis cache, cluster mode) that cannot be reached makes it not ready.
    const cacheRedis = this.cacheValue?.backend === 'redis' ? this.cacheValue.reachable : null;
    const clusterRedis = this.clusterValue !== null ? this.clusterValue.redisReachable : null;
    const redisDown = cacheRedis === false || clusterRedis === false;
    const ready = this.stateValue === 'running' && owns && endpointUp && shards.every((s) => s.status === 'ready') && !redisDown;
    return {
      ready,
      detail: {
        state: this.stateValue,
        transport: this.config.transport,
        shards: shards.map((s) => ({ id: s.id, status: s.status, latencyMs: s.latencyMs })),
        ...(this.endpointValue !== null ? { endpoint: this.endpointValue.address } : {}),
        ...(cacheRedis !== null || clusterRedis !== null ? { redis: redisDown ? 'unreachable' : 'ok' } : {}),
      },
    };
  }

  /** Health and metrics endpoint; up from the start of `start()` so /readyz can say "not yet". */
  private async startOps(): Promise<void> {
    const http = this.config.http;
    if (!http.enabled || this.ops !== null) return;
    this.metrics = createMetrics(this);
    const make = (port: number): OpsServer =>
      new OpsServer({
        host: http.host,
        port,
        registry: this.metrics!.registry,
        readiness: () => this.readiness(),
        log: this.log.child({ component: 'http' }),
        reshard: (shards) => this.operatorReshard(shards),
      });
    let ops = make(http.port);
    try {
      this.opsAddressValue = await ops.listen();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const where = `${http.host}:${http.port}`;
      if (!this.embedded) {
        throw new StartupError(
          `the health and metrics port ${where} is in use (is another gatehouse running?). Set http.port in config/local.json or GATEHOUSE_HTTP_PORT to a free port (0 picks one), or http.enabled to false`,
        );
      }
      // On the embedded sandbox (a second checkout, a second `npm start`) any free port will do.
      ops = make(0);
      this.opsAddressValue = await ops.listen();
      this.log.warn(`port ${where} is in use; health and metrics moved to port ${this.opsAddressValue.port} (set GATEHOUSE_HTTP_PORT to choose)`);
    }
    this.ops = ops;
    const { host, port } = this.opsAddressValue;
    if (!LOOPBACK_HOSTS.has(http.host)) {
      this.log.warn({ host: http.host }, 'health and metrics listen on every interface (http.host); keep the port private');
    }
    this.log.info(`health and metrics on http://${host.includes(':') ? `[${host}]` : host}:${port} (/healthz /readyz /metrics)`);
  }

  /** `POST /reshard` on the ops endpoint (gatehouse reshard): start a reshard and answer with its plan. */
  private async operatorReshard(shards: number | undefined): Promise<{ status: number; body: unknown }> {
    if (this.resharderValue === null) {
      return { status: 503, body: { message: 'resharding is not available in this process (transport "http", fixed shard ids, or not started)' } };
    }
    try {
      const plan = await this.reshard({ ...(shards !== undefined ? { shards } : {}), reason: 'operator' });
      if (plan === null) return { status: 409, body: { message: 'refused: the bot runs another shard count than this process (a reshard just finished?)' } };
      return { status: 202, body: plan };
    } catch (error) {
      return { status: 409, body: { message: error instanceof Error ? error.message : String(error) } };
    }
  }

  /** Connect REST (starting the embedded sandbox when there is no token) and learn the application id. */
  async connect(): Promise<void> {
    if (this.restValue !== null) return;
    let { token, apiUrl } = this.config;
    if (usesEmbeddedSandbox(this.config, this.options.production ?? isProduction())) {
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
    // The endpoint verifies with the application's own public key unless the configuration names it.
    const needsKey = this.config.transport !== 'gateway' && this.config.endpoint.publicKey === undefined;
    try {
      if (this.config.applicationId === undefined || needsKey) {
        const application = await getCurrentApplication(this.restValue);
        this.applicationIdValue = this.config.applicationId ?? application.id;
        this.verifyKeyValue = typeof application.verify_key === 'string' ? application.verify_key : null;
      } else {
        this.applicationIdValue = this.config.applicationId;
      }
    } catch (err) {
      if (err instanceof RestError && err.status === 401) {
        throw new StartupError(
          `the token was rejected: GET ${apiUrl}/applications/@me answered 401 Unauthorized. Check DISCORD_TOKEN (the bot token from the Developer Portal, without "Bot "), and DISCORD_API_URL if it is set`,
        );
      }
      throw err;
    }
    if (this.sharesLimits()) this.useSharedRestLimits();
  }

  /**
   * Whether the bot's limits are kept in Redis for every process: cluster mode (Redis, cluster.enabled, a
   * token: the embedded sandbox is private to its process) with cluster.sharedLimits on.
   */
  private sharesLimits(): boolean {
    const { redisUrl, token, cluster } = this.config;
    return redisUrl !== undefined && token !== undefined && cluster.enabled && cluster.sharedLimits;
  }

  /** Where this bot's fleet-wide keys live: `<cluster.prefix>:{<application id>}`. */
  private fleetNamespace(): string {
    return clusterNamespace(this.config.cluster.prefix, this.applicationId);
  }

  private fleetRedis(): Redis {
    this.fleetRedisValue ??= openFleetRedis(this.config.redisUrl!, this.log.child({ component: 'cluster' }));
    return this.fleetRedisValue;
  }

  /** The day's session starts of the whole bot, counted in Redis by every process. */
  private sharedIdentifyBudget(): RedisIdentifyBudget {
    const gatewayBot = gatewayBotPort(this.rest);
    return new RedisIdentifyBudget({
      redis: this.fleetRedis(),
      key: new ClusterKeys(this.fleetNamespace()).identifyBudget,
      refresh: async () => (await gatewayBot.getGatewayBot()).session_start_limit,
      logger: this.log.child({ component: 'gateway' }),
    });
  }

  /** From now on the REST client counts against the limits of every process of this bot. */
  private useSharedRestLimits(): void {
    const o = this.options.rest ?? {};
    this.rest.useLimits(
      new SharedRateLimits({
        redis: this.fleetRedis(),
        namespace: `${this.fleetNamespace()}:rest`,
        ...(o.globalLimit !== undefined ? { globalLimit: o.globalLimit } : {}),
        ...(o.globalWindowMs !== undefined ? { globalWindowMs: o.globalWindowMs } : {}),
        ...(o.invalidRequestLimit !== undefined ? { invalidRequestLimit: o.invalidRequestLimit } : {}),
        ...(o.invalidRequestWindowMs !== undefined ? { invalidRequestWindowMs: o.invalidRequestWindowMs } : {}),
        logger: this.log,
      }),
    );
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
      pluginEnvironment: this.config.pluginEnvironment ?? [],
      disabled: this.config.plugins.disabled,
      intents: intentBits(this.config),
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
    this.factsValue ??= await applicationFacts(this.rest, this.log.child({ component: 'commands' }));
    const result = await syncPluginCommands({
      host,
      rest: this.rest,
      applicationId: this.applicationId,
      ...(this.config.commands.devGuildId !== undefined ? { devGuildId: this.config.commands.devGuildId } : {}),
      dryRun: options.dryRun === true,
      partial: this.embedded,
      facts: this.factsValue,
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
        // The reason names the field; the payload (or the record in it) is not cached, the rest of it is.
        onReject: (event, reason) => this.anomalies.report(anomalyFromText(event, `${reason} (not cached)`)),
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
    if (this.config.transport === 'http') {
      return Promise.reject(new Error('requestMembers needs a gateway connection; transport is "http" (no shard connects)'));
    }
    return this.upkeep !== null ? this.upkeep.requestMembers(this.gateway, options) : this.gateway.requestMembers(options);
  }

  /** Start everything; resolves when every owned shard is READY. */
  async start(): Promise<void> {
    if (this.stateValue !== 'created') throw new Error(`runtime cannot start from state ${this.stateValue}`);
    this.stateValue = 'starting';
    try {
      await this.startOps();
      this.stillStarting();
      await this.connect();
      this.stillStarting();
      const host = await this.loadPlugins();
      this.stillStarting();
      const coordinator = await this.createCoordinator();
      this.stillStarting();
      if (this.config.commands.sync) {
        this.syncValue = coordinator !== null ? await this.syncCommandsOnce(coordinator) : await this.syncCommands();
        this.stillStarting();
      }

      const endpoint = this.config.transport === 'gateway' ? null : this.createEndpoint();
      const restTransport = interactionTransport(this.rest);
      const router = new InteractionRouter<unknown, unknown>({
        transport: endpoint !== null ? endpoint.transport(restTransport) : restTransport,
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
      this.stillStarting();
      host.registerRoutes(router, {
        ...(this.config.commands.devGuildId !== undefined ? { devGuildId: this.config.commands.devGuildId } : {}),
      });
      this.routerValue = router;
      this.acceptingInteractions = true;
      if (endpoint !== null) await this.startEndpoint(endpoint);
      this.stillStarting();
      if (this.config.transport === 'http') {
        // No shard, no intents: interactions and webhook events come over HTTP, the cache learns from them and REST.
        this.stateValue = 'running';
        return;
      }

      // Entitlements from REST before the first interaction: a restarted process knows its subscribers at once.
      await this.upkeep?.start();
      this.stillStarting();

      // In cluster mode the shards of this process are the ones it holds leases for.
      const shardIds = coordinator !== null ? await coordinator.start() : this.config.shards.ids;
      this.stillStarting();
      const manager = this.createManager(this.generationValue, coordinator !== null ? coordinator.totalShards : this.config.shards.total, shardIds, coordinator);
      this.gatewayValue = manager;
      await this.launchManager(manager, coordinator);
      this.stillStarting();
      this.setupResharding();
      const info = this.readyInfo;
      if (info !== null) {
        this.log.info(
          { userId: info.userId, guilds: info.guilds, shards: info.shards },
          `ready: logged in as ${info.username} (id ${info.userId}), ${info.guilds} guild${info.guilds === 1 ? '' : 's'} on ${info.shards} shard${info.shards === 1 ? '' : 's'}`,
        );
      }
      this.stateValue = 'running';
    } catch (err) {
      // When stop() came while starting, it closed what existed then: once it is done, a second round closes
      // what this start made since.
      if (this.stopRun !== null) await this.stopRun.catch(() => undefined);
      this.stopRun = null;
      this.stateValue = 'running';
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  /** Throws when stop() was called while start() was under way, so that start goes no further. */
  private stillStarting(): void {
    if (this.stateValue !== 'starting') throw new Error('runtime stopped while starting');
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
    const root = this.fleetNamespace();
    // A bot resharded earlier runs the set its last reshard left (generation and total recorded in Redis).
    const recorded = this.config.transport === 'http' ? null : await currentGeneration(this.fleetRedis(), root);
    if (recorded !== null && shards.total !== 'auto' && shards.total !== recorded.total) {
      throw new ClusterError(
        `cluster: this bot was resharded to ${recorded.total} shards while shards.total is ${shards.total}; set shards.total ` +
          `(GATEHOUSE_SHARD_TOTAL) to ${recorded.total} or "auto"`,
      );
    }
    this.generationValue = recorded?.generation ?? 0;
    // Without shards (transport "http") the coordinator serves the command sync lock only.
    const total =
      this.config.transport === 'http'
        ? 1
        : (recorded?.total ?? (shards.total === 'auto' ? Math.max(1, (await gatewayBotPort(this.rest).getGatewayBot()).shards) : shards.total));
    const log = this.log.child({ component: 'cluster' });
    if (this.cacheValue?.backend === 'memory') {
      log.warn(
        'cluster mode with the memory cache: a process that takes a shard over by RESUME has no cached guilds of it; use the Redis cache backend',
      );
    }
    this.clusterValue = this.newCoordinator(total, this.generationValue, shards.ids);
    return this.clusterValue;
  }

  /** A coordinator for one shard set (generation) of this bot; identify buckets are the bot's, whatever the set. */
  private newCoordinator(total: number, generation: number, shardIds: readonly number[] | 'auto'): ClusterCoordinator {
    const { cluster, redisUrl } = this.config;
    const root = this.fleetNamespace();
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
      beforeSessionWrite: async () => this.cacheValue?.flush(),
      logger: this.log.child({ component: 'cluster' }),
      ...this.options.cluster,
    });
  }

  /**
   * A shard manager for one shard set. Its dispatches go through `onDispatch` tagged with the set's generation
   * (during a reshard both sets deliver, and the cutover decides). `extra` overrides (the new set of a
   * single-process reshard shares the old one's identify queue and budget).
   */
  private createManager(
    generation: number,
    total: number | 'auto',
    shardIds: readonly number[] | 'auto',
    coordinator: ClusterCoordinator | null,
    extra: Partial<ShardManagerOptions> = {},
  ): ShardManager {
    const { gateway } = this.config;
    if (coordinator !== null && this.sharesLimits()) this.identifyBudgetValue ??= this.sharedIdentifyBudget();
    const manager = new ShardManager({
      token: this.tokenForGateway(),
      intents: intentBits(this.config),
      gatewayBot: gatewayBotPort(this.rest),
      totalShards: coordinator !== null ? coordinator.totalShards : total,
      shardIds,
      compress: gateway.compress,
      largeThreshold: gateway.largeThreshold,
      logger: this.log,
      anomalies: this.anomalies,
      ...(coordinator !== null
        ? {
            identifyQueue: (info) => coordinator.identifyQueue(info),
            sessionStore: coordinator.sessionStore,
            fence: coordinator.shardFence,
          }
        : {}),
      ...(this.identifyBudgetValue !== null && coordinator !== null ? { identifyBudget: this.identifyBudgetValue } : {}),
      onDispatch: (shardId, t, d, s) => this.onDispatch(generation, shardId, t, d, s),
      ...this.options.gateway,
      ...extra,
    });
    manager.on('stopped', (shardId, error) => {
      // A fenced shard runs on in another process; anything else stopped for good needs the operator.
      if (error === null || error instanceof ShardFencedError) return;
      if (generation !== this.generationValue) return; // a set being replaced or given up
      if (error instanceof GatewayFatalCloseError && error.code === 4011 && this.resharderValue !== null && this.config.shards.reshard.on4011) {
        this.log.error({ err: error, shard: shardId }, `shard ${shardId} closed with 4011 (sharding required): resharding`);
        void this.reshard({ reason: '4011' }).catch((e: unknown) => this.log.error({ err: e }, 'could not start a reshard after 4011'));
        return;
      }
      this.log.fatal({ err: error, shard: shardId }, `shard ${shardId} stopped for good and /readyz reports not ready: ${error.message}`);
    });
    return manager;
  }

  /** Start a manager (resolves when its shards are READY); in cluster mode checkpoint its sessions and follow the leases. */
  private async launchManager(manager: ShardManager, coordinator: ClusterCoordinator | null): Promise<void> {
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
  }

  // ---- resharding --------------------------------------------------------------------------------------------

  /** Resharding runs where this process's shard ids are "auto" (all of them, or a fair share in cluster mode). */
  private setupResharding(): void {
    if (this.config.shards.ids !== 'auto' || this.gatewayValue === null) return;
    const coordination =
      this.clusterValue !== null
        ? new RedisReshardCoordination({
            redis: this.fleetRedis(),
            root: this.fleetNamespace(),
            member: () => this.clusterValue?.memberId ?? null,
            logger: this.log.child({ component: 'reshard' }),
          })
        : new LocalReshardCoordination();
    const r = this.config.shards.reshard;
    this.resharderValue = new Resharder<RuntimeShardSet>(this.reshardHost(), coordination, {
      settleMs: r.settleMs,
      dedupeWindowMs: r.dedupeWindowMs,
      warmTimeoutMs: r.warmTimeoutMs,
      logger: this.log,
    });
    if (r.checkMs > 0) {
      this.reshardCheckTimer = setInterval(() => void this.checkRecommendedShards(), r.checkMs);
      this.reshardCheckTimer.unref();
    }
  }

  /**
   * Move the bot to another shard count without a restart (every process takes part). `shards` defaults to
   * GET /gateway/bot's recommendation; after a 4011 with no higher recommendation, twice the shards run now.
   * Resolves with the plan started (or the one under way), or null when refused.
   */
  async reshard(options: { shards?: number; reason?: string } = {}): Promise<ReshardPlan | null> {
    const resharder = this.resharderValue;
    if (resharder === null) {
      throw new Error('resharding needs the gateway transport and shards.ids "auto" (this process runs a fixed list of shards)');
    }
    const current = this.gateway.shardCount;
    let to = options.shards;
    if (to === undefined) {
      const recommended = (await gatewayBotPort(this.rest).getGatewayBot()).shards;
      to = recommended > current ? recommended : options.reason === '4011' ? current * 2 : recommended;
    }
    return resharder.propose(to, options.reason ?? 'operator');
  }

  /** The resharding engine (null without shards or with fixed shard ids). */
  get resharder(): Resharder<RuntimeShardSet> | null {
    return this.resharderValue;
  }

  private async checkRecommendedShards(): Promise<void> {
    if (this.stateValue !== 'running' || this.resharderValue?.underWay !== null) return;
    try {
      const recommended = (await gatewayBotPort(this.rest).getGatewayBot()).shards;
      if (recommended > this.gateway.shardCount) await this.reshard({ shards: recommended, reason: 'recommended' });
    } catch (error) {
      this.log.warn({ err: error }, 'could not check the recommended shard count');
    }
  }

  private currentSet(): RuntimeShardSet {
    const manager = this.gateway;
    return { generation: this.generationValue, total: manager.shardCount, manager, coordinator: this.clusterValue, shardIds: () => manager.shardIds };
  }

  private reshardHost(): ReshardHost<RuntimeShardSet> {
    return {
      current: () => this.currentSet(),
      startSet: (plan) => this.startShardSet(plan),
      setCutover: (cutover) => {
        this.cutoverValue = cutover;
      },
      deliver: (shardId, t, d, s) => this.deliver(shardId, t, d, s),
      cacheHas: async (guildId) => {
        const cache = this.cacheValue;
        if (cache === null) return false;
        await cache.flush();
        return (await cache.getGuild(guildId)) !== undefined;
      },
      swap: (set) => {
        this.gatewayValue = set.manager;
        if (set.coordinator !== null) this.clusterValue = set.coordinator;
        this.generationValue = set.generation;
      },
      closeSet: (set) => this.closeShardSet(set),
    };
  }

  /** This process's part of a reshard's new set, READY. */
  private async startShardSet(plan: ReshardPlan): Promise<RuntimeShardSet> {
    const old = this.gateway;
    if (this.clusterValue === null) {
      // One process: the new set identifies through the old one's queue and budget.
      const manager = this.createManager(plan.generation, plan.to, 'auto', null, {
        ...(old.identifyQueueInUse !== null ? { identifyQueue: old.identifyQueueInUse } : {}),
        identifyBudget: old.identifyBudget,
      });
      const set: RuntimeShardSet = { generation: plan.generation, total: plan.to, manager, coordinator: null, shardIds: () => manager.shardIds };
      try {
        await manager.start();
      } catch (error) {
        await manager.close().catch(() => undefined);
        throw error;
      }
      return set;
    }
    const coordinator = this.newCoordinator(plan.to, plan.generation, 'auto');
    const ids = await coordinator.start();
    const manager = this.createManager(plan.generation, plan.to, ids, coordinator);
    const set: RuntimeShardSet = { generation: plan.generation, total: plan.to, manager, coordinator, shardIds: () => manager.shardIds };
    try {
      await this.launchManager(manager, coordinator);
    } catch (error) {
      await this.closeShardSet(set).catch(() => undefined);
      throw error;
    }
    return set;
  }

  /** Close a shard set for good: its sessions end (the other set carries on) and its leases are released. */
  private async closeShardSet(set: RuntimeShardSet): Promise<void> {
    await set.coordinator?.suspend();
    await set.manager.close({ resumable: false });
    await set.coordinator?.stop();
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

  /**
   * Hot path: one call per dispatch of every shard, tagged with its shard set's generation. Outside a reshard
   * the serving set delivers; during one the cutover decides which copy of an event is delivered.
   */
  private onDispatch(generation: number, shardId: number, t: string, d: unknown, s: number): void {
    const cut = this.cutoverValue;
    if (cut === null) {
      // A set being replaced or given up delivers nothing once the cutover is over.
      if (generation === this.generationValue) this.deliver(shardId, t, d, s);
    } else if (generation === cut.newGeneration) {
      cut.cutover.fromNew(shardId, t, d, s);
    } else if (generation === cut.oldGeneration) {
      cut.cutover.fromOld(shardId, t, d, s);
    }
  }

  /** Deliver one dispatch: cache, then the interaction router, then plugins. */
  private deliver(shardId: number, t: string, d: unknown, s: number): void {
    this.dispatchCount++;
    // In transport "both" an entitlement event comes by webhook too; the cache and plugins take each once (a
    // second, older copy applied again could undo a later change).
    const firstCopy = this.seenEntitlementEvents === null || !t.startsWith('ENTITLEMENT_') || this.firstEntitlementEvent(t, d);
    // Typed plugin events get only what the cache's checks take (its verdict, or the same checks without a cache).
    const typed = firstCopy && (this.cacheValue !== null ? this.cacheValue.apply(t, d) : dispatchProblem(t, d) === null);
    if (t === 'READY') this.noteReady(shardId, d);
    else if (t === 'INTERACTION_CREATE') {
      // Not routed when malformed: a handler must never see values of another type than its options declare.
      const problem = interactionProblem(d);
      if (problem === null) this.routeInteraction(d as APIInteraction);
      else this.anomalies.report({ event: t, field: problem.path, reason: `${problem.reason} (not routed)` });
    }
    this.hostValue?.dispatch(shardId, t, d, typed);
    this.options.observeDispatch?.(shardId, t, d, s);
  }

  /**
   * Keep who the bot is and how many guilds the shard has. The payload comes from the peer and may be anything
   * (null, an id that is an object): only strings are taken, and nothing here may throw, or the event would
   * never reach plugins. What is wrong with it was reported by the cache's checks (once per kind, see
   * dispatchProblem); a field this cannot read keeps the shard's previous value.
   */
  private noteReady(shardId: number, d: unknown): void {
    const ready = typeof d === 'object' && d !== null ? (d as { user?: unknown; guilds?: unknown }) : {};
    const user = typeof ready.user === 'object' && ready.user !== null ? (ready.user as { id?: unknown; username?: unknown }) : {};
    const previous = this.readyShards.get(shardId);
    this.readyShards.set(shardId, {
      userId: typeof user.id === 'string' ? user.id : (previous?.userId ?? ''),
      username: typeof user.username === 'string' ? user.username : (previous?.username ?? ''),
      guilds: Array.isArray(ready.guilds) ? ready.guilds.length : (previous?.guilds ?? 0),
    });
  }

  /**
   * Route an interaction, once: a second arrival of the same id (over the other transport, or a replay) is
   * dropped. Returns the handling, or null when the interaction was not taken.
   */
  private routeInteraction(interaction: APIInteraction): Promise<void> | null {
    // Gateway interactions are taken until the shards close (stop() closes them first); HTTP intake has its
    // own switch (acceptingInteractions), closed at the start of stop().
    if (this.routerValue === null) return null;
    if (typeof interaction.id === 'string' && !this.seenInteractions.add(interaction.id)) {
      this.log.debug({ interaction: interaction.id }, 'interaction received again; already handled');
      return null;
    }
    const handling = this.routerValue.handle(interaction).catch((err: unknown) => {
      this.log.error({ err }, 'interaction routing failed');
    });
    this.inFlight.add(handling);
    void handling.finally(() => this.inFlight.delete(handling));
    return handling;
  }

  /**
   * False for the second copy of an entitlement event (one by gateway, one by webhook). The key is built from
   * the payload's fields without converting any object (`String({ toString: 1 })` throws); and should anything
   * in here throw all the same, the event counts as a first copy: delivered twice rather than never.
   */
  private firstEntitlementEvent(t: string, d: unknown): boolean {
    if (this.seenEntitlementEvents === null || typeof d !== 'object' || d === null) return true;
    try {
      const e = d as { id?: unknown; ends_at?: unknown; deleted?: unknown; consumed?: unknown };
      if (typeof e.id !== 'string') return true;
      return this.seenEntitlementEvents.add(`${t}|${e.id}|${keyPart(e.ends_at)}|${e.deleted === true}|${e.consumed === true}`);
    } catch (err) {
      this.anomalies.report({ event: t, reason: `the duplicate check threw (${err instanceof Error ? err.message : 'not an Error'}); delivered as a first copy` });
      return true;
    }
  }

  /** The signed endpoint for transport "both" and "http"; its key comes from the configuration or the application. */
  private createEndpoint(): HttpEndpoint {
    const { endpoint, redisUrl, cache } = this.config;
    const publicKeyHex = endpoint.publicKey?.toLowerCase() ?? this.verifyKeyValue;
    if (publicKeyHex === null) {
      throw new Error('the HTTP endpoint needs the application\'s public key: set DISCORD_PUBLIC_KEY (endpoint.publicKey)');
    }
    this.endpointKey = publicKeyHex;
    const log = this.log.child({ component: 'endpoint' });
    const ttlMs = dedupeTtlMs(endpoint.timestampWindowSeconds, WEBHOOK_DEDUPE_TTL_MS);
    this.seenWebhookEvents =
      redisUrl !== undefined
        ? new RedisSeenKeys(redisUrl, `${cache.redisPrefix}:{${this.applicationId}}:webhook-events`, log, ttlMs)
        : new MemorySeenKeys(WEBHOOK_DEDUPE_MAX_KEYS, ttlMs);
    const events = new WebhookEventHandler({
      applicationId: this.applicationId,
      seen: this.seenWebhookEvents,
      cache: () => this.cacheValue,
      host: () => this.hostValue,
      firstCopy: (type, data) => (type.startsWith('ENTITLEMENT_') ? this.firstEntitlementEvent(type, data) : true),
      log,
    });
    this.webhookEventsValue = events;
    return new HttpEndpoint({
      config: endpoint,
      publicKeyHex,
      log,
      interactions: {
        // As for a gateway INTERACTION_CREATE: a payload that is not what the protocol says is reported, never routed.
        problem: (interaction) => {
          const problem = interactionProblem(interaction);
          if (problem === null) return null;
          this.anomalies.report({ event: 'INTERACTION_CREATE', field: problem.path, reason: `${problem.reason} (not routed)` });
          return `${problem.path}: ${problem.reason}`;
        },
        take: (interaction) => {
          if (!this.acceptingInteractions) return null;
          // As for a gateway INTERACTION_CREATE: the cache sees it first, then the router.
          this.cacheValue?.apply('INTERACTION_CREATE', interaction);
          return this.routeInteraction(interaction as unknown as APIInteraction);
        },
      },
      events: { accepting: () => this.acceptingInteractions, deliver: (event) => events.deliver(event) },
      onOutcome: (path, outcome: RequestOutcome, status) => {
        const key = `${path}\t${outcome}\t${status}`;
        this.endpointRequests.set(key, (this.endpointRequests.get(key) ?? 0) + 1);
      },
    });
  }

  private async startEndpoint(endpoint: HttpEndpoint): Promise<void> {
    let listening: { host: string; port: number };
    try {
      listening = await endpoint.listen();
    } catch (err) {
      const { host, port } = this.config.endpoint;
      const code = (err as { code?: unknown }).code;
      throw new Error(
        `the HTTP endpoint cannot listen on ${host}:${port}${typeof code === 'string' ? ` (${code})` : ''}: check endpoint.host / endpoint.port (GATEHOUSE_ENDPOINT_HOST / GATEHOUSE_ENDPOINT_PORT)`,
        { cause: err },
      );
    }
    const { host, port } = listening;
    this.endpointValue = endpoint;
    const { interactionsPath, eventsPath } = this.config.endpoint;
    const base = endpoint.url!;
    this.log.info(
      { host, port, interactions: interactionsPath, events: eventsPath },
      `interactions endpoint on ${base}${interactionsPath}${eventsPath !== null ? `, webhook events on ${base}${eventsPath}` : ''}`,
    );
    const deferAfterMs = this.options.deferAfterMs ?? 2_000;
    if (deferAfterMs >= this.config.endpoint.deadlineMs) {
      this.log.warn(
        { deferAfterMs, deadlineMs: this.config.endpoint.deadlineMs },
        'handlers are deferred automatically only after the endpoint has released the HTTP request; their defer then goes through REST',
      );
    }
    // On the sandbox the runtime plays the developer portal: it points the application's URLs at itself.
    const sandbox = this.config.token === undefined ? this.sandboxValue : null;
    if (sandbox !== null && sandbox.webhooks.publicKey !== this.endpointKey) {
      this.log.warn('endpoint.publicKey is not the sandbox application\'s key: the sandbox cannot deliver here, so its URLs stay as they are');
    } else if (sandbox !== null) {
      await sandbox.webhooks.setInteractionsEndpoint(`${base}${interactionsPath}`);
      if (eventsPath !== null) await sandbox.webhooks.setEventsEndpoint(`${base}${eventsPath}`);
      this.sandboxPointedHere = sandbox;
    }
  }

  /**
   * Stop, in an order that loses nothing:
   * 1. intake: the shards close (resumably when a session store keeps the sessions, i.e. in cluster mode)
   *    and no dispatch is handled after that; the seq saved for the next owner is the last one handled here,
   *    so every interaction up to it has a running handler and every later one goes to the next owner;
   * 2. cluster: the leases are released right after the sessions are saved, so the next owner takes over
   *    while this process finishes;
   * 3. drain: handlers still running may answer (bounded by `graceMs`, default 10 s);
   * 4. the rest: plugins are torn down, cache and REST closed.
   */
  stop(options: { graceMs?: number; resumable?: boolean } = {}): Promise<void> {
    if (this.stateValue === 'stopping' || this.stateValue === 'stopped') return this.stopRun ?? Promise.resolve();
    this.stateValue = 'stopping';
    this.stopRun = this.runStop(options);
    return this.stopRun;
  }

  private async runStop(options: { graceMs?: number; resumable?: boolean }): Promise<void> {
    this.acceptingInteractions = false;
    this.upkeep?.stop();
    this.endpointValue?.stopAccepting();
    if (this.sandboxPointedHere !== null) {
      // As if the URLs were removed in the portal: the sandbox goes back to the gateway for interactions.
      await this.sandboxPointedHere.webhooks.setInteractionsEndpoint(null);
      await this.sandboxPointedHere.webhooks.setEventsEndpoint(null);
      this.sandboxPointedHere = null;
    }
    const grace = options.graceMs ?? 10_000;
    // With a session store (cluster mode) shards close resumably by default, so the next owner RESUMEs.
    const resumable = options.resumable ?? this.clusterValue !== null;
    if (this.reshardCheckTimer !== null) clearInterval(this.reshardCheckTimer);
    this.reshardCheckTimer = null;
    const steps: Array<[string, () => Promise<unknown> | unknown]> = [
      // A reshard under way is given up first: its new set closes, the serving set stops as usual.
      ['reshard', () => this.resharderValue?.close()],
      // No shard gained or handed off from here on; leases stay renewed until the sessions are saved.
      ['cluster', () => this.clusterValue?.suspend()],
      ['gateway', () => this.gatewayValue?.close({ resumable })],
      ['cluster', () => this.clusterValue?.stop()],
      ['interactions', () => this.drainInteractions(grace)],
      // After the drain: an HTTP interaction's answer is the response of its still open request.
      ['endpoint', () => this.endpointValue?.close()],
      ['webhook events', async () => {
        await this.webhookEventsValue?.settled();
        await this.seenWebhookEvents?.close();
      }],
      ['plugins', () => this.hostValue?.teardownAll()],
      ['cache', () => this.cacheValue?.close()],
      ['rest', () => this.restValue?.close()],
      ['fleet redis', async () => {
        const redis = this.fleetRedisValue;
        this.fleetRedisValue = null;
        await redis?.quit().catch(() => redis.disconnect());
      }],
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

  /** Let the handlers already running answer, for at most `graceMs`. */
  private async drainInteractions(graceMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.allSettled([...this.inFlight]).then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.log.warn({ interactions: this.inFlight.size, graceMs }, 'interaction handlers still running at shutdown; stopping without them');
    }
  }
}

function required<T>(value: T | null, name: string): T {
  if (value === null) throw new Error(`runtime: ${name} is not available before start()`);
  return value;
}

/**
 * A payload field as part of a dedupe key: a string or number as it is, absent as '', anything else (an
 * object, whose conversion may throw or be anything) one marker per type.
 */
function keyPart(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v === null || v === undefined) return '';
  return `\u0000${typeof v}`;
}
