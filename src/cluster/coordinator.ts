/**
 * The cluster coordinator: what the runtime uses to share one bot between processes through Redis.
 *
 *   const coordinator = new ClusterCoordinator({ redis: url, prefix, totalShards: 4, shardIds: 'auto' });
 *   const sync = await coordinator.withCommandSyncLock(() => syncCommands(), { fingerprint });
 *   const owned = await coordinator.start();            // shard ids this process runs now
 *   manager = new ShardManager({ shardIds: owned, totalShards: 4,
 *     identifyQueue: (info) => coordinator.identifyQueue(info), sessionStore: coordinator.sessionStore, ... });
 *   await manager.start();
 *   coordinator.trackSessions(() => manager.sessions());  // periodic seq checkpoints
 *   coordinator.manage({ start: (id) => manager.addShard(id), stop: (id, why) => manager.removeShard(id, ...) });
 *   ...
 *   await coordinator.suspend(); await manager.close({ resumable: true }); await coordinator.stop();
 *
 * Ownership policy (auto mode). Every `renewMs` a tick (1) heartbeats the member registry, (2) renews this
 * process's leases in one script call, (3) reconciles: with `live` members the fair share is
 * ceil(total / live) (capped by `maxShardsPerProcess`); below it, free leases are claimed (lowest shard ids
 * first) and the shards started; above it, the highest ids are handed off: the shard is stopped (its
 * session saved while the lease is still held) and only then the lease is released, so the next owner
 * RESUMEs from the exact seq.
 *
 * Takeover after a crash. A dead process's registry entry and leases expire `leaseMs` after its last heartbeat
 * and renewal (the entry's TTL is the lease time and a tick heartbeats before it renews, so the entry never
 * outlives the leases: the dead member's share is freed no later than its shards). The heartbeat and claim
 * scripts answer when the next entry or lease of another member expires; when that comes before this
 * member's next tick, the tick is brought forward to just after it (one timer at most). A live peer renews
 * long before that moment, so the early tick only happens when a peer has stopped renewing; then the survivor
 * sees the larger share and the free leases at once: a shard is claimed within leaseMs (+ a few ms) of its
 * holder's last renewal, not a tick later.
 *
 * Explicit mode (`shardIds` a list): the process claims exactly those; a lease held by another process is
 * retried every tick (the leases only guard against two processes running the same shard). No sharing.
 *
 * Fencing. A lease whose renewal finds another value (or none) is lost: the shard is stopped at once
 * without saving anything (its new owner's session must not be overwritten) and `shardLost(id, 'fenced')`
 * is emitted. When Redis cannot be reached or stops answering, a lease counts as lost shortly (`leaseMs / 10`)
 * before its expiry (measured from when the last successful renewal was sent), since another process may hold
 * it after that; a watchdog timer enforces this even while a tick's calls hang. Timers alone cannot fence a
 * process that was stalled (GC, SIGSTOP): when it wakes, what its sockets buffered may be handled before any
 * timer runs. So the shards ask `shardFence` too (gateway/fence.ts): before handling anything, whether the
 * lease's local deadline still stands, and before every RESUME and IDENTIFY, atomically in Redis, whether the
 * lease is still this member's (extending it); a session checkpoint refused for not holding the lease fences
 * the shard as well.
 */
import { EventEmitter } from 'eventemitter3';
import type { Redis } from 'ioredis';
import { openRedis } from '../util/redis-connection.js';
import type { Logger } from 'pino';
import type { ShardFence } from '../gateway/fence.js';
import type { IdentifyQueue } from '../gateway/identify-queue.js';
import type { SessionState } from '../gateway/shard.js';
import {
  CommandSyncLock,
  type CommandSyncLockOptions,
  type CommandSyncLockResult,
  type CommandSyncRunOptions,
} from './command-sync-lock.js';
import { ClusterError, ShardCountMismatchError } from './errors.js';
import { RedisIdentifyQueue } from './redis-identify-queue.js';
import { ClusterKeys } from './keys.js';
import { fairShare, newMemberId, ShardLeases } from './leases.js';
import { RedisSessionStore } from './session-store.js';
import { sleep } from '../util/sleep.js';

/** Why a shard left this process: handed to another process on purpose, fenced off (lease lost), or failed to start. */
export type ShardLossReason = 'handoff' | 'fenced' | 'failed';

