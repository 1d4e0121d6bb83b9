/**
 * Record encodings of the Redis backend (layout in keys.ts). Users, roles and entitlements are JSON
 * arrays (positional, so no field names are stored); members are hash fields, so that a partial update
 * touches only the fields it carries.
 */
import type { APIEntitlement, APIRole, APIUser } from 'discord-api-types/v10';
import type { MemberPayload } from '../reducer.js';
import type { CommandPermissionEntry } from '../../api/command-access.js';
import type { ChannelFields, VoiceStateFields } from '../channel-payloads.js';
import type { ChannelView, EntitlementView, MemberView, PermissionOverwriteView, RoleView, UserView, VoiceStateView } from '../types.js';
import { entitlementView } from '../entitlement-view.js';
import { isSnowflake, parseTimestamp } from '../wire.js';

type Json = unknown[];

function parseArray(raw: string | null | undefined): Json | null {
  if (raw === null || raw === undefined) return null;
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

export function encodeUser(user: APIUser): string {
  const primary = user.primary_guild;
  const tag = typeof primary === 'object' && primary !== null && typeof primary.tag === 'string' ? primary.tag : null;
  return JSON.stringify([
    user.username,
    str(user.global_name),
    str(user.avatar),
    typeof user.discriminator === 'string' ? user.discriminator : '0',
    user.bot === true ? 1 : 0,
    user.system === true ? 1 : 0,
    tag,
  ]);
}

export function decodeUser(id: string, raw: string | null | undefined): UserView | null {
  const a = parseArray(raw);
  if (!a || typeof a[0] !== 'string') return null;
  return {
    id,
    username: a[0],
    globalName: str(a[1]),
    avatar: str(a[2]),
    discriminator: typeof a[3] === 'string' ? a[3] : '0',
    bot: a[4] === 1,
    system: a[5] === 1,
    primaryGuildTag: str(a[6]),
  };
}

export function encodeRole(role: APIRole): string {
  const colors = typeof role.colors === 'object' && role.colors !== null ? role.colors : undefined;
  let permissions = '0';
  try {
    if (typeof role.permissions === 'string') permissions = BigInt(role.permissions).toString();
  } catch {
    permissions = '0';
  }
  return JSON.stringify([
    role.name,
    permissions,
    typeof role.position === 'number' ? role.position : 0,
    typeof colors?.primary_color === 'number' ? colors.primary_color : typeof role.color === 'number' ? role.color : 0,
    num(colors?.secondary_color),
    num(colors?.tertiary_color),
  ]);
}

export function decodeRole(guildId: string, id: string, raw: string | null | undefined): RoleView | null {
  const a = parseArray(raw);
  if (!a || typeof a[0] !== 'string') return null;
  let permissions = 0n;
  try {
    permissions = BigInt(typeof a[1] === 'string' ? a[1] : '0');
  } catch {
    permissions = 0n;
  }
  return {
    id,
    guildId,
    name: a[0],
    permissions,
    position: num(a[2]) ?? 0,
    colors: { primary: num(a[3]) ?? 0, secondary: num(a[4]), tertiary: num(a[5]) },
  };
}

export function encodeEntitlement(e: APIEntitlement): string {
  const v = entitlementView(e);
  return JSON.stringify([v.skuId, v.applicationId, v.userId, v.guildId, v.type, v.startsAt, v.endsAt, v.deleted ? 1 : 0, v.consumed ? 1 : 0]);
}

export function decodeEntitlement(id: string, raw: string | null | undefined): EntitlementView | null {
  const a = parseArray(raw);
  if (!a || typeof a[0] !== 'string') return null;
  return {
    id,
    skuId: a[0],
    applicationId: str(a[1]),
    userId: str(a[2]),
    guildId: str(a[3]),
    type: num(a[4]) ?? 0,
    startsAt: num(a[5]),
    endsAt: num(a[6]),
    deleted: a[7] === 1,
    consumed: a[8] === 1,
  };
}

/**
 * Member records for the MEMBERS script: one JSON array of strings and numbers, one argument in all. Redis's
 * cjson refuses a lone surrogate (JSON.stringify writes one as an escape); the strings then go in well-formed,
 * with U+FFFD in its place, which is what the bytes of a separate argument would have held.
 */
export function encodeMemberRecords(records: readonly (string | number)[]): string {
  const json = JSON.stringify(records);
  // JSON.stringify writes \u escapes only for control characters and lone surrogates ("\\ud8" is a backslash
  // in the text, which only costs the slow path).
  if (!json.includes('\\ud')) return json;
  return JSON.stringify(records, (_key, value: unknown) => (typeof value === 'string' ? wellFormed(value) : value));
}

function wellFormed(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * Every field of a member hash that a member payload sets, besides the script's own 'k' and 'e'. The MEMBERS
 * script deletes those a whole member leaves out, so a field added to pushMemberFields belongs here too
 * (test/cache/redis-codec.test.ts checks).
 */
export const MEMBER_FIELDS: readonly string[] = ['n', 'r', 'j', 'c', 'f', 'p', 'a', 'b'];

/**
 * The hash fields a member payload sets and deletes, appended to `out` as the MEMBERS script reads them:
 * the number of fields set, field and value for each, the number deleted, then each deleted field. With
 * `partial`, fields absent from the payload are in neither list; a field present with null is deleted.
 * Otherwise every field is written or deleted. Appends in place, so that a tick's records build one array.
 */
export function pushMemberFields(out: (string | number)[], m: MemberPayload, guildId: string, partial: boolean): void {
  const countAt = out.length;
  out.push(0);
  const deleted = DELETED;
  deleted.length = 0;
  let set = 0;
  if (!partial || m.nick !== undefined) set += putField(out, partial, 'n', str(m.nick));
  if (!partial || m.roles !== undefined) set += putField(out, partial, 'r', encodeRoles(m.roles, guildId));
  if (!partial || m.joined_at !== undefined) set += putField(out, partial, 'j', timestampField(m.joined_at));
  if (!partial || m.communication_disabled_until !== undefined) set += putField(out, partial, 'c', timestampField(m.communication_disabled_until));
  if (!partial || m.flags !== undefined) set += putField(out, partial, 'f', typeof m.flags === 'number' && (m.flags | 0) !== 0 ? String(m.flags | 0) : null);
  if (!partial || m.pending !== undefined) set += putField(out, partial, 'p', m.pending === true ? '1' : null);
  if (!partial || m.avatar !== undefined) set += putField(out, partial, 'a', str(m.avatar));
  if (!partial || m.banner !== undefined) set += putField(out, partial, 'b', str(m.banner));
  out[countAt] = set;
  out.push(deleted.length);
  for (let i = 0; i < deleted.length; i++) out.push(deleted[i]!);
}

/** Fields a partial member payload deletes, gathered while its set fields are appended (reused: no allocation). */
const DELETED: string[] = [];

/** Append a set field (returns 1), or note a deleted one. */
function putField(out: (string | number)[], partial: boolean, field: string, value: string | null): number {
  if (value !== null) {
    out.push(field, value);
    return 1;
  }
  if (partial) DELETED.push(field);
  return 0;
}

function timestampField(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const ms = parseTimestamp(v);
  return ms === ms ? String(ms) : null;
}

/** ",id,id," (leading and trailing commas let a script find ",id," without parsing); duplicates dropped. */
export function encodeRoles(roles: unknown, guildId: string): string {
  if (!Array.isArray(roles)) return ',';
  const list = roles as unknown[];
  // The common case, every id a snowflake other than @everyone and none twice, is one join.
  let plain = list.length <= 64;
  for (let i = 0; plain && i < list.length; i++) {
    const id = list[i];
    if (!isSnowflake(id) || id === guildId) plain = false;
    else for (let j = 0; j < i; j++) if (list[j] === id) plain = false;
  }
  if (plain) return list.length === 0 ? ',' : `,${list.join(',')},`;
  // Otherwise a Set: a hostile list of 100,000 ids stays linear (searching the growing string was quadratic).
  const kept = new Set<string>();
  for (const id of list) if (isSnowflake(id) && id !== guildId) kept.add(id);
  return kept.size === 0 ? ',' : `,${[...kept].join(',')},`;
}

export function decodeMember(
  guildId: string,
  userId: string,
  h: Record<string, string>,
  user: UserView | null,
): MemberView | null {
  if (h.k === undefined) return null;
  const roles = h.r === undefined || h.r.length <= 1 ? [] : h.r.slice(1, -1).split(',');
  return {
    guildId,
    userId,
    nick: h.n ?? null,
    roles,
    joinedAt: h.j === undefined ? null : Number(h.j),
    avatar: h.a ?? null,
    banner: h.b ?? null,
    communicationDisabledUntil: h.c === undefined ? null : Number(h.c),
    flags: h.f === undefined ? 0 : Number(h.f),
    pending: h.p === '1',
    user,
  };
}

/**
 * A channel as JSON: [type, name, parent id, position, nsfw 1/0, slowmode, overwrites [[id, type, allow, deny]],
 * thread metadata [archived 1/0, locked 1/0, owner id, archive ms, auto-archive minutes] or 0]. Scripts read the
 * parent (3rd) and the thread's archived flag (8th, 1st).
 */
export function encodeChannel(c: ChannelFields): string {
  const t = c.thread;
  return JSON.stringify([
    c.type,
    c.name,
    c.parentId,
    c.position,
    c.nsfw ? 1 : 0,
    c.rateLimitPerUser,
    c.overwrites.map((o) => [o.id, o.type, o.allow.toString(), o.deny.toString()]),
    t === null ? 0 : [t.archived ? 1 : 0, t.locked ? 1 : 0, t.ownerId, t.archiveTimestamp, t.autoArchiveDuration],
  ]);
}

function bits(v: unknown): bigint {
  return typeof v === 'string' && /^\d{1,20}$/.test(v) ? BigInt(v) : 0n;
}

export function decodeChannel(guildId: string, id: string, raw: string | null | undefined): ChannelView | null {
  const a = parseArray(raw);
  if (!a || typeof a[0] !== 'number') return null;
  const overwrites: PermissionOverwriteView[] = [];
  if (Array.isArray(a[6])) {
    for (const o of a[6] as unknown[]) {
      if (!Array.isArray(o) || typeof o[0] !== 'string' || typeof o[1] !== 'number') continue;
      overwrites.push({ id: o[0], type: o[1], allow: bits(o[2]), deny: bits(o[3]) });
    }
  }
  const t = a[7];
  return {
    id,
    guildId,
    type: a[0],
    name: str(a[1]),
    parentId: str(a[2]),
    position: num(a[3]) ?? 0,
    permissionOverwrites: overwrites,
    nsfw: a[4] === 1,
    rateLimitPerUser: num(a[5]) ?? 0,
    thread: Array.isArray(t)
      ? { archived: t[0] === 1, locked: t[1] === 1, ownerId: str(t[2]), archiveTimestamp: num(t[3]), autoArchiveDuration: num(t[4]) }
      : null,
  };
}

/** A voice state as JSON: [channel, session, deaf, mute, self deaf, self mute, self stream, self video, suppress, request-to-speak ms]. */
export function encodeVoiceState(v: VoiceStateFields): string {
  return JSON.stringify([
    v.channelId,
    v.sessionId,
    v.deaf ? 1 : 0,
    v.mute ? 1 : 0,
    v.selfDeaf ? 1 : 0,
    v.selfMute ? 1 : 0,
    v.selfStream ? 1 : 0,
    v.selfVideo ? 1 : 0,
    v.suppress ? 1 : 0,
    v.requestToSpeakTimestamp,
  ]);
}

export function decodeVoiceState(guildId: string, userId: string, raw: string | null | undefined): VoiceStateView | null {
  const a = parseArray(raw);
  if (!a || typeof a[1] !== 'string') return null;
  return {
    guildId,
    userId,
    channelId: str(a[0]),
    sessionId: a[1],
    deaf: a[2] === 1,
    mute: a[3] === 1,
    selfDeaf: a[4] === 1,
    selfMute: a[5] === 1,
    selfStream: a[6] === 1,
    selfVideo: a[7] === 1,
    suppress: a[8] === 1,
    requestToSpeakTimestamp: num(a[9]),
  };
}

/** Command permission settings as JSON: [[id, type, 1/0], ...]. */
export function encodeCommandPermissions(entries: readonly CommandPermissionEntry[]): string {
  return JSON.stringify(entries.map((e) => [e.id, e.type, e.permission ? 1 : 0]));
}

export function decodeCommandPermissions(raw: string | null | undefined): CommandPermissionEntry[] {
  const a = parseArray(raw);
  const out: CommandPermissionEntry[] = [];
  if (!a) return out;
  for (const e of a) {
    if (Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number') out.push({ id: e[0], type: e[1], permission: e[2] === 1 });
  }
  return out;
}
