/**
 * The daily session-start budget of a bot (session_start_limit, protocol §8.2) kept in Redis for every
 * process: an IDENTIFY of any shard in any process takes one, atomically, and the one that would leave fewer
 * than the reserve is refused (IdentifyBudgetExhaustedError: the shard stops, loudly) instead. Counted per
 * process, N processes could together spend N times what is left and get the token reset.
 *
 * Key: `<ns>:identify:budget` HASH { total, remaining, reset } (reset on the Redis server's clock), kept a day
 * past the window's end. Figures from GET /gateway/bot (`update`) replace the stored ones when they describe a
 * newer window; within the same window the lower `remaining` wins (the service has not seen the identifies
 * taken since it answered, and this store has not seen identifies sent by anything else).
 */
import type { APIGatewaySessionStartLimit } from 'discord-api-types/v10';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { IdentifyBudgetExhaustedError } from '../gateway/errors.js';
import type { IdentifyBudget, IdentifyBudgetSnapshot } from '../gateway/identify-budget.js';
import { luaFlag } from './scripts.js';

/** TAKE's reserve when none is configured: the script keeps 5% of the total. */
const DEFAULT_RESERVE = -1;

const NOW_MS = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/** A window's end moves this much between two answers of the service for the same window (fetch latency). */
const SAME_WINDOW_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * KEYS: budget. ARGV: total, remaining, reset_after ms. Returns { total, remaining, ms until reset }.
 */
const UPDATE = `${NOW_MS}
local total, remaining, resetAfter = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local s = redis.call('HMGET', KEYS[1], 'total', 'remaining', 'reset')
local storedRemaining, storedReset = tonumber(s[2]), tonumber(s[3])
local reset = now + resetAfter
if storedReset and now < storedReset and reset <= storedReset + ${SAME_WINDOW_MS} then
  remaining = math.min(storedRemaining or remaining, remaining)
  reset = math.max(reset, storedReset)
end
redis.call('HSET', KEYS[1], 'total', total, 'remaining', remaining, 'reset', reset)
redis.call('PEXPIRE', KEYS[1], math.max(0, reset - now) + ${DAY_MS})
return { total, remaining, reset - now }
`;

/**
 * KEYS: budget. ARGV: reserve (-1: 5% of the total), assume-full ('1': a window that is over counts as full
 * again for a day; '0': the caller asks the service first).
 * Returns { code, total, remaining, ms until reset }: code 1 taken, 0 refused (would go below the reserve),
 * 2 the window is over (ask the service), 3 nothing known (not counted).
 */
const TAKE = `${NOW_MS}
local s = redis.call('HMGET', KEYS[1], 'total', 'remaining', 'reset')
local total, remaining, reset = tonumber(s[1]), tonumber(s[2]), tonumber(s[3])
if not total or not remaining or not reset then return { 3, -1, -1, -1 } end
if now >= reset then
  if ARGV[2] ~= '1' then return { 2, total, remaining, 0 } end
  remaining = total
  reset = now + ${DAY_MS}
end
local reserve = tonumber(ARGV[1])
if reserve < 0 then reserve = math.floor(total / 20) end
if remaining - 1 < reserve then
  redis.call('HSET', KEYS[1], 'remaining', remaining, 'reset', reset)
  return { 0, total, remaining, reset - now }
end
remaining = remaining - 1
redis.call('HSET', KEYS[1], 'remaining', remaining, 'reset', reset)
redis.call('PEXPIRE', KEYS[1], math.max(0, reset - now) + ${DAY_MS})
return { 1, total, remaining, reset - now }
`;

type BudgetRedis = Redis & {
  ghIdentifyBudgetUpdate(key: string, total: number, remaining: number, resetAfterMs: number): Promise<unknown>;
  ghIdentifyBudgetTake(key: string, reserve: number, assumeFull: string): Promise<unknown>;
};

export interface RedisIdentifyBudgetOptions {
  /** The caller's connection (not closed here). */
  redis: Redis;
  /** `<ns>:identify:budget` (see keys.ts). */
  key: string;
  /** Identifies kept back; default 5% of the total (50 of the usual 1,000). */
  reserve?: number;
  /**
   * Fresh figures from the service (GET /gateway/bot): asked when the stored window is over, and once before
   * refusing, in case the service's window reset earlier than counted. Without it a window that is over is
   * assumed full again.
   */
  refresh?: () => Promise<APIGatewaySessionStartLimit>;
  logger?: Logger;
}

