/**
 * Gateway dispatches -> cache writes, shared by both backends. The reducer checks the shape a backend
 * relies on (ids are snowflakes, lists are lists) and calls the backend's sink with the payload's own
 * objects; the sink copies the fields it keeps and retains nothing else. A payload that is not what the
 * protocol says is rejected with a reason naming the field path (`members[2].user.id: expected a snowflake
 * string, got number`). Event semantics (protocol §11):
 *
 * - READY lists every guild of its shard (`shard: [id, count]`; without it the session has every guild):
 *   the listed ones are unavailable until their GUILD_CREATE, and cached guilds of that shard it does not
 *   list are gone (the bot left them while no session was live). Guilds of other shards are untouched.
 * - GUILD_CREATE: `unavailable: true` marks an outage; otherwise the guild, its roles (the list is
 *   complete: roles missing from it are dropped, from members too) and its members are stored. When the
 *   guild was unknown or unavailable its member_count is the baseline, and a member list of member_count
 *   entries replaces the cached members (a partial list, the usual case without GUILD_PRESENCES or for large
 *   guilds, keeps the others). A GUILD_CREATE replayed after a crash, for a guild already available, changes
 *   no count and removes no member.
 * - GUILD_UPDATE: guild fields and the complete role list; member_count is not part of it and stays.
 * - GUILD_DELETE: `unavailable: true` keeps everything and marks the guild unavailable; without it the
 *   bot left, and the guild, its roles and members go.
 * - GUILD_MEMBER_ADD / _REMOVE: member stored / dropped; member_count moves by membership transitions: a
 *   repeated join or leave (a duplicate delivery, a replay) counts once, with or without a member cache.
 * - GUILD_MEMBER_UPDATE: a partial update: absent fields stay, fields present with null are cleared.
 * - GUILD_MEMBERS_CHUNK: each member stored.
 * - GUILD_ROLE_CREATE/UPDATE store the role; GUILD_ROLE_DELETE drops it, from members too.
 * - Channels and threads (`cache.channels`): a GUILD_CREATE's `channels` list replaces the guild's channels and
 *   its `threads` list the guild's threads (each list when present); CHANNEL_CREATE/UPDATE and
 *   THREAD_CREATE/UPDATE store one, CHANNEL_DELETE drops a channel and its threads, THREAD_DELETE a thread;
 *   THREAD_LIST_SYNC replaces the active (not archived) threads of the parents it names (`channel_ids`, or the
 *   whole guild without it) with its list. A guild's removal takes its channels, threads and voice states.
 * - VOICE_STATE_UPDATE (`cache.voiceStates`) stores a member's voice state, drops it once channel_id is null; a
 *   GUILD_CREATE's `voice_states` replace the guild's.
 * - APPLICATION_COMMAND_PERMISSIONS_UPDATE replaces one command's (or the application's) permission settings in
 *   its guild; an empty list removes them.
 * - Other events a plugin can listen to are not cached; a payload that is not an object is refused for them (the
 *   typed plugin event needs one).
 * - ENTITLEMENT_CREATE/UPDATE store the entitlement as sent (ends_at null = ongoing, set = ends then);
 *   ENTITLEMENT_DELETE drops it. INTERACTION_CREATE's `entitlements` (the invoking user's) are stored too,
 *   but never bring back a deleted entitlement nor reopen an ended one (protocol §S3: ongoing -> ended only).
 */
import type { APIEntitlement, APIGuildMember, APIRole, APIUser } from 'discord-api-types/v10';
import type { CommandPermissionEntry } from '../api/command-access.js';
import { isThreadType } from '../api/permissions.js';
import { channelFields, channelProblem, voiceStateFields, voiceStateProblem, type ChannelFields, type VoiceStateFields } from './channel-payloads.js';
import { kindOf } from './shared.js';
import { idHalves, isSnowflake, splitSnowflake, timestampOrNaN, type IdHalves } from './wire.js';

/** A guild payload as the sink sees it: GUILD_CREATE / GUILD_UPDATE data (roles already checked). */
export interface GuildPayload {
  id: string;
  name?: unknown;
  owner_id?: unknown;
  member_count?: unknown;
  roles?: APIRole[];
}

