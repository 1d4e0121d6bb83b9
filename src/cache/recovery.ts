/**
 * Recovery of stale cache state: a guild (or the entitlements) whose write failed is fetched again through a
 * port the runtime provides (an all-member request and the guild from REST; the entitlements from REST), then
 * the stale mark is cleared. A few at a time, each scope once however often it is reported, retried with
 * backoff while it fails (Redis or the gateway may be down for a while), never blocking the caller.
 */
import type { Cache, StaleScope } from './types.js';

export interface RecoveryPort {
  /**
   * Fetch the guild's state again into the cache. 'elsewhere': another process runs the guild's shard (its
   * mark stays for that process).
   */
  guild(guildId: string): Promise<'recovered' | 'elsewhere'>;
  entitlements(): Promise<void>;
}

export interface RecoveryLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface StaleRecoveryOptions {
  /** Guilds recovered at the same time. Default 2 (each costs an all-member request on its shard). */
  concurrency?: number;
  /** First retry delay after a failure, doubled up to maxRetryMs. Defaults 1 s and 60 s. */
  retryMs?: number;
  maxRetryMs?: number;
  log?: RecoveryLog;
}

const ENTITLEMENTS = '\u0000entitlements';

export class StaleRecovery {
  private readonly queue: string[] = [];
  /** Scopes queued or being recovered, and the retry delay each is at. */
  private readonly pending = new Map<string, number>();
  /** Guilds another process runs: not tried again until the next resume(). */
  private readonly elsewhere = new Set<string>();
  private running = 0;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly concurrency: number;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly cache: Cache,
    private readonly port: RecoveryPort,
    private readonly options: StaleRecoveryOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.retryMs = options.retryMs ?? 1_000;
    this.maxRetryMs = options.maxRetryMs ?? 60_000;
  }

  /** Recover a scope (a no-op while it is already queued or being recovered). */
  add(scope: StaleScope): void {
    const key = 'guildId' in scope ? scope.guildId : ENTITLEMENTS;
    if (this.stopped || this.pending.has(key) || this.elsewhere.has(key)) return;
    this.pending.set(key, this.retryMs);
    this.queue.push(key);
    this.pump();
  }

  /** Queue every scope the cache has marked stale (any process's marks, after a restart too). */
  async resume(): Promise<void> {
    const { guildIds, entitlements } = await this.cache.stale();
    this.elsewhere.clear();
    for (const guildId of guildIds) this.add({ guildId });
    if (entitlements) this.add({ entitlements: true });
  }

  /** Resolves when nothing is queued, running or waiting for a retry (tests). */
  idle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.pending.clear();
    this.settleIdle();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.running++;
      void this.recover(key).finally(() => {
        this.running--;
        this.pump();
        this.settleIdle();
      });
    }
  }

  private async recover(key: string): Promise<void> {
    const scope: StaleScope = key === ENTITLEMENTS ? { entitlements: true } : { guildId: key };
    try {
      if (key === ENTITLEMENTS) await this.port.entitlements();
      else if ((await this.port.guild(key)) === 'elsewhere') {
        this.elsewhere.add(key);
        this.pending.delete(key);
        return;
      }
      await this.cache.recovered(scope);
      this.pending.delete(key);
      this.options.log?.info({ ...('guildId' in scope ? { guild: key } : { entitlements: true }) }, 'recovered stale cache state');
    } catch (err) {
      if (this.stopped) return;
      const delay = this.pending.get(key) ?? this.retryMs;
      this.pending.set(key, Math.min(this.maxRetryMs, delay * 2));
      this.options.log?.warn(
        { err, ...('guildId' in scope ? { guild: key } : { entitlements: true }), retryInMs: delay },
        'could not recover stale cache state; retrying',
      );
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.stopped) return;
        this.queue.push(key);
        this.pump();
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
  }

  private settleIdle(): void {
    if (this.pending.size > 0 && !this.stopped) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
