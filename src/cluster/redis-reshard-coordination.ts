/**
 * A live reshard shared by every process of a bot, through Redis (the gateway layer's ReshardCoordination).
 *
 *   <root>:generation                 STRING  "<generation>:<total>": the shard set the bot runs now (absent:
 *                                             generation 0, the configured total). Generation g > 0 keeps its
 *                                             leases, sessions and members under `<root>:g<g>` (see
 *                                             generationNamespace); generation 0 under <root> itself.
 *   <root>:reshard                    HASH    the plan: id, from, to, gen, reason, stage (warming | switch |
 *                                             aborted); PX one hour
 *   <root>:reshard:<id>:warm          SET     new shard ids that are READY with their guilds loaded
 *   <root>:reshard:<id>:stopped       SET     member ids (old generation) whose old set delivers no more
 *   <root>:reshard:<id>:seen:<shard>  LIST    keys of the events the old set delivered that new shard
 *                                             <shard> receives too (the cutover's ledger)
 *
 * Every process polls the plan (`pollMs`). A proposal is accepted when no reshard is under way and the bot
 * runs `from` shards. Each process starts its share of the new set, marks its new shards warm, and once all
 * are warm (and a settle time has passed) stops delivering from its old set, flushes its ledger records and
 * says so; when every live process of the old generation has (or `stopTimeoutMs` has passed), the stage
 * becomes "switch" and the generation pointer moves, atomically; each process then reads its new shards'
 * ledgers and switches.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import type { ReshardCoordination, ReshardPlan } from '../gateway/reshard-coordination.js';
import { sleep } from '../util/sleep.js';
import { luaFlag } from './scripts.js';

const NOW_MS = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/** KEYS: plan, generation. ARGV: id, from, to, reason, ttl. Returns { status, id, from, to, gen, reason, stage }. */
const PROPOSE = `
local stage = redis.call('HGET', KEYS[1], 'stage')
if stage == 'warming' then
  local p = redis.call('HMGET', KEYS[1], 'id', 'from', 'to', 'gen', 'reason', 'stage')
  return { 'existing', p[1], p[2], p[3], p[4], p[5], p[6] }
end
local g = redis.call('GET', KEYS[2])
local gen, total = 0, nil
if g then
  local sep = string.find(g, ':')
  gen = tonumber(string.sub(g, 1, sep - 1))
  total = tonumber(string.sub(g, sep + 1))
end
if total and total ~= tonumber(ARGV[2]) then return { 'refused', '', tostring(total), '', '', '', '' } end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'from', ARGV[2], 'to', ARGV[3], 'gen', gen + 1, 'reason', ARGV[4], 'stage', 'warming')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return { 'new', ARGV[1], ARGV[2], ARGV[3], tostring(gen + 1), ARGV[4], 'warming' }
`;

/**
 * KEYS: plan, generation, stopped, old members. ARGV: id, force ('1': do not wait for every live member).
 * Moves the plan to "switch" and the generation pointer to the new set once every live member of the old
 * generation stopped its old set. Returns 1 (switched, now or before), 0 (not yet), -1 (not this plan).
 */
const SWITCH = `${NOW_MS}
local p = redis.call('HMGET', KEYS[1], 'id', 'stage', 'gen', 'to')
if p[1] ~= ARGV[1] then return -1 end
if p[2] == 'switch' then return 1 end
if p[2] ~= 'warming' then return -1 end
if ARGV[2] ~= '1' then
  local live = redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. now, '+inf')
  for _, member in ipairs(live) do
    if redis.call('SISMEMBER', KEYS[3], member) == 0 then return 0 end
  end
end
redis.call('HSET', KEYS[1], 'stage', 'switch')
redis.call('SET', KEYS[2], p[3] .. ':' .. p[4])
return 1
`;

/** KEYS: plan. ARGV: id. Marks the plan aborted unless it already switched. Returns 1 or 0. */
const ABORT = `
local p = redis.call('HMGET', KEYS[1], 'id', 'stage')
if p[1] ~= ARGV[1] or p[2] == 'switch' then return 0 end
redis.call('HSET', KEYS[1], 'stage', 'aborted')
return 1
`;

type ReshardRedis = Redis & {
  ghReshardPropose(plan: string, generation: string, id: string, from: number, to: number, reason: string, ttl: number): Promise<unknown>;
  ghReshardSwitch(plan: string, generation: string, stopped: string, members: string, id: string, force: string): Promise<unknown>;
  ghReshardAbort(plan: string, id: string): Promise<unknown>;
};

