/**
 * The shards of this process (protocol §8.2, §8.3): shard count from GET /gateway/bot or explicit, this
 * process's ids a subset, identifies spaced by an `IdentifyQueue` (max_concurrency buckets), a refusal to
 * start when the daily session budget cannot cover the identifies, guild -> shard routing, status and latency.
 *
 * The manager is the emitter for all its shards (events carry the shard id), and passes `onDispatch` straight
 * to every shard so the runtime's hot path skips the emitter entirely.
 */
import { EventEmitter } from 'eventemitter3';
import type { APIGatewayBotInfo, GatewayPresenceUpdateData } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import { shardForGuild } from '../api/snowflake.js';
import type { AnomalyLog } from '../util/anomaly-log.js';
import { GatewayError, SessionStartLimitError, ShardFencedError } from './errors.js';
import type { ShardFence } from './fence.js';
import type { DispatchHook, GatewayEventMap, ShardStatus } from './events.js';
import { LocalIdentifyBudget, type IdentifyBudget } from './identify-budget.js';
import { LocalIdentifyQueue, type IdentifyQueue } from './identify-queue.js';
import { inflaterFactory, transportCompression, type InflaterFactory, type InflatePreference, type TransportCompression } from './inflate.js';
import type { MemberRequestResult, RequestMembersOptions } from './member-requests.js';
import { Shard, type SessionState, type ShardTiming } from './shard.js';

/** Where the manager gets GET /gateway/bot; the REST client implements it, tests use a small fetch adapter. */
export interface GatewayBotPort {
  getGatewayBot(): Promise<APIGatewayBotInfo>;
}

/**
 * Persistence of resumable sessions across processes (the cluster layer backs it with Redis). `load` is asked
 * once per shard at start (a session found there is RESUMEd instead of identifying); `save` is told the state
 * at a resumable shutdown, and null when a session ends for good.
 */
export interface SessionStore {
  load(shardId: number): Promise<SessionState | null> | SessionState | null;
  save(shardId: number, state: SessionState | null): Promise<void> | void;
}

export interface ShardManagerOptions {
  token: string;
  intents: number;
  gatewayBot: GatewayBotPort;
  /** Total shard count; 'auto' (default) uses GET /gateway/bot `shards`. */
  totalShards?: number | 'auto';
  /**
   * Shard ids this process runs; 'auto' (default) = all. An empty list starts none (cluster mode adds them
   * later with addShard).
   */
  shardIds?: readonly number[] | 'auto';
  /**
   * The identify queue, or a factory given max_concurrency (for a cross-process queue). Default: a
   * LocalIdentifyQueue with max_concurrency from GET /gateway/bot and `identifyWindowMs`.
   */
  identifyQueue?: IdentifyQueue | ((info: { maxConcurrency: number; windowMs: number }) => IdentifyQueue);
  /** One identify per bucket per this many ms. Default 5000 (shorten only against the sandbox). */
  identifyWindowMs?: number;
  /**
   * The daily session-start budget, kept for the life of the process: every IDENTIFY of every shard takes
   * from it, and a shard stops with IdentifyBudgetExhaustedError rather than go below its reserve. Default:
   * a LocalIdentifyBudget (reserve 5% of the total) refreshed through `gatewayBot`.
   */
  identifyBudget?: IdentifyBudget;
  /** Transport compression: 'zlib-stream' (or true, the default), 'zstd-stream', or false for none. */
  compress?: boolean | TransportCompression;
  inflate?: InflatePreference | InflaterFactory;
  largeThreshold?: number;
  presence?: GatewayPresenceUpdateData;
  properties?: { os: string; browser: string; device: string };
  sendLimit?: { count: number; windowMs: number; marginMs?: number };
  /** Per shard: ordinary sends that may wait at once; more are refused with SendQueueFullError. Default 1000. */
  maxQueuedSends?: number;
  timing?: ShardTiming;
  random?: () => number;
  sessionStore?: SessionStore;
  /** Cluster mode: whether this process still holds a shard (see fence.ts). */
  fence?: ShardFence;
  logger?: Logger;
  /** Where payloads that break the protocol are reported, shared by every shard. Default: one per shard. */
  anomalies?: AnomalyLog;
  /** Called for every dispatch of every shard before any emitter event. */
  onDispatch?: DispatchHook;
}