export class RedisIdentifyBudget implements IdentifyBudget {
  private readonly redis: BudgetRedis;
  private readonly key: string;
  private readonly explicitReserve: number | undefined;
  private readonly refreshFromService: (() => Promise<APIGatewaySessionStartLimit>) | undefined;
  private readonly log: Logger | undefined;
  private last: { total: number; remaining: number; resetAt: number } | null = null;
  private pendingUpdate: Promise<void> = Promise.resolve();
  private refreshing: Promise<void> | null = null;

  constructor(options: RedisIdentifyBudgetOptions) {
    if (options.reserve !== undefined && (!Number.isInteger(options.reserve) || options.reserve < 0)) {
      throw new RangeError(`identify budget reserve must be a non-negative integer, got ${options.reserve}`);
    }
    const redis = options.redis;
    if (!('ghIdentifyBudgetUpdate' in redis)) redis.defineCommand('ghIdentifyBudgetUpdate', { numberOfKeys: 1, lua: UPDATE });
    if (!('ghIdentifyBudgetTake' in redis)) redis.defineCommand('ghIdentifyBudgetTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as BudgetRedis;
    this.key = options.key;
    this.explicitReserve = options.reserve;
    this.refreshFromService = options.refresh;
    this.log = options.logger;
  }

  private get reserve(): number {
    return this.explicitReserve ?? Math.floor((this.last?.total ?? 0) / 20);
  }

  /** The service's figures; stored for the fleet (takes wait for the write). */
  update(limit: APIGatewaySessionStartLimit): void {
    this.pendingUpdate = this.write(limit).catch((error: unknown) => {
      this.log?.warn({ err: error }, 'could not store the identify budget in Redis');
    });
  }

  async available(refreshed = false): Promise<number> {
    await this.pendingUpdate;
    // Peek through a take of nothing: read the stored figures (the window freshened when over).
    const s = await this.redis.hmget(this.key, 'total', 'remaining', 'reset');
    const total = Number(s[0]);
    const remaining = Number(s[1]);
    if (s[0] === null || s[1] === null || !Number.isFinite(total) || !Number.isFinite(remaining)) return Infinity;
    const time = await this.redis.time();
    const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    if (now >= Number(s[2]) && this.refreshFromService !== undefined && !refreshed) {
      await this.refresh();
      return this.available(true);
    }
    this.last = { total, remaining, resetAt: performance.now() + Math.max(0, Number(s[2]) - now) };
    return Math.max(0, remaining - this.reserve);
  }

  async take(shardId: number): Promise<void> {
    await this.pendingUpdate;
    let reply = await this.takeOnce();
    if (reply.code === 2 || (reply.code === 0 && this.refreshFromService !== undefined)) {
      // The window is over, or we would refuse: ask the service once (its window may have reset earlier).
      await this.refresh();
      reply = await this.takeOnce();
      if (reply.code === 2) reply = await this.takeOnce(true);
    }
    if (reply.code === 0) {
      throw new IdentifyBudgetExhaustedError(shardId, reply.remaining, this.explicitReserve ?? Math.floor(reply.total / 20), reply.resetInMs);
    }
  }

  snapshot(): IdentifyBudgetSnapshot {
    const last = this.last;
    return {
      remaining: last?.remaining ?? null,
      total: last?.total ?? null,
      reserve: this.reserve,
      resetInMs: last === null ? null : Math.max(0, last.resetAt - performance.now()),
    };
  }

  private async write(limit: APIGatewaySessionStartLimit): Promise<void> {
    const reply = (await this.redis.ghIdentifyBudgetUpdate(this.key, limit.total, limit.remaining, Math.max(0, Math.round(limit.reset_after)))) as number[];
    this.last = { total: Number(reply[0]), remaining: Number(reply[1]), resetAt: performance.now() + Number(reply[2]) };
  }

  private async takeOnce(assumeFull = this.refreshFromService === undefined): Promise<{ code: number; total: number; remaining: number; resetInMs: number }> {
    const r = (await this.redis.ghIdentifyBudgetTake(this.key, this.explicitReserve ?? DEFAULT_RESERVE, luaFlag(assumeFull))) as number[];
    const out = { code: Number(r[0]), total: Number(r[1]), remaining: Number(r[2]), resetInMs: Number(r[3]) };
    if (out.code !== 3 && out.code !== 2) this.last = { total: out.total, remaining: out.remaining, resetAt: performance.now() + out.resetInMs };
    return out;
  }

  /** One request at a time however many shards ask; a failed one keeps the stored figures. */
  private refresh(): Promise<void> {
    const fetchLimit = this.refreshFromService;
    if (fetchLimit === undefined) return Promise.resolve();
    this.refreshing ??= (async () => {
      try {
        await this.write(await fetchLimit());
      } catch (error) {
        this.log?.warn({ err: error }, 'could not refresh the identify budget from the service');
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }
}