/**
 * A member object whose `user.id` is a snowflake and whose `roles`, when present, is an array; other fields
 * are read defensively by the sink.
 */
export type MemberPayload = Partial<Omit<APIGuildMember, 'user' | 'roles'>> & {
  user: APIUser;
  roles?: unknown;
};

export interface CacheSink {
  /** The bot user from READY: always cached (when users are), its member exempt from the cap. */
  setSelf(user: APIUser): void;
  /**
   * A READY: the listed guilds are unavailable; when `shardCount` > 0, cached guilds of shard `shardId` that
   * are not listed are removed.
   */
  ready(guildIds: readonly string[], shardId: number, shardCount: number): void;
  guildUnavailable(guildId: string): void;
  /**
   * `create`: a GUILD_CREATE (its member_count may be a baseline); otherwise a GUILD_UPDATE. `listComplete`:
   * its member list has member_count entries, so after a baseline it replaces the cached member set
   * (`guildMembersListed` follows the members).
   */
  guildUpsert(guild: GuildPayload, create: boolean, listComplete: boolean): void;
  /** The members of a GUILD_CREATE whose list was complete have all been passed to memberUpsert. */
  guildMembersListed(guildId: string): void;
  guildRemove(guildId: string): void;
  /**
   * `partial`: fields absent from the payload stay as they are (GUILD_MEMBER_UPDATE); otherwise the
   * payload is the whole member. `join`: a GUILD_MEMBER_ADD (a membership transition). `userId`: the halves
   * of `member.user.id` as the reducer split them while checking it (read them during the call only: they
   * are reused for the next member).
   */
  memberUpsert(guildId: string, member: MemberPayload, partial: boolean, join: boolean, userId: Readonly<IdHalves>): void;
  /** A GUILD_MEMBER_REMOVE (a membership transition); `userId` as for memberUpsert. */
  memberRemove(guildId: string, user: APIUser, userId: Readonly<IdHalves>): void;
  roleUpsert(guildId: string, role: APIRole): void;
  roleRemove(guildId: string, roleId: string): void;
  /** `fromInteraction`: a copy listed by an INTERACTION_CREATE (see the module comment). */
  entitlementUpsert(entitlement: APIEntitlement, fromInteraction: boolean): void;
  entitlementRemove(entitlement: APIEntitlement): void;
  /** A channel or thread of a guild (stored when the guild is cached). */
  channelUpsert(guildId: string, channel: ChannelFields): void;
  /** A channel (and its threads) or, with `thread`, a thread is gone. */
  channelRemove(guildId: string, channelId: string, thread: boolean): void;
  /**
   * A GUILD_CREATE's lists: `channels` replaces the guild's channels, `threads` its threads (null: the payload had
   * no such list, nothing changes).
   */
  channelsReplace(guildId: string, channels: readonly ChannelFields[] | null, threads: readonly ChannelFields[] | null): void;
  /** THREAD_LIST_SYNC: the active threads of `parentIds` (all of the guild's when null) are `threads`. */
  threadsSync(guildId: string, parentIds: readonly string[] | null, threads: readonly ChannelFields[]): void;
  /** A member's voice state (channelId null: they left voice). */
  voiceStateUpsert(guildId: string, state: VoiceStateFields): void;
  /** A GUILD_CREATE's voice states replace the guild's. */
  voiceStatesReplace(guildId: string, states: readonly VoiceStateFields[]): void;
  /** One command's (or, under the application id, the application's) settings in a guild; [] removes them. */
  commandPermissionsPut(guildId: string, targetId: string, entries: readonly CommandPermissionEntry[]): void;
  /** A payload (or one record in it) without the documented shape. */
  reject(event: string, reason: string): void;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function snowflakeProblem(path: string, v: unknown): string {
  return `${path}: expected a snowflake string, got ${kindOf(v)}`;
}

/**
 * The user id of the member being applied: the member checks split it here and the sink gets it with the
 * member, so that the memory cache does not split the same id twice.
 */
const memberUserId = idHalves();

/**
 * Why a member object cannot be cached, or null. Paths are relative to the member; the caller prefixes them
 * (`at`) only on failure, so the common case allocates nothing. On success `user.id` is in `memberUserId`.
 */
function memberProblem(m: unknown, needRoles: boolean): string | null {
  if (!isObj(m)) return `: expected a member object, got ${kindOf(m)}`;
  const u = m.user;
  if (!isObj(u)) return `user: expected a user object, got ${kindOf(u)}`;
  if (!splitSnowflake(u.id, memberUserId)) return snowflakeProblem('user.id', u.id);
  const roles = m.roles;
  if (roles === undefined ? needRoles : !Array.isArray(roles)) return `roles: expected an array of role ids, got ${kindOf(roles)}`;
  return null;
}

function roleProblem(r: unknown): string | null {
  if (!isObj(r)) return `: expected a role object, got ${kindOf(r)}`;
  if (!isSnowflake(r.id)) return snowflakeProblem('id', r.id);
  if (typeof r.name !== 'string') return `name: expected a string, got ${kindOf(r.name)}`;
  return null;
}

/** Why an entitlement object cannot be cached, or null (also used for REST listings). */
export function entitlementProblem(e: unknown): string | null {
  if (!isObj(e)) return `: expected an entitlement object, got ${kindOf(e)}`;
  if (!isSnowflake(e.id)) return snowflakeProblem('id', e.id);
  if (!isSnowflake(e.sku_id)) return snowflakeProblem('sku_id', e.sku_id);
  if (!isSnowflake(e.user_id) && !isSnowflake(e.guild_id)) return `user_id, guild_id: expected a snowflake string in one of them, got ${kindOf(e.user_id)} and ${kindOf(e.guild_id)}`;
  // An unreadable end would be stored as "never ends": an ended entitlement would grant access again. Refused,
  // so the record keeps what it had (fail closed).
  for (const key of ['starts_at', 'ends_at'] as const) {
    const v = e[key];
    if (v !== undefined && v !== null && Number.isNaN(timestampOrNaN(v))) return `${key}: expected an ISO8601 timestamp or null, got ${typeof v === 'string' ? 'an unreadable string' : kindOf(v)}`;
  }
  return null;
}

/** Why a GUILD_CREATE / _UPDATE / _DELETE payload cannot be applied, or null. */
function guildProblem(d: unknown): string | null {
  if (!isObj(d)) return `payload: expected a guild object, got ${kindOf(d)}`;
  return isSnowflake(d.id) ? null : snowflakeProblem('id', d.id);
}

/**
 * Why a GUILD_MEMBER_ADD (`join`: roles required) or GUILD_MEMBER_UPDATE payload cannot be applied, or null.
 * On success `user.id` is in `memberUserId` for the sink.
 */
function memberEventProblem(d: unknown, join: boolean): string | null {
  if (!isObj(d)) return `payload: expected an object, got ${kindOf(d)}`;
  if (!isSnowflake(d.guild_id)) return snowflakeProblem('guild_id', d.guild_id);
  return memberProblem(d, join);
}

/** Why a GUILD_MEMBER_REMOVE payload cannot be applied, or null (on success `user.id` is in `memberUserId`). */
function memberRemoveProblem(d: unknown): string | null {
  if (!isObj(d)) return `payload: expected an object, got ${kindOf(d)}`;
  if (!isSnowflake(d.guild_id)) return snowflakeProblem('guild_id', d.guild_id);
  const u = d.user;
  if (!isObj(u)) return `user: expected a user object, got ${kindOf(u)}`;
  return splitSnowflake(u.id, memberUserId) ? null : snowflakeProblem('user.id', u.id);
}

/** Why an ENTITLEMENT_CREATE / _UPDATE / _DELETE payload cannot be applied, or null. */
function entitlementEventProblem(d: unknown): string | null {
  const problem = entitlementProblem(d);
  return problem === null || problem.charCodeAt(0) !== 58 ? problem : `payload${problem}`;
}

/**
 * Why a READY is not whole, or null. The cache still applies one whose `user` or `shard` is broken (its guild
 * list counts), but rejects that part; a READY without a guild list it does not apply at all.
 */
function readyProblem(d: unknown): string | null {
  if (!isObj(d)) return `payload: expected an object, got ${kindOf(d)}`;
  if (!Array.isArray(d.guilds)) return `guilds: expected an array, got ${kindOf(d.guilds)}`;
  const u = d.user;
  if (!isObj(u)) return `user: expected a user object, got ${kindOf(u)}`;
  if (!isSnowflake(u.id)) return snowflakeProblem('user.id', u.id);
  return readyShard(d.shard) === null ? `shard: expected [shard_id, num_shards], got ${kindOf(d.shard)}; no guild removed` : null;
}

/**
 * Why an APPLICATION_COMMAND_PERMISSIONS_UPDATE payload is not a command's permissions in a guild, or null:
 * `id`, `application_id` and `guild_id` snowflakes and `permissions` a list of { id snowflake, type ROLE 1 /
 * USER 2 / CHANNEL 3, permission boolean } (spec "Command permission"). Nothing of it is cached; the check is
 * for the typed plugin event, whose handlers read those fields.
 */
function commandPermissionsProblem(d: unknown): string | null {
  if (!isObj(d)) return `payload: expected an object, got ${kindOf(d)}`;
  for (const field of ['id', 'application_id', 'guild_id'] as const) {
    if (!isSnowflake(d[field])) return snowflakeProblem(field, d[field]);
  }
  const list = d.permissions;
  if (!Array.isArray(list)) return `permissions: expected an array, got ${kindOf(list)}`;
  for (let i = 0; i < list.length; i++) {
    const p: unknown = list[i];
    if (!isObj(p)) return `permissions[${i}]: expected a permission object, got ${kindOf(p)}`;
    if (!isSnowflake(p.id)) return snowflakeProblem(`permissions[${i}].id`, p.id);
    if (p.type !== 1 && p.type !== 2 && p.type !== 3) return `permissions[${i}].type: expected 1 (role), 2 (user) or 3 (channel), got ${valueKind(p.type)}`;
    if (typeof p.permission !== 'boolean') return `permissions[${i}].permission: expected a boolean, got ${valueKind(p.permission)}`;
  }
  return null;
}

/**
 * The settings of a REST listing of a guild's command permissions (GET
 * /applications/{application.id}/guilds/{guild.id}/commands/permissions), by command id (or application id);
 * malformed objects, or ones of another guild, are reported through `reject` and left out.
 */
export function commandPermissionsListEntries(list: readonly unknown[], guildId: string, reject: (reason: string) => void): Map<string, CommandPermissionEntry[]> {
  const out = new Map<string, CommandPermissionEntry[]>();
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    const problem = commandPermissionsProblem(item);
    if (problem !== null) {
      reject(`[${i}]${problem.startsWith('payload') ? problem.slice('payload'.length) : `.${problem}`}`);
      continue;
    }
    const p = item as Obj;
    if (p.guild_id !== guildId) {
      reject(`[${i}].guild_id: expected ${guildId}, the guild asked about`);
      continue;
    }
    out.set(p.id as string, (p.permissions as Obj[]).map((e) => ({ id: e.id as string, type: e.type as number, permission: e.permission as boolean })));
  }
  return out;
}

