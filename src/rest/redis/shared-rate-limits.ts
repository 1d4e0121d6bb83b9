/**
 * The REST limits of every process of one bot, kept in Redis: per-route buckets (with major parameters),
 * the global limit, 429 waits of every scope and the invalid-request budget. N processes together stay
 * within one bot's limits instead of N times them.
 *
 * Cost: one script call (one round trip) per request in the common case. The call both records what this
 * process's earlier responses said and reserves the slot for the next request; a response is recorded only
 * when it carries news (a bucket learnt, a new window, fewer remaining than reserved, a 429, an invalid
 * status), and then rides on the next reservation, or goes alone after `flushDelayMs` when none comes.
 * Records others wait for (the end of a bucket's discovery, a 429) go at once.
 *
 * Order stays per process: the client's queues decide which request asks next; Redis decides when it may go.
 * Discovery is fleet-wide: while nothing is known of a bucket, one request of the whole fleet goes first
 * (a short lock in Redis) and the others wait for its headers.
 *
 * Redis unreachable (an error, or no answer within `timeoutMs`): the store falls back to this process's own
 * limits at 1/N of each (N = the processes last seen sharing them), warns once, tries Redis again every
 * `probeMs`, and goes back to the shared limits when it answers.
 *
 * The Redis connection is the caller's (not closed here); give it an 'error' listener.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { LocalRateLimits } from '../local-rate-limits.js';
import { bucketKey, type Admission, type BucketView, type LimitKey, type LimitReport, type RateLimitStore } from '../rate-limits.js';
import { REST_LIMIT_SCRIPTS } from './scripts.js';

export interface SharedRateLimitsOptions {
  /** The connection (the caller's: not closed by the store). */
  redis: Redis;
  /** Key namespace of one bot, e.g. `gh:cluster:{<application id>}:rest`. */
  namespace: string;
  /** Requests per `globalWindowMs` per identity, fleet-wide. Default 50. */
  globalLimit?: number;
  /** Default 1000. */
  globalWindowMs?: number;
  /** Invalid responses per window, fleet-wide, before every process stops sending. Default 9000. */
  invalidRequestLimit?: number;
  /** Default 600000. */
  invalidRequestWindowMs?: number;
  /** A script call unanswered this long counts as Redis being unreachable. Default 1000. */
  timeoutMs?: number;
  /** Longest a record waits for a reservation to ride on. Default 20. */
  flushDelayMs?: number;
  /** While falling back, how often Redis is tried again. Default 1000. */
  probeMs?: number;
  /** How often this process says it is alive (the N of the fallback). Default 5000. */
  heartbeatMs?: number;
  /** Expiry of a discovery lock whose holder never reported. Default 5000. */
  discoveryLockMs?: number;
  /** Unique per process. Default: random. */
  memberId?: string;
  logger?: Logger;
}

export interface SharedRateLimitsStats {
  /** Script calls that reserved a slot (each one round trip, records riding on them included). */
  reservations: number;
  /** Script calls that only recorded (no reservation came in time to carry them). */
  flushes: number;
  /** Records carried (on reservations or flushes). */
  records: number;
  /** Times the store fell back to local limits. */
  fallbacks: number;
}

type ScriptedRedis = Redis & {
  ghRestLimit(...args: Array<string | number>): Promise<unknown>;
  ghRestMembers(...args: Array<string | number>): Promise<unknown>;
};

/** What a reservation told this process (compared with the response to decide whether it is news). */
interface SharedTicket {
  readonly shared: true;
  /** The bucket hash it was admitted under ('' = the route's bucket was not known). */
  readonly hash: string;
  /** The admission holds the bucket's discovery lock. */
  readonly locked: boolean;
  readonly limit: number | null;
  /** Remaining after this reservation (null when discovering). */
  readonly remaining: number | null;
  /** Local clock (ms) of the window's end as Redis had it, null when unknown. */
  readonly resetAt: number | null;
  readonly provisional: boolean;
}

interface FallbackTicket {
  readonly shared: false;
  readonly store: LocalRateLimits;
  readonly inner: unknown;
}

