/**
 * The REST limits of every process of one bot, kept in Redis: per-route buckets (with major parameters),
 * the global limit, 429 waits of every scope and the invalid-request budget. N processes together stay
 * within one bot's limits instead of N times them.
 *
 * Cost: one script call (one round trip) per request while requests keep coming. The call records what this
 * process's earlier responses said and where its global slots stand (a slot counts until a window after its
 * response: ../rate-limits.ts), then reserves the slots for the next request. Records ride on the next
 * reservation; what others may be waiting for goes on its own in the same turn when no reservation takes it
 * (the end of a discovery, a 429), news after `flushDelayMs`, and slot releases after `releaseFlushMs` (or
 * `flushDelayMs` while the global window is nearly full). When the window is full and the slot that frees next
 * is known, the script books it for the request, which then waits here instead of asking again.
 *
 * Order stays per process: the client's queues and its gate decide which request asks next; Redis decides
 * when it may go. Discovery is fleet-wide: while nothing is known of a bucket, one request of the whole fleet
 * goes first, holding a lock that is a lease (`discoveryLockMs`, renewed while the request is out), and the
 * others wait for its headers: woken on the `<ns>:wake` channel when it ends (wake.ts), or when the lease of a
 * holder that died runs out.
 *
 * Redis unreachable (a lost connection, an error, or no answer within `timeoutMs`): the store falls back to
 * this process's own limits at 1/N of each (N = the most processes seen sharing them lately; a joining process
 * announces itself, so N is current; a process that never heard from Redis can only count itself), warns once, tries Redis again every `probeMs`, and shares again when it
 * answers. The fallback counts on from what this process sent (`own`, kept in every mode), and since the rest
 * of the fleet's last window is not known, nothing under the global limit goes until a window after Redis
 * was lost. Coming back, the process writes its slots of the last window to Redis (a restarted Redis is
 * empty) and keeps within its share as well for `probeMs` more, while the others may still be on theirs.
 *
 * The Redis connection is the caller's (not closed here); give it an 'error' listener. A duplicate of it
 * subscribes to the wake channel (opened and closed here).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { GlobalLimiter, type GlobalSlot } from '../global-limiter.js';
import { LocalRateLimits, type LocalTicket } from '../local-rate-limits.js';
import { bucketKey, type Admission, type BucketView, type LimitKey, type LimitReport, type RateLimitStore } from '../rate-limits.js';
import { LimitedKind, Mode, Reply, REST_LIMIT_SCRIPTS } from './scripts.js';
import { limitArgs, parseLimitReply, type LimitReply, type Reservation, type ResponseRecord, type SlotUpdate } from './script-args.js';
import { RecentMax } from './recent-max.js';
import { WakeChannel } from './wake.js';

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
  /** Longest a record of news waits for a reservation to ride on. Default 20. */
  flushDelayMs?: number;
  /** Longest a slot's release waits for a reservation to ride on while the global window has room. Default 250. */
  releaseFlushMs?: number;
  /** While falling back, how often Redis is tried again. Default 1000. */
  probeMs?: number;
  /** How often this process says it is alive (the N of the fallback). Default 5000. */
  heartbeatMs?: number;
  /** Lease of a discovery lock, renewed every third of it while its request is out. Default 1000. */
  discoveryLockMs?: number;
  /**
   * How long a global slot whose request is out is held without news of its response, renewed like the locks:
   * the slots of a process that died free this long (and a window) after it. Default 2000.
   */
  slotLeaseMs?: number;
  /** Listen on the wake channel (discoveries ending, processes joining). Default true. */
  subscribe?: boolean;
  /** Unique per process. Default: random. */
  memberId?: string;
  logger?: Logger;
}

export interface SharedRateLimitsStats {
  /** Script calls that reserved a slot (each one round trip, records riding on them included). */
  reservations: number;
  /** Script calls that only recorded (no reservation came in time to carry them). */
  flushes: number;
  /** Response records carried (on reservations or flushes). */
  records: number;
  /** Times the store fell back to local limits. */
  fallbacks: number;
  /** Calls renewing discovery locks, or global slots whose requests are out longer than half their lease. */
  renewals: number;
}

