/**
 * The Redis backend. apply() stays synchronous: the reducer's writes are queued (write-queue.ts) and sent as
 * one pipeline at the end of the tick, so a GUILD_CREATE with a thousand members costs one round trip, not a
 * thousand. Reads first wait for every queued write, so a read after apply() sees it. Layout and concurrency
 * rules: keys.ts; every script is bounded (scripts.ts).
 *
 * Failed writes. A command that fails is reported where it happens (`onWriteError`, counted in stats), what it
 * concerned is marked stale (stale-marks.ts: `onStale`, and in Redis so that any process recovers it after a
 * restart), and nothing is thrown at readers. flush() resolves once every write is stored or its failure
 * recorded that way, and rejects only when even the stale mark could not be written: the cluster's session
 * checkpoint awaits it, so a stored seq never moves past a lost write that nobody will recover.
 *
 * Background work (jobs.ts; bounded batches, resumed by any process after a crash): the removal of a fresh
 * READY's unlisted guilds, the member and user release of removed guilds; and member and entitlement sync
 * commits. settled() waits for it.
 */
import { randomBytes } from 'node:crypto';
import type { APIEntitlement, APIRole, APIUser } from 'discord-api-types/v10';
import type { Redis } from 'ioredis';
import type { CommandAccess, CommandPermissionEntry } from '../../api/command-access.js';
import { isThreadType } from '../../api/permissions.js';
import { commandAccessFromParts, permissionsFromParts, type PermissionParts } from '../access.js';
import { compareChannels, compareIds, type ChannelFields, type VoiceStateFields } from '../channel-payloads.js';
import { isEntitlementActive, toMillis } from '../entitlements.js';
import {
  checkOptions,
  ENTITLEMENT_TOMBSTONE_MS,
  MAX_ENTITLEMENT_TOMBSTONES,
  MAX_TRANSITIONS,
  ownerOf,
  pageLimit,
  TRANSITION_WINDOW_MS,
  type CacheHooks,
} from '../shared.js';
import { commandPermissionsListEntries, entitlementProblem, NOT_CACHED, reduce, REFUSED, type CacheSink, type GuildPayload, type MemberPayload } from '../reducer.js';
import type {
  Cache,
  CacheOptions,
  CacheSizes,
  CacheStats,
  ChannelView,
  CommandPermissionsLoad,
  CommandRef,
  GuildCommandPermissionsView,
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
  VoiceStateView,
} from '../types.js';
import { isSnowflake, padSnowflake } from '../wire.js';
import {
  decodeChannel,
  decodeCommandPermissions,
  decodeEntitlement,
  decodeMember,
  decodeRole,
  decodeUser,
  decodeVoiceState,
  encodeChannel,
  encodeCommandPermissions,
  encodeEntitlement,
  encodeRole,
  encodeVoiceState,
  encodeMemberRecords,
  encodeUser,
  pushMemberFields,
} from './codec.js';
import { compareRoles } from '../memory/guilds.js';
import { BackgroundJobs } from './jobs.js';
import { CacheKeys } from './keys.js';
import { ChannelKind, flag, GuildMode, MemberMode, NO_MEMBER_COUNT, NO_SYNC_TOKEN, partialAfterListMode } from './script-args.js';
import { SCRIPTS, type Scripted } from './scripts.js';
import { ENTITLEMENTS, StaleMarks } from './stale-marks.js';
import { WriteQueue, type WriteTag } from './write-queue.js';

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

/** Writes whose failure could not even be recorded (see flush). */
export class CacheWriteError extends Error {
  constructor(readonly errors: Error[]) {
    // `cause` is the first failure; `errors` has them all.
    super(`${errors.length} cache write(s) to Redis failed and could not be marked for recovery; first: ${errors[0]?.message ?? 'unknown'}`, { cause: errors[0] });
    this.name = 'CacheWriteError';
  }
}

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

