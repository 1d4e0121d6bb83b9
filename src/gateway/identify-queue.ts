/**
 * Identify concurrency (protocol §8.2): shards identify in buckets `shard_id % max_concurrency`, one
 * IDENTIFY per bucket per window (5 s). Going faster gets op 9 from the service.
 *
 * `IdentifyQueue` is the seam for a cross-process implementation (the cluster layer backs it with Redis):
 * a shard calls `acquire` right before it writes IDENTIFY, and the promise resolves when it may.
 */

export interface IdentifyQueue {
  /** Resolve when `shardId` may identify now; reject with the signal's reason if aborted first. */
  acquire(shardId: number, signal?: AbortSignal): Promise<void>;
}

export interface LocalIdentifyQueueOptions {
  /** session_start_limit.max_concurrency. Default 1. */
  maxConcurrency?: number;
  /** One identify per bucket per this many ms. Default 5000. */
  windowMs?: number;
  /**
   * Extra spacing on top of the window, for the difference between when we send and when the service sees
   * it (an identify that arrives early is refused with op 9). Default 100.
   */
  marginMs?: number;
  /** Monotonic clock in ms. Default performance.now. */
  now?: () => number;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Bucket {
  /** Earliest clock reading at which the next identify of this bucket may go. */
  nextAt: number;
  waiters: Waiter[];
  timer: NodeJS.Timeout | null;
}

/** In-process identify queue: FIFO per bucket, buckets independent of each other. */
export class LocalIdentifyQueue implements IdentifyQueue {
  readonly maxConcurrency: number;
  readonly windowMs: number;
  readonly marginMs: number;
  private readonly now: () => number;
  private readonly buckets = new Map<number, Bucket>();

  constructor(options: LocalIdentifyQueueOptions = {}) {
    this.maxConcurrency = options.maxConcurrency ?? 1;
    this.windowMs = options.windowMs ?? 5_000;
    this.marginMs = options.marginMs ?? 100;
    if (!Number.isInteger(this.maxConcurrency) || this.maxConcurrency < 1) {
      throw new RangeError(`max_concurrency must be a positive integer, got ${this.maxConcurrency}`);
    }
    if (!(this.windowMs >= 0)) throw new RangeError('identify window must be >= 0');
    this.now = options.now ?? (() => performance.now());
  }

  bucketOf(shardId: number): number {
    return shardId % this.maxConcurrency;
  }

  acquire(shardId: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const bucket = this.bucket(this.bucketOf(shardId));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const i = bucket.waiters.indexOf(waiter);
          if (i >= 0) bucket.waiters.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      bucket.waiters.push(waiter);
      this.pump(bucket);
    });
  }

  private bucket(key: number): Bucket {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { nextAt: -Infinity, waiters: [], timer: null };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  private pump(bucket: Bucket): void {
    if (bucket.timer !== null || bucket.waiters.length === 0) return;
    const now = this.now();
    if (now >= bucket.nextAt) {
      const waiter = bucket.waiters.shift()!;
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
      bucket.nextAt = now + this.windowMs + this.marginMs;
      waiter.resolve();
      if (bucket.waiters.length === 0) return;
    }
    bucket.timer = setTimeout(
      () => {
        bucket.timer = null;
        this.pump(bucket);
      },
      Math.max(0, bucket.nextAt - this.now()),
    );
  }
}
