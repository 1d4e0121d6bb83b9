/**
 * Background work of the Redis backend, in bounded batches: a fresh READY's reconciliation (remove the
 * shard's guilds it did not list) and the release of removed guilds' members. Both are stored in `P:jobs`
 * before they start, so whichever process starts next finishes what a crashed one left; running one twice is
 * harmless. Failures are reported and retried with backoff.
 */
import type { Redis } from 'ioredis';
import { shardOf } from '../shared.js';
import { isSnowflake } from '../wire.js';
import { LAYOUT_VERSION, type CacheKeys } from './keys.js';
import type { Scripted } from './scripts.js';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/** A fresh READY's reconciliation: guilds to keep (listed, or created since), until it is stored. */
interface ReadyJob {
  readonly shard: number;
  readonly count: number;
  readonly keep: Set<string>;
  persisted: boolean;
  attempt: Promise<void> | null;
}

export interface BackgroundJobsOptions {
  redis: Redis & Scripted;
  keys: CacheKeys;
  /** Records per script call. */
  batchSize: number;
  /** Wait for the writes queued so far. */
  drain: () => Promise<void>;
  onFailure: (error: Error, event: string) => void;
}

export class BackgroundJobs {
  private readonly readyJobs = new Set<ReadyJob>();
  private readonly work = new Set<Promise<unknown>>();
  private running: Promise<void> | null = null;
  private again = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelay = RETRY_MIN_MS;
  private closed = false;

  constructor(private readonly options: BackgroundJobsOptions) {}

  /** Track a piece of background work (settled() waits for it). */
  track<T>(work: Promise<T>): Promise<T> {
    this.work.add(work);
    void work.finally(() => this.work.delete(work)).catch(() => undefined);
    return work;
  }

  /** A fresh READY of `shard` of `count` listing `guildIds` (their marks are already queued). */
  ready(guildIds: readonly string[], shard: number, count: number): void {
    // A newer READY of the same shard replaces an older one not stored yet.
    for (const other of this.readyJobs) if (other.shard === shard && other.count === count && !other.persisted) this.readyJobs.delete(other);
    const job: ReadyJob = { shard, count, keep: new Set(guildIds), persisted: false, attempt: null };
    this.readyJobs.add(job);
    job.attempt = this.track(this.readyPhase(job));
  }

  /** A guild written after a READY whose job is not stored yet: it must not be removed by it. */
  keep(guildId: string): void {
    for (const job of this.readyJobs) if (!job.persisted) job.keep.add(guildId);
  }

  /** Wait until every READY's job is stored (trying again those that failed); errors for those still not stored. */
  async store(): Promise<Error[]> {
    const errors: Error[] = [];
    for (const job of this.readyJobs) {
      if (job.persisted) continue;
      job.attempt ??= this.track(this.readyPhase(job));
      await job.attempt;
      if (!job.persisted) errors.push(new Error(`the reconciliation of READY (shard ${job.shard}/${job.count}) is not stored yet`));
    }
    return errors;
  }

  /** Run every stored job (again, if a run is in progress). */
  kick(): void {
    if (this.closed) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.runJobs().finally(() => {
      this.running = null;
      if (this.again && !this.closed) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves once no background work is in flight (work that failed is retried later, not awaited). */
  async settled(): Promise<void> {
    for (let rounds = 0; rounds < 10_000 && (this.work.size > 0 || this.running !== null); rounds++) {
      await Promise.all([...this.work, this.running]);
    }
  }

  /** Stop after the batches in flight (stored jobs stay for the next process). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await Promise.allSettled([...this.work, this.running]);
  }

  /**
   * Make a READY's reconciliation durable: take a stamp R, stamp every guild to keep after it, and store the
   * job; from then on guilds of the shard with a stamp below R are the ones to remove.
   */
  private async readyPhase(job: ReadyJob): Promise<void> {
    const { redis, keys: k, batchSize } = this.options;
    await this.options.drain();
    try {
      const r = await redis.incr(k.clock);
      const keep = [...job.keep];
      for (let i = 0; i < keep.length; i += batchSize) await redis.ghGuildsTouch(k.clock, k.prefix, ...keep.slice(i, i + batchSize));
      await redis.hset(k.jobs, `ready:${job.shard}:${job.count}`, String(r));
      job.persisted = true;
      this.readyJobs.delete(job);
      this.retryDelay = RETRY_MIN_MS;
      this.kick();
    } catch (err) {
      this.options.onFailure(err instanceof Error ? err : new Error(String(err)), 'READY');
      job.attempt = null;
      this.retryLater();
    }
  }

  private async runJobs(): Promise<void> {
    const { redis, keys: k } = this.options;
    try {
      await redis.set(k.version, LAYOUT_VERSION, 'NX');
      for (let rounds = 0; rounds < 1000 && !this.closed; rounds++) {
        // As field/value pairs into a Map: job names are data, never keys of a plain object.
        const flat = (await redis.call('HGETALL', k.jobs)) as string[];
        const jobs = new Map<string, string>();
        for (let i = 0; i + 1 < flat.length; i += 2) jobs.set(flat[i]!, flat[i + 1]!);
        if (jobs.size === 0) break;
        // Reconciliations first: they may add removals.
        const fields = [...jobs.keys()].sort((a, b) => (a.startsWith('ready:') ? 0 : 1) - (b.startsWith('ready:') ? 0 : 1));
        for (const field of fields) {
          if (this.closed) return;
          const parts = field.split(':');
          if (parts[0] === 'ready' && parts.length === 3) await this.prune(field, Number(parts[1]), Number(parts[2]), jobs.get(field)!);
          else if (parts[0] === 'gc' && parts.length === 3) await this.collect(parts[1]!, parts[2]!);
          else await redis.hdel(k.jobs, field);
        }
      }
      this.retryDelay = RETRY_MIN_MS;
    } catch (err) {
      this.options.onFailure(err instanceof Error ? err : new Error(String(err)), 'background work');
      this.retryLater();
    }
  }

  /** Remove the guilds of one shard that a fresh READY did not list (a `ready:` job). */
  private async prune(field: string, shard: number, count: number, stamp: string): Promise<void> {
    const { redis, keys: k, batchSize } = this.options;
    if (!Number.isInteger(shard) || !Number.isInteger(count) || count < 1) {
      await redis.hdel(k.jobs, field);
      return;
    }
    let cursor = '0';
    for (let rounds = 0; rounds < 1_000_000 && !this.closed; rounds++) {
      const [next, ids] = await redis.sscan(k.guilds, cursor, 'COUNT', batchSize);
      const mine = ids.filter((id) => isSnowflake(id) && shardOf(id, count) === shard);
      for (let i = 0; i < mine.length; i += batchSize) await redis.ghReadyPrune(k.jobs, k.guilds, k.prefix, stamp, ...mine.slice(i, i + batchSize));
      cursor = next;
      if (cursor === '0') break;
    }
    if (!this.closed) await redis.ghJobDone(k.jobs, field, stamp);
  }

  /** Release a removed guild generation's members and users, a batch at a time (a `gc:` job). */
  private async collect(guildId: string, gen: string): Promise<void> {
    const { redis, keys: k, batchSize } = this.options;
    for (let rounds = 0; rounds < 10_000_000 && !this.closed; rounds++) {
      if (Number(await redis.ghGcBatch(k.users, k.userRefs, k.jobs, k.prefix, guildId, gen, batchSize)) === 0) return;
    }
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer !== null) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      for (const job of this.readyJobs) if (!job.persisted) job.attempt ??= this.track(this.readyPhase(job));
      this.kick();
    }, delay);
    this.retryTimer.unref();
  }
}