/** A value that should have been a small number or a boolean, for a reason (kindOf speaks of snowflakes). */
function valueKind(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return 'a string';
  return kindOf(v);
}

/**
 * Why the cache rejects a dispatch's payload, or a part of it that is not an entry of a list (READY's `user`
 * or `shard`), by the checks reduce() applies; null when it takes all of it but list entries (a GUILD_CREATE's
 * members or roles, READY's guilds are checked one by one, and the rest is applied). Events the cache does not
 * keep need an object payload (RESUMED anything). Whoever hands payloads on as their documented type (plugin
 * events) asks this, so that a handler never gets one the cache refused.
 */
export function dispatchProblem(t: string, d: unknown): string | null {
  switch (t) {
    case 'GUILD_MEMBER_ADD':
    case 'GUILD_MEMBER_UPDATE':
      return memberEventProblem(d, t === 'GUILD_MEMBER_ADD');
    case 'GUILD_MEMBER_REMOVE':
      return memberRemoveProblem(d);
    case 'GUILD_CREATE':
    case 'GUILD_UPDATE':
    case 'GUILD_DELETE':
      return guildProblem(d);
    case 'ENTITLEMENT_CREATE':
    case 'ENTITLEMENT_UPDATE':
    case 'ENTITLEMENT_DELETE':
      return entitlementEventProblem(d);
    case 'READY':
      return readyProblem(d);
    case 'APPLICATION_COMMAND_PERMISSIONS_UPDATE':
      return commandPermissionsProblem(d);
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'CHANNEL_DELETE':
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
      return channelEventProblem(d);
    case 'THREAD_DELETE':
      return threadDeleteProblem(d);
    case 'THREAD_LIST_SYNC':
      return threadListSyncProblem(d);
    case 'VOICE_STATE_UPDATE':
      return voiceStateEventProblem(d);
    case 'RESUMED':
      return null;
    default:
      // Every other event a plugin may listen to: its handler is typed for an object.
      return isObj(d) ? null : `payload: expected an object, got ${kindOf(d)}`;
  }
}

