/**
 * Ownership of a shard shared between processes (cluster mode, where leases in Redis say who runs a shard).
 * A process stalled longer than its lease (a long GC pause, SIGSTOP, a VM migration) wakes up believing it
 * still runs its shards while another process has RESUMEd their sessions; acting on that would handle the
 * same dispatches twice, and a RESUME of its own would take the session back (a tug of war).
 *
 * So a shard asks its fence:
 * - `holds`, synchronously, before handling anything a connection delivered: false once the claim may have
 *   lapsed by the local clock (the renewal deadline passed), which is exactly the situation after a stall;
 * - `confirm`, asynchronously, right before it sends RESUME or IDENTIFY: an atomic check in the shared store
 *   that the claim is still this process's (and still valid), extending it.
 * Either answering no makes the shard stop at once (ShardFencedError) without ending the session, which
 * belongs to the new owner now. Without a fence (one process) nothing is checked.
 */
export interface ShardFence {
  /** Cheap, called per inbound message: may this process act on the shard right now? */
  holds(shardId: number): boolean;
  /**
   * Atomic check (and extension) of the claim before RESUME or IDENTIFY. Resolves false when another process
   * owns the shard; rejects when the store cannot be asked (the shard then tries again on a new connection).
   */
  confirm(shardId: number): Promise<boolean>;
}
