/**
 * The runtime: the composition root of a bot. It lists the services a bot is made of, in the order they start
 * (lifecycle.ts: each starts with an AbortSignal, and they stop in reverse order):
 *
 *   ops server     /healthz, /readyz, /metrics: up first so /readyz can say "not yet", down last
 *   rest           the REST client (and the embedded sandbox when there is no token), the application
 *   cache          the cache and its upkeep
 *   plugins        loaded here; torn down (each within its timeout) when stopping
 *   cluster        the coordinator in cluster mode (Redis)
 *   commands       the startup command sync
 *   intake         plugin setup, the router, and the pipeline everything is delivered through (intake/)
 *   http endpoint  the signed endpoint (transport "both" and "http"), with its drain window at stop
 *   shard sets     the gateway (transport "gateway" and "both"), cache upkeep, live resharding
 *
 * Stopping therefore loses nothing: the shards close first (leases released once the sessions are saved), the
 * endpoint keeps answering for its drain window while /readyz says 503, the handlers still running may answer,
 * then plugins are torn down and the rest closed. Per delivery the order is the intake pipeline's: dedupe, the
 * cache's verdict, routing, plugins, so handlers always see an updated cache.
 */
import type { Logger } from 'pino';
import type { Cache } from '../cache/index.js';
import type { ClusterCoordinator } from '../cluster/index.js';
import type { MemberRequestResult, RequestMembersOptions, ReshardPlan, ShardManager } from '../gateway/index.js';
import type { InteractionRouter } from '../interactions/router.js';
import type { PluginHost } from '../plugins/host.js';
import type { RestClient } from '../rest/index.js';
import type { Sandbox } from '../sandbox/contract.js';
import { AnomalyLog } from '../util/anomaly-log.js';
import type { CommandSyncResult } from './command-sync.js';
import type { Config } from './config.js';
import type { HttpEndpoint } from './http-endpoint.js';
import type { Readiness } from './http-server.js';
import { IntakeCounters, type ReadyInfo } from './intake/counters.js';
import { IntakeService } from './intake/intake-service.js';
import { Lifecycle, type Service, type StopOptions } from './lifecycle.js';
import { createLogger } from './logger.js';
import type { RuntimeContext, RuntimeOptions } from './options.js';
import type { Resharder } from './resharder.js';
import { CacheService } from './services/cache-service.js';
import { ClusterService } from './services/cluster-service.js';
import { CommandsService } from './services/commands-service.js';
import { EndpointService } from './services/endpoint-service.js';
import { OpsService } from './services/ops-service.js';
import { PluginsService } from './services/plugins-service.js';
import { RestService } from './services/rest-service.js';
import { ShardSetsService, type RuntimeShardSet } from './services/shard-sets.js';

export type { RuntimeOptions } from './options.js';
export type { ReadyInfo } from './intake/counters.js';

export type RuntimeState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped';

/** How long the endpoint keeps answering at stop when the configuration does not say (a token is set). */
const DEFAULT_DRAIN_MS = 3_000;

export class Runtime {
  readonly config: Config;
  readonly log: Logger;
  /** The services, in start order; tests watch their starts and stops through `lifecycle.onEvent`. */
  readonly lifecycle: Lifecycle;
  private stateValue: RuntimeState = 'created';
  /** Aborted by stop(): a start under way goes no further. */
  private readonly abort = new AbortController();
  private startRun: Promise<void> | null = null;
  private stopRun: Promise<void> | null = null;
  private readonly ctx: RuntimeContext;
  private readonly counters = new IntakeCounters();
  private readonly ops: OpsService;
  private readonly restService: RestService;
  private readonly cacheService: CacheService;
  private readonly pluginsService: PluginsService;
  private readonly clusterService: ClusterService;
  private readonly commandsService: CommandsService;
  private readonly intake: IntakeService;
  private readonly endpointService: EndpointService;
  private readonly shards: ShardSetsService;

  constructor(options: RuntimeOptions) {
    this.config = options.config;
    this.log = options.log ?? createLogger({ level: options.config.log.level, pretty: options.config.log.pretty });
    const ctx: RuntimeContext = {
      config: this.config,
      options,
      log: this.log,
      anomalies: new AnomalyLog(this.log.child({ component: 'protocol' })),
      embedded: this.config.token === undefined,
    };
    this.ctx = ctx;
    this.ops = new OpsService(ctx, { metrics: this, readiness: () => this.readiness(), reshard: (n) => this.operatorReshard(n) });
    this.restService = new RestService(ctx);
    this.restService.onClient(() => this.ops.attachRest());
    this.cacheService = new CacheService(ctx, this.restService, () => this.shards.manager);
    this.pluginsService = new PluginsService(ctx, this.restService, this.cacheService, (o) => this.requestMembers(o));
    this.clusterService = new ClusterService(ctx, this.restService, this.cacheService);
    this.commandsService = new CommandsService(ctx, this.restService, this.pluginsService, this.clusterService);
    this.intake = new IntakeService(ctx, this.restService, this.cacheService, this.pluginsService, this.counters);
    this.endpointService = new EndpointService(ctx, this.restService, this.intake);
    this.shards = new ShardSetsService(ctx, this.restService, this.cacheService, this.clusterService, this.intake, () => this.stateValue === 'running');
    const transport = this.config.transport;
    const services: Service[] = [this.ops, this.restService, this.cacheService, this.pluginsService, this.clusterService, this.commandsService, this.intake];
    if (transport !== 'gateway') services.push(this.endpointService);
    if (transport !== 'http') services.push(this.shards);
    this.lifecycle = new Lifecycle(services, this.log);
  }

