/** Errors of cluster mode. Messages name the shard, bucket or key involved and never carry a secret. */
export class ClusterError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClusterError';
  }
}

/** Another live process runs a different shard count under the same namespace. */
export class ShardCountMismatchError extends ClusterError {
  constructor(
    readonly configured: number,
    readonly running: number,
    readonly key: string,
  ) {
    super(
      `cluster: this process is configured for ${configured} shards, but the live processes sharing ${key} run ${running}. ` +
        'Give every process the same shard total (or a different cluster prefix while resharding).',
    );
    this.name = 'ShardCountMismatchError';
  }
}

/** The identify queue could not get a slot within its bound. */
export class IdentifyQueueTimeoutError extends ClusterError {
  constructor(
    readonly shardId: number,
    readonly bucket: number,
    readonly waitedMs: number,
    options?: { cause?: unknown },
  ) {
    super(`cluster: shard ${shardId} found no identify slot in bucket ${bucket} within ${Math.round(waitedMs)} ms.`, options);
    this.name = 'IdentifyQueueTimeoutError';
  }
}