/** What the runtime does when ownership changes. */
export interface ShardHandler {
  /** Run a shard this process just gained; resolve once it runs. A rejection releases the lease. */
  start(shardId: number): Promise<void>;
  /**
   * Stop running a shard. 'handoff': the lease is still held, so close resumably and save the session.
   * 'fenced': the lease is gone; close without ending the session and save nothing.
   */
  stop(shardId: number, reason: 'handoff' | 'fenced'): Promise<void>;
}

export interface ClusterCoordinatorEvents {
  shardGained: [shardId: number];
  shardLost: [shardId: number, reason: ShardLossReason];
  /** The number of live members changed. */
  members: [live: number];
  error: [error: Error];
}

export interface ClusterCoordinatorOptions {
  /** A connection (not closed by stop()) or a redis:// URL (a connection is opened and closed by stop()). */
  redis: Redis | string;
  /** Key namespace; the runtime passes `<cluster.prefix>:{<application id>}` (see keys.ts). */
  prefix: string;
  /**
   * Namespace of the identify buckets when it is not `prefix`: a resharded set lives under its generation's
   * namespace but identifies through the bot's one set of buckets.
   */
  identifyNamespace?: string;
  totalShards: number;
  /** Shard ids this process must run, or 'auto' (default) to claim a fair share. */
  shardIds?: readonly number[] | 'auto';
  /** Lease expiry. Default 15000. */
  leaseMs?: number;
  /** Heartbeat + lease renewal interval. Default leaseMs / 3. */
  renewMs?: number;
  /** Cap on the shards one process claims in auto mode. Default: no cap. */
  maxShardsPerProcess?: number;
  /** Auto mode: wait this long after registering before the first claim, to see peers starting together. Default 1000. */
  settleMs?: number;
  /** Expiry of stored sessions (see session-store.ts). Default 60000. */
  sessionTtlMs?: number;
  /** Session checkpoint interval. Default 1000. */
  checkpointMs?: number;
  /**
   * Awaited before every session write, so a stored seq never runs ahead of writes that must land first: the
   * runtime passes its cache's flush (see session-store.ts, "Order").
   */
  beforeSessionWrite?: () => Promise<void>;
  /** Identify queue tuning (window and max_concurrency come from the shard manager). */
  identify?: { marginMs?: number; maxWaitMs?: number };
  commandSync?: Omit<CommandSyncLockOptions, 'redis' | 'keys' | 'logger'>;
  /** Default: host/pid/random. */
  memberId?: string;
  logger?: Logger;
}

interface Owned {
  /** Local clock (ms) by which the lease has surely expired unless renewed again. */
  deadline: number;
}

const now = (): number => performance.now();

/**
 * How long after another member's entry or lease is due to expire the early tick runs: Redis must see it
 * expired by then (millisecond expiry, a timer that may fire a millisecond early).
 */
const EXPIRY_MARGIN_MS = 20;

export class ClusterCoordinator extends EventEmitter<ClusterCoordinatorEvents> {
  readonly memberId: string;
  readonly keys: ClusterKeys;
  readonly totalShards: number;
  readonly mode: 'auto' | 'explicit';
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly maxShardsPerProcess: number;
  readonly sessionStore: RedisSessionStore;
  readonly commandSyncLock: CommandSyncLock;
  private readonly redis: Redis;
  private readonly ownsRedis: boolean;
  private readonly leases: ShardLeases;
  private readonly explicitIds: readonly number[];
  private readonly settleMs: number;
  private readonly checkpointMs: number;
  private readonly guardMs: number;
  private readonly options: ClusterCoordinatorOptions;
  private readonly log: Logger | undefined;

  private readonly owned = new Map<number, Owned>();
  /** Shards being stopped (handoff or fence): not claimed again until done. */
  private readonly stopping = new Map<number, Promise<void>>();
  /** Shards whose start is in flight. */
  private readonly starting = new Set<number>();
  /** Shards not to claim before the given local time (just handed off, or failed to start). */
  private readonly cooldown = new Map<number, number>();
  /** Shards fenced before a handler was attached. */
  private readonly pendingFenced = new Set<number>();
  /** Explicit shards already reported as held elsewhere (log once). */
  private readonly reportedHeld = new Set<number>();
  private handler: ShardHandler | null = null;
  private live = 0;
  private state: 'created' | 'starting' | 'running' | 'stopped' = 'created';
  private suspended = false;
  private tickTimer: NodeJS.Timeout | null = null;
  /** Local time the pending regular tick is due. */
  private tickDueAt = Infinity;
  /** The early tick after another member's entry or lease expires (local time; Infinity: none wanted). */
  private wakeAt = Infinity;
  private wakeTimer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private reconciling: Promise<void> | null = null;
  /** A reconcile was asked for while one ran: run again once it ends (it may have looked too early). */
  private reconcileAgain = false;
  private checkpointTimer: NodeJS.Timeout | null = null;
  private leaseWatchdog: NodeJS.Timeout | null = null;
  private checkpointing: Promise<void> | null = null;
  private checkpointAgain = false;
  private sessionSource: (() => ReadonlyMap<number, SessionState>) | null = null;

