/**
 * The one "warn once per key per window" of the runtime. Anything that can go wrong many times in a row (an
 * interaction no plugin handles, a plugin listener that keeps failing, a Redis that stays away, a peer that keeps
 * sending broken payloads) logs its first occurrence per key, counts the repeats inside the window and reports
 * that count with the next line for the key, so a process that runs for months logs at most one line per key
 * per window.
 *
 * Keys can come from outside (command names, custom ids), so the table is bounded twice: keys are meant to be
 * patterns (`warnKeyPattern` folds the ids out of a custom id), and past `maxKeys` the expired entries are swept;
 * when none has expired, further keys share one overflow key until some do. A flood of distinct keys therefore
 * costs at most `maxKeys + 1` lines per window and `maxKeys + 1` entries of memory.
 */

export interface RateLimitedWarnerOptions {
  /** One line per key per this many ms. Default 60000. */
  windowMs?: number;
  /** Keys tracked at once. Default 1000. */
  maxKeys?: number;
  /** The clock (tests pass a fake one). Default Date.now. */
  now?: () => number;
}

interface KeyState {
  windowEnds: number;
  repeats: number;
}

/** The key the keys share while the table is full of entries still in their window. */
export const OVERFLOW_WARN_KEY = '\u0000overflow';

export class RateLimitedWarner {
  private readonly keys = new Map<string, KeyState>();
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: RateLimitedWarnerOptions = {}) {
    this.windowMs = options.windowMs ?? 60_000;
    this.maxKeys = Math.max(1, options.maxKeys ?? 1_000);
    this.now = options.now ?? Date.now;
  }

  /** Keys held now (at most `maxKeys + 1`). */
  get size(): number {
    return this.keys.size;
  }

  /** Null when this occurrence should stay quiet; otherwise how many were held back since the last line for the key. */
  take(key: string): number | null {
    const now = this.now();
    const slot = this.slot(key, now);
    const state = this.keys.get(slot);
    if (state !== undefined && now < state.windowEnds) {
      state.repeats++;
      return null;
    }
    const repeats = state?.repeats ?? 0;
    // Deleted and set again so that the Map's order stays the order of the windows' starts.
    this.keys.delete(slot);
    this.keys.set(slot, { windowEnds: now + this.windowMs, repeats: 0 });
    return repeats;
  }

  /** The fields to log this occurrence with (`repeats` added when some were held back), or null to stay quiet. */
  fields<T extends object>(key: string, fields: T): (T & { repeats?: number }) | null {
    const repeats = this.take(key);
    if (repeats === null) return null;
    return repeats > 0 ? { ...fields, repeats } : fields;
  }

  /** The key's slot, sweeping expired keys when the table is full. */
  private slot(key: string, now: number): string {
    if (this.keys.has(key) || this.keys.size < this.maxKeys) return key;
    // An expired key's uncounted repeats are forgotten with it: the table, not the count, must stay bounded.
    for (const [k, s] of this.keys) if (now >= s.windowEnds) this.keys.delete(k);
    return this.keys.size < this.maxKeys ? key : OVERFLOW_WARN_KEY;
  }
}

/**
 * What makes two custom ids (or command names, or reasons) "the same line": runs of digits and tokens that look
 * like generated ids (hex of 8 or more, or 16 or more letters and digits mixed) become `#`, so `vote:123:yes` and
 * `vote:456:yes` share a key while `vote:123:no` does not. Raw ids would give every button a key of its own.
 */
export function warnKeyPattern(text: string): string {
  return text.replace(ID_TOKEN, (token) => (isIdLike(token) ? '#' : token)).replace(DIGITS, '#');
}

const ID_TOKEN = /[A-Za-z0-9_-]{8,}/g;
const DIGITS = /\d+/g;

function isIdLike(token: string): boolean {
  if (/^[0-9a-f]+$/i.test(token) && /\d/.test(token)) return true;
  return token.length >= 16 && /\d/.test(token) && /[A-Za-z]/.test(token);
}
