/**
 * gatehouse as a bot owner runs it: configuration loaded from config/ with the environment variables an owner
 * sets, the Runtime started as `gatehouse start` does (REST, command sync, plugin host, router, gateway), the
 * memory cache (or Redis), and the counting plugin from bench/ingest/plugin loaded by the plugin host. Logs go
 * to stdout at the default level, as in production (the parent sends them to a file and counts the lines).
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Runtime } from '../../../src/runtime/runtime.js';
import { loadConfig } from '../../../src/runtime/config.js';
import type { Cache } from '../../../src/cache/index.js';
import { ingestCounters } from '../counters.js';
import type { ChildConfig, EventCounts, StateMessage, VerifyRequest } from '../protocol.js';
import { whenCounted, type IngestSubject } from './types.js';
import type { RestTransport } from '../../lib/undici-transport.js';

/** The checkout's root (where package.json and config/ are), whether this file runs from bench/ or dist-bench/. */
function findRoot(from: string): string {
  let dir = from;
  for (let i = 0; i < 10 && !existsSync(join(dir, 'package.json')); i++) dir = dirname(dir);
  return dir;
}
const ROOT = findRoot(import.meta.dirname);
/** The counting plugin next to this file: bench/ingest/plugin, or its compiled copy under dist-bench/. */
const PLUGIN_DIR = relative(ROOT, join(import.meta.dirname, '..', 'plugin'));

/**
 * The --rest-transport=undici variant: the started Runtime's REST client sends from now on through undici (the
 * live events' answers; the startup's few requests went over node:http). RestClient builds its transport itself,
 * so the bench swaps its private field; a renamed field fails the run here rather than measuring node:http.
 */
async function useUndiciTransport(runtime: Runtime): Promise<void> {
  const { UndiciTransport } = await import('../../lib/undici-transport.js');
  const client = runtime.rest as unknown as { transport?: RestTransport };
  const previous = client.transport;
  if (typeof previous?.send !== 'function' || typeof previous.close !== 'function') {
    throw new Error('RestClient has no `transport` field with send/close any more: update bench/ingest/subjects/gatehouse.ts');
  }
  client.transport = new UndiciTransport(runtime.rest.baseUrl, { keepAliveIdleMs: runtime.config.rest.keepAliveIdleMs });
  previous.close();
}

export class GatehouseSubject implements IngestSubject {
  private readonly runtime: Runtime;
  private readonly counters = ingestCounters();

  constructor(private readonly cfg: ChildConfig) {
    const redis = cfg.subject === 'gatehouse-redis';
    const env: NodeJS.ProcessEnv = {
      DISCORD_TOKEN: cfg.token,
      DISCORD_API_URL: `${cfg.apiBase}/v10`,
      GATEHOUSE_PLUGIN_DIRS: PLUGIN_DIR,
      GATEHOUSE_HTTP_PORT: '0',
      GATEHOUSE_GATEWAY_COMPRESS: cfg.transport === 'json' ? 'false' : cfg.transport,
      GATEHOUSE_CACHE_BACKEND: redis ? 'redis' : 'memory',
      LOG_LEVEL: 'info',
      ...(redis ? { REDIS_URL: cfg.redisUrl, GATEHOUSE_CLUSTER: 'false' } : {}),
    };
    const cache = { ...(redis ? { redisPrefix: cfg.redisPrefix } : {}), ...(cfg.cacheChannels === false ? { channels: false } : {}) };
    const config = loadConfig({
      cwd: ROOT,
      env,
      ...(Object.keys(cache).length > 0 ? { overrides: { cache } } : {}),
    });
    this.runtime = new Runtime({
      config,
      cwd: ROOT,
      // Only the decoder is chosen here (the bench compares them); 'auto' is what an owner gets.
      ...(cfg.decoder !== 'auto' ? { gateway: { inflate: cfg.decoder } } : {}),
    });
  }

  private get cache(): Cache {
    return this.runtime.cache;
  }

  async start(): Promise<void> {
    const c = this.counters;
    const guilds = this.cfg.guilds;
    const allGuilds = whenCounted((hook) => (c.onCount = hook), () => c.guildCreates >= guilds);
    await this.runtime.start();
    if (this.cfg.restTransport === 'undici') await useUndiciTransport(this.runtime);
    await allGuilds;
  }

  async eventsDone(): Promise<EventCounts> {
    const c = this.counters;
    const t = this.cfg.targets;
    await whenCounted(
      (hook) => (c.onCount = hook),
      () =>
        c.memberAdds + c.memberUpdates + c.memberRemoves >= t.memberEvents &&
        c.entitlementCreates + c.entitlementUpdates >= t.entitlementEvents &&
        c.answered + c.answerErrors >= t.interactions,
    );
    return {
      memberAdds: c.memberAdds,
      memberUpdates: c.memberUpdates,
      memberRemoves: c.memberRemoves,
      entitlementCreates: c.entitlementCreates,
      entitlementUpdates: c.entitlementUpdates,
      interactions: c.interactions,
      answered: c.answered,
      ...(c.answerError !== null ? { answerError: c.answerError } : {}),
    };
  }

  async settle(): Promise<void> {
    await this.cache.flush();
  }

  async members(): Promise<number> {
    return (await this.cache.sizes()).members;
  }

  async verify(request: VerifyRequest): Promise<Omit<StateMessage, 'type'>> {
    const cache = this.cache;
    const membersPerGuild: number[] = [];
    for (const guildId of request.guildIds) {
      let count = 0;
      let after: string | undefined;
      for (let pages = 0; pages < 10_000; pages++) {
        const page = await cache.getMembers(guildId, { limit: 1000, ...(after !== undefined ? { after } : {}) });
        count += page.members.length;
        if (page.next === null) break;
        after = page.next;
      }
      membersPerGuild.push(count);
    }
    const sample = [];
    for (const { guildId, userId } of request.sample) {
      const m = await cache.getMember(guildId, userId);
      sample.push(m === undefined ? null : { guildId, userId, nick: m.nick, roles: [...m.roles].sort() });
    }
    let removedPresent = 0;
    for (const { guildId, userId } of request.removed) if ((await cache.getMember(guildId, userId)) !== undefined) removedPresent++;
    const entitlements = [];
    for (const id of request.entitlementIds) {
      const e = await cache.getEntitlement(id);
      entitlements.push(e === undefined ? null : { id: e.id, userId: e.userId ?? '', skuId: e.skuId, endsAt: e.endsAt });
    }
    // What the cache holds of the guilds' channels and threads (checked against the workload when it keeps them).
    const sizes = await cache.sizes();
    return { membersPerGuild, sample, removedPresent, entitlements, extra: { channels: sizes.channels ?? -1, threads: sizes.threads ?? -1 } };
  }

  async stop(): Promise<void> {
    await this.runtime.stop({ graceMs: 1000 });
  }
}
