/**
 * What a failed write left stale: guilds (and the entitlements), reported once each through `onStale` until
 * recovered, and written to Redis (`P:stale`, `P:stale:e`) at once and again at every flush until that
 * works, so that any process, after a restart too, recovers them. Also counts failures per scope since it was
 * last recovered: a sync must not commit over a write of its scope that failed meanwhile.
 */
import type { Redis } from 'ioredis';
import type { StaleScope } from '../types.js';
import type { CacheKeys } from './keys.js';

/** The stale-set key that stands for the entitlements. */
export const ENTITLEMENTS = 'entitlements';

export class StaleMarks {
  /** Scopes reported and not recovered yet. */
  private readonly known = new Set<string>();
  /** Scopes whose mark is not in Redis yet, and the errors behind them. */
  private readonly pending = new Set<string>();
  private errors: Error[] = [];
  private readonly failureCounts = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: CacheKeys,
    private readonly onStale: ((scope: StaleScope) => void) | undefined,
    /** Runs background work (tracked, so that settled() waits for it). */
    private readonly track: (work: Promise<unknown>) => void,
  ) {}

  /** Failed writes of a scope since it was last recovered. */
  failures(key: string): number {
    return this.failureCounts.get(key) ?? 0;
  }

  mark(key: string, error: Error): void {
    this.failureCounts.set(key, this.failures(key) + 1);
    if (this.closed) return;
    if (this.errors.length < 100) this.errors.push(error);
    if (this.pending.size === 0) queueMicrotask(() => this.track(this.persist()));
    this.pending.add(key);
    if (this.known.has(key)) return;
    this.known.add(key);
    this.onStale?.(key === ENTITLEMENTS ? { entitlements: true } : { guildId: key });
  }

  /** Write the marks not in Redis yet. False (and the errors behind them in `unrecorded`) when that failed too. */
  async persist(): Promise<boolean> {
    if (this.pending.size === 0) return true;
    const keys = [...this.pending];
    const guilds = keys.filter((k) => k !== ENTITLEMENTS);
    const pipe = this.redis.pipeline();
    if (guilds.length > 0) pipe.sadd(this.keys.stale, ...guilds);
    if (guilds.length < keys.length) pipe.set(this.keys.staleEntitlements, '1');
    try {
      const results = (await pipe.exec()) ?? [];
      const failure = results.find(([err]) => err !== null)?.[0];
      if (failure) throw failure;
    } catch (err) {
      if (this.errors.length < 100) this.errors.push(err instanceof Error ? err : new Error(String(err)));
      return false;
    }
    for (const k of keys) this.pending.delete(k);
    this.errors = [];
    return true;
  }

  /** Errors behind marks that could not be written yet. */
  get unrecorded(): Error[] {
    return this.errors;
  }

  /** Stale scopes: every process's marks in Redis, and this one's not written yet. */
  async read(): Promise<{ guildIds: string[]; entitlements: boolean }> {
    const [[, guilds], [, entitlements]] = (await this.redis.pipeline().smembers(this.keys.stale).get(this.keys.staleEntitlements).exec()) as [
      [null, string[]],
      [null, string | null],
    ];
    const ids = new Set(guilds);
    for (const key of this.pending) if (key !== ENTITLEMENTS) ids.add(key);
    return { guildIds: [...ids], entitlements: entitlements !== null || this.pending.has(ENTITLEMENTS) };
  }

  async recovered(scope: StaleScope): Promise<void> {
    const key = 'guildId' in scope ? scope.guildId : ENTITLEMENTS;
    this.known.delete(key);
    this.pending.delete(key);
    this.failureCounts.delete(key);
    if (key === ENTITLEMENTS) await this.redis.del(this.keys.staleEntitlements);
    else await this.redis.srem(this.keys.stale, key);
  }

  close(): void {
    this.closed = true;
  }
}
