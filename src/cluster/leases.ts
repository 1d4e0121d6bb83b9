/**
 * Shard leases and the member registry: the Redis operations behind shard ownership (policy lives in
 * coordinator.ts).
 *
 * - A lease is `<ns>:lease:<shard>` = this member's id, with an expiry. Claimed with SET NX PX, renewed with a
 *   compare-and-extend script, released with compare-and-delete: a process only ever extends or deletes a
 *   lease that still holds its own id, so one that was paused past the expiry cannot take a shard back from
 *   its new owner. The id is the fencing token.
 * - The registry is a sorted set of member ids scored by their expiry on the Redis server's clock; a
 *   heartbeat re-registers this member and drops the expired ones, and answers how many are live.
 * - Heartbeats and claims also answer when the next entry or lease of another member expires (server clock,
 *   as a delay from the script's run), so that a survivor can act the moment a dead member's share frees up.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { ShardCountMismatchError } from './errors.js';
import type { ClusterKeys } from './keys.js';
import { withClusterScripts, type ScriptedRedis } from './scripts.js';

export interface HeartbeatResult {
  /** Live members, this one included. */
  live: number;
  /** Redis server time (ms). */
  serverTime: number;
  /** Ms (server clock, from the script's run) until the earliest other member's entry expires; null when none. */
  nextPeerExpiryMs: number | null;
}

export interface ClaimResult {
  /** The ids now held by this member, in the order given. */
  got: number[];
  /**
   * Ms (server clock, from the script's run) until the earliest lease held by another member, among the
   * candidates looked at, expires; null when none was held elsewhere.
   */
  nextLeaseExpiryMs: number | null;
}

/** A non-negative delay from a script reply, or null (-1, missing, not a number). */
function delay(value: unknown): number | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** A member id: host, pid and a random part, so a restarted process never inherits an old identity. */
export function newMemberId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(6).toString('hex')}`;
}

export class ShardLeases {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    readonly keys: ClusterKeys,
    /** This process's member id: the value of every lease it holds. */
    readonly memberId: string,
    readonly leaseMs: number,
  ) {
    if (!Number.isInteger(leaseMs) || leaseMs < 100) throw new RangeError(`leaseMs must be an integer >= 100, got ${leaseMs}`);
    this.redis = withClusterScripts(redis);
  }

  /**
   * Register (or refresh) this member for `ttlMs` and count the live members. Throws ShardCountMismatchError
   * when live members run another shard total.
   */
  async heartbeat(totalShards: number, ttlMs: number): Promise<HeartbeatResult> {
    const reply = (await this.redis.ghClusterHeartbeat(this.keys.members, this.keys.total, this.memberId, ttlMs, totalShards)) as [
      number,
      number,
      string,
      number,
    ];
    const [live, serverTime, other, next] = reply;
    if (other !== '' && other !== null && other !== undefined) {
      throw new ShardCountMismatchError(totalShards, Number(other), this.keys.total);
    }
    return { live: Number(live), serverTime: Number(serverTime), nextPeerExpiryMs: delay(next) };
  }

  /** Drop this member from the registry (graceful stop). */
  async leave(): Promise<void> {
    await this.redis.zrem(this.keys.members, this.memberId);
  }

  /**
   * Claim free leases among `candidates`, in order, until `max` are held. Answers the ids now held and when
   * the first of the others' leases looked at expires.
   */
  async claim(candidates: readonly number[], max: number): Promise<ClaimResult> {
    if (candidates.length === 0 || max <= 0) return { got: [], nextLeaseExpiryMs: null };
    const keys = candidates.map((id) => this.keys.lease(id));
    const [held, next] = (await this.redis.ghClusterClaim(keys.length, ...keys, this.memberId, this.leaseMs, max)) as [number[], number];
    return { got: held.map((i) => candidates[Number(i) - 1]!), nextLeaseExpiryMs: delay(next) };
  }

  /** Extend the leases still held. Returns the ids whose lease is no longer this member's. */
  async renew(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const keys = ids.map((id) => this.keys.lease(id));
    const reply = (await this.redis.ghClusterRenew(keys.length, ...keys, this.memberId, this.leaseMs)) as number[];
    return ids.filter((_, i) => Number(reply[i]) !== 1);
  }

  /** Release leases still held (compare-and-delete). Returns the ids actually released. */
  async release(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const keys = ids.map((id) => this.keys.lease(id));
    const reply = (await this.redis.ghClusterRelease(keys.length, ...keys, this.memberId)) as number[];
    return ids.filter((_, i) => Number(reply[i]) === 1);
  }

  /** The member holding a shard's lease, or null. */
  holder(shardId: number): Promise<string | null> {
    return this.redis.get(this.keys.lease(shardId));
  }
}

/** Fair share of shards for one of `live` members: ceil(total / live), capped by `max`. */
export function fairShare(total: number, live: number, max: number): number {
  return Math.min(max, Math.ceil(total / Math.max(1, live)));
}
