/**
 * Gateway dispatches -> cache writes, shared by both backends. The reducer checks the shape a backend
 * relies on (ids are snowflakes, lists are lists) and calls the backend's sink with the payload's own
 * objects; the sink copies the fields it keeps and retains nothing else. Event semantics (reference §11):
 *
 * - READY: every listed guild is unavailable until its GUILD_CREATE.
 * - GUILD_CREATE: `unavailable: true` marks an outage; otherwise the guild, its roles (the list is
 *   complete: roles missing from it are dropped) and its members (possibly a partial list: members not
 *   in it are kept) are stored.
 * - GUILD_UPDATE: guild fields and the role list; member_count is not part of it and stays.
 * - GUILD_DELETE: `unavailable: true` keeps everything and marks the guild unavailable; without it the
 *   bot left, and the guild, its roles and members go.
 * - GUILD_MEMBER_ADD: member stored; member_count +1 unless the member was already cached (a repeated
 *   delivery). GUILD_MEMBER_REMOVE: member dropped; member_count -1 (never below 0).
 * - GUILD_MEMBER_UPDATE: a partial update: absent fields stay, fields present with null are cleared.
 * - GUILD_MEMBERS_CHUNK: each member stored.
 * - GUILD_ROLE_CREATE/UPDATE store the role; GUILD_ROLE_DELETE drops it and removes it from members.
 * - ENTITLEMENT_CREATE/UPDATE store the entitlement as sent (ends_at null = ongoing, set = ends then);
 *   ENTITLEMENT_DELETE drops it.
 */
import type { APIEntitlement, APIGuildMember, APIRole, APIUser } from 'discord-api-types/v10';
import { isSnowflake } from './wire.js';

/** A guild payload as the sink sees it: GUILD_CREATE / GUILD_UPDATE data (roles already checked). */
export interface GuildPayload {
  id: string;
  name?: unknown;
  owner_id?: unknown;
  member_count?: unknown;
  roles?: APIRole[];
}

/**
 * A member object whose `user.id` is a string (the sink checks it is a snowflake); other fields are
 * read defensively by the sink.
 */
export type MemberPayload = Partial<Omit<APIGuildMember, 'user' | 'roles'>> & {
  user: APIUser;
  roles?: unknown;
};

export interface CacheSink {
  /** The bot user from READY: always cached (when users are), its member exempt from the cap. */
  setSelf(user: APIUser): void;
  guildUnavailable(guildId: string): void;
  guildUpsert(guild: GuildPayload): void;
  guildRemove(guildId: string): void;
  /**
   * `partial`: fields absent from the payload stay as they are (GUILD_MEMBER_UPDATE); otherwise the
   * payload is the whole member. `join`: a GUILD_MEMBER_ADD (bumps member_count when new).
   */
  memberUpsert(guildId: string, member: MemberPayload, partial: boolean, join: boolean): void;
  memberRemove(guildId: string, user: APIUser): void;
  roleUpsert(guildId: string, role: APIRole): void;
  roleRemove(guildId: string, roleId: string): void;
  entitlementUpsert(entitlement: APIEntitlement): void;
  entitlementRemove(entitlement: APIEntitlement): void;
  /** A payload (or one record in it) without the documented shape. */
  reject(event: string, reason: string): void;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Only the type of ids is checked here: sinks parse every id they use anyway (the memory backend
 * splits it into numbers, the Redis backend pads it for its index) and reject what does not parse.
 */
function isUser(v: unknown): v is APIUser {
  return isObj(v) && typeof v.id === 'string';
}

function isMember(v: unknown): v is MemberPayload {
  return isObj(v) && isUser(v.user) && (v.roles === undefined || Array.isArray(v.roles));
}

function isRole(v: unknown): v is APIRole {
  return isObj(v) && isSnowflake(v.id) && typeof v.name === 'string';
}

function checkRoles(event: string, roles: unknown, sink: CacheSink): APIRole[] | undefined {
  if (!Array.isArray(roles)) return undefined;
  for (let i = 0; i < roles.length; i++) {
    if (!isRole(roles[i])) {
      sink.reject(event, `roles[${i}] is not a role object`);
      return roles.filter(isRole);
    }
  }
  return roles as APIRole[];
}

function guildPayload(event: string, d: Obj, sink: CacheSink): GuildPayload {
  // Copy nothing: the sink reads these fields straight from the payload. Only a broken role list is
  // replaced by its valid entries.
  const roles = checkRoles(event, d.roles, sink);
  if (roles !== d.roles) return { id: d.id as string, name: d.name, owner_id: d.owner_id, member_count: d.member_count, ...(roles ? { roles } : {}) };
  return d as unknown as GuildPayload;
}

function members(event: string, guildId: string, list: unknown, sink: CacheSink): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    sink.reject(event, 'members is not a list');
    return;
  }
  for (let i = 0; i < list.length; i++) {
    const m: unknown = list[i];
    if (isMember(m)) sink.memberUpsert(guildId, m, false, false);
    else sink.reject(event, `members[${i}] has no user with a snowflake id`);
  }
}