/**
 * Why a CHANNEL_* / THREAD_CREATE / THREAD_UPDATE payload cannot be applied, or null. A channel without guild_id
 * is a private channel (a DM): nothing to cache, no problem.
 */
function channelEventProblem(d: unknown): string | null {
  const problem = channelProblem(d);
  if (problem !== null) return problem.charCodeAt(0) === 58 ? `payload${problem}` : problem;
  const g = (d as Obj).guild_id;
  return g === undefined || g === null || isSnowflake(g) ? null : snowflakeProblem('guild_id', g);
}

function threadDeleteProblem(d: unknown): string | null {
  if (!isObj(d)) return `payload: expected an object, got ${kindOf(d)}`;
  if (!isSnowflake(d.id)) return snowflakeProblem('id', d.id);
  return isSnowflake(d.guild_id) ? null : snowflakeProblem('guild_id', d.guild_id);
}

function threadListSyncProblem(d: unknown): string | null {
  if (!isObj(d)) return `payload: expected an object, got ${kindOf(d)}`;
  if (!isSnowflake(d.guild_id)) return snowflakeProblem('guild_id', d.guild_id);
  const ids = d.channel_ids;
  if (ids !== undefined && ids !== null) {
    if (!Array.isArray(ids)) return `channel_ids: expected an array, got ${kindOf(ids)}`;
    for (let i = 0; i < ids.length; i++) if (!isSnowflake(ids[i])) return snowflakeProblem(`channel_ids[${i}]`, ids[i]);
  }
  return Array.isArray(d.threads) ? null : `threads: expected an array, got ${kindOf(d.threads)}`;
}