export interface ShardInfo {
  id: number;
  status: ShardStatus;
  /** Heartbeat round trip in ms, -1 before the first ACK. */
  latencyMs: number;
  sequence: number;
  sessionId: string | null;
  /** Ordinary sends waiting in the shard's rate-limited queue. */
  queuedSends: number;
}

export class ShardManager extends EventEmitter<GatewayEventMap> {
  private readonly options: ShardManagerOptions;
  private readonly shards = new Map<number, Shard>();
  private info: APIGatewayBotInfo | null = null;
  private total = 0;
  private ids: number[] = [];
  private started = false;
  private closing: Promise<Map<number, SessionState>> | null = null;
  /** addShard calls still loading a session; removeShard cancels them (the shard must then never connect). */
  private readonly adding = new Map<number, { cancelled: boolean }>();
  /** Resolved at start, reused by shards added later (addShard). */
  private identifyQueue: IdentifyQueue | null = null;
  private readonly budget: IdentifyBudget;
  private inflate: InflaterFactory | undefined;

  constructor(options: ShardManagerOptions) {
    super();
    if (typeof options.token !== 'string' || options.token.length === 0) {
      throw new TypeError('ShardManager: token must be a non-empty string.');
    }
    if (!Number.isInteger(options.intents) || options.intents < 0) {
      throw new TypeError(`ShardManager: intents must be a non-negative integer, got ${options.intents}.`);
    }
    const total = options.totalShards ?? 'auto';
    if (total !== 'auto' && (!Number.isInteger(total) || total < 1)) {
      throw new RangeError(`ShardManager: totalShards must be a positive integer or "auto", got ${total}.`);
    }
    this.options = options;
    this.budget =
      options.identifyBudget ??
      new LocalIdentifyBudget({ refresh: async () => (await options.gatewayBot.getGatewayBot()).session_start_limit });
  }

  /** The session-start budget the shards identify against. */
  get identifyBudget(): IdentifyBudget {
    return this.budget;
  }

  /**
   * The identify queue the shards use (null before start). A second manager of the same bot (the new set of a
   * reshard) identifies through it too, so max_concurrency holds across both sets.
   */
  get identifyQueueInUse(): IdentifyQueue | null {
    return this.identifyQueue;
  }

  /** GET /gateway/bot as fetched at start. */
  get gatewayInfo(): APIGatewayBotInfo | null {
    return this.info;
  }

  /** Total shard count (0 before start). */
  get shardCount(): number {
    return this.total;
  }

  /** Ids of the shards this process runs. */
  get shardIds(): readonly number[] {
    return this.ids;
  }

  shard(id: number): Shard | undefined {
    return this.shards.get(id);
  }

  /** The shard that receives a guild's events: (guild_id >> 22) % total. */
  shardIdForGuild(guildId: string): number {
    if (this.total === 0) throw new GatewayError('ShardManager: not started, the shard count is unknown.');
    return shardForGuild(guildId, this.total);
  }

  /** The local shard for a guild, or undefined when another process runs it. */
  shardForGuild(guildId: string): Shard | undefined {
    return this.shards.get(this.shardIdForGuild(guildId));
  }

  status(): ShardInfo[] {
    const out: ShardInfo[] = [];
    for (const shard of this.shards.values()) {
      const session = shard.session;
      out.push({
        id: shard.id,
        status: shard.status,
        latencyMs: shard.latency,
        sequence: shard.sequence,
        sessionId: session?.sessionId ?? null,
        queuedSends: shard.queuedSends,
      });
    }
    return out;
  }

  /** Resumable sessions of the local shards. */
  sessions(): Map<number, SessionState> {
    const out = new Map<number, SessionState>();
    for (const shard of this.shards.values()) {
      const session = shard.session;
      if (session) out.set(shard.id, session);
    }
    return out;
  }

