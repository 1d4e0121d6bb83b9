/**
 * Keys seen recently, bounded in count and in time: the dedupe memory for interaction ids and webhook events.
 *
 * Every key lives `ttlMs`; since the TTL is the same for all, insertion order is expiry order, so a Map (which
 * iterates in insertion order) is the whole data structure: expired keys leave from its head, and when it is
 * full the oldest key leaves early. A key therefore counts as seen for `ttlMs` unless more than `maxKeys`
 * newer keys arrived since.
 */
export class RecentKeys {
  private readonly keys = new Map<string, number>();

  constructor(
    readonly maxKeys: number,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    if (!(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Record `key`; false when it was already seen (and is still remembered). */
  add(key: string): boolean {
    const now = this.now();
    this.evictExpired(now);
    const expiry = this.keys.get(key);
    if (expiry !== undefined) return false;
    if (this.keys.size >= this.maxKeys) {
      const oldest = this.keys.keys().next();
      if (oldest.done !== true) this.keys.delete(oldest.value);
    }
    this.keys.set(key, now + this.ttlMs);
    return true;
  }

  has(key: string): boolean {
    this.evictExpired(this.now());
    return this.keys.has(key);
  }

  /** Forget a key (its handling failed before it did anything, so a redelivery should be taken). */
  delete(key: string): void {
    this.keys.delete(key);
  }

  private evictExpired(now: number): void {
    for (const [key, expiry] of this.keys) {
      if (expiry > now) return;
      this.keys.delete(key);
    }
  }
}