/** A voice state outside a guild (a DM call) has no guild_id: nothing to cache, no problem. */
function voiceStateEventProblem(d: unknown): string | null {
  const problem = voiceStateProblem(d);
  if (problem !== null) return problem.charCodeAt(0) === 58 ? `payload${problem}` : problem;
  const g = (d as Obj).guild_id;
  return g === undefined || g === null || isSnowflake(g) ? null : snowflakeProblem('guild_id', g);
}

/** A list of channels (GUILD_CREATE's `channels` / `threads`, THREAD_LIST_SYNC's `threads`), entries checked one by one. */
function channelList(event: string, field: string, list: unknown, sink: CacheSink): ChannelFields[] | null {
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list)) {
    sink.reject(event, `${field}: expected an array of channels, got ${kindOf(list)}`);
    return null;
  }
  const out: ChannelFields[] = [];
  for (let i = 0; i < list.length; i++) {
    const c: unknown = list[i];
    const problem = channelProblem(c);
    if (problem === null) out.push(channelFields(c as Obj));
    else sink.reject(event, at(`${field}[${i}]`, problem));
  }
  return out;
}

function voiceStateList(event: string, list: unknown, sink: CacheSink): VoiceStateFields[] | null {
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list)) {
    sink.reject(event, `voice_states: expected an array, got ${kindOf(list)}`);
    return null;
  }
  const out: VoiceStateFields[] = [];
  for (let i = 0; i < list.length; i++) {
    const v: unknown = list[i];
    const problem = voiceStateProblem(v);
    if (problem === null) out.push(voiceStateFields(v as Obj));
    else sink.reject(event, at(`voice_states[${i}]`, problem));
  }
  return out;
}

/** "members[3]." + "user.id: ..." -> "members[3].user.id: ...", and "members[3]" + ": expected ..." as is. */
function at(prefix: string, problem: string): string {
  return problem.charCodeAt(0) === 58 ? `${prefix}${problem}` : `${prefix}.${problem}`;
}