  /** Op 8 on the shard of `guildId`. Rejects when that shard is not run by this process. */
  requestMembers(options: RequestMembersOptions): Promise<MemberRequestResult> {
    let shard: Shard | undefined;
    try {
      shard = this.shardForGuild(options.guildId);
    } catch (error) {
      return Promise.reject(error);
    }
    if (shard === undefined) {
      return Promise.reject(
        new GatewayError(
          `Guild ${options.guildId} belongs to shard ${this.shardIdForGuild(options.guildId)}, which this process does not run.`,
        ),
      );
    }
    return shard.requestMembers(options);
  }

  /**
   * Fetch GET /gateway/bot, check the session budget, and connect every local shard. Resolves when all are
   * READY (or RESUMED); if one stops for good first, the others are closed and the promise rejects with its
   * error.
   */
  async start(): Promise<void> {
    if (this.started) throw new GatewayError('ShardManager: start() was already called.');
    this.started = true;
    const o = this.options;
    const info = await o.gatewayBot.getGatewayBot();
    validateGatewayBot(info);
    this.info = info;
    this.total = o.totalShards === undefined || o.totalShards === 'auto' ? Math.max(1, info.shards) : o.totalShards;
    this.ids = resolveShardIds(o.shardIds ?? 'auto', this.total);

    const saved = new Map<number, SessionState>();
    if (o.sessionStore) {
      for (const id of this.ids) {
        const state = await o.sessionStore.load(id);
        if (state) saved.set(id, state);
      }
    }
    const needIdentify = this.ids.length - saved.size;
    const limit = info.session_start_limit;
    this.budget.update(limit);
    if ((await this.budget.available()) < needIdentify) {
      throw new SessionStartLimitError(limit.remaining, needIdentify, limit.reset_after, this.budget.snapshot().reserve);
    }

    const windowMs = o.identifyWindowMs ?? 5_000;
    const maxConcurrency = Math.max(1, limit.max_concurrency);
    const identifyQueue =
      typeof o.identifyQueue === 'function'
        ? o.identifyQueue({ maxConcurrency, windowMs })
        : (o.identifyQueue ?? new LocalIdentifyQueue({ maxConcurrency, windowMs }));
    // Resolve the inflate choice once, so a missing zlib-sync fails here and not per connection.
    const transport = transportCompression(o.compress);
    const inflate =
      transport === null ? undefined : typeof o.inflate === 'function' ? o.inflate : inflaterFactory(o.inflate, transport);

    this.identifyQueue = identifyQueue;
    this.inflate = inflate;

    this.on('stopped', this.onShardStopped, this);
    for (const id of this.ids) this.shards.set(id, this.createShard(id, saved.get(id) ?? null));
    const starts = [...this.shards.values()].map((shard) => shard.start());
    try {
      await Promise.all(starts);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Run one more shard in this process (cluster mode: a shard whose lease was just gained). Its saved session,
   * if the store has one, is RESUMEd. Resolves when it is READY or RESUMED; if it stops first, it is removed
   * again and the promise rejects. A shard already run here resolves at once.
   */
  async addShard(id: number): Promise<void> {
    if (!this.started || this.info === null || this.identifyQueue === null) {
      throw new GatewayError('ShardManager: addShard() needs a started manager.');
    }
    if (this.closing) throw new GatewayError(`ShardManager: closing, shard ${id} not added.`);
    if (!Number.isInteger(id) || id < 0 || id >= this.total) {
      throw new RangeError(`ShardManager: shard id ${id} is outside 0..${this.total - 1} (total ${this.total}).`);
    }
    if (this.shards.has(id) || this.adding.has(id)) return;
    const store = this.options.sessionStore;
    const pending = { cancelled: false };
    this.adding.set(id, pending);
    let session: SessionState | null;
    try {
      session = store ? await store.load(id) : null;
    } finally {
      if (this.adding.get(id) === pending) this.adding.delete(id);
    }
    // Re-check: close(), removeShard() (cluster mode: the lease was lost meanwhile) or another addShard may
    // have happened while loading.
    if (this.closing) throw new GatewayError(`ShardManager: closing, shard ${id} not added.`);
    if (pending.cancelled) throw new GatewayError(`ShardManager: shard ${id} was removed while being added.`);
    if (this.shards.has(id)) return;
    const shard = this.createShard(id, session);
    this.shards.set(id, shard);
    this.ids = [...this.shards.keys()].sort((a, b) => a - b);
    try {
      await shard.start();
    } catch (error) {
      if (this.shards.get(id) === shard) {
        this.shards.delete(id);
        this.ids = [...this.shards.keys()].sort((a, b) => a - b);
        await shard.close({ resumable: true });
      }
      throw error;
    }
  }

  /**
   * Stop running one shard here. By default its session stays resumable (closed with a non-1000 code) and is
   * saved to the session store, so the process that runs it next RESUMEs; `persist: false` skips the store
   * (cluster mode, when the shard's lease is already someone else's). Returns the session state, or null when
   * the shard was not run here. An addShard of the same id still loading its session is cancelled (it rejects).
   */
  async removeShard(id: number, options: { resumable?: boolean; persist?: boolean } = {}): Promise<SessionState | null> {
    const adding = this.adding.get(id);
    if (adding !== undefined) {
      adding.cancelled = true;
      this.adding.delete(id);
    }
    const shard = this.shards.get(id);
    if (shard === undefined) return null;
    this.shards.delete(id);
    this.ids = [...this.shards.keys()].sort((a, b) => a - b);
    const resumable = options.resumable ?? true;
    const state = await shard.close({ resumable });
    if (options.persist ?? true) await this.options.sessionStore?.save(id, state);
    return state;
  }

  /**
   * Close every local shard. With `resumable`, sessions stay alive on the service, are saved to the session
   * store and returned; otherwise they end and the store is cleared.
   */
  close(options: { resumable?: boolean } = {}): Promise<Map<number, SessionState>> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      const resumable = options.resumable ?? false;
      const out = new Map<number, SessionState>();
      await Promise.all(
        [...this.shards.values()].map(async (shard) => {
          const state = await shard.close({ resumable });
          if (state) out.set(shard.id, state);
          await this.options.sessionStore?.save(shard.id, state);
        }),
      );
      this.off('stopped', this.onShardStopped, this);
      return out;
    })();
    return this.closing;
  }

  private createShard(id: number, session: SessionState | null): Shard {
    const o = this.options;
    return new Shard({
      id,
      shardCount: this.total,
      token: o.token,
      intents: o.intents,
      gatewayUrl: this.info!.url,
      compress: o.compress,
      inflate: this.inflate,
      largeThreshold: o.largeThreshold,
      presence: o.presence,
      properties: o.properties,
      identifyQueue: this.identifyQueue!,
      identifyBudget: this.budget,
      fence: o.fence,
      session,
      sendLimit: o.sendLimit,
      maxQueuedSends: o.maxQueuedSends,
      timing: o.timing,
      random: o.random,
      logger: o.logger,
      ...(o.anomalies !== undefined ? { anomalies: o.anomalies } : {}),
      onDispatch: o.onDispatch,
      events: this,
    });
  }

  private onShardStopped(shardId: number, error: Error | null): void {
    // A fenced shard's session belongs to its new owner: leave the store alone.
    if (error === null || this.closing || error instanceof ShardFencedError) return;
    // The session is gone for good; a later process must not try to resume it.
    void Promise.resolve(this.options.sessionStore?.save(shardId, null)).catch((e: unknown) =>
      this.emit('error', shardId, e instanceof Error ? e : new GatewayError(String(e))),
    );
  }
}

function validateGatewayBot(info: APIGatewayBotInfo): void {
  const limit = info?.session_start_limit;
  if (
    typeof info?.url !== 'string' ||
    !Number.isInteger(info.shards) ||
    typeof limit !== 'object' ||
    limit === null ||
    !Number.isInteger(limit.remaining) ||
    !Number.isInteger(limit.max_concurrency) ||
    !Number.isFinite(limit.reset_after)
  ) {
    throw new GatewayError('GET /gateway/bot returned an unexpected body (needs url, shards, session_start_limit).');
  }
}

function resolveShardIds(ids: readonly number[] | 'auto', total: number): number[] {
  if (ids === 'auto') return Array.from({ length: total }, (_, i) => i);
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  for (const id of unique) {
    if (!Number.isInteger(id) || id < 0 || id >= total) {
      throw new RangeError(`ShardManager: shard id ${id} is outside 0..${total - 1} (total ${total}).`);
    }
  }
  return unique;
}
