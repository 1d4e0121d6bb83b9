/** Snowflake helpers (protocol §1). IDs travel as decimal strings; arithmetic needs BigInt. */

export const DISCORD_EPOCH_MS = 1_420_070_400_000;

export type Snowflake = string;

/** 2^64 - 1: an id is an unsigned 64-bit integer (protocol §1). */
export const MAX_SNOWFLAKE = '18446744073709551615';

/** How the rule reads in error messages. */
export const SNOWFLAKE_RULE = 'a snowflake: decimal digits without a leading zero, at most 2^64 - 1';

/** An id split in decimal: `hi` = every digit but the last nine, `lo` = the last nine; both exact doubles. */
export interface SnowflakeHalves {
  hi: number;
  lo: number;
}

const MAX_HI = 18_446_744_073;
const MAX_LO = 709_551_615;
const discarded: SnowflakeHalves = { hi: 0, lo: 0 };

/**
 * The one rule for an id read from outside, in every layer: the canonical decimal form of an unsigned
 * 64-bit integer. "0" is an id (pagination's "beginning of time", protocol §1); "0123" is not, because the
 * same id would then have two spellings and a Map keyed by id would hold it twice.
 *
 * The check and the split are one pass, allocation-free: the cache runs it on every id of every event and
 * keeps the halves (cache/wire.ts), so checking first and splitting after would read each id twice.
 */
export function readSnowflake(value: unknown, out: SnowflakeHalves): value is Snowflake {
  if (typeof value !== 'string') return false;
  const len = value.length;
  if (len === 0 || len > 20 || (len > 1 && value.charCodeAt(0) === 48)) return false;
  let hi = 0;
  let lo = 0;
  const cut = len - 9;
  for (let i = 0; i < len; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (i < cut) hi = hi * 10 + d;
    else lo = lo * 10 + d;
  }
  // Only 20 digits can pass 2^64 - 1; (hi, lo) order is numeric order.
  if (len === 20 && (hi > MAX_HI || (hi === MAX_HI && lo > MAX_LO))) return false;
  out.hi = hi;
  out.lo = lo;
  return true;
}

export function isSnowflake(value: unknown): value is Snowflake {
  return readSnowflake(value, discarded);
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