  constructor(options: ClusterCoordinatorOptions) {
    super();
    const total = options.totalShards;
    if (!Number.isInteger(total) || total < 1) throw new RangeError(`cluster: totalShards must be a positive integer, got ${total}`);
    this.options = options;
    this.totalShards = total;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.renewMs = options.renewMs ?? Math.floor(this.leaseMs / 3);
    if (!Number.isInteger(this.leaseMs) || this.leaseMs < 300) throw new RangeError(`cluster: leaseMs must be an integer >= 300, got ${this.leaseMs}`);
    if (!(this.renewMs >= 50) || this.renewMs * 2 > this.leaseMs) {
      throw new RangeError(`cluster: renewMs must be >= 50 and at most half of leaseMs (${this.leaseMs}), got ${this.renewMs}`);
    }
    const max = options.maxShardsPerProcess ?? Infinity;
    if (!(max >= 1)) throw new RangeError(`cluster: maxShardsPerProcess must be >= 1, got ${max}`);
    this.maxShardsPerProcess = max;
    const ids = options.shardIds ?? 'auto';
    if (ids === 'auto') {
      this.mode = 'auto';
      this.explicitIds = [];
    } else {
      this.mode = 'explicit';
      const unique = [...new Set(ids)].sort((a, b) => a - b);
      for (const id of unique) {
        if (!Number.isInteger(id) || id < 0 || id >= total) {
          throw new RangeError(`cluster: shard id ${id} is outside 0..${total - 1} (total ${total}).`);
        }
      }
      if (unique.length === 0) throw new RangeError('cluster: shardIds is empty.');
      this.explicitIds = unique;
    }
    this.settleMs = options.settleMs ?? 1_000;
    this.checkpointMs = options.checkpointMs ?? 1_000;
    this.guardMs = Math.max(50, Math.floor(this.leaseMs / 10));
    this.log = options.logger;
    this.memberId = options.memberId ?? newMemberId();
    this.keys = new ClusterKeys(options.prefix, options.identifyNamespace ?? options.prefix);
    if (typeof options.redis === 'string') {
      // Errors go through the logger (one line when Redis becomes unreachable, one when it is back); it
      // reconnects with backoff for as long as the coordinator lives.
      this.redis = openRedis(options.redis, {
        name: 'cluster',
        ...(this.log ? { logger: this.log } : {}),
        redisOptions: {
          maxRetriesPerRequest: 2,
          connectTimeout: 5_000,
          // A hung command must not stall renewals past the lease: fail it and let the deadline logic decide.
          commandTimeout: Math.max(500, Math.min(5_000, Math.floor(this.leaseMs / 2))),
        },
      });
      this.ownsRedis = true;
    } else {
      this.redis = options.redis;
      this.ownsRedis = false;
    }
    this.leases = new ShardLeases(this.redis, this.keys, this.memberId, this.leaseMs);
    this.sessionStore = new RedisSessionStore({
      redis: this.redis,
      keys: this.keys,
      totalShards: total,
      leaseToken: this.memberId,
      ...(options.sessionTtlMs !== undefined ? { ttlMs: options.sessionTtlMs } : {}),
      ...(options.beforeSessionWrite !== undefined ? { beforeWrite: options.beforeSessionWrite } : {}),
      ...(this.log ? { logger: this.log } : {}),
    });
    this.commandSyncLock = new CommandSyncLock({
      redis: this.redis,
      keys: this.keys,
      ...options.commandSync,
      ...(this.log ? { logger: this.log } : {}),
    });
  }

  /** What the shard manager's shards ask before acting on a shard (pass as its `fence`). */
  readonly shardFence: ShardFence = {
    holds: (shardId) => this.holdsLease(shardId),
    confirm: (shardId) => this.confirmLease(shardId),
  };

