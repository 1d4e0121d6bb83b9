/**
 * The cache (memory, or Redis namespaced per bot) and its upkeep: entitlements synced from REST, stale state
 * fetched again, all-member requests replacing a guild's members (cache-upkeep.ts). The upkeep's background
 * work starts with the shards (they bring the READYs it follows) and stops before the cache closes.
 */
import { INTENT_BITS } from '../../api/intents.js';
import { cacheNamespace, createCache, type Cache } from '../../cache/index.js';
import type { ShardManager } from '../../gateway/index.js';
import { anomalyFromText } from '../../util/anomaly-log.js';
import { openRedis } from '../../util/redis-connection.js';
import { CacheUpkeep } from '../cache-upkeep.js';
import { intentBits } from '../config.js';
import { dropNamespace } from '../embedded-namespace.js';
import type { Service, StopOptions } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import type { RestService } from './rest-service.js';

interface Made {
  readonly cache: Cache;
  readonly upkeep: CacheUpkeep;
}

export class CacheService implements Service {
  readonly name = 'cache';
  private made: Made | null = null;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    /** The serving shard manager, once there is one (stale guilds are fetched again through it). */
    private readonly gateway: () => ShardManager | null,
  ) {}

  /** The cache, or null before start (metrics and readiness read it at any time). */
  get current(): Cache | null {
    return this.made?.cache ?? null;
  }
  get cache(): Cache {
    return this.part().cache;
  }
  get upkeep(): CacheUpkeep {
    return this.part().upkeep;
  }
  /** Where this bot's keys live in Redis: `<cache.redisPrefix>:{<namespace id>}` (rest-service.ts). */
  get namespace(): string {
    return cacheNamespace(this.ctx.config.cache.redisPrefix, this.rest.namespaceId);
  }

  start(): void {
    const { config, anomalies } = this.ctx;
    const log = this.ctx.log.child({ component: 'cache' });
    let upkeep: CacheUpkeep | null = null;
    const cache = createCache(config.cache, {
      ...(config.redisUrl !== undefined ? { redisUrl: config.redisUrl } : {}),
      // Keys are namespaced per bot, as the cluster keys are: two bots sharing a Redis never share a guild.
      applicationId: this.rest.namespaceId,
      logger: log,
      hooks: {
        // The reason names the field; the payload (or the record in it) is not cached, the rest of it is.
        onReject: (event, reason) => anomalies.report(anomalyFromText(event, `${reason} (not cached)`)),
        onWriteError: (f) => log.warn({ err: f.error, guild: f.guildId, event: f.event }, 'cache write failed; the guild is marked stale and fetched again'),
        onStale: (scope) => upkeep?.recovery.add(scope),
      },
    });
    upkeep = new CacheUpkeep({
      cache,
      rest: this.rest.client,
      applicationId: this.rest.applicationId,
      gateway: this.gateway,
      membersIntent: (intentBits(config) & INTENT_BITS.GUILD_MEMBERS) !== 0,
      log,
    });
    this.made = { cache, upkeep };
    if (cache.backend === 'redis' && this.rest.namespaceId !== this.rest.applicationId) {
      log.info({ namespace: this.namespace }, `the embedded sandbox's cache lives in Redis under ${this.namespace} (its own; removed when the bot stops)`);
    }
  }

  async stop(_options: StopOptions): Promise<void> {
    this.made?.upkeep.stop();
    await this.made?.cache.close();
    // The embedded sandbox's world ends with its bot: so do its keys (after the cache wrote its last, and after
    // the endpoint, which stops first, wrote its webhook-event receipts).
    await this.dropEmbeddedNamespace();
  }

  /**
   * Remove the Redis keys of a bot on the embedded sandbox it started (its namespace is that sandbox's alone).
   * A sandbox given to the runtime is its owner's to clean up (the test kit does).
   */
  private async dropEmbeddedNamespace(): Promise<void> {
    const { redisUrl, transport } = this.ctx.config;
    if (!this.ctx.embedded || !this.rest.ownsEmbeddedSandbox || redisUrl === undefined || this.rest.current === null) return;
    if (this.made?.cache.backend !== 'redis' && transport === 'gateway') return;
    const log = this.ctx.log.child({ component: 'cache' });
    const redis = openRedis(redisUrl, { name: 'cleanup', logger: log, redisOptions: { maxRetriesPerRequest: 1 } });
    try {
      const removed = await dropNamespace(redis, this.namespace);
      log.debug({ namespace: this.namespace, keys: removed }, "removed the embedded sandbox's Redis keys");
    } finally {
      redis.disconnect();
    }
  }

  private part(): Made {
    if (this.made === null) throw new Error('runtime: cache is not available before start()');
    return this.made;
  }
}
