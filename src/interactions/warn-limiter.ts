/**
 * "Warn once per key per window": the first occurrence of a key is logged, repeats within the window are
 * only counted and reported with the next line for that key. Keys can come from outside (command names,
 * custom ids), so the table is bounded: past `maxKeys` the oldest entry makes room.
 */
export class WarnLimiter {
  private readonly last = new Map<string, { at: number; repeats: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 1_000,
  ) {}

  /** Null when this occurrence should stay quiet; otherwise how many were held back since the last line. */
  take(key: string, now: number): number | null {
    const entry = this.last.get(key);
    if (entry !== undefined && now - entry.at < this.windowMs) {
      entry.repeats++;
      return null;
    }
    const repeats = entry?.repeats ?? 0;
    if (entry !== undefined) this.last.delete(key);
    else if (this.last.size >= this.maxKeys) this.last.delete(this.last.keys().next().value as string);
    this.last.set(key, { at: now, repeats: 0 });
    return repeats;
  }

  /** The fields to log this occurrence with (`repeats` added when some were held back), or null to stay quiet. */
  fields<T extends object>(key: string, now: number, fields: T): (T & { repeats?: number }) | null {
    const repeats = this.take(key, now);
    if (repeats === null) return null;
    return repeats > 0 ? { ...fields, repeats } : fields;
  }
}