  /** Shard ids this process holds a lease for, ascending. */
  get ownedShards(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  /** Whether the coordinator's Redis connection is up (readiness: the cluster cannot work without it). */
  get redisReachable(): boolean {
    return this.redis.status === 'ready';
  }

  /** Live members at the last heartbeat. */
  get liveMembers(): number {
    return this.live;
  }

  /**
   * Register this process and claim its shards: its fair share in auto mode, its configured ids (those not
   * held by another live process) in explicit mode. Resolves with the ids claimed; later gains and losses go
   * to the handler given to `manage()`.
   */
  async start(): Promise<number[]> {
    if (this.state !== 'created') throw new ClusterError(`cluster: start() called in state ${this.state}`);
    this.state = 'starting';
    try {
      await this.heartbeat(true);
      if (this.mode === 'auto' && this.settleMs > 0) {
        await sleep(this.settleMs);
        await this.heartbeat(true);
      }
      await this.claimMissing(false);
    } catch (error) {
      this.state = 'stopped';
      await this.leases.release(this.ownedShards).catch(() => undefined);
      this.owned.clear();
      this.armLeaseWatchdog(); // stopped: clears it
      await this.leases.leave().catch(() => undefined);
      if (this.ownsRedis) this.redis.disconnect();
      if (error instanceof ClusterError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ClusterError(`cluster: could not register with Redis to claim shards (${reason})`, { cause: error });
    }
    this.state = 'running';
    this.scheduleTick();
    this.log?.info({ member: this.memberId, shards: this.ownedShards, live: this.live, mode: this.mode }, 'cluster member started');
    return this.ownedShards;
  }

  /** A cross-process identify queue; pass this as the shard manager's `identifyQueue` factory. */
  identifyQueue(info: { maxConcurrency: number; windowMs: number }): IdentifyQueue {
    const o = this.options.identify ?? {};
    return new RedisIdentifyQueue({
      redis: this.redis,
      keys: this.keys,
      maxConcurrency: info.maxConcurrency,
      windowMs: info.windowMs,
      ...(o.marginMs !== undefined ? { marginMs: o.marginMs } : {}),
      ...(o.maxWaitMs !== undefined ? { maxWaitMs: o.maxWaitMs } : {}),
      ...(this.log ? { logger: this.log } : {}),
    });
  }

  /** Run `fn` (the command sync) in exactly one process; see command-sync-lock.ts. */
  withCommandSyncLock<T>(fn: () => Promise<T>, options: CommandSyncRunOptions<T> = {}): Promise<CommandSyncLockResult<T>> {
    return this.commandSyncLock.run(fn, options);
  }

  /** Checkpoint the sessions `source` returns every `checkpointMs` (only shards this process holds). */
  trackSessions(source: () => ReadonlyMap<number, SessionState>): void {
    this.sessionSource = source;
    if (this.checkpointTimer !== null || this.state === 'stopped') return;
    this.checkpointTimer = setInterval(() => {
      if (this.checkpointing === null) this.runCheckpoint();
    }, this.checkpointMs);
    this.checkpointTimer.unref();
  }

  /**
   * Checkpoint now rather than at the next interval: call it when a shard starts a new session (READY), since
   * until its first checkpoint a crash would leave nothing to resume and cost an identify.
   */
  checkpointSoon(): void {
    if (this.checkpointing !== null) this.checkpointAgain = true;
    else this.runCheckpoint();
  }

  private runCheckpoint(): void {
    this.checkpointing = this.checkpoint().finally(() => {
      this.checkpointing = null;
      if (this.checkpointAgain) {
        this.checkpointAgain = false;
        this.runCheckpoint();
      }
    });
  }

  /** Write the current sessions now (also what the periodic checkpoint does). */
  async checkpoint(): Promise<void> {
    const source = this.sessionSource;
    if (source === null || this.state === 'stopped') return;
    const mine = new Map<number, SessionState>();
    for (const [id, state] of source()) if (this.owned.has(id) && !this.stopping.has(id)) mine.set(id, state);
    try {
      // A checkpoint is written only while the lease is ours (checked in the same script); one refused for
      // that means the shard is someone else's now.
      await this.sessionStore.checkpoint(mine, (id) => this.fence(id));
    } catch (error) {
      this.log?.warn({ err: error }, 'session checkpoint failed');
    }
  }

  /** Start delivering ownership changes to `handler` (shards fenced before now are stopped at once). */
  manage(handler: ShardHandler): void {
    this.handler = handler;
    for (const id of this.pendingFenced) this.stopShard(id, 'fenced');
    this.pendingFenced.clear();
    this.kick();
  }

  /**
   * Stop gaining and handing off shards (leases keep being renewed, so sessions can still be saved under
   * them). Resolves once no claim or handoff is in flight. Call before closing the shards at shutdown.
   */
  async suspend(): Promise<void> {
    this.suspended = true;
    this.clearWake();
    await this.reconciling;
  }

  /**
   * Release every lease and leave the registry (call after the shards are closed and their sessions saved),
   * then close the Redis connection if this coordinator opened it.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopped';
    this.suspended = true;
    if (this.tickTimer !== null) clearTimeout(this.tickTimer);
    this.tickTimer = null;
    this.clearWake();
    if (this.checkpointTimer !== null) clearInterval(this.checkpointTimer);
    this.checkpointTimer = null;
    if (this.leaseWatchdog !== null) clearTimeout(this.leaseWatchdog);
    this.leaseWatchdog = null;
    await Promise.allSettled([this.ticking, this.reconciling, this.checkpointing]);
    if (wasRunning) {
      const ids = this.ownedShards;
      try {
        await this.leases.release(ids);
        await this.leases.leave();
      } catch (error) {
        this.log?.warn({ err: error }, 'could not release the shard leases (they expire by themselves)');
      }
      this.owned.clear();
      this.log?.info({ member: this.memberId, released: ids }, 'cluster member stopped');
    }
    if (this.ownsRedis) {
      await this.redis.quit().catch(() => this.redis.disconnect());
    }
  }

  // ---- the tick ---------------------------------------------------------------------------------------------

  private scheduleTick(): void {
    if (this.state !== 'running') return;
    this.tickDueAt = now() + this.renewMs;
    this.tickTimer = setTimeout(() => this.runTick(), this.renewMs);
    this.tickTimer.unref();
    this.armWake();
  }

  /** Run the tick now (its timer fired, or an early tick was due); the next one is scheduled after it. */
  private runTick(): void {
    if (this.tickTimer !== null) clearTimeout(this.tickTimer);
    this.tickTimer = null;
    this.tickDueAt = Infinity;
    // The tick learns afresh when the next peer entry or lease expires.
    this.clearWake();
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      this.scheduleTick();
    });
  }

