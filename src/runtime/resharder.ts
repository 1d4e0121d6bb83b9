/**
 * Live resharding S -> S' (docs/cluster.md "Resharding"): the new shard set identifies (max_concurrency windows,
 * the identify budget) while the old one keeps serving; once every new shard is READY with its guilds, the
 * old set stops delivering, each new shard replays what it held back minus what the old set delivered
 * (gateway/cutover.ts), the cache and plugins continue on the new set, and the old set closes. Nothing
 * restarts. With several processes every step is agreed through Redis (cluster/redis-reshard-coordination.ts).
 *
 * The runtime is the host: it knows how to start a shard set, deliver a dispatch and swap the sets.
 */
import type { Logger } from 'pino';
import { Cutover, type ReshardCoordination, type ReshardPlan } from '../gateway/index.js';
import { sleep } from '../util/sleep.js';

export interface ShardSetHandle {
  readonly generation: number;
  readonly total: number;
  /** Shard ids this process runs in the set now. */
  shardIds(): readonly number[];
}

export interface ReshardHost<S extends ShardSetHandle> {
  current(): S;
  /** Start this process's share of the new set (READY or failing); it delivers through `onDispatch(generation, ...)`. */
  startSet(plan: ReshardPlan): Promise<S>;
  /** Route the sets' dispatches through `cutover` (null: the current set delivers directly). */
  setCutover(cutover: { oldGeneration: number; newGeneration: number; cutover: Cutover } | null): void;
  deliver(shardId: number, t: string, d: unknown, s: number): void;
  /** Whether the cache holds a guild already (writes flushed first). */
  cacheHas(guildId: string): Promise<boolean>;
  /** The new set becomes the current one (gateway, cluster coordinator, readiness, metrics). */
  swap(next: S): void;
  /** Close a set for good (sessions end, leases released). */
  closeSet(set: S): Promise<void>;
}

export interface ResharderOptions {
  /** Wait after every new shard is warm before the old set stops, so it has delivered what came before. Default 500. */
  settleMs?: number;
  /** How long after the switch a new shard still skips events the old set delivered. Default 60000. */
  dedupeWindowMs?: number;
  /** Give the reshard up when the new set is not warm this long after it started. Default 600000. */
  warmTimeoutMs?: number;
  /** A READY new shard whose guilds have not all loaded after this counts as warm (some stay unavailable). Default 30000. */
  guildLoadTimeoutMs?: number;
  logger: Logger;
}

export interface ReshardOutcome {
  plan: ReshardPlan;
  /** Per new shard of this process: events held back and replayed at the switch, and those skipped. */
  replay: Array<{ shard: number; delivered: number; skipped: number }>;
}

export class Resharder<S extends ShardSetHandle> {
  private active: { plan: ReshardPlan; abort: AbortController; done: Promise<ReshardOutcome | null> } | null = null;
  private dedupeTimer: NodeJS.Timeout | null = null;
  private readonly settleMs: number;
  private readonly dedupeWindowMs: number;
  private readonly warmTimeoutMs: number;
  private readonly guildLoadTimeoutMs: number;
  private readonly log: Logger;
  private closed = false;
  private readonly finishedListeners: Array<(outcome: ReshardOutcome) => void> = [];

  constructor(
    private readonly host: ReshardHost<S>,
    private readonly coordination: ReshardCoordination,
    options: ResharderOptions,
  ) {
    this.settleMs = options.settleMs ?? 500;
    this.dedupeWindowMs = options.dedupeWindowMs ?? 60_000;
    this.warmTimeoutMs = options.warmTimeoutMs ?? 600_000;
    this.guildLoadTimeoutMs = options.guildLoadTimeoutMs ?? 30_000;
    this.log = options.logger.child({ component: 'reshard' });
    coordination.onPlan((plan) => void this.run(plan));
    coordination.onAbort((plan, reason) => {
      if (this.active?.plan.id === plan.id) this.active.abort.abort(new Error(`reshard given up: ${reason}`));
    });
  }

  /** The reshard under way, if any. */
  get underWay(): ReshardPlan | null {
    return this.active?.plan ?? null;
  }

  /** Told each time a reshard completes in this process. */
  onFinished(listener: (outcome: ReshardOutcome) => void): void {
    this.finishedListeners.push(listener);
  }

  /**
   * Ask for a reshard to `to` shards (every process of the bot takes part). Resolves with the plan started (or
   * the one already under way), or null when refused (the bot runs another total than this process thinks).
   */
  async propose(to: number, reason: string): Promise<ReshardPlan | null> {
    if (this.closed) return null;
    const from = this.host.current().total;
    if (!Number.isInteger(to) || to < 1) throw new RangeError(`reshard: the new shard count must be a positive integer, got ${to}`);
    if (to === from && this.active === null) throw new RangeError(`reshard: the bot runs ${from} shards already`);
    return this.coordination.propose(from, to, reason);
  }

  /** Resolves when the reshard under way (if any) has finished or been given up. */
  async settled(): Promise<ReshardOutcome | null> {
    return this.active?.done ?? null;
  }

