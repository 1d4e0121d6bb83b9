/** Snowflake helpers (reference §1). IDs travel as decimal strings; arithmetic needs BigInt. */

export const DISCORD_EPOCH_MS = 1_420_070_400_000;

export type Snowflake = string;

export function isSnowflake(value: unknown): value is Snowflake {
  return typeof value === 'string' && /^\d{1,20}$/.test(value);
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