/** Where generation `g`'s leases, sessions and members live. */
export function generationNamespace(root: string, generation: number): string {
  return generation === 0 ? root : `${root}:g${generation}`;
}

/** The shard set the bot runs now, as recorded after its last reshard (null: never resharded). */
export async function currentGeneration(redis: Redis, root: string): Promise<{ generation: number; total: number } | null> {
  const value = await redis.get(`${root}:generation`);
  if (value === null) return null;
  const [g, t] = value.split(':');
  const generation = Number(g);
  const total = Number(t);
  return Number.isInteger(generation) && Number.isInteger(total) && total > 0 ? { generation, total } : null;
}

export interface RedisReshardCoordinationOptions {
  /** The caller's connection (not closed here). */
  redis: Redis;
  /** `<cluster.prefix>:{<application id>}`. */
  root: string;
  /** This process's member id in the current (old) generation's registry. */
  member: () => string | null;
  /** How often the plan is looked at. Default 250. */
  pollMs?: number;
  /** Longest wait for every live process to stop its old set before switching anyway. Default 10000. */
  stopTimeoutMs?: number;
  /** Ledger records wait at most this long to be written together. Default 50. */
  flushMs?: number;
  logger?: Logger;
}

const PLAN_TTL_MS = 3_600_000;

export class RedisReshardCoordination implements ReshardCoordination {
  private readonly redis: ReshardRedis;
  private readonly root: string;
  private readonly pollMs: number;
  private readonly stopTimeoutMs: number;
  private readonly flushMs: number;
  private readonly member: () => string | null;
  private readonly log: Logger | undefined;
  private readonly planListeners: Array<(plan: ReshardPlan) => void> = [];
  private readonly abortListeners: Array<(plan: ReshardPlan, reason: string) => void> = [];
  /** Ledger records not written yet, per new shard. */
  private pending = new Map<number, string[]>();
  private pendingPlan: ReshardPlan | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private pollTimer: NodeJS.Timeout | null = null;
  /** Plans already handed to the listeners (and whether they were aborted). */
  private readonly seen = new Map<string, ReshardPlan>();
  private closed = false;

  constructor(options: RedisReshardCoordinationOptions) {
    const redis = options.redis;
    if (!('ghReshardPropose' in redis)) redis.defineCommand('ghReshardPropose', { numberOfKeys: 2, lua: PROPOSE });
    if (!('ghReshardSwitch' in redis)) redis.defineCommand('ghReshardSwitch', { numberOfKeys: 4, lua: SWITCH });
    if (!('ghReshardAbort' in redis)) redis.defineCommand('ghReshardAbort', { numberOfKeys: 1, lua: ABORT });
    this.redis = redis as ReshardRedis;
    this.root = options.root;
    this.member = options.member;
    this.pollMs = options.pollMs ?? 250;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.flushMs = options.flushMs ?? 50;
    this.log = options.logger;
    this.schedulePoll();
  }

  private get planKey(): string {
    return `${this.root}:reshard`;
  }

  private key(plan: ReshardPlan, part: string): string {
    return `${this.root}:reshard:${plan.id}:${part}`;
  }

  async propose(from: number, to: number, reason: string): Promise<ReshardPlan | null> {
    const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const r = (await this.redis.ghReshardPropose(this.planKey, `${this.root}:generation`, id, from, to, reason, PLAN_TTL_MS)) as string[];
    if (r[0] === 'refused') {
      this.log?.warn({ from, to, running: Number(r[2]) }, 'reshard refused: the bot no longer runs that many shards');
      return null;
    }
    const plan = toPlan(r.slice(1));
    this.hear(plan);
    return plan;
  }

  onPlan(listener: (plan: ReshardPlan) => void): void {
    this.planListeners.push(listener);
  }

  onAbort(listener: (plan: ReshardPlan, reason: string) => void): void {
    this.abortListeners.push(listener);
  }

