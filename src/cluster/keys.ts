/**
 * Redis key layout of cluster mode. Every key lives under one namespace `<ns>`; the runtime uses
 * `<cluster.prefix>:{<application id>}` so two bots (or two test runs) never share coordination state even
 * with the same prefix, and the braces make every key of one bot hash to one Redis Cluster slot (the Lua
 * scripts touch several keys at once).
 *
 *   <ns>:members             ZSET    member id -> expiry (Redis server time, ms). Live members have a score in
 *                                    the future; every heartbeat drops the expired ones. Fair share of shards
 *                                    = ceil(total / live members).
 *   <ns>:total               STRING  the shard count the live members run (PX member TTL, refreshed by every
 *                                    heartbeat): a process configured with another count refuses to start.
 *   <ns>:lease:<shard>       STRING  member id of the process running the shard; PX lease time. Claimed with
 *                                    SET NX PX, renewed with compare-and-extend, released with compare-and-delete.
 *                                    The value is the fencing token: whoever does not find its own id there has
 *                                    lost the shard.
 *   <ns>:session:<shard>     HASH    id, seq, url, total, at: the resumable session of the shard (session_id, last
 *                                    seq delivered, resume_gateway_url). PX session TTL, written only by the
 *                                    lease holder (checked in the same script), seq never moves backwards within
 *                                    one session.
 *   <ns>:identify:<bucket>   STRING  Redis server time (ms) before which no shard of the bucket
 *                                    (shard_id % max_concurrency) may identify; PX two windows.
 *   <ns>:identify:budget     HASH    total, remaining, reset (server ms): the day's session starts left for the
 *                                    whole bot (redis-identify-budget.ts); kept a day past the reset.
 *   <ns>:commands:lock       STRING  token of the process syncing commands; PX lock time, renewed while syncing.
 *   <ns>:commands:synced     STRING  fingerprint of the command set the last completed sync wrote; PX a while,
 *                                    so processes starting later with the same commands skip the sync.
 */
export class ClusterKeys {
  readonly members: string;
  readonly total: string;
  readonly commandLock: string;
  readonly commandsSynced: string;
  readonly identifyBudget: string;

  constructor(
    readonly namespace: string,
    /**
     * Where the identify buckets live: every shard set of the bot shares them (during a reshard the old and
     * the new set identify through the same max_concurrency buckets). Default: `namespace`.
     */
    readonly identifyNamespace: string = namespace,
  ) {
    if (typeof namespace !== 'string' || namespace.length === 0) {
      throw new TypeError('cluster: the Redis key namespace must be a non-empty string.');
    }
    this.members = `${namespace}:members`;
    this.total = `${namespace}:total`;
    this.commandLock = `${namespace}:commands:lock`;
    this.commandsSynced = `${namespace}:commands:synced`;
    this.identifyBudget = `${namespace}:identify:budget`;
  }

  lease(shardId: number): string {
    return `${this.namespace}:lease:${shardId}`;
  }

  session(shardId: number): string {
    return `${this.namespace}:session:${shardId}`;
  }

  identifyBucket(bucket: number): string {
    return `${this.identifyNamespace}:identify:${bucket}`;
  }
}

/** The namespace the runtime uses: `<prefix>:{<scope>}` (scope: the application id). */
export function clusterNamespace(prefix: string, scope: string): string {
  return `${prefix}:{${scope}}`;
}