  /**
   * Another member's registry entry or lease expires `ms` (server clock) after a script that answered at
   * local time `answeredAt`: ask for an early tick just after that. The script ran before the answer arrived,
   * so the local moment computed is never before the expiry.
   */
  private noteExpiry(ms: number | null, answeredAt: number): void {
    if (ms === null || this.state === 'stopped' || this.suspended) return;
    const at = answeredAt + ms + EXPIRY_MARGIN_MS;
    if (at >= this.wakeAt) return;
    this.wakeAt = at;
    this.armWake();
  }

  /**
   * Point the wake timer at `wakeAt` when it comes before the regular tick. Only while a regular tick is
   * pending: during a tick (or before the first) scheduleTick arms it afterwards.
   */
  private armWake(): void {
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (this.state !== 'running' || this.suspended || this.tickTimer === null || this.wakeAt >= this.tickDueAt) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      if (this.state !== 'running' || this.suspended || this.tickTimer === null) return;
      this.log?.debug({ member: this.memberId }, 'a peer entry or lease expired; ticking early');
      this.runTick();
    }, Math.max(0, this.wakeAt - now()));
    this.wakeTimer.unref();
  }

  private clearWake(): void {
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAt = Infinity;
  }

  private kick(): void {
    if (this.state !== 'running' || this.suspended || this.handler === null) return;
    if (this.reconciling !== null) {
      this.reconcileAgain = true;
      return;
    }
    this.reconciling = this.reconcile()
      .catch((error: unknown) => this.fail(error, 'reconciling shard ownership failed'))
      .finally(() => {
        this.reconciling = null;
        if (this.reconcileAgain) {
          this.reconcileAgain = false;
          this.kick();
        }
      });
  }

  private async tick(): Promise<void> {
    try {
      await this.heartbeat(false);
    } catch (error) {
      this.fail(error, 'cluster heartbeat failed');
    }
    await this.renew();
    this.kick();
  }

  /**
   * Point the lease watchdog at the earliest deadline (less the guard). Calls that hang (a stalled link
   * answers nothing until the command timeout) must not carry a shard past its lease: a lease whose renewal
   * has not succeeded by then is given up, whatever the tick is waiting for. Re-armed whenever deadlines move.
   */
  private armLeaseWatchdog(): void {
    if (this.leaseWatchdog !== null) clearTimeout(this.leaseWatchdog);
    this.leaseWatchdog = null;
    if (this.state === 'stopped') return;
    let earliest = Infinity;
    for (const owned of this.owned.values()) earliest = Math.min(earliest, owned.deadline);
    if (earliest === Infinity) return;
    this.leaseWatchdog = setTimeout(() => {
      this.leaseWatchdog = null;
      this.fenceExpiring();
      this.armLeaseWatchdog();
    }, Math.max(0, earliest - this.guardMs - now()));
    this.leaseWatchdog.unref();
  }

  private fenceExpiring(): void {
    const t = now();
    for (const [id, owned] of this.owned) if (t >= owned.deadline - this.guardMs) this.fence(id);
  }

  private async heartbeat(strict: boolean): Promise<void> {
    try {
      // The entry's TTL is the lease time, no longer: a dead member's share frees up no later than its leases.
      const { live, nextPeerExpiryMs } = await this.leases.heartbeat(this.totalShards, this.leaseMs);
      if (live !== this.live) {
        this.live = live;
        this.emit('members', live);
      }
      // A peer dropping out only changes the share in auto mode.
      if (this.mode === 'auto') this.noteExpiry(nextPeerExpiryMs, now());
    } catch (error) {
      if (strict || !(error instanceof ShardCountMismatchError)) throw error;
      // Another shard total appeared after start: keep running what we have, say so loudly.
      this.fail(error, 'shard count mismatch between live processes');
    }
  }

  private async renew(): Promise<void> {
    const ids = this.ownedShards;
    if (ids.length === 0) return;
    const sentAt = now();
    let lost: number[];
    try {
      lost = await this.leases.renew(ids);
    } catch (error) {
      this.log?.warn({ err: error }, 'lease renewal failed');
      this.fenceExpiring();
      return;
    }
    const lostSet = new Set(lost);
    for (const id of ids) {
      const owned = this.owned.get(id);
      if (owned === undefined) continue; // released or fenced meanwhile
      if (lostSet.has(id)) this.fence(id);
      else owned.deadline = sentAt + this.leaseMs;
    }
    this.armLeaseWatchdog();
  }

  // ---- ownership changes ------------------------------------------------------------------------------------

  private async reconcile(): Promise<void> {
    if (this.mode === 'explicit') {
      await this.claimMissing(true);
      return;
    }
    const share = fairShare(this.totalShards, this.live, this.maxShardsPerProcess);
    const held = this.owned.size;
    if (held < share) {
      await this.claimMissing(true);
    } else if (held > share) {
      const excess = this.ownedShards.filter((id) => !this.starting.has(id)).reverse().slice(0, held - share);
      if (excess.length > 0) {
        this.log?.info({ shards: excess, share, live: this.live }, 'handing shards off to rebalance');
        await Promise.all(excess.map((id) => this.handoff(id)));
      }
    }
  }

  /** Claim what this process should hold and does not; start the gained shards unless `start` is false. */
  private async claimMissing(start: boolean): Promise<void> {
    const t = now();
    for (const [id, until] of this.cooldown) if (until <= t) this.cooldown.delete(id);
    const wanted = this.mode === 'explicit' ? this.explicitIds : Array.from({ length: this.totalShards }, (_, i) => i);
    const candidates = wanted.filter((id) => !this.owned.has(id) && !this.stopping.has(id) && !this.cooldown.has(id));
    const room =
      this.mode === 'explicit' ? candidates.length : fairShare(this.totalShards, this.live, this.maxShardsPerProcess) - this.owned.size;
    if (candidates.length === 0 || room <= 0) return;
    const sentAt = now();
    const { got, nextLeaseExpiryMs } = await this.leases.claim(candidates, room);
    this.noteExpiry(nextLeaseExpiryMs, now());
    if (this.suspended && start) {
      // Shutdown began while claiming: give them straight back.
      await this.leases.release(got).catch(() => undefined);
      return;
    }
    for (const id of got) {
      this.owned.set(id, { deadline: sentAt + this.leaseMs });
      this.reportedHeld.delete(id);
      this.emit('shardGained', id);
    }
    if (got.length > 0) this.armLeaseWatchdog();
    if (got.length > 0) this.log?.info({ shards: got }, start ? 'claimed shards' : 'claimed initial shards');
    if (this.mode === 'explicit') {
      const gotSet = new Set(got);
      for (const id of candidates) {
        if (gotSet.has(id) || this.reportedHeld.has(id)) continue;
        this.reportedHeld.add(id);
        const holder = await this.leases.holder(id).catch(() => null);
        this.log?.warn({ shard: id, holder }, 'shard is held by another process; retrying every renewal');
      }
    }
    if (start) for (const id of got) this.startShard(id);
  }

  private startShard(id: number): void {
    const handler = this.handler;
    if (handler === null) return;
    this.starting.add(id);
    void handler
      .start(id)
      .then(
        () => undefined,
        async (error: unknown) => {
          if (!this.owned.has(id) || this.stopping.has(id)) return; // fenced or stopped meanwhile
          if (this.state === 'running' && !this.suspended) this.fail(error, `shard ${id} failed to start; releasing its lease`);
          this.owned.delete(id);
          this.sessionStore.forget(id);
          this.cooldown.set(id, now() + 2 * this.leaseMs);
          await this.leases.release([id]).catch(() => undefined);
          this.emit('shardLost', id, 'failed');
        },
      )
      .finally(() => this.starting.delete(id));
  }

  private async handoff(id: number): Promise<void> {
    const handler = this.handler;
    if (handler === null || !this.owned.has(id)) return;
    this.emit('shardLost', id, 'handoff');
    const done = (async () => {
      try {
        await handler.stop(id, 'handoff');
      } catch (error) {
        this.fail(error, `stopping shard ${id} for a handoff failed`);
      }
      try {
        await this.leases.release([id]);
      } catch (error) {
        this.log?.warn({ err: error, shard: id }, 'could not release a handed-off lease (it expires by itself)');
      }
      this.owned.delete(id);
      this.sessionStore.forget(id);
      this.cooldown.set(id, now() + 2 * this.renewMs);
    })();
    this.stopping.set(id, done);
    try {
      await done;
    } finally {
      if (this.stopping.get(id) === done) this.stopping.delete(id);
    }
  }

  /**
   * The local half of the fence: the lease is held and its renewal deadline (less the guard) has not passed.
   * Past it the lease may be another member's already; the shard is fenced rather than acted on.
   */
  private holdsLease(id: number): boolean {
    const owned = this.owned.get(id);
    if (owned === undefined) return false;
    if (now() < owned.deadline - this.guardMs) return true;
    // Not from inside the shard's own call: the shard stops itself, the handler is told right after.
    queueMicrotask(() => this.fenceExpiring());
    return false;
  }

  /**
   * The atomic half: compare-and-extend the lease in Redis (it is extended only when it still holds this
   * member's id, which also means it has not expired). Called right before a RESUME or IDENTIFY.
   */
  private async confirmLease(id: number): Promise<boolean> {
    if (!this.owned.has(id) || this.state === 'stopped') return false;
    const sentAt = now();
    const lost = await this.leases.renew([id]);
    const owned = this.owned.get(id);
    if (owned === undefined) return false;
    if (lost.length > 0) {
      this.fence(id);
      return false;
    }
    owned.deadline = Math.max(owned.deadline, sentAt + this.leaseMs);
    this.armLeaseWatchdog();
    return true;
  }

  /** The lease is gone: stop the shard now, save nothing. */
  private fence(id: number): void {
    if (!this.owned.delete(id)) return;
    this.sessionStore.forget(id);
    this.log?.warn({ shard: id, member: this.memberId }, 'lost the lease of a shard; stopping it');
    this.emit('shardLost', id, 'fenced');
    if (this.handler === null) this.pendingFenced.add(id);
    else this.stopShard(id, 'fenced');
  }

  private stopShard(id: number, reason: 'fenced'): void {
    const handler = this.handler!;
    const done: Promise<void> = handler
      .stop(id, reason)
      .catch((error: unknown) => this.fail(error, `stopping fenced shard ${id} failed`))
      .finally(() => {
        if (this.stopping.get(id) === done) this.stopping.delete(id);
      });
    this.stopping.set(id, done);
  }

  private fail(error: unknown, message: string): void {
    const err = error instanceof Error ? error : new ClusterError(String(error));
    this.log?.error({ err }, message);
    this.emit('error', err);
  }
}
