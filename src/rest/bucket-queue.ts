import type { Entry } from './request-entry.js';
import type { LimitKey } from './rate-limits.js';

/**
 * One rate-limit bucket (or, until its hash is known, one route + major parameter) of one token: a FIFO run
 * one at a time. Limits are per bot or user (X-RateLimit-Scope "user"), so each token has its own queues. The
 * queue keeps the order; the counts live in the client's RateLimitStore.
 */
export class BucketQueue {
  entries: Array<Entry | undefined> = [];
  head = 0;
  running = false;

  constructor(
    readonly key: string,
    /** Set while the service's bucket hash for `routeId` is not known yet. */
    readonly discovering: { routeId: string; major: string; identity: string } | null,
    /** What the store keys this queue's bucket by: the first entry's key and the bucket hash (null while discovering). */
    readonly limitKey: LimitKey,
    readonly hash: string | null,
  ) {}

  /** The entry being executed (sent, or waiting for a limit). */
  current: Entry | null = null;

  /** Entries not started yet. */
  get waiting(): number {
    return this.entries.length - this.head;
  }

  /** Entries waiting plus the one in progress. */
  get depth(): number {
    return this.waiting + (this.current ? 1 : 0);
  }

  push(entry: Entry): void {
    this.entries.push(entry);
  }

  shift(): Entry | undefined {
    if (this.head >= this.entries.length) return undefined;
    const e = this.entries[this.head];
    this.entries[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return e;
  }

  takeAll(): Entry[] {
    const rest = this.entries.slice(this.head).filter((e): e is Entry => e !== undefined);
    this.entries = [];
    this.head = 0;
    return rest;
  }
}
