/**
 * The identify queue shared by every process of a bot (protocol §8.2): one IDENTIFY per bucket
 * (`shard_id % max_concurrency`) per window, counted on the Redis server's clock, whichever process sends it.
 *
 * Taking a slot is one atomic script call (IDENTIFY_SLOT in scripts.ts): "if the bucket's next-allowed time
 * has passed, set it one window ahead and grant; otherwise say how long to wait". A refused caller sleeps
 * exactly that long (plus a little jitter so processes do not stampede) and asks again. Inside one process
 * the shards of a bucket queue FIFO and only the head asks Redis, so the server sees one caller per bucket
 * per process. Every wait for a slot is bounded: after `maxWaitMs` at the head of that line the acquire rejects.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { IdentifyQueue } from '../gateway/identify-queue.js';
import { IdentifyQueueTimeoutError } from './errors.js';
import type { ClusterKeys } from './keys.js';
import { withClusterScripts, type ScriptedRedis } from './scripts.js';
import { sleep } from '../util/sleep.js';

export interface RedisIdentifyQueueOptions {
  redis: Redis;
  keys: ClusterKeys;
  /** session_start_limit.max_concurrency. Default 1. */
  maxConcurrency?: number;
  /** One identify per bucket per this many ms. Default 5000. */
  windowMs?: number;
  /**
   * Added to the window, for the spread between when a slot is granted and when the service reads the
   * IDENTIFY (event-loop lag, network). Default 100.
   */
  marginMs?: number;
  /**
   * Give up (reject) after waiting this long for one slot, counted from when the caller is first in this
   * process's line for its bucket. Default 600000 (10 minutes).
   */
  maxWaitMs?: number;
  /** Random extra delay (0..jitterMs) before each retry. Default 25. */
  jitterMs?: number;
  logger?: Logger;
  /** Told of every slot granted, with the Redis server time of the grant (metrics, tests). */
  onGrant?: (shardId: number, bucket: number, serverTimeMs: number) => void;
  /** Monotonic clock for the wait bound. Default performance.now. */
  now?: () => number;
  random?: () => number;
}

export class RedisIdentifyQueue implements IdentifyQueue {
  readonly maxConcurrency: number;
  readonly windowMs: number;
  readonly marginMs: number;
  readonly maxWaitMs: number;
  private readonly redis: ScriptedRedis;
  private readonly keys: ClusterKeys;
  private readonly jitterMs: number;
  private readonly logger: Logger | undefined;
  private readonly onGrant: RedisIdentifyQueueOptions['onGrant'];
  private readonly now: () => number;
  private readonly random: () => number;
  /** Per bucket, the promise the next local caller waits for (the previous caller's turn). */
  private readonly tails = new Map<number, Promise<void>>();

  constructor(options: RedisIdentifyQueueOptions) {
    this.maxConcurrency = options.maxConcurrency ?? 1;
    this.windowMs = options.windowMs ?? 5_000;
    this.marginMs = options.marginMs ?? 100;
    this.maxWaitMs = options.maxWaitMs ?? 600_000;
    if (!Number.isInteger(this.maxConcurrency) || this.maxConcurrency < 1) {
      throw new RangeError(`max_concurrency must be a positive integer, got ${this.maxConcurrency}`);
    }
    if (!(this.windowMs >= 0) || !(this.marginMs >= 0)) throw new RangeError('identify window and margin must be >= 0');
    if (!(this.maxWaitMs > 0)) throw new RangeError('identify maxWaitMs must be > 0');
    this.redis = withClusterScripts(options.redis);
    this.keys = options.keys;
    this.jitterMs = options.jitterMs ?? 25;
    this.logger = options.logger;
    this.onGrant = options.onGrant;
    this.now = options.now ?? (() => performance.now());
    this.random = options.random ?? Math.random;
  }

  bucketOf(shardId: number): number {
    return shardId % this.maxConcurrency;
  }

  async acquire(shardId: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const bucket = this.bucketOf(shardId);
    const previous = this.tails.get(bucket) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    // The next caller goes after both the previous one and this one (an aborted caller still passes the turn on
    // only once its predecessor is done, so the order holds).
    const tail = previous.then(() => mine);
    this.tails.set(bucket, tail);
    try {
      await abortable(previous, signal);
      // The bound is for this caller's own slot: time spent behind this process's earlier shards of the bucket
      // (one window each) does not count, or the tail of a long local queue would time out and start over.
      await this.takeSlot(shardId, bucket, this.now(), signal);
    } finally {
      done();
      if (this.tails.get(bucket) === tail) this.tails.delete(bucket);
    }
  }

  private async takeSlot(shardId: number, bucket: number, started: number, signal: AbortSignal | undefined): Promise<void> {
    const key = this.keys.identifyBucket(bucket);
    const window = this.windowMs + this.marginMs;
    let failures = 0;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      let waitMs: number;
      try {
        const [wait, serverTime] = (await this.redis.ghClusterIdentifySlot(key, window)) as [number, number];
        failures = 0;
        if (Number(wait) <= 0) {
          this.logger?.debug({ shard: shardId, bucket }, 'identify slot granted');
          this.onGrant?.(shardId, bucket, Number(serverTime));
          return;
        }
        waitMs = Number(wait) + Math.floor(this.random() * this.jitterMs);
      } catch (error) {
        // Redis unreachable: back off and try again within the bound; never identify unchecked.
        failures++;
        waitMs = Math.min(2_000, 100 * 2 ** Math.min(failures, 5));
        this.logger?.warn({ err: error, shard: shardId, bucket }, 'identify queue: Redis call failed, retrying');
        if (this.now() - started + waitMs > this.maxWaitMs) {
          throw new IdentifyQueueTimeoutError(shardId, bucket, this.now() - started, { cause: error });
        }
      }
      if (this.now() - started + waitMs > this.maxWaitMs) {
        throw new IdentifyQueueTimeoutError(shardId, bucket, this.now() - started);
      }
      await sleep(waitMs, signal);
    }
  }
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
