/**
 * The Redis backend. apply() stays synchronous: the reducer's writes are queued on one ioredis pipeline,
 * which is sent at the end of the tick (or as soon as it holds `pipelineSize` commands), so a GUILD_CREATE
 * with a thousand members costs one round trip, not a thousand. Reads first wait for every queued write, so a
 * read after apply() sees it. Layout and concurrency rules: keys.ts; every script is bounded (scripts.ts).
 *
 * Failed writes. Every queued command carries the guild (or the entitlements) it concerns and the event it
 * came from. A command that fails is reported where it happens (`onWriteError`, counted in stats), the guild
 * is marked stale (`onStale`, and in `P:stale` so that any process can recover it after a restart), and
 * nothing is thrown at readers. flush() resolves once every write is stored or its failure recorded that way,
 * and rejects only when even the stale mark could not be written: the cluster's session checkpoint awaits it,
 * so a stored seq never moves past a lost write that nobody will recover.
 *
 * Background work (bounded batches, resumed by any process after a crash through `P:jobs`): the removal of a
 * fresh READY's unlisted guilds, the member and user release of removed guilds, member and entitlement sync
 * commits. settled() waits for it.
 */
import { randomBytes } from 'node:crypto';
import type { APIEntitlement, APIRole, APIUser } from 'discord-api-types/v10';
import type { ChainableCommander, Redis } from 'ioredis';
import { isEntitlementActive, toMillis } from '../entitlements.js';
import {
  checkOptions,
  MAX_TRANSITIONS,
  ownerOf,
  pageLimit,
  shardOf,
  TRANSITION_WINDOW_MS,
  type CacheHooks,
} from '../shared.js';
import { entitlementProblem, reduce, type CacheSink, type GuildPayload, type MemberPayload } from '../reducer.js';
import type {
  Cache,
  CacheOptions,
  CacheSizes,
  CacheStats,
  EntitlementOwner,
  EntitlementQuery,
  EntitlementSync,
  EntitlementView,
  GuildView,
  MemberPage,
  MemberPageOptions,
  MemberSync,
  MemberView,
  RoleView,
  StaleScope,
  UserView,
} from '../types.js';
import { isSnowflake, padSnowflake } from '../wire.js';
import {
  decodeEntitlement,
  decodeMember,
  decodeRole,
  decodeUser,
  encodeEntitlement,
  encodeRole,
  encodeUser,
  memberFields,
} from './codec.js';
import { CacheKeys, LAYOUT_VERSION } from './keys.js';
import { SCRIPTS, type ScriptName } from './scripts.js';
import { compareRoles } from '../memory/guilds.js';

export interface RedisCacheOptions extends Partial<CacheOptions> {
  /** Key namespace (`cache.redisPrefix` with the application id appended, see createCache). */
  prefix: string;
  /** Send the pending pipeline once it holds this many commands (default 1000). */
  pipelineSize?: number;
  /** close() also closes the connection (set when the cache opened it itself). */
  ownsConnection?: boolean;
  hooks?: CacheHooks;
  /** Records per background script call (guild removal, syncs, READY reconciliation). Default 100. */
  batchSize?: number;
}

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;
type Scripted = { [K in ScriptName]: ScriptCall };

/** Writes whose failure could not even be recorded (see flush). */
export class CacheWriteError extends Error {
  constructor(readonly errors: Error[]) {
    super(`${errors.length} cache write(s) to Redis failed and could not be marked for recovery; first: ${errors[0]?.message ?? 'unknown'}`);
    this.name = 'CacheWriteError';
  }
}

/** The stale-set entry that stands for the entitlements. */
const ENTITLEMENTS = 'entitlements';
const SWEEP_PAGE = 1000;
/**
 * Member records per ghMembers call, members per READ_MEMBERS call, records per background script call: each
 * script stays well under a millisecond of Redis time, so another client never waits long behind one
 * (bench/redis-scripts.bench.ts).
 */
const MEMBER_BATCH = 25;
const READ_BATCH = 50;
const BACKGROUND_BATCH = 50;
const SYNC_TTL_MS = 10 * 60_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/** A fresh READY's reconciliation: guilds to keep (listed, or created since), then the prune. */
interface ReadyJob {
  readonly shard: number;
  readonly count: number;
  readonly keep: Set<string>;
  persisted: boolean;
  attempt: Promise<void> | null;
}

type TagGuild = string | readonly string[] | null;