/** Apply one dispatch to a sink. Returns false when the event was not one the cache handles. */
export function reduce(sink: CacheSink, t: string, d: unknown): boolean {
  switch (t) {
    case 'GUILD_MEMBER_UPDATE': {
      const guildId = isObj(d) ? d.guild_id : undefined;
      if (typeof guildId === 'string' && isMember(d)) sink.memberUpsert(guildId, d, true, false);
      else sink.reject(t, 'expected guild_id and a member with user.id');
      return true;
    }
    case 'GUILD_MEMBER_ADD': {
      const guildId = isObj(d) ? d.guild_id : undefined;
      if (typeof guildId === 'string' && isMember(d) && Array.isArray(d.roles)) sink.memberUpsert(guildId, d, false, true);
      else sink.reject(t, 'expected guild_id, roles and a member with user.id');
      return true;
    }
    case 'GUILD_MEMBER_REMOVE':
      if (isObj(d) && typeof d.guild_id === 'string' && isUser(d.user)) sink.memberRemove(d.guild_id, d.user);
      else sink.reject(t, 'expected guild_id and user.id');
      return true;
    case 'GUILD_MEMBERS_CHUNK':
      if (isObj(d) && typeof d.guild_id === 'string') members(t, d.guild_id, d.members ?? [], sink);
      else sink.reject(t, 'expected guild_id');
      return true;
    case 'GUILD_CREATE':
      if (!isObj(d) || !isSnowflake(d.id)) {
        sink.reject(t, 'expected a guild with a snowflake id');
      } else if (d.unavailable === true) {
        sink.guildUnavailable(d.id);
      } else {
        sink.guildUpsert(guildPayload(t, d, sink));
        members(t, d.id, d.members, sink);
      }
      return true;
    case 'GUILD_UPDATE':
      if (isObj(d) && isSnowflake(d.id)) {
        const g = guildPayload(t, d, sink);
        // GUILD_UPDATE carries no member_count; never let a stray one through as a reset.
        sink.guildUpsert(g.member_count === undefined ? g : { ...g, member_count: undefined });
      } else {
        sink.reject(t, 'expected a guild with a snowflake id');
      }
      return true;
    case 'GUILD_DELETE':
      if (!isObj(d) || !isSnowflake(d.id)) sink.reject(t, 'expected a guild with a snowflake id');
      else if (d.unavailable === true) sink.guildUnavailable(d.id);
      else sink.guildRemove(d.id);
      return true;
    case 'GUILD_ROLE_CREATE':
    case 'GUILD_ROLE_UPDATE':
      if (isObj(d) && isSnowflake(d.guild_id) && isRole(d.role)) sink.roleUpsert(d.guild_id, d.role);
      else sink.reject(t, 'expected guild_id and a role with id and name');
      return true;
    case 'GUILD_ROLE_DELETE':
      if (isObj(d) && isSnowflake(d.guild_id) && isSnowflake(d.role_id)) sink.roleRemove(d.guild_id, d.role_id);
      else sink.reject(t, 'expected guild_id and role_id');
      return true;
    case 'ENTITLEMENT_CREATE':
    case 'ENTITLEMENT_UPDATE':
    case 'ENTITLEMENT_DELETE':
      if (!isObj(d) || !isSnowflake(d.id) || !isSnowflake(d.sku_id)) {
        sink.reject(t, 'expected an entitlement with id and sku_id');
      } else if (!isSnowflake(d.user_id) && !isSnowflake(d.guild_id)) {
        sink.reject(t, 'expected user_id or guild_id');
      } else if (t === 'ENTITLEMENT_DELETE') {
        sink.entitlementRemove(d as unknown as APIEntitlement);
      } else {
        sink.entitlementUpsert(d as unknown as APIEntitlement);
      }
      return true;
    case 'READY':
      if (!isObj(d) || !Array.isArray(d.guilds)) {
        sink.reject(t, 'expected a guilds list');
        return true;
      }
      if (isUser(d.user)) sink.setSelf(d.user);
      for (const g of d.guilds as unknown[]) {
        if (isObj(g) && isSnowflake(g.id)) sink.guildUnavailable(g.id);
        else sink.reject(t, 'a guild without a snowflake id');
      }
      return true;
    default:
      return false;
  }
}
