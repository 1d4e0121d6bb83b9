/**
 * The Redis backend. apply() stays synchronous: the reducer's writes are queued on one ioredis
 * pipeline, which is sent at the end of the tick (or as soon as it holds `pipelineSize` commands), so
 * a GUILD_CREATE with a thousand members costs one round trip, not a thousand. Reads first wait for
 * every queued write, so a read after apply() sees it. Layout and concurrency rules: keys.ts.
 */
import type { APIEntitlement, APIRole, APIUser } from 'discord-api-types/v10';
import type { ChainableCommander, Redis } from 'ioredis';
import { isEntitlementActive, toMillis } from '../entitlements.js';
import { checkOptions, ownerOf, pageLimit, type CacheHooks } from '../shared.js';
import { reduce, type CacheSink, type GuildPayload, type MemberPayload } from '../reducer.js';
import type {
  Cache,
  CacheOptions,
  CacheSizes,
  CacheStats,
  EntitlementOwner,
  EntitlementQuery,
  EntitlementView,
  GuildView,
  MemberPage,
  MemberPageOptions,
  MemberView,
  RoleView,
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
import { CacheKeys } from './keys.js';
import { SCRIPTS, type ScriptName } from './scripts.js';
import { compareRoles } from '../memory/guilds.js';

export interface RedisCacheOptions extends Partial<CacheOptions> {
  /** Key prefix (config `cache.redisPrefix`). */
  prefix: string;
  /** Send the pending pipeline once it holds this many commands (default 1000). */
  pipelineSize?: number;
  /** close() also closes the connection (set when the cache opened it itself). */
  ownsConnection?: boolean;
  hooks?: CacheHooks & {
    /** A queued write failed (the cache may now miss that change). */
    onWriteError?: (error: Error) => void;
  };
}

type ScriptCall = (...args: (string | number)[]) => unknown;
type Scripted = { [K in ScriptName]: ScriptCall };

export class CacheWriteError extends Error {
  constructor(readonly errors: Error[]) {
    super(`${errors.length} cache write(s) to Redis failed; first: ${errors[0]?.message ?? 'unknown'}`);
    this.name = 'CacheWriteError';
  }
}

const SWEEP_PAGE = 1000;
/** Member records per ghMembers call. */
const MEMBER_BATCH = 200;

export class RedisCache implements Cache, CacheSink {
  readonly backend = 'redis' as const;
  readonly options: Readonly<CacheOptions>;
  readonly keys: CacheKeys;
  private readonly pipelineSize: number;
  private pipe: ChainableCommander | null = null;
  private queued = 0;
  /** Member records waiting to go out as one ghMembers call (see scripts.ts), in event order. */
  private memberRecords: (string | number)[] = [];
  private memberRecordCount = 0;
  private scheduled = false;
  private readonly inflight = new Set<Promise<void>>();
  private failures: Error[] = [];
  private selfId: string | null = null;
  private readonly counters: CacheStats = { applied: 0, rejected: 0, capped: 0 };
  private readonly hooks: NonNullable<RedisCacheOptions['hooks']>;
  private readonly ownsConnection: boolean;

  constructor(
    private readonly redis: Redis,
    options: RedisCacheOptions,
  ) {
    const { prefix, pipelineSize, hooks, ownsConnection, ...rest } = options;
    this.ownsConnection = ownsConnection ?? false;
    this.options = Object.freeze(checkOptions(rest));
    this.keys = new CacheKeys(prefix);
    this.pipelineSize = pipelineSize ?? 1000;
    this.hooks = hooks ?? {};
    for (const [name, spec] of Object.entries(SCRIPTS)) {
      // defineCommand is idempotent per connection; ioredis sends EVAL once per socket, EVALSHA after.
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: spec.keys, lua: spec.lua });
    }
  }

  apply(t: string, d: unknown): void {
    try {
      if (reduce(this, t, d)) this.counters.applied++;
    } catch (err) {
      this.reject(t, `threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Send what is queued and wait for every write so far; rejects with CacheWriteError if any failed. */
  async flush(): Promise<void> {
    this.send();
    while (this.inflight.size > 0) await Promise.all(this.inflight);
    if (this.failures.length > 0) {
      const errors = this.failures;
      this.failures = [];
      throw new CacheWriteError(errors);
    }
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      if (this.ownsConnection) await this.redis.quit().catch(() => this.redis.disconnect());
    }
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  // ---- write queue ----------------------------------------------------------------------------

  /** The pipeline to queue one command on (after any member records waiting, to keep event order). */
  private pipeline(): ChainableCommander & Scripted {
    if (this.memberRecordCount > 0) this.queueMemberRecords();
    return this.rawPipeline();
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
  private memberRecord(record: (string | number)[]): void {
    for (let i = 0; i < record.length; i++) this.memberRecords.push(record[i]!);
    // A record weighs one command against pipelineSize, so a pipeline stays a bounded size.
    if (++this.memberRecordCount >= MEMBER_BATCH || this.queued + this.memberRecordCount >= this.pipelineSize) this.queueMemberRecords();
    else this.schedule();
  }

  private queueMemberRecords(): void {
    const records = this.memberRecords;
    const count = this.memberRecordCount;
    this.memberRecords = [];
    this.memberRecordCount = 0;
    const pipe = this.rawPipeline();
    this.queued += count - 1;
    pipe.ghMembers(this.keys.users, this.keys.userRefs, this.keys.prefix, ...records);
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
    this.pipe = null;
    this.queued = 0;
    this.exec(pipe);
  }

  private exec(pipe: ChainableCommander): void {
    const done = pipe.exec().then(
      (results) => {
        for (const [err] of results ?? []) if (err) this.fail(err);
      },
      (err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))),
    );
    const tracked: Promise<void> = done.finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  private fail(err: Error): void {
    if (this.failures.length < 100) this.failures.push(err);
    this.hooks.onWriteError?.(err);
  }

  // ---- sink -----------------------------------------------------------------------------------

  reject(event: string, reason: string): void {
    this.counters.rejected++;
    this.hooks.onReject?.(event, reason);
  }

  setSelf(user: APIUser): void {
    this.selfId = user.id;
    if (this.options.users && isSnowflake(user.id) && typeof user.username === 'string') {
      this.pipeline().hset(this.keys.users, user.id, encodeUser(user));
    }
  }

  guildUnavailable(guildId: string): void {
    this.pipeline().hset(this.keys.guild(guildId), 'k', '1', 'u', '1');
    this.pipeline().sadd(this.keys.guilds, guildId);
  }

  guildUpsert(p: GuildPayload): void {
    const fields: string[] = ['k', '1', 'u', '0'];
    if (this.options.guilds) {
      if (typeof p.name === 'string') fields.push('n', p.name);
      if (typeof p.owner_id === 'string') fields.push('o', p.owner_id);
      if (typeof p.member_count === 'number') fields.push('c', String(p.member_count));
    }
    this.pipeline().hset(this.keys.guild(p.id), ...fields);
    this.pipeline().sadd(this.keys.guilds, p.id);
    if (this.options.roles && p.roles !== undefined) {
      const pairs: string[] = [];
      for (const role of p.roles) pairs.push(role.id, encodeRole(role));
      this.pipeline().ghRolesReplace(this.keys.guild(p.id), this.keys.roles(p.id), ...pairs);
    }
  }

  guildRemove(guildId: string): void {
    const k = this.keys;
    this.pipeline().ghGuildRemove(
      k.guild(guildId),
      k.roles(guildId),
      k.memberIndex(guildId),
      k.users,
      k.userRefs,
      k.guilds,
      guildId,
      k.memberPrefix(guildId),
    );
  }

  memberUpsert(guildId: string, m: MemberPayload, partial: boolean, join: boolean): void {
    if (!isSnowflake(guildId)) return this.reject('GUILD_MEMBER_*', 'guild_id is not a snowflake');
    const userId = m.user.id;
    if (!isSnowflake(userId)) return this.reject('GUILD_MEMBER_*', 'member user.id is not a snowflake');
    const k = this.keys;
    if (!this.options.members) {
      if (join) this.pipeline().ghCountBump(k.guild(guildId), 1);
      return;
    }
    const { set, del } = memberFields(m, guildId, partial);
    const user = this.options.users && typeof m.user.username === 'string' ? encodeUser(m.user) : '';
    const cap = userId === this.selfId ? 0 : this.options.maxMembersPerGuild;
    this.memberRecord([guildId, userId, padSnowflake(userId), partial ? 'p' : 'f', cap, join ? '1' : '0', user, set.length / 2, ...set, del.length, ...del]);
  }

  memberRemove(guildId: string, user: APIUser): void {
    if (!isSnowflake(guildId) || !isSnowflake(user.id)) return this.reject('GUILD_MEMBER_REMOVE', 'ids are not snowflakes');
    if (!this.options.members) {
      this.pipeline().ghCountBump(this.keys.guild(guildId), -1);
      return;
    }
    const encoded = this.options.users && typeof user.username === 'string' ? encodeUser(user) : '';
    this.memberRecord([guildId, user.id, padSnowflake(user.id), 'r', 0, '1', encoded, 0, 0]);
  }

  roleUpsert(guildId: string, role: APIRole): void {
    if (!this.options.roles) return;
    if (!isSnowflake(guildId)) return this.reject('GUILD_ROLE_*', 'guild_id is not a snowflake');
    this.pipeline().ghRolePut(this.keys.guild(guildId), this.keys.roles(guildId), role.id, encodeRole(role));
  }

  roleRemove(guildId: string, roleId: string): void {
    this.pipeline().ghRoleRemove(this.keys.roles(guildId), this.keys.memberIndex(guildId), roleId, this.keys.memberPrefix(guildId));
  }

  entitlementUpsert(e: APIEntitlement): void {
    if (!this.options.entitlements) return;
    const pipe = this.pipeline();
    pipe.hset(this.keys.entitlements, e.id, encodeEntitlement(e));
    if (isSnowflake(e.user_id)) this.pipeline().sadd(this.keys.userEntitlements(e.user_id), e.id);
    if (isSnowflake(e.guild_id)) this.pipeline().sadd(this.keys.guildEntitlements(e.guild_id), e.id);
  }

  entitlementRemove(e: APIEntitlement): void {
    this.pipeline().hdel(this.keys.entitlements, e.id);
    if (isSnowflake(e.user_id)) this.pipeline().srem(this.keys.userEntitlements(e.user_id), e.id);
    if (isSnowflake(e.guild_id)) this.pipeline().srem(this.keys.guildEntitlements(e.guild_id), e.id);
  }

  // ---- reads ----------------------------------------------------------------------------------

  async getGuild(guildId: string): Promise<GuildView | undefined> {
    await this.flush();
    if (!this.options.guilds) return undefined;
    const [[, h], [, roleIds]] = (await this.redis
      .pipeline()
      .hgetall(this.keys.guild(guildId))
      .hkeys(this.keys.roles(guildId))
      .exec()) as [[null, Record<string, string>], [null, string[]]];
    if (h.k === undefined) return undefined;
    return {
      id: guildId,
      name: h.n ?? null,
      ownerId: h.o ?? null,
      memberCount: h.c === undefined ? null : Number(h.c),
      unavailable: h.u === '1',
      roleIds,
    };
  }

  async getMember(guildId: string, userId: string): Promise<MemberView | undefined> {
    await this.flush();
    const [[, h], [, user]] = (await this.redis
      .pipeline()
      .hgetall(this.keys.member(guildId, userId))
      .hget(this.keys.users, userId)
      .exec()) as [[null, Record<string, string>], [null, string | null]];
    return decodeMember(guildId, userId, h, this.options.users ? decodeUser(userId, user) : null) ?? undefined;
  }

  async getUser(userId: string): Promise<UserView | undefined> {
    await this.flush();
    if (!this.options.users) return undefined;
    return decodeUser(userId, await this.redis.hget(this.keys.users, userId)) ?? undefined;
  }

  async getRole(guildId: string, roleId: string): Promise<RoleView | undefined> {
    await this.flush();
    return decodeRole(guildId, roleId, await this.redis.hget(this.keys.roles(guildId), roleId)) ?? undefined;
  }

  async getRoles(guildId: string): Promise<RoleView[]> {
    await this.flush();
    const all = await this.redis.hgetall(this.keys.roles(guildId));
    const out: RoleView[] = [];
    for (const [id, raw] of Object.entries(all)) {
      const role = decodeRole(guildId, id, raw);
      if (role) out.push(role);
    }
    return out.sort(compareRoles);
  }

  async getMembers(guildId: string, options: MemberPageOptions = {}): Promise<MemberPage> {
    const limit = pageLimit(options.limit);
    if (options.after !== undefined && !isSnowflake(options.after)) {
      throw new TypeError(`members page "after" must be a snowflake; got ${JSON.stringify(options.after)}`);
    }
    await this.flush();
    const min = options.after === undefined ? '-' : `(${padSnowflake(options.after)}`;
    const padded = await this.redis.zrangebylex(this.keys.memberIndex(guildId), min, '+', 'LIMIT', 0, limit + 1);
    const more = padded.length > limit;
    const ids = padded.slice(0, limit).map(unpad);
    const members = await this.membersById(guildId, ids);
    return { members, next: more && members.length > 0 ? ids[ids.length - 1]! : null };
  }

  async memberCount(guildId: string): Promise<number | undefined> {
    await this.flush();
    if (!this.options.guilds) return undefined;
    const c = await this.redis.hget(this.keys.guild(guildId), 'c');
    return c === null ? undefined : Number(c);
  }

  async getEntitlement(entitlementId: string): Promise<EntitlementView | undefined> {
    await this.flush();
    return decodeEntitlement(entitlementId, await this.redis.hget(this.keys.entitlements, entitlementId)) ?? undefined;
  }

  async entitlementsOf(owner: EntitlementOwner): Promise<EntitlementView[]> {
    await this.flush();
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
    await this.flush();
    const guildIds = await this.redis.smembers(this.keys.guilds);
    const pipe = this.redis.pipeline().hlen(this.keys.users).hlen(this.keys.entitlements);
    for (const id of guildIds) pipe.zcard(this.keys.memberIndex(id)).hlen(this.keys.roles(id));
    const results = ((await pipe.exec()) ?? []).map(([, v]) => Number(v));
    let members = 0;
    let roles = 0;
    for (let i = 2; i < results.length; i += 2) {
      members += results[i]!;
      roles += results[i + 1]!;
    }
    return {
      guilds: this.options.guilds ? guildIds.length : 0,
      members,
      users: this.options.users ? results[0]! : 0,
      roles,
      entitlements: results[1]!,
    };
  }

  /**
   * Members are read a page at a time and the matching ones removed by script. A member changed
   * between its read and its removal is removed all the same (a sweep is not a transaction).
   */
  async sweepMembers(predicate: (member: MemberView) => boolean, guildId?: string): Promise<number> {
    await this.flush();
    const guildIds = guildId !== undefined ? [guildId] : await this.redis.smembers(this.keys.guilds);
    let removed = 0;
    for (const g of guildIds) {
      let after: string | undefined;
      for (let pages = 0; pages < 1_000_000; pages++) {
        const page = await this.getMembers(g, { limit: SWEEP_PAGE, ...(after !== undefined ? { after } : {}) });
        for (const member of page.members) {
          if (!predicate(member)) continue;
          const result = await (this.redis as unknown as Scripted).ghMembers(
            this.keys.users,
            this.keys.userRefs,
            this.keys.prefix,
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

  private async membersById(guildId: string, ids: string[]): Promise<MemberView[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.member(guildId, id));
    if (this.options.users) pipe.hmget(this.keys.users, ...ids);
    const results = (await pipe.exec()) ?? [];
    const users = this.options.users ? (results[ids.length]![1] as (string | null)[]) : [];
    const out: MemberView[] = [];
    for (let i = 0; i < ids.length; i++) {
      const h = results[i]![1] as Record<string, string>;
      const user = this.options.users ? decodeUser(ids[i]!, users[i]) : null;
      const member = decodeMember(guildId, ids[i]!, h, user);
      if (member) out.push(member);
    }
    return out;
  }
}

function unpad(padded: string): string {
  return padded.replace(/^0+(?=\d)/, '');
}
