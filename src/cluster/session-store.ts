/**
 * Shard sessions in Redis, so the process that runs a shard next RESUMEs it instead of identifying
 * (protocol §7.4, §7.7): session_id, the seq of the last dispatch delivered, resume_gateway_url.
 *
 * Freshness. A process that is SIGKILLed never calls save(), so the store is also written while shards run:
 * `checkpoint()` (the coordinator calls it every `checkpointMs`, one pipelined round trip for all shards,
 * skipping sessions whose seq did not move) stores each live session. A checkpoint's seq is one the shard
 * has already delivered, so it is never ahead of the real one: a replacement that resumes from it gets every
 * later dispatch replayed by the service. Nothing is lost; after a crash the dispatches between the last
 * checkpoint and the crash are delivered twice (once to the dead process, once to its replacement). The
 * cache reducers are idempotent for repeated deliveries, plugin handlers see at-least-once delivery across a
 * crash and exactly-once across a graceful stop (which saves the exact seq).
 *
 * Expiry. A stored session expires `ttlMs` (default 60 s) after its last write. The service keeps a
 * dropped session resumable for "a few minutes" (unverified; the sandbox uses 120 s), so 60 s stays inside
 * that window with room to spare, which means a stored session is rarely one the service has already
 * forgotten (a resume of those costs an op 9 and a 1-5 s wait before identifying), while it comfortably
 * covers a lease expiry (seconds) plus a process restart. Shards that keep running refresh it every
 * `ttlMs / 3` even without new dispatches.
 *
 * Order. Cache writes travel on another connection (the Redis cache pipelines them at the end of the tick),
 * so a stored seq could reach Redis before the cache writes of the dispatches up to it: a process killed in
 * between would leave its replacement resuming past dispatches the cache never stored. `beforeWrite` (the
 * runtime passes the cache's flush) is awaited after a session is taken and before it is written, so a
 * stored seq never runs ahead of the cache.
 *
 * Fencing. With a lease guard, every write checks in the same script that this process still holds the
 * shard's lease, so a process that lost a shard can never overwrite its new owner's session; and a seq never
 * moves backwards within one session.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { SessionStore } from '../gateway/manager.js';
import type { SessionState } from '../gateway/shard.js';
import type { ClusterKeys } from './keys.js';
import { UNGUARDED, withClusterScripts, type ScriptedPipeline, type ScriptedRedis } from './scripts.js';

export interface RedisSessionStoreOptions {
  redis: Redis;
  keys: ClusterKeys;
  /** Total shard count; a stored session of another total is ignored. */
  totalShards: number;
  /** Expiry of a stored session after its last write. Default 60000. */
  ttlMs?: number;
  /**
   * The lease token (member id) writes must hold the shard's lease with; null = unguarded (a single process
   * without leases).
   */
  leaseToken?: string | null;
  logger?: Logger;
  /** Awaited before each session write (see "Order" above). A rejection holds the write back (it rejects too). */
  beforeWrite?: () => Promise<void>;
}

export type SaveOutcome = 'stored' | 'not-owner' | 'stale';

export class RedisSessionStore implements SessionStore {
  readonly ttlMs: number;
  readonly totalShards: number;
  private readonly redis: ScriptedRedis;
  private readonly keys: ClusterKeys;
  private readonly token: string;
  private readonly logger: Logger | undefined;
  private readonly beforeWrite: (() => Promise<void>) | undefined;
  /** What the last write stored per shard (session id, seq, when), to skip writes that change nothing. */
  private readonly written = new Map<number, { id: string; seq: number; at: number }>();

  constructor(options: RedisSessionStoreOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    if (!(this.ttlMs >= 1000)) throw new RangeError(`session ttlMs must be at least 1000, got ${this.ttlMs}`);
    if (!Number.isInteger(options.totalShards) || options.totalShards < 1) {
      throw new RangeError(`totalShards must be a positive integer, got ${options.totalShards}`);
    }
    this.totalShards = options.totalShards;
    this.redis = withClusterScripts(options.redis);
    this.keys = options.keys;
    this.token = options.leaseToken ?? UNGUARDED;
    this.logger = options.logger;
    this.beforeWrite = options.beforeWrite;
  }