export class RedisCache implements Cache, CacheSink {
  readonly backend = 'redis' as const;
  readonly options: Readonly<CacheOptions>;
  readonly keys: CacheKeys;
  private readonly redis: Redis & Scripted;
  private readonly pipelineSize: number;
  private readonly batchSize: number;
  private pipe: ChainableCommander | null = null;
  private queued = 0;
  /** What each queued command concerns, for failure reports (parallel to the pipeline's commands). */
  private tagGuilds: TagGuild[] = [];
  private tagEvents: (string | readonly string[])[] = [];
  /** Member records waiting to go out as one ghMembers call (see scripts.ts), in event order. */
  private memberRecords: (string | number)[] = [];
  private memberRecordCount = 0;
  private memberGuilds: string[] = [];
  private memberEvents: string[] = [];
  private scheduled = false;
  private readonly inflight = new Set<Promise<void>>();
  /** The dispatch being applied (writes are tagged with it). */
  private event = '';
  private readonly counters: CacheStats = { applied: 0, rejected: 0, capped: 0, writeErrors: 0 };
  private readonly hooks: CacheHooks;
  private readonly now: () => number;
  private readonly ownsConnection: boolean;
  /** Stale scopes reported and not recovered yet; those whose mark is not in Redis yet; errors behind those. */
  private readonly staleKnown = new Set<string>();
  /** Failed writes per guild (and the entitlements) since they were last recovered: a sync must not commit over one. */
  private readonly failuresOf = new Map<string, number>();
  private readonly stalePending = new Set<string>();
  private staleErrors: Error[] = [];
  private readonly readyJobs = new Set<ReadyJob>();
  /** Member-sync tokens of GUILD_CREATEs with a complete member list, until their members are queued. */
  private readonly listTokens = new Map<string, string>();
  private readonly background = new Set<Promise<unknown>>();
  private jobsRunning: Promise<void> | null = null;
  private jobsAgain = false;
  /** A queued write creates a job (a guild removal): look for jobs once the pipeline ran. */
  private jobsWanted = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelay = RETRY_MIN_MS;
  private closed = false;