/** One response to record (sent in the order of the script's RECORD_FIELDS). */
interface PendingRecord {
  /** Unique within this process (the invalid log's member is `<process>:<id>`). */
  id: number;
  identity: string;
  routeId: string;
  major: string;
  admitted: string;
  hash: string;
  limit: number;
  remaining: number;
  resetAfterMs: number;
  /** Local clock when the response arrived: resetAfter is shortened by the time the record waited. */
  at: number;
  /** 0 none, 1 a 429 holding the bucket, 2 a global 429. */
  kind: number;
  retryAfterMs: number;
  invalid: boolean;
  locked: boolean;
}

const VIEW_CAP = 4096;

export class SharedRateLimits implements RateLimitStore {
  readonly invalidLimit: number;
  readonly invalidWindowMs: number;
  readonly memberId: string;
  private readonly redis: ScriptedRedis;
  private readonly ns: string;
  private readonly globalLimit: number;
  private readonly globalWindowMs: number;
  private readonly timeoutMs: number;
  private readonly flushDelayMs: number;
  private readonly probeMs: number;
  private readonly lockMs: number;
  private readonly log: Logger | undefined;
  private readonly listeners: Array<(count: number) => void> = [];
  private readonly views = new Map<string, { limit: number | null; remaining: number | null; resetAt: number | null }>();
  private readonly pendingCalls = new Set<{ timer: NodeJS.Timeout; reject: (e: Error) => void }>();
  private pending: PendingRecord[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private readonly heartbeatTimer: NodeJS.Timeout;
  private fallback: LocalRateLimits | null = null;
  private live = 1;
  private seq = 0;
  private lastInvalid = 0;
  private closed = false;
  private readonly counters: SharedRateLimitsStats = { reservations: 0, flushes: 0, records: 0, fallbacks: 0 };

  constructor(options: SharedRateLimitsOptions) {
    if (typeof options.namespace !== 'string' || options.namespace === '') throw new TypeError('shared REST limits: namespace must be a non-empty string');
    this.redis = withRestScripts(options.redis);
    this.ns = options.namespace;
    this.globalLimit = options.globalLimit ?? 50;
    this.globalWindowMs = options.globalWindowMs ?? 1000;
    this.invalidLimit = options.invalidRequestLimit ?? 9000;
    this.invalidWindowMs = options.invalidRequestWindowMs ?? 600_000;
    if (!Number.isInteger(this.globalLimit) || this.globalLimit < 1) throw new RangeError('global limit must be a positive integer');
    if (!Number.isInteger(this.invalidLimit) || this.invalidLimit < 1) throw new RangeError('invalid-request limit must be a positive integer');
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.flushDelayMs = options.flushDelayMs ?? 20;
    this.probeMs = options.probeMs ?? 1000;
    this.lockMs = options.discoveryLockMs ?? 5000;
    this.memberId = options.memberId ?? randomBytes(8).toString('hex');
    this.log = options.logger?.child({ component: 'rest' });
    const heartbeatMs = options.heartbeatMs ?? 5000;
    this.heartbeat(heartbeatMs * 3);
    this.heartbeatTimer = setInterval(() => this.heartbeat(heartbeatMs * 3), heartbeatMs);
    this.heartbeatTimer.unref();
  }

  get mode(): string {
    return this.fallback === null ? 'shared' : 'shared-fallback';
  }

  /** Processes sharing the limits, as last seen (the N of the fallback). */
  get processes(): number {
    return this.live;
  }

  stats(): SharedRateLimitsStats {
    return { ...this.counters };
  }

  admit(key: LimitKey, hash: string | null): Admission | Promise<Admission> {
    if (this.fallback !== null) return this.admitLocally(this.fallback, key, hash);
    const records = this.takePending();
    const args: Array<string | number> = [this.ns, 'r', this.memberId, this.invalidLimit, this.invalidWindowMs, records.length];
    pushRecords(args, records);
    args.push(
      key.identity,
      key.routeId,
      key.major,
      hash ?? '',
      key.globalExempt ? '1' : '0',
      this.globalLimit,
      this.globalWindowMs,
      `${this.memberId}:${++this.seq}`,
      this.lockMs,
    );
    this.counters.reservations++;
    this.counters.records += records.length;
    return this.call(args).then(
      (reply) => this.onReservation(key, reply),
      (error: unknown): Admission => {
        this.enterFallback(error, records);
        // Closed meanwhile: the client settles the request when it asks again.
        if (this.fallback === null) return { kind: 'wait', ms: 1, scope: 'global', hash };
        return this.admitLocally(this.fallback, key, hash);
      },
    );
  }

  report(key: LimitKey, ticket: unknown, report: LimitReport): void {
    const t = ticket as SharedTicket | FallbackTicket | null;
    if (t === null || typeof t !== 'object') return;
    if (!t.shared) {
      t.store.report(key, t.inner, report);
      return;
    }
    if (this.closed) return;
    const { info, limited } = report;
    if (this.fallback !== null) {
      // Redis is away: what this response says holds this process back now; Redis hears of it no more.
      const invalidHere = limited !== null ? limited.scope !== 'shared' : report.status === 401 || report.status === 403;
      this.feedFallback(this.fallback, key.identity, limited?.global === true ? limited.retryAfterMs : null, invalidHere);
      return;
    }
    const invalid = limited !== null ? limited.scope !== 'shared' : report.status === 401 || report.status === 403;
    const urgent = t.locked || limited !== null;
    if (!urgent && !invalid && !this.isNews(t, report)) return;
    const exemptGlobal = limited !== null && limited.global && key.globalExempt;
    this.pending.push({
      id: ++this.seq,
      identity: key.identity,
      routeId: key.routeId,
      major: key.major,
      admitted: t.hash,
      hash: info.bucket ?? '',
      limit: info.limit ?? -1,
      remaining: info.remaining ?? -1,
      resetAfterMs: info.resetAfterMs ?? -1,
      at: report.at,
      kind: limited === null ? 0 : limited.global ? 2 : 1,
      retryAfterMs: limited?.retryAfterMs ?? 0,
      invalid,
      locked: t.locked,
    });
    // A global 429 on an exempt route holds that route's bucket as well.
    if (exemptGlobal) this.pending.push({ ...this.pending[this.pending.length - 1]!, kind: 1, invalid: false, locked: false });
    if (urgent) this.flush();
    else this.scheduleFlush();
  }

  bucket(key: LimitKey, hash: string | null): BucketView | null {
    if (this.fallback !== null) return this.fallback.bucket(key, hash);
    const view = this.views.get(bucketKey(key, hash));
    if (view === undefined) return null;
    const now = performance.now();
    return {
      limit: view.limit,
      remaining: view.remaining,
      resetInMs: view.resetAt !== null && view.resetAt > now ? view.resetAt - now : null,
    };
  }

  invalidCount(): number {
    return this.fallback !== null ? this.fallback.invalidCount() : this.lastInvalid;
  }

  onInvalid(listener: (count: number) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeatTimer);
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.probeTimer !== null) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    for (const call of this.pendingCalls) {
      clearTimeout(call.timer);
      call.reject(new Error('shared REST limits closed'));
    }
    this.pendingCalls.clear();
    // Best effort, no timer: what is still unrecorded goes out, and this process leaves the registry.
    if (this.fallback === null && this.pending.length > 0) {
      const records = this.takePending();
      const args: Array<string | number> = [this.ns, 'f', this.memberId, this.invalidLimit, this.invalidWindowMs, records.length];
      pushRecords(args, records);
      this.redis.ghRestLimit(...args).catch(() => undefined);
    }
    this.redis.zrem(`${this.ns}:members`, this.memberId).catch(() => undefined);
    this.fallback?.close();
  }

  // ---------------------------------------------------------------------------------------------------

  private onReservation(key: LimitKey, reply: unknown): Admission {
    const r = reply as [number, string, number, number, number, number, number?];
    const code = Number(r[0]);
    const hash = typeof r[1] === 'string' && r[1] !== '' ? r[1] : null;
    this.noteInvalid(Number(r[5]));
    switch (code) {
      case 0: {
        const discovering = Number(r[4]) === 2;
        const now = performance.now();
        const limit = r[6] !== undefined && r[6] !== null ? Number(r[6]) : null;
        const remaining = discovering ? null : Number(r[2]);
        const resetIn = Number(r[3]);
        const resetAt = resetIn >= 0 ? now + resetIn : null;
        this.remember(bucketKey(key, hash), { limit, remaining, resetAt });
        const ticket: SharedTicket = {
          shared: true,
          hash: hash ?? '',
          locked: discovering,
          limit,
          remaining,
          resetAt,
          provisional: Number(r[4]) === 1,
        };
        return { kind: 'go', hash, ticket };
      }
      case 1:
        this.remember(bucketKey(key, hash), { limit: this.views.get(bucketKey(key, hash))?.limit ?? null, remaining: 0, resetAt: performance.now() + Number(r[2]) });
        return { kind: 'wait', ms: Math.max(1, Number(r[2])), scope: 'bucket', hash };
      case 2:
        return { kind: 'wait', ms: Math.max(1, Number(r[2])), scope: 'global', hash };
      case 3:
        return { kind: 'wait', ms: Math.max(1, Number(r[2])), scope: 'discovery', hash };
      case 4:
        this.lastInvalid = Math.max(this.lastInvalid, Number(r[3]));
        return { kind: 'refuse', retryAfterMs: Math.max(1, Number(r[2])), count: Number(r[3]), limit: this.invalidLimit };
      default:
        throw new Error(`shared REST limits: unexpected reply ${String(code)}`);
    }
  }

  /** Whether a response says something Redis does not know yet. */
  private isNews(t: SharedTicket, report: LimitReport): boolean {
    const info = report.info;
    if (info.bucket !== null && info.bucket !== t.hash) return true;
    if (info.limit !== null && info.limit !== t.limit) return true;
    if (info.remaining !== null && t.remaining !== null && info.remaining < t.remaining) return true;
    if (info.resetAfterMs !== null) {
      if (t.provisional || t.resetAt === null) return true;
      // Both figures are the service's window end, seen with different delays: news only when they differ by more.
      if (Math.abs(report.at + info.resetAfterMs - t.resetAt) > 100) return true;
    }
    return false;
  }

  private noteInvalid(count: number): void {
    if (!(count >= 0)) return;
    this.lastInvalid = count;
    for (const listener of this.listeners) listener(count);
  }

  private remember(key: string, view: { limit: number | null; remaining: number | null; resetAt: number | null }): void {
    if (this.views.size >= VIEW_CAP && !this.views.has(key)) this.views.clear();
    this.views.set(key, view);
  }

  private admitLocally(store: LocalRateLimits, key: LimitKey, hash: string | null): Admission {
    const a = store.admit(key, hash);
    if (a.kind !== 'go') return a;
    const ticket: FallbackTicket = { shared: false, store, inner: a.ticket };
    return { kind: 'go', hash: a.hash, ticket };
  }

  private takePending(): PendingRecord[] {
    if (this.pending.length === 0) return EMPTY;
    const records = this.pending;
    this.pending = [];
    if (this.flushTimer !== null) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    return records;
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== null || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, this.flushDelayMs);
    this.flushTimer.unref();
  }

  /** Send what is pending now, on its own. */
  private flush(): void {
    if (this.closed || this.fallback !== null) return;
    const records = this.takePending();
    if (records.length === 0) return;
    const args: Array<string | number> = [this.ns, 'f', this.memberId, this.invalidLimit, this.invalidWindowMs, records.length];
    pushRecords(args, records);
    this.counters.flushes++;
    this.counters.records += records.length;
    this.call(args).then(
      (reply) => this.noteInvalid(Number((reply as unknown[])[5])),
      (error: unknown) => this.enterFallback(error, records),
    );
  }

  /** A script call bounded by `timeoutMs` (the connection may queue commands while it reconnects). */
  private call(args: Array<string | number>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('shared REST limits closed'));
    return new Promise((resolve, reject) => {
      const entry = {
        timer: setTimeout(() => {
          this.pendingCalls.delete(entry);
          reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`));
        }, this.timeoutMs),
        reject,
      };
      this.pendingCalls.add(entry);
      this.redis.ghRestLimit(...args).then(
        (value) => {
          if (!this.pendingCalls.delete(entry)) return;
          clearTimeout(entry.timer);
          resolve(value);
        },
        (error: unknown) => {
          if (!this.pendingCalls.delete(entry)) return;
          clearTimeout(entry.timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private enterFallback(error: unknown, records: readonly PendingRecord[]): void {
    if (this.closed) return;
    if (this.fallback === null) {
      const n = Math.max(1, this.live);
      this.fallback = new LocalRateLimits({
        globalLimit: Math.max(1, Math.floor(this.globalLimit / n)),
        globalWindowMs: this.globalWindowMs,
        invalidRequestLimit: Math.max(1, Math.floor(Math.max(1, this.invalidLimit - this.lastInvalid) / n)),
        invalidRequestWindowMs: this.invalidWindowMs,
        share: 1 / n,
      });
      for (const listener of this.listeners) this.fallback.onInvalid(listener);
      this.counters.fallbacks++;
      this.log?.warn(
        { processes: n, err: error instanceof Error ? error.message : String(error) },
        `Redis is unreachable: REST limits fall back to this process alone at 1/${n} of each limit until it answers again`,
      );
      this.scheduleProbe();
    }
    // What the unsent records said (and what was still waiting to be sent) still holds this process back.
    const unsent = [...records, ...this.takePending()];
    for (const r of unsent) this.feedFallback(this.fallback, r.identity, r.kind === 2 ? r.retryAfterMs : null, r.invalid);
  }

  private feedFallback(store: LocalRateLimits, identity: string, globalPauseMs: number | null, invalid: boolean): void {
    if (globalPauseMs !== null) store.pauseGlobal(identity, globalPauseMs);
    if (invalid) store.countInvalid();
  }

  private scheduleProbe(): void {
    if (this.closed || this.probeTimer !== null) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      if (this.closed) return;
      const args: Array<string | number> = [this.ns, 'f', this.memberId, this.invalidLimit, this.invalidWindowMs, 0];
      this.call(args).then(
        () => {
          if (this.closed || this.fallback === null) return;
          const local = this.fallback;
          this.fallback = null;
          local.close();
          this.log?.info('Redis answers again: REST limits are shared again');
        },
        () => this.scheduleProbe(),
      );
    }, this.probeMs);
    this.probeTimer.unref();
  }

  private heartbeat(ttlMs: number): void {
    if (this.closed) return;
    this.redis.ghRestMembers(`${this.ns}:members`, this.memberId, ttlMs).then(
      (live) => {
        const n = Number(live);
        if (Number.isInteger(n) && n >= 1) this.live = n;
      },
      () => undefined, // the reservations notice an outage; the last count stands
    );
  }
}

const EMPTY: PendingRecord[] = [];

function pushRecords(args: Array<string | number>, records: readonly PendingRecord[]): void {
  const now = performance.now();
  for (const r of records) {
    // A record that waited: the window's end is that much closer.
    const resetAfter = r.resetAfterMs < 0 ? -1 : Math.max(0, Math.round(r.resetAfterMs - (now - r.at)));
    args.push(
      r.identity,
      r.routeId,
      r.major,
      r.admitted,
      r.hash,
      r.limit,
      r.remaining,
      resetAfter,
      r.kind,
      Math.ceil(r.retryAfterMs),
      r.invalid ? '1' : '0',
      r.id,
      r.locked ? '1' : '0',
    );
  }
}

/** Define the scripts on a connection (idempotent); ioredis falls back from EVALSHA to EVAL by itself. */
export function withRestScripts(redis: Redis): ScriptedRedis {
  for (const [name, lua] of Object.entries(REST_LIMIT_SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: 0, lua });
  }
  return redis as ScriptedRedis;
}