function checkRoles(event: string, roles: unknown, sink: CacheSink): APIRole[] | undefined {
  if (roles === undefined) return undefined;
  if (!Array.isArray(roles)) {
    sink.reject(event, `roles: expected an array of role objects, got ${kindOf(roles)}`);
    return undefined;
  }
  for (let i = 0; i < roles.length; i++) {
    const problem = roleProblem(roles[i]);
    if (problem !== null) {
      sink.reject(event, at(`roles[${i}]`, problem));
      // The list is still complete for every valid role: a broken entry must not make valid roles vanish.
      return roles.filter((r) => roleProblem(r) === null) as APIRole[];
    }
  }
  return roles as APIRole[];
}

function guildPayload(event: string, d: Obj, sink: CacheSink, withCount: boolean): GuildPayload {
  // Copy nothing: the sink reads these fields straight from the payload. Only a broken role list is
  // replaced by its valid entries, and GUILD_UPDATE never passes a member_count (it carries none).
  const roles = checkRoles(event, d.roles, sink);
  if (roles === d.roles && (withCount || d.member_count === undefined)) return d as unknown as GuildPayload;
  return {
    id: d.id as string,
    name: d.name,
    owner_id: d.owner_id,
    ...(withCount ? { member_count: d.member_count } : {}),
    ...(roles ? { roles } : {}),
  };
}

function members(event: string, guildId: string, list: unknown, sink: CacheSink): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    sink.reject(event, `members: expected an array of members, got ${kindOf(list)}`);
    return;
  }
  for (let i = 0; i < list.length; i++) {
    const m: unknown = list[i];
    const problem = memberProblem(m, false);
    if (problem === null) sink.memberUpsert(guildId, m as MemberPayload, false, false, memberUserId);
    else sink.reject(event, at(`members[${i}]`, problem));
  }
}

function entitlements(event: string, list: unknown, sink: CacheSink): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    sink.reject(event, `entitlements: expected an array, got ${kindOf(list)}`);
    return;
  }
  for (let i = 0; i < list.length; i++) {
    const problem = entitlementProblem(list[i]);
    if (problem === null) sink.entitlementUpsert(list[i] as APIEntitlement, true);
    else sink.reject(event, at(`entitlements[${i}]`, problem));
  }
}

/** READY's `shard: [id, count]`, [0, 1] without it (the session has every guild), null when malformed. */
function readyShard(v: unknown): [number, number] | null {
  if (v === undefined) return [0, 1];
  if (!Array.isArray(v) || v.length !== 2) return null;
  const [id, count] = v as unknown[];
  if (!Number.isInteger(count) || (count as number) < 1 || !Number.isInteger(id) || (id as number) < 0 || (id as number) >= (count as number)) return null;
  return [id as number, count as number];
}

function guildId(event: string, d: Obj, sink: CacheSink): string | null {
  const id = d.guild_id;
  if (isSnowflake(id)) return id;
  sink.reject(event, snowflakeProblem('guild_id', id));
  return null;
}

/** What reduce did with a dispatch: not an event the cache handles, taken, or refused (see REFUSED). */
export type Reduced = typeof NOT_CACHED | typeof TAKEN | typeof REFUSED;
export const NOT_CACHED = 0;
export const TAKEN = 1;
/**
 * The payload, or a part of it that is not an entry of a list, was rejected: exactly when dispatchProblem
 * finds a problem (test/cache/reject-reasons.test.ts holds the two together). Typed plugin events are handed
 * on only when the cache did not refuse them.
 */
export const REFUSED = 2;