  async load(shardId: number): Promise<SessionState | null> {
    const fields = await this.redis.hgetall(this.keys.session(shardId));
    const state = parseStored(fields, this.totalShards);
    if (state === null && Object.keys(fields).length > 0) {
      this.logger?.warn({ shard: shardId }, 'ignoring a stored session that is malformed or of another shard total');
    }
    return state;
  }

  async save(shardId: number, state: SessionState | null): Promise<void> {
    const outcome = await this.write(shardId, state);
    if (outcome === 'not-owner') {
      this.logger?.warn({ shard: shardId }, 'session not saved: this process no longer holds the shard lease');
    }
  }

  /** Save and tell what happened (tests and the coordinator use the outcome). */
  async write(shardId: number, state: SessionState | null): Promise<SaveOutcome> {
    const session = this.keys.session(shardId);
    const lease = this.keys.lease(shardId);
    if (state === null) {
      this.written.delete(shardId);
      const reply = Number(await this.redis.ghClusterSessionClear(session, lease, this.token));
      return reply === 1 ? 'stored' : 'not-owner';
    }
    await this.settle();
    const reply = Number(await this.redis.ghClusterSessionSave(session, lease, ...this.saveArgs(state)));
    if (reply === 1) this.written.set(shardId, { id: state.sessionId, seq: state.sequence, at: performance.now() });
    return reply === 1 ? 'stored' : reply === 0 ? 'not-owner' : 'stale';
  }

  /**
   * Store the sessions that moved since the last write (or whose expiry needs refreshing), in one pipelined
   * round trip. Returns how many writes were sent; `onNotOwner` hears of each refused because this process
   * no longer holds the shard's lease.
   */
  async checkpoint(sessions: ReadonlyMap<number, SessionState>, onNotOwner?: (shardId: number) => void): Promise<number> {
    const now = performance.now();
    const refreshAfter = this.ttlMs / 3;
    const sent: Array<[number, SessionState]> = [];
    for (const [shardId, state] of sessions) {
      const last = this.written.get(shardId);
      if (last && last.id === state.sessionId && last.seq === state.sequence && now - last.at < refreshAfter) continue;
      sent.push([shardId, state]);
    }
    if (sent.length === 0) return 0;
    await this.settle();
    const pipeline = this.redis.pipeline() as ScriptedPipeline;
    for (const [shardId, state] of sent) {
      pipeline.ghClusterSessionSave(this.keys.session(shardId), this.keys.lease(shardId), ...this.saveArgs(state));
    }
    const results = (await pipeline.exec()) ?? [];
    for (let i = 0; i < sent.length; i++) {
      const [shardId, state] = sent[i]!;
      const [error, reply] = results[i] ?? [null, null];
      if (error) {
        this.logger?.warn({ err: error, shard: shardId }, 'session checkpoint failed');
      } else if (Number(reply) === 1) {
        this.written.set(shardId, { id: state.sessionId, seq: state.sequence, at: now });
      } else if (Number(reply) === 0) {
        onNotOwner?.(shardId);
      }
    }
    return sent.length;
  }

  /** Forget what was written for a shard (it left this process). */
  forget(shardId: number): void {
    this.written.delete(shardId);
  }

  private async settle(): Promise<void> {
    // A write that had to land first and did not (nor could it be marked for recovery) holds the session
    // back: storing it would let the next owner resume past that write. The last stored seq stays, so the next
    // owner resumes earlier and gets those dispatches again.
    await this.beforeWrite?.();
  }

  private saveArgs(state: SessionState): [string, string, number, string, number, number] {
    return [this.token, state.sessionId, state.sequence, state.resumeGatewayUrl, this.totalShards, this.ttlMs];
  }
}

function parseStored(fields: Record<string, string>, total: number): SessionState | null {
  const { id, seq, url } = fields;
  if (id === undefined || seq === undefined || url === undefined) return null;
  if (fields.total !== undefined && Number(fields.total) !== total) return null;
  const sequence = Number(seq);
  // A seq no dispatch could carry (1e300, negative) would make the shard drop every event as a duplicate.
  if (id.length === 0 || !Number.isSafeInteger(sequence) || sequence < 0 || !/^wss?:\/\//.test(url)) return null;
  return { sessionId: id, sequence, resumeGatewayUrl: url };
}
