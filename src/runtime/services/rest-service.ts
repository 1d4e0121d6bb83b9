/**
 * REST: the client (against the embedded sandbox when there is no token, which this service then starts and
 * owns), the application's id and public key, and in cluster mode the limits every process of the bot shares
 * through Redis (with the fleet's Redis connection, which the cluster and resharding use too).
 */
import type { Redis } from 'ioredis';
import { clusterNamespace } from '../../cluster/index.js';
import { getCurrentApplication, RestClient, RestError } from '../../rest/index.js';
import { SharedRateLimits } from '../../rest/redis/index.js';
import type { Sandbox } from '../../sandbox/contract.js';
import { registerSecret } from '../../util/redact.js';
import { isProduction, usesEmbeddedSandbox } from '../config.js';
import { openFleetRedis } from '../fleet-redis.js';
import type { StopOptions, Service } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import { embeddedNamespaceId } from '../embedded-namespace.js';
import { StartupError } from '../startup-error.js';
import { restTracer } from '../tracing.js';

interface Connected {
  readonly client: RestClient;
  readonly applicationId: string;
  /** The application's public key from GET /applications/@me (read only when the endpoint needs it). */
  readonly verifyKey: string | null;
}

export class RestService implements Service {
  readonly name = 'rest';
  private connected: Connected | null = null;
  private sandboxValue: Sandbox | null;
  private ownsSandbox = false;
  private fleetRedisValue: Redis | null = null;
  /** Told once the client exists (metrics count its responses). */
  private readonly clientListeners: Array<(client: RestClient) => void> = [];

  constructor(private readonly ctx: RuntimeContext) {
    this.sandboxValue = ctx.options.sandbox ?? null;
  }

  get sandbox(): Sandbox | null {
    return this.sandboxValue;
  }
  /** The client, or null before start (metrics and readiness read it at any time). */
  get current(): RestClient | null {
    return this.connected?.client ?? null;
  }
  get client(): RestClient {
    return this.part().client;
  }
  get applicationId(): string {
    return this.part().applicationId;
  }
  /**
   * What this bot's Redis keys (cache, webhook-event receipts) are namespaced by: the application id, and on an
   * embedded sandbox that sandbox too, since every sandbox is the same application (see embedded-namespace.ts).
   */
  get namespaceId(): string {
    const applicationId = this.applicationId;
    return this.ctx.embedded && this.sandboxValue !== null ? embeddedNamespaceId(applicationId, this.sandboxValue) : applicationId;
  }
  /** The embedded sandbox was started here (npm start), not given (tests): it ends with this runtime. */
  get ownsEmbeddedSandbox(): boolean {
    return this.ownsSandbox;
  }
  get verifyKey(): string | null {
    return this.part().verifyKey;
  }
  /** The token the gateway identifies with (the embedded sandbox's when there is none). */
  get token(): string {
    const token = this.ctx.config.token ?? this.sandboxValue?.botToken;
    if (token === undefined) throw new Error('runtime: no token before start()');
    return token;
  }

  onClient(listener: (client: RestClient) => void): void {
    this.clientListeners.push(listener);
  }

  /**
   * Whether the bot's limits are kept in Redis for every process: cluster mode (Redis, cluster.enabled, a
   * token: the embedded sandbox is private to its process) with cluster.sharedLimits on.
   */
  get sharesLimits(): boolean {
    const { redisUrl, token, cluster } = this.ctx.config;
    return redisUrl !== undefined && token !== undefined && cluster.enabled && cluster.sharedLimits;
  }

  /** Where this bot's fleet-wide keys live: `<cluster.prefix>:{<application id>}`. */
  get fleetNamespace(): string {
    return clusterNamespace(this.ctx.config.cluster.prefix, this.applicationId);
  }

  /** The connection of the fleet-wide limits and resharding (cluster mode), opened on first use. */
  fleetRedis(): Redis {
    this.fleetRedisValue ??= openFleetRedis(this.ctx.config.redisUrl!, this.ctx.log.child({ component: 'cluster' }));
    return this.fleetRedisValue;
  }

  async start(signal: AbortSignal): Promise<void> {
    const { config, options, log } = this.ctx;
    let { token, apiUrl } = config;
    if (usesEmbeddedSandbox(config, options.production ?? isProduction())) {
      if (this.sandboxValue === null) {
        const { createSandbox } = await import('../../sandbox/index.js');
        const s = config.sandbox;
        this.sandboxValue = await createSandbox({ port: s.port, seed: { guilds: s.guilds, membersPerGuild: s.membersPerGuild }, activities: s.activities, logger: log });
        this.ownsSandbox = true;
        signal.throwIfAborted();
      }
      token = this.sandboxValue.botToken;
      apiUrl = this.sandboxValue.restUrl;
      log.info({ rest: apiUrl, gateway: this.sandboxValue.gatewayUrl }, 'no DISCORD_TOKEN: using the local sandbox');
    }
    registerSecret(token);
    const client = new RestClient({ baseUrl: apiUrl, token, logger: log, tracer: restTracer(), keepAliveIdleMs: config.rest.keepAliveIdleMs, ...options.rest });
    const facts = await this.application(client, apiUrl);
    this.connected = { client, ...facts };
    for (const listener of this.clientListeners) listener(client);
    if (this.sharesLimits) this.useSharedLimits(client);
  }

  /** The application id (and, when the endpoint needs it, the public key) from the configuration or REST. */
  private async application(client: RestClient, apiUrl: string): Promise<Omit<Connected, 'client'>> {
    const { config } = this.ctx;
    // The endpoint verifies with the application's own public key unless the configuration names it.
    const needsKey = config.transport !== 'gateway' && config.endpoint.publicKey === undefined;
    if (config.applicationId !== undefined && !needsKey) return { applicationId: config.applicationId, verifyKey: null };
    try {
      const application = await getCurrentApplication(client);
      return {
        applicationId: config.applicationId ?? application.id,
        verifyKey: typeof application.verify_key === 'string' ? application.verify_key : null,
      };
    } catch (err) {
      client.close();
      if (err instanceof RestError && err.status === 401) {
        throw new StartupError(
          `the token was rejected: GET ${apiUrl}/applications/@me answered 401 Unauthorized. Check DISCORD_TOKEN (the bot token from the Developer Portal, without "Bot "), and DISCORD_API_URL if it is set`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  /** From now on the REST client counts against the limits of every process of this bot. */
  private useSharedLimits(client: RestClient): void {
    const o = this.ctx.options.rest ?? {};
    client.useLimits(
      new SharedRateLimits({
        redis: this.fleetRedis(),
        namespace: `${this.fleetNamespace}:rest`,
        ...(o.globalLimit !== undefined ? { globalLimit: o.globalLimit } : {}),
        ...(o.globalWindowMs !== undefined ? { globalWindowMs: o.globalWindowMs } : {}),
        ...(o.invalidRequestLimit !== undefined ? { invalidRequestLimit: o.invalidRequestLimit } : {}),
        ...(o.invalidRequestWindowMs !== undefined ? { invalidRequestWindowMs: o.invalidRequestWindowMs } : {}),
        logger: this.ctx.log,
      }),
    );
  }

  async stop(_options: StopOptions): Promise<void> {
    this.connected?.client.close();
    const redis = this.fleetRedisValue;
    this.fleetRedisValue = null;
    await redis?.quit().catch(() => redis.disconnect());
    if (this.ownsSandbox) await this.sandboxValue?.close();
  }

  private part(): Connected {
    if (this.connected === null) throw new Error('runtime: rest is not available before start()');
    return this.connected;
  }
}