export class RedisCache implements Cache, CacheSink {
  readonly backend = 'redis' as const;
  readonly options: Readonly<CacheOptions>;
  readonly keys: CacheKeys;
  private readonly redis: Redis & Scripted;
  private readonly batchSize: number;
  private readonly writes: WriteQueue;
  private readonly staleMarks: StaleMarks;
  private readonly jobs: BackgroundJobs;
  private readonly counters: CacheStats = { applied: 0, rejected: 0, capped: 0, writeErrors: 0 };
  private readonly hooks: CacheHooks;
  private readonly now: () => number;
  private readonly ownsConnection: boolean;
  /** Member-sync tokens of GUILD_CREATEs with a complete member list, until their members are queued. */
  private readonly listTokens = new Map<string, string>();
  /**
   * Guilds whose complete member list this process applied while its removal of the members the list left out
   * (commitMemberSync) may still run, with the sync's token: reads of them leave those members out at once, as
   * the memory backend has already removed them.
   */
  private readonly listed = new Map<string, string>();

  constructor(redis: Redis, options: RedisCacheOptions) {
    const { prefix, pipelineSize, hooks, ownsConnection, batchSize, ...rest } = options;
    this.ownsConnection = ownsConnection ?? false;
    this.options = Object.freeze(checkOptions(rest));
    this.keys = new CacheKeys(prefix);
    this.batchSize = batchSize ?? BACKGROUND_BATCH;
    this.hooks = hooks ?? {};
    this.now = this.hooks.now ?? Date.now;
    for (const [name, spec] of Object.entries(SCRIPTS)) {
      // defineCommand is idempotent per connection; ioredis sends EVAL once per socket, EVALSHA after.
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: spec.keys, lua: spec.lua });
    }
    this.redis = redis as Redis & Scripted;
    const k = this.keys;
    this.writes = new WriteQueue({
      redis,
      pipelineSize: pipelineSize ?? 1000,
      memberBatch: MEMBER_BATCH,
      memberScriptHead: () => [
        k.users,
        k.userRefs,
        k.prefix,
        this.now(),
        TRANSITION_WINDOW_MS,
        MAX_TRANSITIONS,
        flag(this.options.guilds),
        flag(this.options.maxMembersPerGuild === 0),
      ],
      onFailure: (error, tag, event) => this.failed(error, tag, event),
      onJobsWanted: () => this.jobs.kick(),
    });
    this.jobs = new BackgroundJobs({
      redis: this.redis,
      keys: k,
      batchSize: this.batchSize,
      drain: () => this.writes.drain(),
      onFailure: (error, event) => this.failed(error, null, event),
    });
    this.staleMarks = new StaleMarks(redis, k, this.hooks.onStale, (work) => void this.jobs.track(work));
    // Work a crashed process left (READY reconciliations, guild removals) is picked up by whoever starts next.
    this.jobs.kick();
  }

  apply(t: string, d: unknown): boolean {
    this.writes.event = t;
    try {
      const reduced = reduce(this, t, d);
      if (reduced !== NOT_CACHED) this.counters.applied++;
      return reduced !== REFUSED;
    } catch (err) {
      this.reject(t, `threw: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  }

  /**
   * Send what is queued and wait for every write so far; failed writes are marked stale (in Redis too). Rejects
   * with CacheWriteError only when a failure could not be recorded (see the module comment).
   */
  async flush(): Promise<void> {
    await this.writes.drain();
    const errors = await this.jobs.store();
    if (!(await this.staleMarks.persist())) errors.push(...this.staleMarks.unrecorded);
    if (errors.length > 0) throw new CacheWriteError(errors);
  }

  async settled(): Promise<void> {
    await this.writes.drain();
    await this.jobs.settled();
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } catch {
      // Reported already (onWriteError); the marks that could not be written are lost with this process, and
      // the session checkpoint never moved past them.
    } finally {
      this.staleMarks.close();
      await this.jobs.close();
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
    await this.writes.drain();
    return this.staleMarks.read();
  }

  async recovered(scope: StaleScope): Promise<void> {
    await this.staleMarks.recovered(scope);
  }

  /** One failed command: report it per guild (or once), and mark what it concerned stale. */
  private failed(error: Error, tag: WriteTag, event: string | readonly string[]): void {
    this.counters.writeErrors++;
    if (tag === null || typeof tag === 'string') {
      this.hooks.onWriteError?.({ error, event: typeof event === 'string' ? event : (event[0] ?? ''), guildId: tag === ENTITLEMENTS ? null : tag });
      if (tag !== null) this.staleMarks.mark(tag, error);
      return;
    }
    // A member batch: every guild in it, once each.
    const seen = new Set<string>();
    for (let i = 0; i < tag.length; i++) {
      const g = tag[i]!;
      if (seen.has(g)) continue;
      seen.add(g);
      this.hooks.onWriteError?.({ error, event: typeof event === 'string' ? event : (event[i] ?? ''), guildId: g });
      this.staleMarks.mark(g, error);
    }
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
    this.writes.command(null).ghSelf(this.keys.self, this.keys.userRefs, user.id);
    if (this.options.users && typeof user.username === 'string') this.writes.command(null).hset(this.keys.users, user.id, encodeUser(user));
  }

  ready(guildIds: readonly string[], shardId: number, shardCount: number): void {
    for (let i = 0; i < guildIds.length; i++) this.guildUnavailable(guildIds[i]!);
    if (shardCount > 0) this.jobs.ready(guildIds, shardId, shardCount);
  }

  guildUnavailable(guildId: string): void {
    this.jobs.keep(guildId);
    this.writes.command(guildId).ghGuildPut(this.keys.clock, this.keys.guilds, this.keys.prefix, guildId, GuildMode.unavailable, NO_MEMBER_COUNT, NO_SYNC_TOKEN, 0, 0, flag(false));
  }

  guildUpsert(p: GuildPayload, create: boolean, listComplete: boolean): void {
    this.jobs.keep(p.id);
    const fields: string[] = [];
    let count: string = NO_MEMBER_COUNT;
    if (this.options.guilds) {
      if (typeof p.name === 'string') fields.push('n', p.name);
      if (typeof p.owner_id === 'string') fields.push('o', p.owner_id);
      if (create && typeof p.member_count === 'number' && Number.isInteger(p.member_count) && p.member_count >= 0) count = String(p.member_count);
    }
    // A complete member list replaces the cached members when the script finds this is a baseline.
    let token: string = NO_SYNC_TOKEN;
    if (listComplete && this.options.members) {
      token = `list:${randomBytes(6).toString('hex')}`;
      this.listTokens.set(p.id, token);
    }
    const args: (string | number)[] = [
      this.keys.clock,
      this.keys.guilds,
      this.keys.prefix,
      p.id,
      create ? GuildMode.create : GuildMode.update,
      count,
      token,
      SYNC_TTL_MS,
      fields.length / 2,
      ...fields,
    ];
    // Whether a complete role list follows.
    if (p.roles === undefined) args.push(flag(false));
    else {
      args.push(flag(true));
      // Without cached roles the ids are still kept: they decide which of a member's roles it has.
      for (const role of p.roles) args.push(role.id, this.options.roles ? encodeRole(role) : '');
    }
    this.writes.command(p.id).ghGuildPut(...args);
  }

  guildMembersListed(guildId: string): void {
    const token = this.listTokens.get(guildId);
    if (token === undefined) return;
    this.listTokens.delete(guildId);
    this.listed.set(guildId, token);
    // A failure is reported and marks the guild stale (its recovery replaces the member set again).
    const commit = this.commitMemberSync(guildId, token, undefined)
      .catch(() => undefined)
      .finally(() => {
        if (this.listed.get(guildId) === token) this.listed.delete(guildId);
      });
    void this.jobs.track(commit);
  }

  guildRemove(guildId: string): void {
    this.writes.command(guildId).ghGuildRemove(this.keys.jobs, this.keys.guilds, this.keys.prefix, guildId);
    this.writes.wantJobs();
  }

  memberUpsert(guildId: string, m: MemberPayload, partial: boolean, join: boolean): void {
    const userId = m.user.id;
    if (!this.options.members) {
      if (join) this.writes.command(guildId).ghCount(this.keys.guild(guildId), userId, flag(true), this.now(), TRANSITION_WINDOW_MS, MAX_TRANSITIONS);
      return;
    }
    const user = this.options.users && typeof m.user.username === 'string' ? encodeUser(m.user) : '';
    const cap = this.options.maxMembersPerGuild;
    const record = this.writes.openMemberRecord();
    const start = record.length;
    try {
      // A partial member of a guild whose complete list this process applied may be one the list left out.
      const listed = partial ? this.listed.get(guildId) : undefined;
      const mode = !partial ? MemberMode.whole : listed === undefined ? MemberMode.partial : partialAfterListMode(listed);
      record.push(guildId, userId, padSnowflake(userId), mode, cap, flag(join), user);
      pushMemberFields(record, m, guildId, partial);
    } catch (error) {
      // A half-written record would shift every record after it in the script's reading.
      record.length = start;
      throw error;
    }
    this.writes.closeMemberRecord(guildId);
  }

  memberRemove(guildId: string, user: APIUser): void {
    if (!this.options.members) {
      this.writes.command(guildId).ghCount(this.keys.guild(guildId), user.id, flag(false), this.now(), TRANSITION_WINDOW_MS, MAX_TRANSITIONS);
      return;
    }
    const encoded = this.options.users && typeof user.username === 'string' ? encodeUser(user) : '';
    // A removal is a transition (flag): GUILD_MEMBER_REMOVE.
    this.writes.openMemberRecord().push(guildId, user.id, padSnowflake(user.id), MemberMode.remove, 0, flag(true), encoded, 0, 0);
    this.writes.closeMemberRecord(guildId);
  }

  roleUpsert(guildId: string, role: APIRole): void {
    this.writes.command(guildId).ghRolePut(this.keys.guild(guildId), this.keys.roles(guildId), role.id, this.options.roles ? encodeRole(role) : '');
  }

  roleRemove(guildId: string, roleId: string): void {
    // Members keep the id in their role field; reads filter it out (no walk over the guild's members).
    this.writes.command(guildId).hdel(this.keys.roles(guildId), roleId);
  }

  channelUpsert(guildId: string, c: ChannelFields): void {
    if (!this.options.channels) return;
    this.writes.command(guildId).ghChannelPut(this.keys.channelIndex, this.keys.prefix, guildId, channelKind(c), c.id, encodeChannel(c));
  }

  channelRemove(guildId: string, channelId: string, thread: boolean): void {
    if (!this.options.channels) return;
    this.writes.command(guildId).ghChannelDelete(this.keys.channelIndex, this.keys.prefix, guildId, channelId, flag(thread));
  }

  channelsReplace(guildId: string, channels: readonly ChannelFields[] | null, threads: readonly ChannelFields[] | null): void {
    if (!this.options.channels) return;
    const k = this.keys;
    for (const [kind, list] of [[ChannelKind.channel, channels], [ChannelKind.thread, threads]] as const) {
      if (list === null) continue;
      const args: string[] = [];
      // An entry of the other kind is stored where its type says, without replacing that kind.
      const others: ChannelFields[] = [];
      for (const c of list) {
        if (channelKind(c) === kind) args.push(c.id, encodeChannel(c));
        else others.push(c);
      }
      this.writes.command(guildId).ghChannelsReplace(k.channelIndex, k.prefix, guildId, kind, ...args);
      for (const c of others) this.channelUpsert(guildId, c);
    }
  }

  threadsSync(guildId: string, parentIds: readonly string[] | null, threads: readonly ChannelFields[]): void {
    if (!this.options.channels) return;
    const args: string[] = [];
    for (const t of threads) if (isThreadType(t.type)) args.push(t.id, encodeChannel(t));
    const parents = parentIds === null ? ['-1'] : [String(parentIds.length), ...parentIds];
    this.writes.command(guildId).ghThreadsSync(this.keys.channelIndex, this.keys.prefix, guildId, ...parents, ...args);
    for (const t of threads) if (!isThreadType(t.type)) this.channelUpsert(guildId, t);
  }

  voiceStateUpsert(guildId: string, v: VoiceStateFields): void {
    if (!this.options.voiceStates) return;
    this.writes.command(guildId).ghGuildFieldPut(this.keys.guild(guildId), this.keys.voiceStates(guildId), v.userId, v.channelId === null ? '' : encodeVoiceState(v));
  }

  voiceStatesReplace(guildId: string, states: readonly VoiceStateFields[]): void {
    if (!this.options.voiceStates) return;
    const args: string[] = [];
    for (const v of states) if (v.channelId !== null) args.push(v.userId, encodeVoiceState(v));
    this.writes.command(guildId).ghVoiceReplace(this.keys.guild(guildId), this.keys.voiceStates(guildId), ...args);
  }

  commandPermissionsPut(guildId: string, targetId: string, entries: readonly CommandPermissionEntry[]): void {
    if (!this.options.channels) return;
    this.writes.command(guildId).ghCommandPermissionsPut(this.keys.guild(guildId), targetId, entries.length === 0 ? '' : encodeCommandPermissions(entries));
  }

  entitlementUpsert(e: APIEntitlement, fromInteraction: boolean): void {
    if (!this.options.entitlements) return;
    const k = this.keys;
    this.writes.command(ENTITLEMENTS).ghEntitlementPut(k.entitlements, k.entitlementStamps, k.clock, k.entitlementTombstones, k.prefix, e.id, encodeEntitlement(e), flag(fromInteraction));
  }

  entitlementRemove(e: APIEntitlement): void {
    if (!this.options.entitlements) return;
    const k = this.keys;
    this.writes.command(ENTITLEMENTS).ghEntitlementDelete(
      k.entitlements,
      k.entitlementStamps,
      k.clock,
      k.entitlementTombstones,
      k.prefix,
      e.id,
      this.now(),
      this.now() - ENTITLEMENT_TOMBSTONE_MS,
      MAX_ENTITLEMENT_TOMBSTONES,
    );
  }

  // ---- syncs ----------------------------------------------------------------------------------

  beginMemberSync(guildId: string): MemberSync {
    const token = randomBytes(8).toString('hex');
    this.writes.command(guildId, 'member sync').ghSyncBegin(this.keys.guild(guildId), token, SYNC_TTL_MS);
    const failures = this.staleMarks.failures(guildId);
    let ended = false;
    return {
      guildId,
      commit: (memberCount?: number) => {
        if (ended) return Promise.resolve();
        ended = true;
        return this.jobs.track(this.commitMemberSync(guildId, token, memberCount, failures));
      },
      abort: () => {
        if (ended) return;
        ended = true;
        this.writes.command(guildId, 'member sync').ghSyncEnd(this.keys.guild(guildId), token, '');
      },
    };
  }

  /**
   * Remove the members not written since the sync began, then set the count. Not when one of the guild's writes
   * failed meanwhile (a member the answer listed may be missing from the seen set): the sync is dropped and the
   * promise rejects, so that whoever recovers the guild tries again.
   */
  private async commitMemberSync(guildId: string, token: string, memberCount: number | undefined, failuresAtBegin = 0): Promise<void> {
    await this.writes.drain();
    const k = this.keys;
    if (this.staleMarks.failures(guildId) > failuresAtBegin) {
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

  beginCommandPermissionsLoad(guildId: string): CommandPermissionsLoad {
    const token = randomBytes(8).toString('hex');
    if (this.options.channels) this.writes.command(guildId, 'command permissions load').ghCommandPermissionsBegin(this.keys.guild(guildId), token, SYNC_TTL_MS);
    let ended = false;
    return {
      guildId,
      commit: async (list) => {
        if (ended || !this.options.channels) return;
        ended = true;
        const listed = commandPermissionsListEntries(list, guildId, (reason) => this.reject('command permissions load', reason));
        const args: string[] = [];
        for (const [target, entries] of listed) if (entries.length > 0) args.push(target, encodeCommandPermissions(entries));
        await this.writes.drain();
        try {
          await this.redis.ghCommandPermissionsCommit(this.keys.guild(guildId), token, ...args);
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          this.failed(error, guildId, 'command permissions load');
          throw error;
        }
      },
      abort: () => {
        if (ended) return;
        ended = true;
        if (this.options.channels) this.writes.command(guildId, 'command permissions load').del(`${this.keys.guild(guildId)}:cpsync`, `${this.keys.guild(guildId)}:cpseen`);
      },
    };
  }

  beginEntitlementSync(): EntitlementSync {
    const token = randomBytes(8).toString('hex');
    const k = this.keys;
    this.writes.command(ENTITLEMENTS, 'entitlement sync').ghEntitlementSyncBegin(k.clock, k.prefix, token);
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
          this.writes.command(ENTITLEMENTS, 'entitlement sync').ghEntitlementSyncPut(k.entitlements, k.entitlementStamps, k.prefix, token, id, encodeEntitlement(e as APIEntitlement));
        }
      },
      commit: () => {
        if (ended) return Promise.resolve();
        ended = true;
        return this.jobs.track(this.commitEntitlementSync(token));
      },
      abort: () => {
        if (ended) return;
        ended = true;
        this.writes.command(ENTITLEMENTS, 'entitlement sync').del(k.entitlementSync(token), `${k.entitlementSync(token)}:r`);
      },
    };
  }

  private async commitEntitlementSync(token: string): Promise<void> {
    await this.writes.drain();
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

  // ---- reads ----------------------------------------------------------------------------------

  async getGuild(guildId: string): Promise<GuildView | undefined> {
    await this.writes.drain();
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
    await this.writes.drain();
    const k = this.keys;
    const listed = this.listed.get(guildId) ?? '';
    const padded = listed === '' ? '' : padSnowflake(userId);
    const reply = (await this.redis.ghReadMember(k.guild(guildId), k.roles(guildId), k.users, userId, flag(this.options.users), listed, padded)) as
      | [string[], string | null]
      | null;
    if (reply === null) return undefined;
    const [flat, user] = reply;
    return decodeMember(guildId, userId, hashOf(flat), this.options.users ? decodeUser(userId, user) : null) ?? undefined;
  }

  async getUser(userId: string): Promise<UserView | undefined> {
    await this.writes.drain();
    if (!this.options.users) return undefined;
    return decodeUser(userId, await this.redis.hget(this.keys.users, userId)) ?? undefined;
  }

  async getRole(guildId: string, roleId: string): Promise<RoleView | undefined> {
    await this.writes.drain();
    if (!this.options.roles) return undefined;
    return decodeRole(guildId, roleId, await this.redis.hget(this.keys.roles(guildId), roleId)) ?? undefined;
  }

  async getRoles(guildId: string): Promise<RoleView[]> {
    await this.writes.drain();
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
    await this.writes.drain();
    const k = this.keys;
    const members: MemberView[] = [];
    let min = options.after === undefined ? '-' : `(${padSnowflake(options.after)}`;
    let more = false;
    const listed = this.listed.get(guildId) ?? '';
    // One more than the page tells whether another page follows.
    for (let want = limit + 1; want > 0; ) {
      // While entries may be left out, a batch cannot be cut to what is still wanted.
      const step = listed === '' ? Math.min(READ_BATCH, want) : READ_BATCH;
      const flat = (await this.redis.ghReadMembers(k.guild(guildId), k.roles(guildId), k.users, min, step, flag(this.options.users), listed)) as (
        | string
        | string[]
        | null
      )[];
      const got = flat.length / 3;
      const had = members.length;
      for (let i = 0; i < flat.length; i += 3) {
        const padded = flat[i] as string;
        const id = unpad(padded);
        const member = decodeMember(guildId, id, hashOf(flat[i + 1] as string[]), this.options.users ? decodeUser(id, flat[i + 2] as string | null) : null);
        if (member) {
          if (members.length === limit) {
            more = true;
            break;
          }
          members.push(member);
        }
        min = `(${padded}`;
      }
      if (more || got < step) break;
      // Only members read count: an index entry without one (a member a complete list left out, whose removal
      // is still running) moves the page on without filling it.
      want -= members.length - had;
    }
    return { members, next: more && members.length > 0 ? members[members.length - 1]!.userId : null };
  }

  async memberCount(guildId: string): Promise<number | undefined> {
    await this.writes.drain();
    if (!this.options.guilds) return undefined;
    const c = await this.redis.hget(this.keys.guild(guildId), 'c');
    return c === null ? undefined : Number(c);
  }

  async getChannel(channelId: string): Promise<ChannelView | undefined> {
    await this.writes.drain();
    if (!this.options.channels || !isSnowflake(channelId)) return undefined;
    const reply = (await this.redis.ghReadChannel(this.keys.channelIndex, this.keys.prefix, channelId)) as [string, string, string] | null;
    if (reply === null) return undefined;
    return decodeChannel(reply[0], channelId, reply[2]) ?? undefined;
  }

  async getChannels(guildId: string): Promise<ChannelView[]> {
    return (await this.readChannels(this.keys.channels(guildId), guildId)).sort(compareChannels);
  }

  async getThreads(guildId: string, parentId?: string): Promise<ChannelView[]> {
    const all = await this.readChannels(this.keys.threads(guildId), guildId);
    return (parentId === undefined ? all : all.filter((t) => t.parentId === parentId)).sort((a, b) => compareIds(a.id, b.id));
  }

  private async readChannels(key: string, guildId: string): Promise<ChannelView[]> {
    await this.writes.drain();
    if (!this.options.channels) return [];
    const flat = (await this.redis.call('HGETALL', key)) as string[];
    const out: ChannelView[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const c = decodeChannel(guildId, flat[i]!, flat[i + 1]);
      if (c) out.push(c);
    }
    return out;
  }

  async getVoiceState(guildId: string, userId: string): Promise<VoiceStateView | undefined> {
    await this.writes.drain();
    if (!this.options.voiceStates) return undefined;
    return decodeVoiceState(guildId, userId, await this.redis.hget(this.keys.voiceStates(guildId), userId)) ?? undefined;
  }

  async getVoiceStates(guildId: string): Promise<VoiceStateView[]> {
    await this.writes.drain();
    if (!this.options.voiceStates) return [];
    const flat = (await this.redis.call('HGETALL', this.keys.voiceStates(guildId))) as string[];
    const out: VoiceStateView[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const v = decodeVoiceState(guildId, flat[i]!, flat[i + 1]);
      if (v) out.push(v);
    }
    return out.sort((a, b) => compareIds(a.userId, b.userId));
  }

  async getCommandPermissions(guildId: string): Promise<GuildCommandPermissionsView | undefined> {
    await this.writes.drain();
    if (!this.options.channels) return undefined;
    const [[, head], [, flat]] = (await this.redis
      .pipeline()
      .hmget(this.keys.guild(guildId), 'gen', 'cpl')
      .call('HGETALL', this.keys.commandPermissions(guildId))
      .exec()) as [[null, (string | null)[]], [null, string[]]];
    if (head[0] === null) return undefined;
    const byTarget = new Map<string, readonly CommandPermissionEntry[]>();
    for (let i = 0; i + 1 < flat.length; i += 2) byTarget.set(flat[i]!, decodeCommandPermissions(flat[i + 1]));
    return { guildId, loaded: head[1] === '1', byTarget };
  }

  async permissionsOf(guildId: string, userId: string, channelId?: string): Promise<bigint | undefined> {
    return permissionsFromParts(guildId, userId, await this.permissionParts(guildId, userId, channelId));
  }

  async canUseCommand(guildId: string, userId: string, channelId: string, command: CommandRef): Promise<CommandAccess | undefined> {
    const [parts, settings] = await Promise.all([this.permissionParts(guildId, userId, channelId), this.getCommandPermissions(guildId)]);
    return commandAccessFromParts(guildId, userId, channelId, command, parts, settings);
  }

  private async permissionParts(guildId: string, userId: string, channelId: string | undefined): Promise<PermissionParts> {
    const [guild, roles, member, channel] = await Promise.all([
      this.getGuild(guildId),
      this.getRoles(guildId),
      this.getMember(guildId, userId),
      channelId === undefined ? Promise.resolve(null) : this.getChannel(channelId),
    ]);
    const parent = channel !== null && channel !== undefined && channel.thread !== null && channel.parentId !== null ? await this.getChannel(channel.parentId) : undefined;
    return { ownerId: guild?.ownerId, roles, member, channel, parent };
  }

  async getEntitlement(entitlementId: string): Promise<EntitlementView | undefined> {
    await this.writes.drain();
    return decodeEntitlement(entitlementId, await this.redis.hget(this.keys.entitlements, entitlementId)) ?? undefined;
  }

  async entitlementsOf(owner: EntitlementOwner): Promise<EntitlementView[]> {
    await this.writes.drain();
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
    await this.writes.drain();
    const k = this.keys;
    const guildIds = await this.redis.smembers(k.guilds);
    const pipe = this.redis.pipeline().hlen(k.users).hlen(k.entitlements);
    for (const id of guildIds) pipe.hget(k.guild(id), 'gen').hlen(k.roles(id)).hlen(k.channels(id)).hlen(k.threads(id)).hlen(k.voiceStates(id));
    const results = ((await pipe.exec()) ?? []).map(([, v]) => v);
    const counts = this.redis.pipeline();
    let roles = 0;
    let channels = 0;
    let threads = 0;
    let voiceStates = 0;
    for (let i = 0; i < guildIds.length; i++) {
      const at = 2 + 5 * i;
      const gen = results[at] as string | null;
      roles += Number(results[at + 1]);
      channels += Number(results[at + 2]);
      threads += Number(results[at + 3]);
      voiceStates += Number(results[at + 4]);
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
      channels,
      threads,
      voiceStates,
    };
  }

  /**
   * Members are read a page at a time and the matching ones removed by script. A member changed
   * between its read and its removal is removed all the same (a sweep is not a transaction).
   */
  async sweepMembers(predicate: (member: MemberView) => boolean, guildId?: string): Promise<number> {
    await this.writes.drain();
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
            flag(false),
            flag(false),
            // Not a transition: the sweep drops what a member sync did not see.
            encodeMemberRecords([g, member.userId, padSnowflake(member.userId), MemberMode.remove, 0, flag(false), '', 0, 0]),
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

function channelKind(c: ChannelFields): ChannelKind {
  return isThreadType(c.type) ? ChannelKind.thread : ChannelKind.channel;
}

function hashOf(flat: readonly string[]): Record<string, string> {
  const h: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i]!] = flat[i + 1]!;
  return h;
}

function unpad(padded: string): string {
  return padded.replace(/^0+(?=\d)/, '');
}