type ScriptedRedis = Redis & {
  ghRestLimit(...args: Array<string | number>): Promise<unknown>;
  ghRestRenew(...args: Array<string | number>): Promise<unknown>;
  ghRestMembers(...args: Array<string | number>): Promise<unknown>;
};

/** What a reservation told this process (compared with the response to decide whether it is news). */
interface SharedTicket {
  readonly shared: true;
  /** The bucket hash it was admitted under ('' = the route's bucket was not known). */
  readonly hash: string;
  /** The discovery lock this request holds (its key below `<ns>:d:`), or null. */
  readonly lock: string | null;
  readonly limit: number | null;
  /** Remaining after this reservation (null when discovering). */
  readonly remaining: number | null;
  /** Local clock (ms) of the window's end as Redis had it, null when unknown. */
  readonly resetAt: number | null;
  readonly provisional: boolean;
  /** Its global slot (null when exempt). */
  readonly slot: GlobalSlot | null;
}

interface FallbackTicket {
  readonly shared: false;
  readonly store: LocalRateLimits;
  readonly inner: LocalTicket;
}

interface View {
  limit: number | null;
  remaining: number | null;
  resetAt: number | null;
}

const VIEW_CAP = 4096;
/**
 * How long a release waits for a ride while requests wait for global slots: they look for it about 100 ms
 * after its request went out (scripts.ts), so it should be in Redis by then; riding saves a call.
 */