  constructor(redis: Redis, options: RedisCacheOptions) {
    const { prefix, pipelineSize, hooks, ownsConnection, batchSize, ...rest } = options;
    this.ownsConnection = ownsConnection ?? false;
    this.options = Object.freeze(checkOptions(rest));
    this.keys = new CacheKeys(prefix);
    this.pipelineSize = pipelineSize ?? 1000;
    this.batchSize = batchSize ?? BACKGROUND_BATCH;
    this.hooks = hooks ?? {};
    this.now = this.hooks.now ?? Date.now;
    for (const [name, spec] of Object.entries(SCRIPTS)) {
      // defineCommand is idempotent per connection; ioredis sends EVAL once per socket, EVALSHA after.
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: spec.keys, lua: spec.lua });
    }
    this.redis = redis as Redis & Scripted;
    // Work a crashed process left (READY reconciliations, guild removals) is picked up by whoever starts next.
    this.kickJobs();
  }

  apply(t: string, d: unknown): void {
    this.event = t;
    try {
      if (reduce(this, t, d)) this.counters.applied++;
    } catch (err) {
      this.reject(t, `threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Send what is queued and wait for every write so far; failed writes are marked stale (in Redis too). Rejects
   * with CacheWriteError only when a failure could not be recorded (see the module comment).
   */
  async flush(): Promise<void> {
    await this.drain();
    const errors: Error[] = [];
    for (const job of this.readyJobs) {
      if (!job.persisted) {
        job.attempt ??= this.track(this.readyPhase(job));
        await job.attempt;
        if (!job.persisted) errors.push(new Error(`the reconciliation of READY (shard ${job.shard}/${job.count}) is not stored yet`));
      }
    }
    if (!(await this.persistStale())) errors.push(...this.staleErrors);
    if (errors.length > 0) throw new CacheWriteError(errors);
  }

  async settled(): Promise<void> {
    await this.drain();
    for (let rounds = 0; rounds < 10_000 && (this.background.size > 0 || this.jobsRunning !== null); rounds++) {
      await Promise.all([...this.background, this.jobsRunning]);
    }
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } catch {
      // Reported already (onWriteError); the marks that could not be written are lost with this process, and
      // the session checkpoint never moved past them.
    } finally {
      this.closed = true;
      if (this.retryTimer !== null) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      await Promise.allSettled([...this.background, this.jobsRunning]);
      if (this.ownsConnection) await this.redis.quit().catch(() => this.redis.disconnect());
    }
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  get reachable(): boolean {
    return this.redis.status === 'ready';
  }

  async stale(): Promise<{ guildIds: string[]; entitlements: boolean }> {
    await this.drain();
    const [[, guilds], [, entitlements]] = (await this.redis.pipeline().smembers(this.keys.stale).get(this.keys.staleEntitlements).exec()) as [
      [null, string[]],
      [null, string | null],
    ];
    const ids = new Set(guilds);
    for (const key of this.stalePending) if (key !== ENTITLEMENTS) ids.add(key);
    return { guildIds: [...ids], entitlements: entitlements !== null || this.stalePending.has(ENTITLEMENTS) };
  }

  async recovered(scope: StaleScope): Promise<void> {
    const key = 'guildId' in scope ? scope.guildId : ENTITLEMENTS;
    this.staleKnown.delete(key);
    this.failuresOf.delete(key);
    this.stalePending.delete(key);
    if (key === ENTITLEMENTS) await this.redis.del(this.keys.staleEntitlements);
    else await this.redis.srem(this.keys.stale, key);
  }

  // ---- write queue ----------------------------------------------------------------------------

  /** The pipeline to queue one command on (after any member records waiting, to keep event order). */
  private pipeline(guild: TagGuild, event: string = this.event): ChainableCommander & Scripted {
    if (this.memberRecordCount > 0) this.queueMemberRecords();
    const pipe = this.rawPipeline();
    this.tagGuilds.push(guild);
    this.tagEvents.push(event);
    return pipe;
  }

  private rawPipeline(): ChainableCommander & Scripted {
    // A full pipeline is sent before anything else is queued, so pipelines leave in command order.
    if (this.pipe !== null && this.queued >= this.pipelineSize) this.send();
    if (this.pipe === null) {
      this.pipe = this.redis.pipeline();
      this.schedule();
    }
    this.queued++;
    return this.pipe as ChainableCommander & Scripted;
  }

  /** Add one member record; records go out together, up to MEMBER_BATCH per script call. */
  private memberRecord(guildId: string, record: (string | number)[]): void {
    for (let i = 0; i < record.length; i++) this.memberRecords.push(record[i]!);
    this.memberGuilds.push(guildId);
    this.memberEvents.push(this.event);
    // A record weighs one command against pipelineSize, so a pipeline stays a bounded size.
    if (++this.memberRecordCount >= MEMBER_BATCH || this.queued + this.memberRecordCount >= this.pipelineSize) this.queueMemberRecords();
    else this.schedule();
  }

  private queueMemberRecords(): void {
    const records = this.memberRecords;
    const count = this.memberRecordCount;
    const guilds = this.memberGuilds;
    const events = this.memberEvents;
    this.memberRecords = [];
    this.memberRecordCount = 0;
    this.memberGuilds = [];
    this.memberEvents = [];
    const pipe = this.rawPipeline();
    this.queued += count - 1;
    this.tagGuilds.push(guilds);
    this.tagEvents.push(events);
    pipe.ghMembers(
      this.keys.users,
      this.keys.userRefs,
      this.keys.prefix,
      this.now(),
      TRANSITION_WINDOW_MS,
      MAX_TRANSITIONS,
      this.options.guilds ? '1' : '0',
      this.options.maxMembersPerGuild === 0 ? '1' : '0',
      ...records,
    );
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.memberRecordCount > 0) this.queueMemberRecords();
    if (this.pipe === null) return;
    const pipe = this.pipe;
    const guilds = this.tagGuilds;
    const events = this.tagEvents;
    const wantJobs = this.jobsWanted;
    this.jobsWanted = false;
    this.pipe = null;
    this.queued = 0;
    this.tagGuilds = [];
    this.tagEvents = [];
    const done = pipe.exec().then(
      (results) => {
        if (results === null) return;
        for (let i = 0; i < results.length; i++) {
          const err = results[i]![0];
          if (err) this.failed(err, guilds[i] ?? null, events[i] ?? '');
        }
        if (wantJobs) this.kickJobs();
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        for (let i = 0; i < guilds.length; i++) this.failed(error, guilds[i]!, events[i]!);
      },
    );
    const tracked: Promise<void> = done.finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  /** Send what is queued and wait for every pipeline in flight. Never throws (failures are recorded). */
  private async drain(): Promise<void> {
    this.send();
    while (this.inflight.size > 0) await Promise.all(this.inflight);
  }

  /** One failed command: report it per guild (or once), and mark what it concerned stale. */
  private failed(error: Error, guild: TagGuild, event: string | readonly string[]): void {
    this.counters.writeErrors++;
    if (guild === null || typeof guild === 'string') {
      this.hooks.onWriteError?.({ error, event: typeof event === 'string' ? event : (event[0] ?? ''), guildId: guild === ENTITLEMENTS ? null : guild });
      if (guild !== null) this.markStale(guild, error);
      return;
    }
    // A member batch: every guild in it, once each.
    const seen = new Set<string>();
    for (let i = 0; i < guild.length; i++) {
      const g = guild[i]!;
      if (seen.has(g)) continue;
      seen.add(g);
      this.hooks.onWriteError?.({ error, event: typeof event === 'string' ? event : (event[i] ?? ''), guildId: g });
      this.markStale(g, error);
    }
  }

  private markStale(key: string, error: Error): void {
    this.failuresOf.set(key, (this.failuresOf.get(key) ?? 0) + 1);
    if (this.closed) return;
    if (this.staleErrors.length < 100) this.staleErrors.push(error);
    if (this.stalePending.size === 0) {
      // Written at once (best effort; flush() tries again), so that a process dying now leaves the mark.
      queueMicrotask(() => void this.track(this.persistStale()));
    }
    this.stalePending.add(key);
    if (this.staleKnown.has(key)) return;
    this.staleKnown.add(key);
    this.hooks.onStale?.(key === ENTITLEMENTS ? { entitlements: true } : { guildId: key });
  }

  /** Write the stale marks not in Redis yet. False when that failed too. */
  private async persistStale(): Promise<boolean> {
    if (this.stalePending.size === 0) return true;
    const keys = [...this.stalePending];
    const guilds = keys.filter((k) => k !== ENTITLEMENTS);
    const pipe = this.redis.pipeline();
    if (guilds.length > 0) pipe.sadd(this.keys.stale, ...guilds);
    if (guilds.length < keys.length) pipe.set(this.keys.staleEntitlements, '1');
    try {
      const results = (await pipe.exec()) ?? [];
      const failure = results.find(([err]) => err !== null)?.[0];
      if (failure) throw failure;
    } catch (err) {
      if (this.staleErrors.length < 100) this.staleErrors.push(err instanceof Error ? err : new Error(String(err)));
      return false;
    }
    for (const k of keys) this.stalePending.delete(k);
    this.staleErrors = [];
    return true;
  }

  // ---- sink -----------------------------------------------------------------------------------

  reject(event: string, reason: string): void {
    this.counters.rejected++;
    this.hooks.onReject?.(event, reason);
  }

  setSelf(user: APIUser): void {
    if (!this.options.members) return;
    // Stored, so that a process that only RESUMEs (no READY) still knows it; with one reference of its own
    // (as the memory backend does) so its record outlives its memberships.
    this.pipeline(null).ghSelf(this.keys.self, this.keys.userRefs, user.id);
    if (this.options.users && typeof user.username === 'string') this.pipeline(null).hset(this.keys.users, user.id, encodeUser(user));
  }

  ready(guildIds: readonly string[], shardId: number, shardCount: number): void {
    for (let i = 0; i < guildIds.length; i++) this.guildUnavailable(guildIds[i]!);
    if (shardCount <= 0) return;
    const job: ReadyJob = { shard: shardId, count: shardCount, keep: new Set(guildIds), persisted: false, attempt: null };
    // A newer READY of the same shard replaces an older one not stored yet.
    for (const other of this.readyJobs) if (other.shard === shardId && other.count === shardCount && !other.persisted) this.readyJobs.delete(other);
    this.readyJobs.add(job);
    job.attempt = this.track(this.readyPhase(job));
  }

  guildUnavailable(guildId: string): void {
    this.keep(guildId);
    this.pipeline(guildId).ghGuildPut(this.keys.clock, this.keys.guilds, this.keys.prefix, guildId, 'u', '', '', 0, 0, '0');
  }

  guildUpsert(p: GuildPayload, create: boolean, listComplete: boolean): void {
    this.keep(p.id);
    const fields: string[] = [];
    let count = '';
    if (this.options.guilds) {
      if (typeof p.name === 'string') fields.push('n', p.name);
      if (typeof p.owner_id === 'string') fields.push('o', p.owner_id);
      if (create && typeof p.member_count === 'number' && Number.isInteger(p.member_count) && p.member_count >= 0) count = String(p.member_count);
    }
    // A complete member list replaces the cached members when the script finds this is a baseline.
    let token = '';
    if (listComplete && this.options.members) {
      token = `list:${randomBytes(6).toString('hex')}`;
      this.listTokens.set(p.id, token);
    }
    const args: (string | number)[] = [
      this.keys.clock,
      this.keys.guilds,
      this.keys.prefix,
      p.id,
      create ? 'c' : 'p',
      count,
      token,
      SYNC_TTL_MS,
      fields.length / 2,
      ...fields,
    ];
    if (p.roles === undefined) args.push('0');
    else {
      args.push('1');
      // Without cached roles the ids are still kept: they decide which of a member's roles it has.
      for (const role of p.roles) args.push(role.id, this.options.roles ? encodeRole(role) : '');
    }
    this.pipeline(p.id).ghGuildPut(...args);
  }

  guildMembersListed(guildId: string): void {
    const token = this.listTokens.get(guildId);
    if (token === undefined) return;
    this.listTokens.delete(guildId);
    // A failure is reported and marks the guild stale (its recovery replaces the member set again).
    void this.track(this.commitMemberSync(guildId, token, undefined).catch(() => undefined));
  }

  guildRemove(guildId: string): void {
    this.pipeline(guildId).ghGuildRemove(this.keys.jobs, this.keys.guilds, this.keys.prefix, guildId);
    this.jobsWanted = true;
  }

  memberUpsert(guildId: string, m: MemberPayload, partial: boolean, join: boolean): void {
    const userId = m.user.id;
    if (!this.options.members) {
      if (join) this.pipeline(guildId).ghCount(this.keys.guild(guildId), userId, '1', this.now(), TRANSITION_WINDOW_MS, MAX_TRANSITIONS);
      return;
    }
    const { set, del } = memberFields(m, guildId, partial);
    const user = this.options.users && typeof m.user.username === 'string' ? encodeUser(m.user) : '';
    const cap = this.options.maxMembersPerGuild;
    this.memberRecord(guildId, [guildId, userId, padSnowflake(userId), partial ? 'p' : 'f', cap, join ? '1' : '0', user, set.length / 2, ...set, del.length, ...del]);
  }

  memberRemove(guildId: string, user: APIUser): void {
    if (!this.options.members) {
      this.pipeline(guildId).ghCount(this.keys.guild(guildId), user.id, '0', this.now(), TRANSITION_WINDOW_MS, MAX_TRANSITIONS);
      return;
    }
    const encoded = this.options.users && typeof user.username === 'string' ? encodeUser(user) : '';
    this.memberRecord(guildId, [guildId, user.id, padSnowflake(user.id), 'r', 0, '1', encoded, 0, 0]);
  }

  roleUpsert(guildId: string, role: APIRole): void {
    this.pipeline(guildId).ghRolePut(this.keys.guild(guildId), this.keys.roles(guildId), role.id, this.options.roles ? encodeRole(role) : '');
  }

  roleRemove(guildId: string, roleId: string): void {
    // Members keep the id in their role field; reads filter it out (no walk over the guild's members).
    this.pipeline(guildId).hdel(this.keys.roles(guildId), roleId);
  }

  entitlementUpsert(e: APIEntitlement, fromInteraction: boolean): void {
    if (!this.options.entitlements) return;
    const k = this.keys;
    this.pipeline(ENTITLEMENTS).ghEntitlementPut(k.entitlements, k.entitlementStamps, k.clock, k.prefix, e.id, encodeEntitlement(e), fromInteraction ? '1' : '0');
  }

  entitlementRemove(e: APIEntitlement): void {
    if (!this.options.entitlements) return;
    const k = this.keys;
    this.pipeline(ENTITLEMENTS).ghEntitlementDelete(k.entitlements, k.entitlementStamps, k.clock, k.prefix, e.id);
  }

  // ---- syncs ----------------------------------------------------------------------------------

  beginMemberSync(guildId: string): MemberSync {
    const token = randomBytes(8).toString('hex');
    this.pipeline(guildId, 'member sync').ghSyncBegin(this.keys.guild(guildId), token, SYNC_TTL_MS);
    const failures = this.failuresOf.get(guildId) ?? 0;
    let ended = false;
    return {
      guildId,
      commit: (memberCount?: number) => {
        if (ended) return Promise.resolve();
        ended = true;
        return this.track(this.commitMemberSync(guildId, token, memberCount, failures));
      },
      abort: () => {
        if (ended) return;
        ended = true;
        this.pipeline(guildId, 'member sync').ghSyncEnd(this.keys.guild(guildId), token, '');
      },
    };
  }

  /**
   * Remove the members not written since the sync began, then set the count. Not when one of the guild's writes
   * failed meanwhile (a member the answer listed may be missing from the seen set): the sync is dropped and the
   * promise rejects, so that whoever recovers the guild tries again.
   */
  private async commitMemberSync(guildId: string, token: string, memberCount: number | undefined, failuresAtBegin = 0): Promise<void> {
    await this.drain();
    const k = this.keys;
    if ((this.failuresOf.get(guildId) ?? 0) > failuresAtBegin) {
      await this.redis.ghSyncEnd(k.guild(guildId), token, '').catch(() => undefined);
      throw new Error(`member sync of guild ${guildId} not committed: a write of it failed meanwhile`);
    }
    try {
      const gen = await this.redis.hget(k.guild(guildId), 'gen');
      if (gen !== null) {
        let min = '-';
        for (let pages = 0; pages < 1_000_000; pages++) {
          const ids = await this.redis.zrangebylex(k.memberIndex(guildId, gen), min, '+', 'LIMIT', 0, this.batchSize);
          if (ids.length === 0) break;
          const removed = Number(await this.redis.ghSyncSweep(k.users, k.userRefs, k.prefix, guildId, token, ...ids));
          if (removed < 0) return;
          min = `(${ids[ids.length - 1]!}`;
        }
      }
      const count = memberCount !== undefined && this.options.guilds && Number.isInteger(memberCount) && memberCount >= 0 ? String(memberCount) : '';
      await this.redis.ghSyncEnd(k.guild(guildId), token, count);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.failed(error, guildId, 'member sync');
      throw error;
    }
  }

  beginEntitlementSync(): EntitlementSync {
    const token = randomBytes(8).toString('hex');
    const k = this.keys;
    this.pipeline(ENTITLEMENTS, 'entitlement sync').ghEntitlementSyncBegin(k.clock, k.prefix, token);
    let ended = false;
    return {
      add: (list) => {
        if (ended || !this.options.entitlements) return;
        for (let i = 0; i < list.length; i++) {
          const e = list[i];
          const problem = entitlementProblem(e);
          if (problem !== null) {
            this.reject('entitlement sync', `[${i}]${problem.charCodeAt(0) === 58 ? '' : '.'}${problem}`);
            continue;
          }
          const id = (e as APIEntitlement).id;
          this.pipeline(ENTITLEMENTS, 'entitlement sync').ghEntitlementSyncPut(k.entitlements, k.entitlementStamps, k.prefix, token, id, encodeEntitlement(e as APIEntitlement));
        }
      },
      commit: () => {
        if (ended) return Promise.resolve();
        ended = true;
        return this.track(this.commitEntitlementSync(token));
      },
      abort: () => {
        if (ended) return;
        ended = true;
        this.pipeline(ENTITLEMENTS, 'entitlement sync').del(k.entitlementSync(token), `${k.entitlementSync(token)}:r`);
      },
    };
  }

  private async commitEntitlementSync(token: string): Promise<void> {
    await this.drain();
    const k = this.keys;
    try {
      if (this.options.entitlements) {
        let cursor = '0';
        for (let rounds = 0; rounds < 1_000_000; rounds++) {
          const [next, flat] = await this.redis.hscan(k.entitlements, cursor, 'COUNT', this.batchSize);
          const ids: string[] = [];
          for (let i = 0; i < flat.length; i += 2) ids.push(flat[i]!);
          if (ids.length > 0 && Number(await this.redis.ghEntitlementSyncPrune(k.entitlements, k.entitlementStamps, k.prefix, token, ...ids)) < 0) {
            throw new Error('the entitlement sync expired before its commit');
          }
          cursor = next;
          if (cursor === '0') break;
        }
      }
      await this.redis.del(k.entitlementSync(token), `${k.entitlementSync(token)}:r`);
    } catch (err) {
      this.failed(err instanceof Error ? err : new Error(String(err)), ENTITLEMENTS, 'entitlement sync');
    }
  }

  // ---- background work ------------------------------------------------------------------------

  private track<T>(work: Promise<T>): Promise<T> {
    this.background.add(work);
    void work.finally(() => this.background.delete(work)).catch(() => undefined);
    return work;
  }

  private keep(guildId: string): void {
    for (const job of this.readyJobs) if (!job.persisted) job.keep.add(guildId);
  }

  /**
   * Make a READY's reconciliation durable: take a stamp R, stamp every guild to keep after it, and store the
   * job; from then on guilds of the shard with a stamp below R are the ones to remove (any process may do it).
   */
  private async readyPhase(job: ReadyJob): Promise<void> {
    await this.drain();
    const k = this.keys;
    try {
      const r = await this.redis.incr(k.clock);
      const keep = [...job.keep];
      for (let i = 0; i < keep.length; i += this.batchSize) {
        await this.redis.ghGuildsTouch(k.clock, k.prefix, ...keep.slice(i, i + this.batchSize));
      }
      await this.redis.hset(k.jobs, `ready:${job.shard}:${job.count}`, String(r));
      job.persisted = true;
      this.readyJobs.delete(job);
      this.retryDelay = RETRY_MIN_MS;
      this.kickJobs();
    } catch (err) {
      this.failed(err instanceof Error ? err : new Error(String(err)), null, 'READY');
      job.attempt = null;
      this.retryLater();
    }
  }

  /** Run every stored job (again, if a run is in progress). */
  private kickJobs(): void {
    if (this.closed) return;
    if (this.jobsRunning !== null) {
      this.jobsAgain = true;
      return;
    }
    this.jobsRunning = this.runJobs().finally(() => {
      this.jobsRunning = null;
      if (this.jobsAgain && !this.closed) {
        this.jobsAgain = false;
        this.kickJobs();
      }
    });
  }

  private async runJobs(): Promise<void> {
    const k = this.keys;
    try {
      await this.redis.set(k.version, LAYOUT_VERSION, 'NX');
      for (let rounds = 0; rounds < 1000 && !this.closed; rounds++) {
        // As field/value pairs into a Map: job names are data, never keys of a plain object.
        const flat = (await this.redis.call('HGETALL', k.jobs)) as string[];
        const jobs = new Map<string, string>();
        for (let i = 0; i + 1 < flat.length; i += 2) jobs.set(flat[i]!, flat[i + 1]!);
        const fields = [...jobs.keys()];
        if (fields.length === 0) break;
        // Reconciliations first: they may add removals.
        fields.sort((a, b) => (a.startsWith('ready:') ? 0 : 1) - (b.startsWith('ready:') ? 0 : 1));
        for (const field of fields) {
          if (this.closed) return;
          const parts = field.split(':');
          if (parts[0] === 'ready' && parts.length === 3) await this.prune(field, Number(parts[1]), Number(parts[2]), jobs.get(field)!);
          else if (parts[0] === 'gc' && parts.length === 3) await this.collect(parts[1]!, parts[2]!);
          else await this.redis.hdel(k.jobs, field);
        }
      }
      this.retryDelay = RETRY_MIN_MS;
    } catch (err) {
      this.failed(err instanceof Error ? err : new Error(String(err)), null, 'background work');
      this.retryLater();
    }
  }

  /** Remove the guilds of one shard that a fresh READY did not list (a `ready:` job). */
  private async prune(field: string, shard: number, count: number, stamp: string): Promise<void> {
    const k = this.keys;
    if (!Number.isInteger(shard) || !Number.isInteger(count) || count < 1) {
      await this.redis.hdel(k.jobs, field);
      return;
    }
    let cursor = '0';
    for (let rounds = 0; rounds < 1_000_000 && !this.closed; rounds++) {
      const [next, ids] = await this.redis.sscan(k.guilds, cursor, 'COUNT', this.batchSize);
      const mine = ids.filter((id) => isSnowflake(id) && shardOf(id, count) === shard);
      for (let i = 0; i < mine.length; i += this.batchSize) {
        await this.redis.ghReadyPrune(k.jobs, k.guilds, k.prefix, stamp, ...mine.slice(i, i + this.batchSize));
      }
      cursor = next;
      if (cursor === '0') break;
    }
    if (!this.closed) await this.redis.ghJobDone(k.jobs, field, stamp);
  }

  /** Release a removed guild generation's members and users, a batch at a time (a `gc:` job). */
  private async collect(guildId: string, gen: string): Promise<void> {
    const k = this.keys;
    for (let rounds = 0; rounds < 10_000_000 && !this.closed; rounds++) {
      if (Number(await this.redis.ghGcBatch(k.users, k.userRefs, k.jobs, k.prefix, guildId, gen, this.batchSize)) === 0) return;
    }
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer !== null) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      for (const job of this.readyJobs) if (!job.persisted) job.attempt ??= this.track(this.readyPhase(job));
      this.kickJobs();
    }, delay);
    this.retryTimer.unref();
  }

  // ---- reads ----------------------------------------------------------------------------------

  async getGuild(guildId: string): Promise<GuildView | undefined> {
    await this.drain();
    if (!this.options.guilds) return undefined;
    const [[, flat], [, roleIds]] = (await this.redis
      .pipeline()
      .call('HGETALL', this.keys.guild(guildId))
      .hkeys(this.keys.roles(guildId))
      .exec()) as [[null, string[]], [null, string[]]];
    const h = hashOf(flat);
    if (h.k === undefined) return undefined;
    return {
      id: guildId,
      name: h.n ?? null,
      ownerId: h.o ?? null,
      memberCount: h.c === undefined ? null : Number(h.c),
      unavailable: h.u === '1',
      roleIds: this.options.roles ? roleIds : [],
    };
  }

  async getMember(guildId: string, userId: string): Promise<MemberView | undefined> {
    await this.drain();
    const k = this.keys;
    const reply = (await this.redis.ghReadMember(k.guild(guildId), k.roles(guildId), k.users, userId, this.options.users ? '1' : '0')) as
      | [string[], string | null]
      | null;
    if (reply === null) return undefined;
    const [flat, user] = reply;
    return decodeMember(guildId, userId, hashOf(flat), this.options.users ? decodeUser(userId, user) : null) ?? undefined;
  }

  async getUser(userId: string): Promise<UserView | undefined> {
    await this.drain();
    if (!this.options.users) return undefined;
    return decodeUser(userId, await this.redis.hget(this.keys.users, userId)) ?? undefined;
  }

  async getRole(guildId: string, roleId: string): Promise<RoleView | undefined> {
    await this.drain();
    if (!this.options.roles) return undefined;
    return decodeRole(guildId, roleId, await this.redis.hget(this.keys.roles(guildId), roleId)) ?? undefined;
  }

  async getRoles(guildId: string): Promise<RoleView[]> {
    await this.drain();
    if (!this.options.roles) return [];
    const flat = (await this.redis.call('HGETALL', this.keys.roles(guildId))) as string[];
    const out: RoleView[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const role = decodeRole(guildId, flat[i]!, flat[i + 1]);
      if (role) out.push(role);
    }
    return out.sort(compareRoles);
  }

  async getMembers(guildId: string, options: MemberPageOptions = {}): Promise<MemberPage> {
    const limit = pageLimit(options.limit);
    if (options.after !== undefined && !isSnowflake(options.after)) {
      throw new TypeError(`members page "after" must be a snowflake; got ${JSON.stringify(options.after)}`);
    }
    await this.drain();
    const k = this.keys;
    const members: MemberView[] = [];
    let min = options.after === undefined ? '-' : `(${padSnowflake(options.after)}`;
    let more = false;
    // One more than the page tells whether another page follows.
    for (let want = limit + 1; want > 0; ) {
      const step = Math.min(READ_BATCH, want);
      const flat = (await this.redis.ghReadMembers(k.guild(guildId), k.roles(guildId), k.users, min, step, this.options.users ? '1' : '0')) as (
        | string
        | string[]
        | null
      )[];
      const got = flat.length / 3;
      for (let i = 0; i < flat.length; i += 3) {
        if (members.length === limit) {
          more = true;
          break;
        }
        const padded = flat[i] as string;
        const id = unpad(padded);
        const member = decodeMember(guildId, id, hashOf(flat[i + 1] as string[]), this.options.users ? decodeUser(id, flat[i + 2] as string | null) : null);
        if (member) members.push(member);
        min = `(${padded}`;
      }
      if (more || got < step) break;
      want -= got;
    }
    return { members, next: more && members.length > 0 ? members[members.length - 1]!.userId : null };
  }

  async memberCount(guildId: string): Promise<number | undefined> {
    await this.drain();
    if (!this.options.guilds) return undefined;
    const c = await this.redis.hget(this.keys.guild(guildId), 'c');
    return c === null ? undefined : Number(c);
  }

  async getEntitlement(entitlementId: string): Promise<EntitlementView | undefined> {
    await this.drain();
    return decodeEntitlement(entitlementId, await this.redis.hget(this.keys.entitlements, entitlementId)) ?? undefined;
  }

  async entitlementsOf(owner: EntitlementOwner): Promise<EntitlementView[]> {
    await this.drain();
    const ids = await this.redis.smembers('userId' in owner ? this.keys.userEntitlements(owner.userId) : this.keys.guildEntitlements(owner.guildId));
    if (ids.length === 0) return [];
    const raws = await this.redis.hmget(this.keys.entitlements, ...ids);
    const out: EntitlementView[] = [];
    for (let i = 0; i < ids.length; i++) {
      const e = decodeEntitlement(ids[i]!, raws[i]);
      // An owner set may still list an entitlement that an update gave to another owner.
      if (e && ('userId' in owner ? e.userId === owner.userId : e.guildId === owner.guildId)) out.push(e);
    }
    return out;
  }

  async hasEntitlement(query: EntitlementQuery): Promise<boolean> {
    const at = toMillis(query.at);
    const all = await this.entitlementsOf(ownerOf(query));
    return all.some((e) => e.skuId === query.skuId && isEntitlementActive(e, at));
  }

  async sizes(): Promise<CacheSizes> {
    await this.drain();
    const k = this.keys;
    const guildIds = await this.redis.smembers(k.guilds);
    const pipe = this.redis.pipeline().hlen(k.users).hlen(k.entitlements);
    for (const id of guildIds) pipe.hget(k.guild(id), 'gen').hlen(k.roles(id));
    const results = ((await pipe.exec()) ?? []).map(([, v]) => v);
    const counts = this.redis.pipeline();
    let roles = 0;
    for (let i = 0; i < guildIds.length; i++) {
      const gen = results[2 + 2 * i] as string | null;
      roles += Number(results[3 + 2 * i]);
      if (gen !== null) counts.zcard(k.memberIndex(guildIds[i]!, gen));
    }
    let members = 0;
    for (const [, n] of (await counts.exec()) ?? []) members += Number(n);
    return {
      guilds: this.options.guilds ? guildIds.length : 0,
      members,
      users: this.options.users ? Number(results[0]) : 0,
      roles: this.options.roles ? roles : 0,
      entitlements: Number(results[1]),
    };
  }

  /**
   * Members are read a page at a time and the matching ones removed by script. A member changed
   * between its read and its removal is removed all the same (a sweep is not a transaction).
   */
  async sweepMembers(predicate: (member: MemberView) => boolean, guildId?: string): Promise<number> {
    await this.drain();
    const guildIds = guildId !== undefined ? [guildId] : await this.redis.smembers(this.keys.guilds);
    let removed = 0;
    for (const g of guildIds) {
      let after: string | undefined;
      for (let pages = 0; pages < 1_000_000; pages++) {
        const page = await this.getMembers(g, { limit: SWEEP_PAGE, ...(after !== undefined ? { after } : {}) });
        for (const member of page.members) {
          if (!predicate(member)) continue;
          const result = await this.redis.ghMembers(
            this.keys.users,
            this.keys.userRefs,
            this.keys.prefix,
            this.now(),
            TRANSITION_WINDOW_MS,
            MAX_TRANSITIONS,
            '0',
            '0',
            ...[g, member.userId, padSnowflake(member.userId), 'r', 0, '0', '', 0, 0],
          );
          if (result === 1) removed++;
        }
        if (page.next === null) break;
        after = page.next;
      }
    }
    return removed;
  }
}

function hashOf(flat: readonly string[]): Record<string, string> {
  const h: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i]!] = flat[i + 1]!;
  return h;
}

function unpad(padded: string): string {
  return padded.replace(/^0+(?=\d)/, '');
}
