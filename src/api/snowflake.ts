/** Snowflake helpers (reference §1). IDs travel as decimal strings; arithmetic needs BigInt. */

export const DISCORD_EPOCH_MS = 1_420_070_400_000;

export type Snowflake = string;

/** 2^64 - 1: an id is an unsigned 64-bit integer (reference §1). */
export const MAX_SNOWFLAKE = '18446744073709551615';

/** How the rule reads in error messages. */
export const SNOWFLAKE_RULE = 'a snowflake: decimal digits without a leading zero, at most 2^64 - 1';

/**
 * The one rule for an id read from outside, in every layer: the canonical decimal form of an unsigned
 * 64-bit integer. "0" is an id (pagination's "beginning of time", reference §1); "0123" is not, because the
 * same id would then have two spellings and a Map keyed by id would hold it twice. Allocation-free: the cache
 * runs it on every id of every event.
 */
export function isSnowflake(value: unknown): value is Snowflake {
  if (typeof value !== 'string') return false;
  const len = value.length;
  if (len === 0 || len > 20 || (len > 1 && value.charCodeAt(0) === 48)) return false;
  for (let i = 0; i < len; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  // Same length, digits only: string order is numeric order.
  return len < 20 || value <= MAX_SNOWFLAKE;
}

/** Milliseconds since the Unix epoch at which the id was made. */
export function snowflakeTimestamp(id: Snowflake): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/** The shard that receives a guild's events: (guild_id >> 22) % num_shards. */
export function shardForGuild(guildId: Snowflake, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/**
 * Make snowflakes in increasing order. The worker/process bits identify the generator so that two
 * generators never collide; the increment wraps at 4096 per millisecond by borrowing the next millisecond.
 */
export class SnowflakeGenerator {
  private lastMs = 0;
  private increment = 0;
  private readonly workerBits: bigint;

  constructor(worker = 1, processId = 0) {
    this.workerBits = (BigInt(worker & 0x1f) << 17n) | (BigInt(processId & 0x1f) << 12n);
  }

  next(nowMs: number = Date.now()): Snowflake {
    let ms = Math.max(nowMs, this.lastMs);
    if (ms === this.lastMs) {
      this.increment++;
      if (this.increment > 0xfff) {
        ms++;
        this.increment = 0;
      }
    } else {
      this.increment = 0;
    }
    this.lastMs = ms;
    return ((BigInt(ms - DISCORD_EPOCH_MS) << 22n) | this.workerBits | BigInt(this.increment)).toString();
  }
}

/** Snowflake one less than the given one (the "All Channels" permission constant is guild_id - 1). */
export function previousSnowflake(id: Snowflake): Snowflake {
  return (BigInt(id) - 1n).toString();
}