const CONTENDED_RELEASE_MS = 50;
const EMPTY: never[] = [];

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
  private readonly releaseFlushMs: number;
  private readonly probeMs: number;
  private readonly lockMs: number;
  private readonly slotLeaseMs: number;
  private readonly memberTtlMs: number;
  private readonly log: Logger | undefined;
  private readonly listeners: Array<(count: number) => void> = [];
  private readonly views = new Map<string, View>();
  /** Identity -> local time a global 429 seen by this process ends. */
  private readonly pausedUntil = new Map<string, number>();
  private readonly pendingCalls = new Set<{ timer: NodeJS.Timeout; reject: (e: Error) => void }>();
  /** Every global slot this process took, shared or not: the fallback counts on from it, the recovery writes it back. */
  private readonly own: GlobalLimiter;
  /** How long this process's granted requests took to be answered lately (grant to response, local clock). */
  private readonly answerTime = new RecentMax(5000);
  /** Discovery locks this process holds (keys below `<ns>:d:`) while their requests are out. */
  private readonly locks = new Set<string>();
  private readonly wake: WakeChannel | null;
  private readonly heartbeatTimer: NodeJS.Timeout;
  private readonly renewTimer: NodeJS.Timeout;
  private records: ResponseRecord[] = [];
  /** A pending record could cost a 429 if Redis heard of it late: flushed after `flushDelayMs` at the latest. */
  private riskyRecords = false;
  private slots: SlotUpdate[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushDue = Infinity;
  private flushNow: NodeJS.Immediate | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private fallback: LocalRateLimits | null = null;
  /** Back from a fallback: until then this process also keeps within its share (the others may still be on theirs). */
  private trailingUntil = 0;
  private live = 1;
  /** The last reservation of a global slot had to wait for one or book one ahead. */
  private contended = false;
  private peak = { processes: 1, at: 0 };
  private lastInvalid = 0;
  private seq = 0;
  private closed = false;
  private readonly counters: SharedRateLimitsStats = { reservations: 0, flushes: 0, records: 0, fallbacks: 0, renewals: 0 };

  constructor(options: SharedRateLimitsOptions) {
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
    this.releaseFlushMs = options.releaseFlushMs ?? 250;
    this.probeMs = options.probeMs ?? 1000;
    this.lockMs = options.discoveryLockMs ?? 1000;
    this.slotLeaseMs = options.slotLeaseMs ?? 2000;
    this.memberId = options.memberId ?? randomBytes(8).toString('hex');
    this.log = options.logger?.child({ component: 'rest' });
    this.own = new GlobalLimiter(this.globalLimit, this.globalWindowMs);
    this.wake = options.subscribe === false ? null : new WakeChannel(options.redis, `${this.ns}:wake`, (n) => this.noteLive(n));
    const heartbeatMs = options.heartbeatMs ?? 5000;
    this.memberTtlMs = heartbeatMs * 3;
    this.heartbeat();
    this.heartbeatTimer = setInterval(() => this.heartbeat(), heartbeatMs);
    this.heartbeatTimer.unref();
    this.renewTimer = setInterval(() => this.renew(), Math.max(50, Math.min(this.lockMs, this.slotLeaseMs) / 3));
    this.renewTimer.unref();
  }

  get mode(): string {
    return this.fallback === null ? 'shared' : 'shared-fallback';
  }

  /** Processes sharing the limits, as last seen. */
  get processes(): number {
    return this.live;
  }

  stats(): SharedRateLimitsStats {
    return { ...this.counters };
  }

  admit(key: LimitKey, hash: string | null): Admission | Promise<Admission> {
    if (this.fallback === null && isDown(this.redis)) this.enterFallback(new Error(`the connection is ${this.redis.status}`));
    if (this.fallback !== null) return this.admitLocally(this.fallback, key, hash);
    if (!key.globalExempt && performance.now() < this.trailingUntil) {
      const ms = this.own.delay(key.identity);
      if (ms > 0) return { kind: 'wait', ms, scope: 'global', hash };
    }
    const slot = key.globalExempt ? null : this.own.take(key.identity);
    const reservation: Reservation = { key, localHash: hash ?? '', globalLimit: this.globalLimit, slot: slot?.id ?? 0, lockMs: this.lockMs };
    this.counters.reservations++;
    const askedAt = performance.now();
    return this.send(Mode.Reserve, reservation).then(
      (reply) => this.onReservation(key, slot, reply, askedAt),
      (): Admission => {
        if (slot !== null) this.own.release(slot, null);
        // Closed meanwhile: the client settles the request when it asks again.
        if (this.fallback === null) return { kind: 'wait', ms: 1, scope: 'global', hash };
        return this.admitLocally(this.fallback, key, hash);
      },
    );
  }

  report(key: LimitKey, ticket: unknown, report: LimitReport): void {
    const t = ticket as SharedTicket | FallbackTicket | null;
    if (t === null || typeof t !== 'object') return;
    const releasedAt = report.sent ? report.at : null;
    if (!t.shared) {
      t.store.report(key, t.inner, report);
      // Admitted while Redis was away, answered since it is back: Redis hears of the slot now.
      if (t.inner.slot !== null && this.fallback === null && !this.closed) this.queueSlot(t.inner.slot.identity, t.inner.slot.id, releasedAt ?? 'never-sent');
      return;
    }
    if (t.slot !== null) {
      this.own.release(t.slot, releasedAt);
      if (releasedAt !== null) this.answerTime.note(releasedAt - t.slot.outSince);
    }
    if (t.lock !== null) this.locks.delete(t.lock);
    if (this.closed) return;
    const { limited } = report;
    const invalid = limited !== null ? limited.scope !== 'shared' : report.status === 401 || report.status === 403;
    if (this.fallback !== null) {
      // Redis is away: what this response says holds this process back now; Redis hears of it no more.
      this.feedFallback(this.fallback, key.identity, limited?.global === true ? limited.retryAfterMs : null, invalid);
      return;
    }
    if (t.slot !== null) this.queueSlot(t.slot.identity, t.slot.id, releasedAt ?? 'never-sent');
    // Others may be waiting for these: the end of a discovery, a 429.
    const urgent = t.lock !== null || limited !== null;
    const news = urgent || invalid ? 'risk' : this.news(t, report);
    if (news !== 'none') this.queueRecord(key, t, report, invalid);
    if (news === 'risk') this.riskyRecords = true;
    // A release matters to the others while they wait for slots (they look for it to book the next window's),
    // though less than news that could cost a 429.
    this.scheduleFlush(urgent ? 0 : this.riskyRecords ? this.flushDelayMs : this.contended ? CONTENDED_RELEASE_MS : this.releaseFlushMs);
  }

  /** A booked request about to go: not if the fleet's invalid budget ran out or a global 429 came meanwhile. */
  confirm(key: LimitKey, ticket: unknown): boolean {
    const t = ticket as SharedTicket | FallbackTicket | null;
    if (t === null || typeof t !== 'object' || !t.shared || this.closed) return true;
    // Booked by Redis for the fleet's schedule, which nobody keeps while it is away: the others, on their own
    // shares, do not know of this booking. Asked again, it goes under this process's share and the hold (a
    // process that had booked most of the next window sent it on top of the others' shares: global 429s
    // in test/rest/fleet-wire.test.ts).
    if (this.fallback === null && isDown(this.redis)) this.enterFallback(new Error(`the connection is ${this.redis.status}`));
    if (this.fallback !== null) return false;
    if (this.lastInvalid >= this.invalidLimit) return false;
    return !(performance.now() < (this.pausedUntil.get(key.identity) ?? 0));
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
    clearInterval(this.renewTimer);
    this.cancelFlush();
    if (this.probeTimer !== null) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    for (const call of this.pendingCalls) {
      clearTimeout(call.timer);
      call.reject(new Error('shared REST limits closed'));
    }
    this.pendingCalls.clear();
    // Best effort, no timer: what is still unrecorded goes out, and this process leaves the registry.
    if (this.fallback === null && (this.records.length > 0 || this.slots.length > 0)) {
      this.redis.ghRestLimit(...this.argsFor(Mode.Record)).catch(() => undefined);
    }
    this.redis.zrem(`${this.ns}:members`, this.memberId).catch(() => undefined);
    this.fallback?.close();
    this.wake?.close();
  }

  // ---------------------------------------------------------------------------------------------------

  private onReservation(key: LimitKey, slot: GlobalSlot | null, reply: LimitReply, askedAt: number): Admission {
    this.noteLive(reply.live);
    this.noteInvalid(reply.invalidCount);
    const hash = reply.hash;
    if (reply.code === Reply.Go) return this.granted(key, slot, reply);
    // Not admitted: the slot was never taken in Redis.
    if (slot !== null) this.own.release(slot, null);
    const ms = Math.max(1, reply.remainingOrMs);
    switch (reply.code) {
      case Reply.Bucket:
        if (reply.remainingOrMs > 0) this.remember(bucketKey(key, hash), { limit: this.views.get(bucketKey(key, hash))?.limit ?? null, remaining: 0, resetAt: performance.now() + ms });
        return { kind: 'wait', ms, scope: 'bucket', hash };
      case Reply.Global:
        this.contended = true;
        return { kind: 'wait', ms, scope: 'global', hash };
      case Reply.Discovery: {
        const wake = this.wake?.wait(`d ${bucketKey(key, hash)}`, ms, askedAt);
        return wake === undefined ? { kind: 'wait', ms, scope: 'discovery', hash } : { kind: 'wait', ms, scope: 'discovery', hash, wake };
      }
      case Reply.Refuse:
        this.lastInvalid = Math.max(this.lastInvalid, reply.resetInOrCount);
        return { kind: 'refuse', retryAfterMs: ms, count: reply.resetInOrCount, limit: this.invalidLimit };
      default:
        throw new Error(`shared REST limits: unexpected reply ${String(reply.code)}`);
    }
  }

  private granted(key: LimitKey, slot: GlobalSlot | null, reply: LimitReply): Admission {
    const now = performance.now();
    const hash = reply.hash;
    const remaining = reply.discovering ? null : reply.remainingOrMs;
    const resetAt = !reply.discovering && reply.resetInOrCount >= 0 ? now + reply.resetInOrCount : null;
    this.remember(bucketKey(key, hash), { limit: reply.limit, remaining, resetAt });
    const lock = reply.discovering ? bucketKey(key, hash) : null;
    if (lock !== null) this.locks.add(lock);
    // Contention: this process books slots ahead (or, below, is told to wait), so others likely do too.
    if (reply.free >= 0) this.contended = reply.delayMs > 0;
    if (slot !== null && reply.delayMs > 0) slot.outSince = now + reply.delayMs;
    const ticket: SharedTicket = { shared: true, hash: hash ?? '', lock, limit: reply.limit, remaining, resetAt, provisional: reply.provisional, slot };
    if (reply.free < 0) return { kind: 'go', hash, ticket };
    // Room in the window, shared among the processes; a booking leaves none, so the next asks one at a time.
    const parallel = reply.delayMs > 0 ? 1 : Math.max(1, Math.floor(reply.free / Math.max(1, this.live)));
    return { kind: 'go', hash, ticket, delayMs: reply.delayMs, parallel };
  }

  /**
   * What a response says that Redis does not know yet: 'risk' when not knowing it soon could cost a 429 (a
   * bucket learnt, another limit, the service counting more than the fleet did, a window ending later than Redis
   * thinks), 'refine' when it only sharpens what Redis has (when a provisional window really ends), 'none'.
   * Refinements ride on later calls.
   */
  private news(t: SharedTicket, report: LimitReport): 'risk' | 'refine' | 'none' {
    const info = report.info;
    if (info.bucket !== null && info.bucket !== t.hash) return 'risk';
    if (info.limit !== null && info.limit !== t.limit) return 'risk';
    if (info.remaining !== null && t.remaining !== null && info.remaining < t.remaining) {
      // Each process runs one request of a bucket at a time, so the fleet's may reach the service in another
      // order than Redis admitted them: up to one per other process. Beyond that the service counted requests
      // Redis did not (the record lowers what Redis has left either way).
      if (info.remaining < t.remaining - Math.max(0, this.live - 1)) return 'risk';
      return 'refine';
    }
    if (info.resetAfterMs !== null) {
      if (t.provisional || t.resetAt === null) return 'refine';
      // Both figures are the service's window end, seen with different delays: news only when they differ by
      // more; a window that ends later than Redis thinks would let it open the next one too soon.
      const end = report.at + info.resetAfterMs;
      if (end - t.resetAt > 100) return 'risk';
      if (t.resetAt - end > 100) return 'refine';
    }
    return 'none';
  }

  private queueRecord(key: LimitKey, t: SharedTicket, report: LimitReport, invalid: boolean): void {
    const { info, limited } = report;
    const record: ResponseRecord = {
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
      kind: limited === null ? LimitedKind.None : limited.global ? LimitedKind.Global : LimitedKind.Bucket,
      retryAfterMs: limited?.retryAfterMs ?? 0,
      invalid,
      locked: t.lock !== null,
    };
    this.records.push(record);
    if (record.kind === LimitedKind.Global) this.notePause(key.identity, record.retryAfterMs);
    // A global 429 on an exempt route holds that route's bucket as well.
    if (limited !== null && limited.global && key.globalExempt) this.records.push({ ...record, kind: LimitedKind.Bucket, invalid: false, locked: false });
  }

  private queueSlot(identity: string, slot: number, releasedAt: SlotUpdate['releasedAt']): void {
    this.slots.push({ identity, slot, releasedAt });
  }

  /** A global 429 this process saw: requests booked before it must not go until it ends (see confirm). */
  private notePause(identity: string, ms: number): void {
    if (this.pausedUntil.size >= VIEW_CAP) this.pausedUntil.clear();
    this.pausedUntil.set(identity, Math.max(this.pausedUntil.get(identity) ?? 0, performance.now() + ms));
  }

  private noteInvalid(count: number): void {
    if (!(count >= 0)) return;
    this.lastInvalid = count;
    for (const listener of this.listeners) listener(count);
  }

  /** The processes sharing the limits, as Redis counts them (every reply) or as a joining one announced. */
  private noteLive(processes: number): void {
    if (!Number.isInteger(processes) || processes < 1) return;
    this.live = processes;
    const now = performance.now();
    if (processes >= this.peak.processes || now - this.peak.at > this.memberTtlMs) this.peak = { processes, at: now };
  }

  /** N of the fallback: the most processes seen lately (a restarted Redis counts them again only as they come back). */
  private fleetSize(): number {
    const recentPeak = performance.now() - this.peak.at <= this.memberTtlMs ? this.peak.processes : 1;
    return Math.max(1, this.live, recentPeak);
  }

  private remember(key: string, view: View): void {
    if (this.views.size >= VIEW_CAP && !this.views.has(key)) this.views.clear();
    this.views.set(key, view);
  }

  private admitLocally(store: LocalRateLimits, key: LimitKey, hash: string | null): Admission {
    const a = store.admit(key, hash);
    if (a.kind !== 'go') return a;
    const ticket: FallbackTicket = { shared: false, store, inner: a.ticket as LocalTicket };
    return { ...a, ticket };
  }

  /** The arguments of a call carrying everything pending (which is taken: it rides on this call). */
  private argsFor(mode: Mode, reservation?: Reservation, slots: readonly SlotUpdate[] = EMPTY): Array<string | number> {
    const records = this.records;
    const pendingSlots = slots.length > 0 ? [...this.slots, ...slots] : this.slots;
    this.records = [];
    this.riskyRecords = false;
    this.slots = [];
    this.cancelFlush();
    this.counters.records += records.length;
    return limitArgs(
      {
        ns: this.ns,
        mode,
        token: this.memberId,
        invalidLimit: this.invalidLimit,
        invalidWindowMs: this.invalidWindowMs,
        globalWindowMs: this.globalWindowMs,
        slotLeaseMs: this.slotLeaseMs,
        memberTtlMs: this.memberTtlMs,
        records,
        slots: pendingSlots,
        ...(reservation !== undefined ? { reservation } : {}),
      },
      performance.now(),
    );
  }

  /** One LIMIT call carrying everything pending; a failure falls back (what it carried still holds us back). */
  private send(mode: Mode, reservation?: Reservation): Promise<LimitReply> {
    const records = this.records;
    const args = this.argsFor(mode, reservation);
    return this.timed(this.redis.ghRestLimit(...args)).then(parseLimitReply, (error: unknown) => {
      this.enterFallback(error, records);
      throw error;
    });
  }

  /**
   * When the pending records and slots go on their own if no reservation takes them first: `delayMs` from now
   * (0: in this turn of the event loop, after the requests it lets go have asked).
   */
  private scheduleFlush(delayMs: number): void {
    if (this.closed || this.fallback !== null) return;
    if (delayMs <= 0) {
      this.flushNow ??= setImmediate(() => {
        this.flushNow = null;
        this.flush();
      });
      return;
    }
    const due = performance.now() + delayMs;
    if (this.flushTimer !== null && this.flushDue <= due) return;
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushDue = due;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flushDue = Infinity;
      this.flush();
    }, delayMs);
    this.flushTimer.unref();
  }

  private cancelFlush(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushDue = Infinity;
    if (this.flushNow !== null) clearImmediate(this.flushNow);
    this.flushNow = null;
  }

  /** Send what is pending now, on its own. */
  private flush(): void {
    if (this.closed || this.fallback !== null) return;
    if (this.records.length === 0 && this.slots.length === 0) return;
    this.counters.flushes++;
    this.send(Mode.Record).then(
      (reply) => {
        this.noteInvalid(reply.invalidCount);
        this.noteLive(reply.live);
      },
      () => undefined,
    );
  }

  /** Keep this process's discovery locks, and the slots of requests out for long, while their requests are out. */
  private renew(): void {
    if (this.closed || this.fallback !== null) return;
    if (this.locks.size > 0) {
      this.counters.renewals++;
      const keys = [...this.locks].map((suffix) => `${this.ns}:d:${suffix}`);
      this.timed(this.redis.ghRestRenew(this.memberId, this.lockMs, ...keys)).catch(() => undefined);
    }
    const now = performance.now();
    let old = 0;
    for (const slot of this.own.out()) {
      // Renewed once out half its lease: checked every third of the shorter lease, it never lapses.
      if (now - slot.outSince < this.slotLeaseMs / 2) continue;
      this.queueSlot(slot.identity, slot.id, 'out');
      old++;
    }
    if (old > 0) {
      this.counters.renewals++;
      this.flush();
    }
  }

  /** A call bounded by `timeoutMs` (the connection may queue commands while it reconnects). */
  private timed<T>(call: Promise<T>): Promise<T> {
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
      call.then(
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

  private enterFallback(error: unknown, records: readonly ResponseRecord[] = EMPTY): void {
    if (this.closed) return;
    if (this.fallback === null) this.fallBack(error);
    // What the unsent records said (and what was still waiting to be sent) still holds this process back.
    for (const r of [...records, ...this.records]) this.feedFallback(this.fallback!, r.identity, r.kind === LimitedKind.Global ? r.retryAfterMs : null, r.invalid);
    this.records = [];
    this.riskyRecords = false;
    this.slots = [];
    this.cancelFlush();
  }

  private fallBack(error: unknown): void {
    const n = this.fleetSize();
    const now = performance.now();
    // Counted on from what this process sent; the rest of the fleet's last window is not known here, so
    // nothing under the global limit goes until a window after the last request Redis admitted can have
    // arrived. Requests granted just before the loss still reach the service for a while after it (seen: a
    // fleet's last 50 grants arriving over 255 ms on a busy machine, then 3 global 429s when the hold ran from
    // the loss alone, test/rest/fleet-wire.test.ts): that delay is bounded by twice this process's recent
    // grant-to-answer time, the fleet's processes being alike, and at least a quarter of a window.
    const straggle = Math.min(5 * this.globalWindowMs, Math.max(this.globalWindowMs / 4, 2 * this.answerTime.value));
    this.own.setLimit(Math.max(1, Math.floor(this.globalLimit / n)));
    this.own.holdUntil(now + this.globalWindowMs + straggle);
    const fallback = new LocalRateLimits({
      global: this.own,
      globalWindowMs: this.globalWindowMs,
      invalidRequestLimit: Math.max(1, Math.floor(Math.max(1, this.invalidLimit - this.lastInvalid) / n)),
      invalidRequestWindowMs: this.invalidWindowMs,
      share: 1 / n,
    });
    for (const [key, view] of this.views) {
      if (view.limit !== null && view.remaining !== null && view.resetAt !== null) fallback.seedBucket(key, view.limit, view.remaining, view.resetAt);
    }
    for (const listener of this.listeners) fallback.onInvalid(listener);
    this.fallback = fallback;
    this.locks.clear();
    this.trailingUntil = 0;
    this.counters.fallbacks++;
    this.log?.warn(
      { processes: n, err: error instanceof Error ? error.message : String(error) },
      `Redis is unreachable: REST limits fall back to this process alone at 1/${n} of each limit until it answers again`,
    );
    this.scheduleProbe();
  }

  private feedFallback(store: LocalRateLimits, identity: string, globalPauseMs: number | null, invalid: boolean): void {
    if (globalPauseMs !== null) store.pauseGlobal(identity, globalPauseMs);
    if (invalid) store.countInvalid();
  }

  /** This process's slots of the last window, as Redis should hold them. */
  private heldSlots(): SlotUpdate[] {
    const out: SlotUpdate[] = [];
    for (const slot of this.own.held()) {
      out.push({ identity: slot.identity, slot: slot.id, releasedAt: Number.isNaN(slot.releasedAt) ? 'out' : slot.releasedAt });
    }
    return out;
  }

  private scheduleProbe(): void {
    if (this.closed || this.probeTimer !== null) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      if (this.closed) return;
      // The probe registers this process again and writes back its slots of the last window: a restarted
      // Redis is empty, and one that was only out of reach misses what was sent meanwhile.
      const args = this.argsFor(Mode.Rejoin, undefined, this.heldSlots());
      this.timed(this.redis.ghRestLimit(...args)).then(
        (raw) => this.recovered(parseLimitReply(raw)),
        () => this.scheduleProbe(),
      );
    }, this.probeMs);
    this.probeTimer.unref();
  }

  private recovered(reply: LimitReply): void {
    if (this.closed || this.fallback === null) return;
    const local = this.fallback;
    this.fallback = null;
    local.close();
    this.noteLive(reply.live);
    // What changed during the probe's round trip rides on the next call; the others come back within a probe.
    for (const s of this.heldSlots()) this.slots.push(s);
    if (this.slots.length > 0) this.scheduleFlush(this.flushDelayMs);
    this.trailingUntil = performance.now() + this.probeMs + this.timeoutMs;
    this.log?.info('Redis answers again: REST limits are shared again');
  }

  private heartbeat(): void {
    if (this.closed) return;
    this.redis.ghRestMembers(`${this.ns}:members`, this.memberId, this.memberTtlMs, `${this.ns}:wake`).then(
      (live) => this.noteLive(Number(live)),
      () => undefined, // the reservations notice an outage; the last count stands
    );
  }
}

/** A connection that is known to be down (not one still connecting for the first time). */
function isDown(redis: Redis): boolean {
  const status = redis.status;
  return status === 'reconnecting' || status === 'end' || status === 'close';
}

/** Define the scripts on a connection (idempotent); ioredis falls back from EVALSHA to EVAL by itself. */
export function withRestScripts(redis: Redis): ScriptedRedis {
  for (const [name, lua] of Object.entries(REST_LIMIT_SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: 0, lua });
  }
  return redis as ScriptedRedis;
}