  get state(): RuntimeState {
    return this.stateValue;
  }
  get sandbox(): Sandbox | null {
    return this.restService.sandbox;
  }
  get rest(): RestClient {
    return this.restService.client;
  }
  get cache(): Cache {
    return this.cacheService.cache;
  }
  get plugins(): PluginHost {
    return this.pluginsService.host;
  }
  get router(): InteractionRouter<unknown, unknown> {
    return this.intake.router;
  }
  get gateway(): ShardManager {
    return this.shards.gateway;
  }
  /** The cluster coordinator, when several processes share the bot (REDIS_URL and a token set). */
  get cluster(): ClusterCoordinator | null {
    return this.clusterService.coordinator;
  }
  get applicationId(): string {
    return this.restService.applicationId;
  }
  /**
   * Where this bot's cache keys live in Redis: `<cache.redisPrefix>:{<application id>}`, or on an embedded
   * sandbox `<cache.redisPrefix>:{<application id>:sandbox-<id>}`, one per sandbox (see embedded-namespace.ts).
   */
  get cacheNamespace(): string {
    return this.cacheService.namespace;
  }
  /** The startup sync's outcome (null when sync is off). */
  get commandSync(): CommandSyncResult | null {
    return this.commandsService.result;
  }
  /** Dispatches handled since start. */
  get dispatches(): number {
    return this.counters.dispatches;
  }
  /** Received payloads that were not what the protocol says (each reported at warn, rate-limited per kind). */
  get malformedPayloads(): number {
    return this.ctx.anomalies.count;
  }
  get interactionsInFlight(): number {
    return this.counters.inFlight.size;
  }
  /** Interactions no plugin handles, by kind; each was answered "not available right now". */
  get unhandledInteractions(): ReadonlyMap<string, number> {
    return this.counters.unhandled;
  }
  /** Interactions a plugin's precondition denied, by `<precondition>\t<command or handler>`. */
  get preconditionDenials(): ReadonlyMap<string, number> {
    return this.counters.denials;
  }
  /** Requests to the signed endpoint by `path\toutcome\tstatus` (for metrics). */
  get endpointRequests(): ReadonlyMap<string, number> {
    return this.endpointService.requests;
  }
  /** Where /healthz, /readyz and /metrics listen (null when disabled or not started). */
  get opsAddress(): { host: string; port: number } | null {
    return this.ops.address;
  }
  /** The signed HTTP endpoint (transport "both" or "http"), once listening. */
  get endpoint(): HttpEndpoint | null {
    return this.endpointService.endpoint;
  }
  /** True when there is no token and the runtime runs against its own (embedded) sandbox. */
  get embedded(): boolean {
    return this.ctx.embedded;
  }
  /** The bot and its guilds as the READYs of this process's shards said (null before the first READY). */
  get readyInfo(): ReadyInfo | null {
    return this.counters.readyInfo;
  }
  /** The resharding engine (null without shards or with fixed shard ids). */
  get resharder(): Resharder<RuntimeShardSet> | null {
    return this.shards.resharder;
  }
  /** Components that may not exist yet (metrics and readiness read them at any time). */
  get parts(): { rest: RestClient | null; cache: Cache | null; gateway: ShardManager | null } {
    return { rest: this.restService.current, cache: this.cacheService.current, gateway: this.shards.manager };
  }

  /**
   * Ready when running and every owned shard is READY (or RESUMED). A cluster member owning no shard (a
   * standby while others hold them all) is ready too: it serves and takes shards over when needed.
   */
  readiness(): Readiness {
    const shards = this.shards.manager?.status() ?? [];
    const cluster = this.clusterService.coordinator;
    const endpoint = this.endpoint;
    const owns = this.config.transport === 'http' || shards.length > 0 || cluster !== null;
    const endpointUp = this.config.transport === 'gateway' || (endpoint !== null && endpoint.address !== null);
    // A Redis the process needs (the Redis cache, cluster mode) that cannot be reached makes it not ready.
    const cache = this.cacheService.current;
    const cacheRedis = cache?.backend === 'redis' ? cache.reachable : null;
    const clusterRedis = cluster !== null ? cluster.redisReachable : null;
    const redisDown = cacheRedis === false || clusterRedis === false;
    const ready = this.stateValue === 'running' && owns && endpointUp && shards.every((s) => s.status === 'ready') && !redisDown;
    return {
      ready,
      detail: {
        state: this.stateValue,
        transport: this.config.transport,
        shards: shards.map((s) => ({ id: s.id, status: s.status, latencyMs: s.latencyMs })),
        ...(endpoint !== null ? { endpoint: endpoint.address } : {}),
        ...(cacheRedis !== null || clusterRedis !== null ? { redis: redisDown ? 'unreachable' : 'ok' } : {}),
      },
    };
  }

