/**
 * Cooldown windows of the plugins' preconditions (src/plugins/preconditions/): at most `limit` uses per sliding
 * window of `windowMs` per key. In one process's memory by default; in Redis when the bot runs as a fleet, where
 * one script decides a use in one round trip, so that the limit is exact across every process of the bot and
 * outlives restarts (a window's uses are a sorted set that expires with its last use).
 *
 * Time is the Redis server's clock (one clock for the whole fleet), unless the caller passes its own `now` (the
 * test kit's clock moves time forward without waiting); the memory store uses the caller's `now` or Date.now.
 *
 * Keys are built inside the script from the namespace (ARGV[1]), which holds the application id in braces as the
 * fleet's other keys do (src/cluster/keys.ts), so that they hash to one Redis Cluster slot:
 *
 *   <ns>:cd:<key>    ZSET   `<token>:<n>` -> the time of the use (ms); expires a window after the newest use
 */
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';

/** What a use got: taken, or refused until `retryAt`. */
export interface CooldownVerdict {
  readonly ok: boolean;
  /** Refused: when a use is allowed again (ms since the epoch, on the clock that decided). 0 when taken. */
  readonly retryAt: number;
  /** Taken: the uses left in the window after this one. 0 when refused. */
  readonly remaining: number;
}

export interface CooldownStore {
  /** Take one use of `key` if fewer than `limit` were taken in the last `windowMs`. */
  take(key: string, limit: number, windowMs: number, now?: number): Promise<CooldownVerdict>;
}

/** The keys the memory store keeps before it sweeps expired windows. */
const SWEEP_EVERY = 1024;

/** One process's windows: exact for that process only. */
export class MemoryCooldowns implements CooldownStore {
  private readonly windows = new Map<string, { windowMs: number; uses: number[] }>();
  private takes = 0;

  take(key: string, limit: number, windowMs: number, now: number = Date.now()): Promise<CooldownVerdict> {
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    let entry = this.windows.get(key);
    if (entry === undefined) this.windows.set(key, (entry = { windowMs, uses: [] }));
    entry.windowMs = windowMs;
    const uses = entry.uses;
    let expired = 0;
    while (expired < uses.length && uses[expired]! <= now - windowMs) expired++;
    if (expired > 0) uses.splice(0, expired);
    if (uses.length < limit) {
      uses.push(now);
      return Promise.resolve({ ok: true, retryAt: 0, remaining: limit - uses.length });
    }
    // The use that frees the window for one more is the (length - limit + 1)-th oldest.
    return Promise.resolve({ ok: false, retryAt: uses[uses.length - limit]! + windowMs, remaining: 0 });
  }

  /** Drop windows whose uses all expired, so a process seeing many users keeps only the live ones. */
  private sweep(now: number): void {
    for (const [key, entry] of this.windows) {
      const last = entry.uses[entry.uses.length - 1];
      if (last === undefined || last <= now - entry.windowMs) this.windows.delete(key);
    }
  }
}

/**
 * With the caller's clock the set's expiry (server time) cannot follow the window (caller time, which a test
 * stops or moves forward): the set is kept this much longer, so that a slow restart in a test loses no window.
 */
const CALLER_CLOCK_KEEP_MS = 10 * 60_000;

const TAKE = `
local ns = ARGV[1]
local key = ns .. ':cd:' .. ARGV[2]
local limit = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local member = ARGV[6]
local keep = window
if not now then
  local clock = redis.call('TIME')
  now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
else
  keep = window + ${CALLER_CLOCK_KEEP_MS}
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local used = redis.call('ZCARD', key)
if used < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, keep)
  return {1, 0, limit - used - 1}
end
-- Free again once the (used - limit + 1)-th oldest use leaves the window.
local nth = redis.call('ZRANGE', key, used - limit, used - limit, 'WITHSCORES')
return {0, tonumber(nth[2]) + window, 0}
`;

interface CooldownRedis extends Redis {
  gatehouseCooldownTake(ns: string, key: string, limit: string, windowMs: string, now: string, member: string): Promise<[number, number, number]>;
}

/** The fleet's windows in Redis: one script call per use. */
export class RedisCooldowns implements CooldownStore {
  private readonly redis: CooldownRedis;
  /** Members of a window's set must be unique across the fleet: this process's token and a counter. */
  private readonly token = randomBytes(8).toString('hex');
  private n = 0;

  constructor(
    redis: Redis,
    private readonly namespace: string,
  ) {
    if (!('gatehouseCooldownTake' in redis)) redis.defineCommand('gatehouseCooldownTake', { numberOfKeys: 0, lua: TAKE });
    this.redis = redis as CooldownRedis;
  }

  async take(key: string, limit: number, windowMs: number, now?: number): Promise<CooldownVerdict> {
    const member = `${this.token}:${(this.n = (this.n + 1) % Number.MAX_SAFE_INTEGER)}`;
    const at = now === undefined ? '' : String(Math.floor(now));
    const [ok, retryAt, remaining] = await this.redis.gatehouseCooldownTake(this.namespace, key, String(limit), String(Math.ceil(windowMs)), at, member);
    return { ok: ok === 1, retryAt: Number(retryAt), remaining: Number(remaining) };
  }
}