/** Apply one dispatch to a sink. The member events, the most frequent, are applied here; the others by a step each. */
export function reduce(sink: CacheSink, t: string, d: unknown): Reduced {
  switch (t) {
    case 'GUILD_MEMBER_UPDATE':
    case 'GUILD_MEMBER_ADD': {
      const join = t === 'GUILD_MEMBER_ADD';
      // A join carries the whole member (roles included); an update may omit fields.
      const problem = memberEventProblem(d, join);
      if (problem !== null) return refuse(sink, t, problem);
      sink.memberUpsert((d as Obj).guild_id as string, d as MemberPayload, !join, join, memberUserId);
      return TAKEN;
    }
    case 'GUILD_MEMBER_REMOVE': {
      const problem = memberRemoveProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      sink.memberRemove((d as Obj).guild_id as string, (d as Obj).user as APIUser, memberUserId);
      return TAKEN;
    }
    case 'GUILD_MEMBERS_CHUNK':
      return reduceMembersChunk(sink, t, d);
    case 'GUILD_CREATE':
    case 'GUILD_UPDATE':
    case 'GUILD_DELETE':
      return reduceGuild(sink, t, d);
    case 'GUILD_ROLE_CREATE':
    case 'GUILD_ROLE_UPDATE':
    case 'GUILD_ROLE_DELETE':
      return reduceRole(sink, t, d);
    case 'ENTITLEMENT_CREATE':
    case 'ENTITLEMENT_UPDATE':
    case 'ENTITLEMENT_DELETE': {
      const problem = entitlementEventProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      if (t === 'ENTITLEMENT_DELETE') sink.entitlementRemove(d as APIEntitlement);
      else sink.entitlementUpsert(d as APIEntitlement, false);
      return TAKEN;
    }
    case 'INTERACTION_CREATE':
      if (isObj(d)) entitlements(t, d.entitlements, sink);
      return TAKEN;
    case 'APPLICATION_COMMAND_PERMISSIONS_UPDATE':
      return reduceCommandPermissions(sink, t, d);
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
    case 'CHANNEL_DELETE':
    case 'THREAD_DELETE':
    case 'THREAD_LIST_SYNC':
      return reduceChannel(sink, t, d);
    case 'VOICE_STATE_UPDATE': {
      const problem = voiceStateEventProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      const v = d as Obj;
      if (typeof v.guild_id === 'string') sink.voiceStateUpsert(v.guild_id, voiceStateFields(v));
      return TAKEN;
    }
    case 'READY':
      return reduceReady(sink, t, d);
    case 'RESUMED':
      return NOT_CACHED;
    default:
      // Not cached; a payload that is not an object is refused for the typed plugin event (see dispatchProblem).
      return isObj(d) ? NOT_CACHED : refuse(sink, t, `payload: expected an object, got ${kindOf(d)}`);
  }
}

function reduceMembersChunk(sink: CacheSink, t: string, d: unknown): Reduced {
  if (!isObj(d)) sink.reject(t, `payload: expected an object, got ${kindOf(d)}`);
  else {
    const g = guildId(t, d, sink);
    if (g !== null) members(t, g, d.members ?? [], sink);
  }
  return TAKEN;
}

/** GUILD_CREATE, GUILD_UPDATE, GUILD_DELETE. */
function reduceGuild(sink: CacheSink, t: string, d: unknown): Reduced {
  const problem = guildProblem(d);
  if (problem !== null) return refuse(sink, t, problem);
  const g = d as Obj & { id: string };
  if (t === 'GUILD_UPDATE') sink.guildUpsert(guildPayload(t, g, sink, false), false, false);
  else if (g.unavailable === true) sink.guildUnavailable(g.id);
  else if (t === 'GUILD_DELETE') sink.guildRemove(g.id);
  else {
    const list = g.members;
    const complete = Array.isArray(list) && list.length === g.member_count;
    sink.guildUpsert(guildPayload(t, g, sink, true), true, complete);
    // Channels before the members: the Redis backend's few commands then share the guild's first pipeline.
    const channels = channelList(t, 'channels', g.channels, sink);
    const threads = channelList(t, 'threads', g.threads, sink);
    if (channels !== null || threads !== null) sink.channelsReplace(g.id, channels, threads);
    const voice = voiceStateList(t, g.voice_states, sink);
    if (voice !== null) sink.voiceStatesReplace(g.id, voice);
    members(t, g.id, list, sink);
    if (complete) sink.guildMembersListed(g.id);
  }
  return TAKEN;
}