  delivered(plan: ReshardPlan, newShard: number, key: string): void {
    if (this.pendingPlan !== null && this.pendingPlan.id !== plan.id) this.pending.clear();
    this.pendingPlan = plan;
    let list = this.pending.get(newShard);
    if (list === undefined) this.pending.set(newShard, (list = []));
    list.push(key);
    if (this.flushTimer === null && !this.closed) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        void this.flush();
      }, this.flushMs);
      this.flushTimer.unref();
    }
  }

  warm(plan: ReshardPlan, newShard: number): void {
    const key = this.key(plan, 'warm');
    this.redis
      .multi()
      .sadd(key, newShard)
      .pexpire(key, PLAN_TTL_MS)
      .exec()
      .catch((error: unknown) => this.log?.warn({ err: error, shard: newShard }, 'could not mark a new shard warm'));
  }

  async allWarm(plan: ReshardPlan, signal: AbortSignal): Promise<void> {
    const key = this.key(plan, 'warm');
    for (let i = 0; !signal.aborted && !this.closed; i++) {
      const [count, stage] = await Promise.all([this.redis.scard(key), this.redis.hget(this.planKey, 'stage')]);
      if (stage === 'switch' || count >= plan.to) return;
      if (stage !== 'warming') throw new Error(`reshard ${plan.id} was given up`);
      await sleep(this.pollMs, signal);
    }
    throw signal.reason instanceof Error ? signal.reason : new Error('reshard given up');
  }

  async oldStopped(plan: ReshardPlan, signal: AbortSignal): Promise<void> {
    await this.flush();
    const member = this.member();
    const stopped = this.key(plan, 'stopped');
    if (member !== null) await this.redis.multi().sadd(stopped, member).pexpire(stopped, PLAN_TTL_MS).exec();
    const oldMembers = `${generationNamespace(this.root, plan.generation - 1)}:members`;
    const deadline = performance.now() + this.stopTimeoutMs;
    for (;;) {
      const force = performance.now() >= deadline;
      const r = Number(await this.redis.ghReshardSwitch(this.planKey, `${this.root}:generation`, stopped, oldMembers, plan.id, luaFlag(force)));
      if (r === 1) {
        if (force) this.log?.warn({ reshard: plan.id }, 'not every process said it stopped its old shards in time; switching anyway');
        return;
      }
      if (r === -1) throw new Error(`reshard ${plan.id} was given up`);
      await sleep(Math.min(this.pollMs, 100), signal);
    }
  }

  async ledger(plan: ReshardPlan, newShard: number): Promise<string[]> {
    return this.redis.lrange(this.key(plan, `seen:${newShard}`), 0, -1);
  }

  async finished(): Promise<void> {
    // The plan stays (stage "switch") until it expires or the next reshard replaces it.
  }

  async abort(plan: ReshardPlan, reason: string): Promise<void> {
    this.pending.clear();
    this.seen.delete(plan.id); // this process knows already; the poll must not tell it again
    const aborted = Number(await this.redis.ghReshardAbort(this.planKey, plan.id).catch(() => 0)) === 1;
    if (aborted) this.log?.warn({ reshard: plan.id, reason }, 'reshard given up');
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer !== null) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.flushing;
  }

  /** Write the pending ledger records (one pipeline). */
  private flush(): Promise<void> {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const plan = this.pendingPlan;
    const pending = this.pending;
    if (plan === null || pending.size === 0) return this.flushing;
    this.pending = new Map();
    const pipeline = this.redis.pipeline();
    for (const [shard, keys] of pending) {
      const list = this.key(plan, `seen:${shard}`);
      pipeline.rpush(list, ...keys).pexpire(list, PLAN_TTL_MS);
    }
    // In order: a later flush must not overtake an earlier one.
    this.flushing = this.flushing
      .then(() => pipeline.exec())
      .then(
        () => undefined,
        (error: unknown) => this.log?.warn({ err: error }, 'could not write the reshard ledger (events may be delivered twice)'),
      );
    return this.flushing;
  }

  private schedulePoll(): void {
    if (this.closed) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.poll().finally(() => this.schedulePoll());
    }, this.pollMs);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    let fields: Record<string, string>;
    try {
      fields = await this.redis.hgetall(this.planKey);
    } catch {
      return; // Redis away: the next poll tries again
    }
    if (fields.id === undefined || fields.stage === undefined) return;
    const plan = toPlan([fields.id, fields.from ?? '', fields.to ?? '', fields.gen ?? '', fields.reason ?? '']);
    if (fields.stage === 'warming') this.hear(plan);
    else if (fields.stage === 'aborted' && this.seen.has(plan.id)) {
      const known = this.seen.get(plan.id)!;
      this.seen.delete(plan.id);
      for (const listener of this.abortListeners) listener(known, 'given up by another process');
    }
  }

  private hear(plan: ReshardPlan): void {
    if (this.seen.has(plan.id) || this.closed) return;
    this.seen.set(plan.id, plan);
    if (this.seen.size > 16) this.seen.delete(this.seen.keys().next().value!);
    for (const listener of this.planListeners) listener(plan);
  }
}

function toPlan(f: readonly string[]): ReshardPlan {
  return { id: f[0]!, from: Number(f[1]), to: Number(f[2]), generation: Number(f[3]), reason: f[4] ?? '' };
}