  /** Give up a reshard under way (shutdown) and stop taking part in new ones. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.dedupeTimer !== null) clearTimeout(this.dedupeTimer);
    this.dedupeTimer = null;
    const active = this.active;
    if (active !== null) {
      active.abort.abort(new Error('shutting down'));
      await active.done;
    }
    await this.coordination.close();
  }

  private run(plan: ReshardPlan): Promise<ReshardOutcome | null> {
    if (this.closed) return Promise.resolve(null);
    if (this.active !== null) return this.active.done;
    const current = this.host.current();
    if (current.total !== plan.from) {
      this.log.warn({ reshard: plan.id, from: plan.from, running: current.total }, 'not taking part in a reshard from another shard count');
      return Promise.resolve(null);
    }
    const abort = new AbortController();
    const done = this.execute(plan, current, abort).finally(() => {
      if (this.active?.plan.id === plan.id) this.active = null;
    });
    this.active = { plan, abort, done };
    return done;
  }

  private async execute(plan: ReshardPlan, old: S, abort: AbortController): Promise<ReshardOutcome | null> {
    const signal = abort.signal;
    const started = performance.now();
    this.log.info({ reshard: plan.id, from: plan.from, to: plan.to, reason: plan.reason }, `resharding from ${plan.from} to ${plan.to} shards`);
    const cutover = new Cutover({
      from: plan.from,
      to: plan.to,
      deliver: (shardId, t, d, s) => this.host.deliver(shardId, t, d, s),
      recordDelivered: (k, key) => this.coordination.delivered(plan, k, key),
      onWarm: (k) => this.coordination.warm(plan, k),
      onOverflow: (k) => abort.abort(new Error(`new shard ${k} held back too many events`)),
    });
    this.host.setCutover({ oldGeneration: old.generation, newGeneration: plan.generation, cutover });
    if (this.dedupeTimer !== null) clearTimeout(this.dedupeTimer);
    this.dedupeTimer = null;

    let starting: Promise<S> | null = null;
    let next: S | null = null;
    let oldStopped = false;
    let guildTimer: NodeJS.Timeout | null = null;
    let warmTimer: NodeJS.Timeout | null = null;
    try {
      warmTimer = setTimeout(() => abort.abort(new Error(`the new shards were not ready within ${this.warmTimeoutMs} ms`)), this.warmTimeoutMs);
      warmTimer.unref();
      starting = this.host.startSet(plan);
      next = await raceAbort(starting, signal);
      const set = next;
      // Guilds that stay unavailable do not hold the cutover up forever.
      guildTimer = setTimeout(() => {
        for (const id of set.shardIds()) cutover.forceWarm(id);
      }, this.guildLoadTimeoutMs);
      guildTimer.unref();
      await this.coordination.allWarm(plan, signal);
      clearTimeout(warmTimer);
      await sleep(this.settleMs, signal);

      // From here on there is no way back: the old set delivers nothing more.
      cutover.stopOld();
      oldStopped = true;
      await this.coordination.oldStopped(plan, AbortSignal.timeout(60_000));
      const replay: ReshardOutcome['replay'] = [];
      for (const shard of set.shardIds()) {
        const ledger = await this.coordination.ledger(plan, shard);
        const unknown = new Set<string>();
        for (const guildId of cutover.initialGuilds(shard)) if (!(await this.host.cacheHas(guildId))) unknown.add(guildId);
        const { delivered, skipped } = cutover.switch(shard, ledger, unknown);
        replay.push({ shard, delivered, skipped });
      }
      this.host.swap(set);
      await this.host.closeSet(old).catch((error: unknown) => this.log.warn({ err: error }, 'closing the old shard set failed'));
      await this.coordination.finished(plan);
      this.dedupeTimer = setTimeout(() => {
        this.dedupeTimer = null;
        const late = cutover.unmatched();
        if (late > 0) this.log.debug({ reshard: plan.id, unmatched: late }, 'events the old set delivered that no new shard received within the window');
        cutover.endDedupe();
        this.host.setCutover(null);
      }, this.dedupeWindowMs);
      this.dedupeTimer.unref();
      const outcome: ReshardOutcome = { plan, replay };
      this.log.info(
        { reshard: plan.id, shards: set.shardIds(), ms: Math.round(performance.now() - started), replay },
        `resharded to ${plan.to} shards: the new set serves, the old one is closed`,
      );
      for (const listener of this.finishedListeners) listener(outcome);
      return outcome;
    } catch (error) {
      if (oldStopped && next !== null) {
        // Past the point of no return: switch what can be switched rather than lose the events held back.
        this.log.error({ err: error, reshard: plan.id }, 'reshard failed after the old shards stopped delivering; switching without the ledger');
        for (const shard of next.shardIds()) cutover.switch(shard, [], new Set());
        this.host.swap(next);
        await this.host.closeSet(old).catch(() => undefined);
        this.host.setCutover(null);
        return { plan, replay: [] };
      }
      const reason = error instanceof Error ? error.message : String(error);
      this.log.warn({ reshard: plan.id, reason }, 'reshard given up; the old shards keep serving');
      this.host.setCutover(null);
      if (next !== null) await this.host.closeSet(next).catch(() => undefined);
      // Given up while the new set was still starting: close it once it has.
      else if (starting !== null) void starting.then((set) => this.host.closeSet(set), () => undefined).catch(() => undefined);
      await this.coordination.abort(plan, reason).catch(() => undefined);
      return null;
    } finally {
      if (warmTimer !== null) clearTimeout(warmTimer);
      if (guildTimer !== null) clearTimeout(guildTimer);
    }
  }
}

/** `promise`, or a rejection when `signal` aborts first (the promise's work is not cancelled). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