/** GUILD_ROLE_CREATE, GUILD_ROLE_UPDATE, GUILD_ROLE_DELETE. */
function reduceRole(sink: CacheSink, t: string, d: unknown): Reduced {
  if (!isObj(d)) {
    sink.reject(t, `payload: expected an object, got ${kindOf(d)}`);
    return TAKEN;
  }
  const g = guildId(t, d, sink);
  if (g === null) return TAKEN;
  if (t === 'GUILD_ROLE_DELETE') {
    if (isSnowflake(d.role_id)) sink.roleRemove(g, d.role_id);
    else sink.reject(t, snowflakeProblem('role_id', d.role_id));
    return TAKEN;
  }
  const problem = roleProblem(d.role);
  if (problem === null) sink.roleUpsert(g, d.role as APIRole);
  else sink.reject(t, at('role', problem));
  return TAKEN;
}

function reduceCommandPermissions(sink: CacheSink, t: string, d: unknown): Reduced {
  const problem = commandPermissionsProblem(d);
  if (problem !== null) return refuse(sink, t, problem);
  const p = d as Obj;
  const entries = (p.permissions as Obj[]).map((e) => ({ id: e.id as string, type: e.type as number, permission: e.permission as boolean }));
  sink.commandPermissionsPut(p.guild_id as string, p.id as string, entries);
  return TAKEN;
}

/** CHANNEL_* and THREAD_* (THREAD_LIST_SYNC included). */
function reduceChannel(sink: CacheSink, t: string, d: unknown): Reduced {
  switch (t) {
    case 'CHANNEL_DELETE': {
      const problem = channelEventProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      const c = d as Obj;
      if (typeof c.guild_id === 'string') sink.channelRemove(c.guild_id, c.id as string, isThreadType(c.type as number));
      return TAKEN;
    }
    case 'THREAD_DELETE': {
      const problem = threadDeleteProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      sink.channelRemove((d as Obj).guild_id as string, (d as Obj).id as string, true);
      return TAKEN;
    }
    case 'THREAD_LIST_SYNC': {
      const problem = threadListSyncProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      const p = d as Obj;
      const threads = channelList(t, 'threads', p.threads, sink) ?? [];
      sink.threadsSync(p.guild_id as string, Array.isArray(p.channel_ids) ? (p.channel_ids as string[]) : null, threads);
      return TAKEN;
    }
    default: {
      // CHANNEL_CREATE / _UPDATE, THREAD_CREATE / _UPDATE
      const problem = channelEventProblem(d);
      if (problem !== null) return refuse(sink, t, problem);
      const c = d as Obj;
      if (typeof c.guild_id === 'string') sink.channelUpsert(c.guild_id, channelFields(c));
      return TAKEN;
    }
  }
}

function reduceReady(sink: CacheSink, t: string, d: unknown): Reduced {
  if (!isObj(d) || !Array.isArray(d.guilds)) {
    return refuse(sink, t, isObj(d) ? `guilds: expected an array, got ${kindOf(d.guilds)}` : `payload: expected an object, got ${kindOf(d)}`);
  }
  // A broken `user` or `shard` is refused, the guild list still applied (its entries one by one).
  let verdict: Reduced = TAKEN;
  if (isObj(d.user) && isSnowflake(d.user.id)) sink.setSelf(d.user as unknown as APIUser);
  else verdict = refuse(sink, t, isObj(d.user) ? snowflakeProblem('user.id', d.user.id) : `user: expected a user object, got ${kindOf(d.user)}`);
  const listed: string[] = [];
  const guilds = d.guilds as unknown[];
  let complete = true;
  for (let i = 0; i < guilds.length; i++) {
    const g = guilds[i];
    if (isObj(g) && isSnowflake(g.id)) listed.push(g.id);
    else {
      // An entry without a readable id may be any cached guild: the list is not known whole.
      complete = false;
      sink.reject(t, `${isObj(g) ? snowflakeProblem(`guilds[${i}].id`, g.id) : `guilds[${i}]: expected an object, got ${kindOf(g)}`}; no guild removed`);
    }
  }
  const shard = readyShard(d.shard);
  // Without a readable shard the guilds of this session are unknown: mark, remove nothing.
  if (shard === null) verdict = refuse(sink, t, `shard: expected [shard_id, num_shards], got ${kindOf(d.shard)}; no guild removed`);
  sink.ready(listed, shard?.[0] ?? 0, complete ? (shard?.[1] ?? 0) : 0);
  return verdict;
}

function refuse(sink: CacheSink, t: string, problem: string): typeof REFUSED {
  sink.reject(t, problem);
  return REFUSED;
}
