/**
 * Where the REST client keeps the service's limits: the per-route buckets, the global limit and the
 * invalid-request budget. The client keeps the ORDER (one FIFO queue per bucket, one request at a time per
 * queue, and one admission gate per identity for the global limit); a `RateLimitStore` keeps the COUNTS and
 * says, for the request at the head of a queue, whether it may go now. Two stores exist:
 *
 * - `LocalRateLimits` (local-rate-limits.ts): this process only; the default.
 * - `SharedRateLimits` (redis/shared-rate-limits.ts): every process of one bot through Redis, so that N
 *   processes together stay within one bot's limits.
 *
 * The flow of one attempt is a ticket: `admit` (may it go? if so the slot is taken), the request, then
 * `report` with what the response said (headers, a 429, an invalid status). A store may answer `admit`
 * synchronously (local) or with a promise (shared).
 *
 * The global window counts a request from its admission until its RESPONSE, and then for one window after
 * the response: the service stamps a request when it arrives, which is some time after the admission (new
 * sockets, a busy event loop, the network: measured 30-140 ms on a cold start) and always before its answer
 * leaves. A slot taken again one window after the answer came back can therefore never put two requests less
 * than a window apart at the service, whatever the delays on either side.
 */
import type { RateLimitScope } from './errors.js';
import type { RateLimitInfo } from './headers.js';

/** One request as the limits see it. The client's queue entries carry these fields. */
export interface LimitKey {
  /** Whose limits: "default" (the client's own token), "anonymous", or `<scheme>:<digest of the token>`. */
  readonly identity: string;
  /** `METHOD /template`: the unit whose bucket hash the service reveals (X-RateLimit-Bucket). */
  readonly routeId: string;
  /** The major parameter values ("-" when the route has none), tokens digested. */
  readonly major: string;
  /** Interaction callbacks and webhook-with-token routes do not count against the global limit. */
  readonly globalExempt: boolean;
}

export type WaitScope = 'bucket' | 'global' | 'discovery';

export type Admission =
  | {
      readonly kind: 'go';
      /** The route's bucket hash when the store knows it (a shared store may have learnt it from another process). */
      readonly hash: string | null;
      /** Store-private state of this admission, handed back to `report`. */
      readonly ticket: unknown;
      /**
       * The slots are booked for later: send no earlier than this many ms from now (a shared store books the
       * global slot that frees next instead of having the request ask again). 0 or absent: now.
       */
      readonly delayMs?: number;
      /**
       * How many requests of this identity may ask at once from now on (the global window's room as the
       * store sees it, divided among the processes sharing it). Absent: no opinion.
       */
      readonly parallel?: number;
    }
  | {
      readonly kind: 'wait';
      /** Ask again after this long. */
      readonly ms: number;
      /** What holds it: its bucket, the global limit (or a global 429's pause), or another request learning the bucket. */
      readonly scope: WaitScope;
      readonly hash: string | null;
      /** Settles when it is worth asking again before `ms` is up (another process finished learning the bucket). */
      readonly wake?: Promise<void>;
    }
  | {
      /** The invalid-request budget is spent: do not send at all. */
      readonly kind: 'refuse';
      readonly retryAfterMs: number;
      /** Invalid responses in the window (fleet-wide for a shared store). */
      readonly count: number;
      readonly limit: number;
    };

/** What one attempt's response said. */
export interface LimitReport {
  /** HTTP status; 0 when no response came (network failure, timeout, abort). */
  readonly status: number;
  /** Whether the request left at all; false when it was given up before sending (its slots are returned). */
  readonly sent: boolean;
  readonly info: RateLimitInfo;
  /** performance.now() when the response (or the failure) arrived: the global slot counts until a window after it. */
  readonly at: number;
  /** For a 429: the wait it asked for and its scope. */
  readonly limited: { readonly retryAfterMs: number; readonly scope: RateLimitScope; readonly global: boolean } | null;
}

/** What a store knows of one bucket (for queue depths in /metrics). */
export interface BucketView {
  limit: number | null;
  remaining: number | null;
  /** Ms until the window resets, when known and in the future. */
  resetInMs: number | null;
}

export interface RateLimitStore {
  /** "local" or "shared" (and "shared-fallback" while a shared store runs on local limits). */
  readonly mode: string;
  /** May this request go now? When it may, its slot is taken (bucket, global window). */
  admit(key: LimitKey, hash: string | null): Admission | Promise<Admission>;
  /** What the response to an admitted request said. Never throws. */
  report(key: LimitKey, ticket: unknown, report: LimitReport): void;
  /**
   * A request booked for later (`delayMs`) is about to go: may it still, as far as the store has heard since
   * (the invalid-request budget spent, a global 429)? False: the client returns its slots (reports it as not
   * sent) and asks again. Absent: always.
   */
  confirm?(key: LimitKey, ticket: unknown): boolean;
  /** The bucket's state as last known here. */
  bucket(key: LimitKey, hash: string | null): BucketView | null;
  /** Invalid responses (401, 403, non-shared 429) in the window, as last known. */
  invalidCount(): number;
  readonly invalidLimit: number;
  readonly invalidWindowMs: number;
  /** Told the window's count after every invalid response is recorded (for warnings). */
  onInvalid(listener: (count: number) => void): void;
  /** Release timers and pending work; admissions after this are not expected. */
  close(): void;
}

/**
 * The key a store keeps a bucket's state under: the identity, the bucket (its hash, or the route while the
 * hash is not known) and the major parameter.
 */
export function bucketKey(key: LimitKey, hash: string | null): string {
  return `${key.identity}|${hash ?? `unknown(${key.routeId})`}:${key.major}`;
}

export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
