/**
 * The plugins' preconditions wired to this runtime: the cache's calculator and entitlements, the application's
 * owners and SKUs from REST, and the cooldown windows, in Redis whenever the bot has one and cluster mode is not
 * turned off (exact across the fleet, kept across restarts), in this process's memory otherwise.
 */
import { clusterNamespace } from '../../cluster/keys.js';
import { MemoryCooldowns, RedisCooldowns, type CooldownStore, type CooldownVerdict } from '../../cluster/cooldowns.js';
import { ApplicationDirectory } from '../../plugins/preconditions/directory.js';
import { PreconditionEvaluator } from '../../plugins/preconditions/evaluate.js';
import { PreconditionGate } from '../../plugins/preconditions/gate.js';
import type { RuntimeContext } from '../options.js';
import type { CacheService } from '../services/cache-service.js';
import type { PluginsService } from '../services/plugins-service.js';
import type { RestService } from '../services/rest-service.js';
import type { IntakeCounters } from './counters.js';

/** Where the cooldown windows live: `<cluster.prefix>:{<application>}:pre:cd:<plugin>:<bucket>:<scope>`. */
export function cooldownStore(ctx: RuntimeContext, rest: RestService): CooldownStore {
  const { redisUrl, cluster } = ctx.config;
  if (redisUrl === undefined || !cluster.enabled) return new MemoryCooldowns();
  return new OpenedOnFirstUse(() => new RedisCooldowns(rest.fleetRedis(), `${clusterNamespace(cluster.prefix, rest.namespaceId)}:pre`));
}

/**
 * The Redis store, connected at the first cooldown taken: a bot whose plugins declare none keeps no connection
 * for them (it had one more, and a Redis outage logged it as a second unreachable connection).
 */
class OpenedOnFirstUse implements CooldownStore {
  private store: CooldownStore | null = null;

  constructor(private readonly open: () => CooldownStore) {}

  take(key: string, limit: number, windowMs: number, now?: number): Promise<CooldownVerdict> {
    this.store ??= this.open();
    return this.store.take(key, limit, windowMs, now);
  }
}

/** The router's gate; the owners are read now, so the first `owners` check does not wait (a failure is retried then). */
export function preconditionGate(ctx: RuntimeContext, rest: RestService, cache: CacheService, plugins: PluginsService, counters: IntakeCounters): PreconditionGate {
  const applicationId = rest.applicationId;
  const directory = new ApplicationDirectory(rest.client, applicationId);
  const log = ctx.log.child({ component: 'preconditions' });
  directory.preload().catch((err: unknown) => log.warn({ err }, 'could not read the application owners; the owners precondition will ask again'));
  const clock = ctx.options.preconditionClock;
  const evaluator = new PreconditionEvaluator({
    cache: cache.cache,
    cooldowns: cooldownStore(ctx, rest),
    directory,
    botUserId: () => counters.readyInfo?.userId || applicationId,
    ...(clock !== undefined ? { clock } : {}),
  });
  const host = plugins.host;
  return new PreconditionGate({
    evaluator,
    // A plugin whose setup failed answers "unavailable" from every route: nothing of it is checked or counted.
    pluginNamed: (name) => {
      const hosted = host.loaded.find((p) => p.name === name);
      return hosted === undefined || hosted.state === 'failed' ? undefined : hosted.definition;
    },
    tell: (plugin, denial) => host.deliverTo(plugin, 'preconditionDenied', denial),
    count: (precondition, target) => counters.countDenial(precondition, target),
    log,
  });
}

