/**
 * REST rate limits (protocol §3): fixed-window buckets per (identity, route bucket, top-level resource),
 * and a global per-identity limit per second. Pure bookkeeping; the REST layer turns results into headers
 * and 429 bodies.
 */
import { createHash } from 'node:crypto';
import type { BucketLimit } from './options.js';

export interface BucketState {
  limit: number;
  remaining: number;
  /** Epoch ms when the window resets. */
  resetAt: number;
  /** Opaque id for X-RateLimit-Bucket (excludes the top-level resource id). */
  hash: string;
}

export interface TakeResult extends BucketState {
  allowed: boolean;
}

interface Window {
  count: number;
  resetAt: number;
}

/** Fixed windows keyed by string; stale windows are swept so the map does not grow without bound. */
class Windows {
  private readonly map = new Map<string, Window>();
  private lastSweep = 0;

  take(key: string, limit: number, windowMs: number, now: number): { allowed: boolean; count: number; resetAt: number } {
    this.sweep(now);
    let w = this.map.get(key);
    if (w === undefined || now >= w.resetAt) {
      w = { count: 0, resetAt: now + windowMs };
      this.map.set(key, w);
    }
    if (w.count >= limit) return { allowed: false, count: w.count, resetAt: w.resetAt };
    w.count++;
    return { allowed: true, count: w.count, resetAt: w.resetAt };
  }

  /** The window's count and reset without taking from it (null when none is open). */
  peek(key: string, now: number): { count: number; resetAt: number } | null {
    const w = this.map.get(key);
    return w === undefined || now >= w.resetAt ? null : { count: w.count, resetAt: w.resetAt };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000 || this.map.size < 1024) return;
    this.lastSweep = now;
    for (const [k, w] of this.map) if (now >= w.resetAt) this.map.delete(k);
  }
}

export class RateLimiter {
  private readonly buckets = new Windows();
  private readonly global = new Windows();
  private readonly hashes = new Map<string, string>();

  constructor(private readonly globalPerSecond: number) {}

  bucketHash(name: string): string {
    let h = this.hashes.get(name);
    if (h === undefined) {
      h = createHash('sha1').update(`gatehouse-sandbox:${name}`).digest('hex').slice(0, 32);
      this.hashes.set(name, h);
    }
    return h;
  }

  /** Global limit: `globalPerSecond` requests per identity per second. */
  takeGlobal(identity: string, now: number = Date.now()): { allowed: boolean; resetAt: number } {
    const r = this.global.take(identity, this.globalPerSecond, 1000, now);
    return { allowed: r.allowed, resetAt: r.resetAt };
  }

  take(identity: string, bucket: string, major: string, limit: BucketLimit, now: number = Date.now()): TakeResult {
    const r = this.buckets.take(`${identity}\u0000${bucket}\u0000${major}`, limit.limit, limit.windowMs, now);
    return {
      allowed: r.allowed,
      limit: limit.limit,
      remaining: Math.max(0, limit.limit - r.count),
      resetAt: r.resetAt,
      hash: this.bucketHash(bucket),
    };
  }

  /** A bucket's state as it is, nothing taken (a fresh window when none is open). */
  peek(identity: string, bucket: string, major: string, limit: BucketLimit, now: number = Date.now()): BucketState {
    const w = this.buckets.peek(`${identity}\u0000${bucket}\u0000${major}`, now);
    return {
      limit: limit.limit,
      remaining: Math.max(0, limit.limit - (w?.count ?? 0)),
      resetAt: w?.resetAt ?? now + limit.windowMs,
      hash: this.bucketHash(bucket),
    };
  }
}

/** The five X-RateLimit-* headers of a bucket. */
export function bucketHeaders(state: BucketState, now: number = Date.now()): Record<string, string> {
  const resetAfter = Math.max(0, state.resetAt - now) / 1000;
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': (state.resetAt / 1000).toFixed(3),
    'x-ratelimit-reset-after': resetAfter.toFixed(3),
    'x-ratelimit-bucket': state.hash,
  };
}