  /** Connect REST (starting the embedded sandbox when there is no token) and learn the application id. */
  async connect(): Promise<void> {
    await this.lifecycle.ensure(this.restService, this.abort.signal, new Set([this.ops]));
  }

  /** Load plugins (without running setup). */
  async loadPlugins(): Promise<PluginHost> {
    await this.lifecycle.ensure(this.pluginsService, this.abort.signal, new Set([this.ops]));
    return this.pluginsService.host;
  }

  /**
   * Validate, diff and (unless dryRun) sync every plugin's commands. The outcome is logged unless `quiet`
   * (the CLI prints it itself).
   */
  async syncCommands(options: { dryRun?: boolean; quiet?: boolean } = {}): Promise<CommandSyncResult> {
    await this.loadPlugins();
    return this.commandsService.sync(options);
  }

  /**
   * Op 8 through the shard of the guild; an all-member request replaces the guild's cached member set with its
   * answer (see CacheUpkeep.requestMembers).
   */
  requestMembers(options: RequestMembersOptions): Promise<MemberRequestResult> {
    if (this.config.transport === 'http') {
      return Promise.reject(new Error('requestMembers needs a gateway connection; transport is "http" (no shard connects)'));
    }
    const cache = this.cacheService.current;
    return cache !== null ? this.cacheService.upkeep.requestMembers(this.gateway, options) : this.gateway.requestMembers(options);
  }

  /**
   * Move the bot to another shard count without a restart (every process takes part). `shards` defaults to
   * GET /gateway/bot's recommendation; after a 4011 with no higher recommendation, twice the shards run now.
   * Resolves with the plan started (or the one under way), or null when refused.
   */
  reshard(options: { shards?: number; reason?: string } = {}): Promise<ReshardPlan | null> {
    return this.shards.reshard(options);
  }

  /** `POST /reshard` on the ops endpoint (gatehouse reshard): start a reshard and answer with its plan. */
  private async operatorReshard(shards: number | undefined): Promise<{ status: number; body: unknown }> {
    if (this.shards.resharder === null) {
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

  /** Start every service in order; resolves when every owned shard is READY. A failure stops what started. */
  async start(): Promise<void> {
    if (this.stateValue !== 'created') throw new Error(`runtime cannot start from state ${this.stateValue}`);
    this.stateValue = 'starting';
    const run = this.lifecycle.start(this.abort.signal);
    this.startRun = run;
    try {
      await run;
    } catch (err) {
      // A failure of the start's own undoes what started; a stop() that came meanwhile does that itself.
      if (this.stopRun === null) await this.stop().catch(() => undefined);
      else await this.stopRun.catch(() => undefined);
      throw err;
    }
    this.stateValue = 'running';
    const info = this.readyInfo;
    if (info !== null) {
      this.log.info(
        { userId: info.userId, guilds: info.guilds, shards: info.shards },
        `ready: logged in as ${info.username} (id ${info.userId}), ${info.guilds} guild${info.guilds === 1 ? '' : 's'} on ${info.shards} shard${info.shards === 1 ? '' : 's'}`,
      );
    }
  }

  /**
   * Stop every service that started, in reverse order (see the module comment for what that means). `graceMs`
   * bounds the wait for handlers still running (default 10 s); `drainMs` the endpoint's drain window (default
   * endpoint.drainMs; none when the runtime never ran); `resumable` defaults to true in cluster mode, so the next
   * owner of a shard RESUMEs its session.
   */
  stop(options: { graceMs?: number; resumable?: boolean; drainMs?: number } = {}): Promise<void> {
    if (this.stopRun !== null) return this.stopRun;
    const wasRunning = this.stateValue === 'running';
    this.stateValue = 'stopping';
    const configured = this.config.endpoint.drainMs ?? (this.embedded ? 0 : DEFAULT_DRAIN_MS);
    const stopOptions: StopOptions = {
      graceMs: options.graceMs ?? 10_000,
      resumable: options.resumable ?? this.clusterService.coordinator !== null,
      drainMs: options.drainMs ?? (wasRunning ? configured : 0),
      since: performance.now(),
    };
    this.stopRun = this.runStop(stopOptions);
    return this.stopRun;
  }

  private async runStop(options: StopOptions): Promise<void> {
    this.abort.abort(new Error('runtime stopped while starting'));
    await this.startRun?.catch(() => undefined);
    await this.lifecycle.stop(options);
    this.stateValue = 'stopped';
  }
}
