/**
 * What the guild-side routes (members, roles, bans, channels) share: the guild of a route, the bot's own
 * permission check, the role hierarchy, the audit-log reason and a JSON body that must be an object. Every
 * check answers as the service does: 50001 Missing Access when the bot cannot see, 50013 Missing Permissions
 * when it lacks a permission or sits too low in the hierarchy (discord-api-docs "Permissions": role hierarchy).
 */
import { addTreeError, emptyErrorTree, Errors, invalidFormBody, unmodelled } from '../../errors.js';
import type { ChannelRecord, GuildRecord, RoleRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import type { SandboxStore } from '../../state/store.js';
import { jsonValue } from '../body.js';
import { snowflakeParams } from '../params.js';
import type { RestContext } from '../types.js';
import { isObject } from '../../../util/is-object.js';

export type Json = Record<string, unknown>;

/** The guild of the route, its id checked (50035 when not a snowflake, 10004 when unknown), `extra` params too. */
export function guildOf(store: SandboxStore, ctx: RestContext, extra: Record<string, string> = {}): GuildRecord {
  snowflakeParams(ctx, { guildId: 'guild_id', ...extra });
  const guild = store.guild(ctx.params.guildId!);
  if (!guild) throw Errors.unknownGuild();
  return guild;
}

/** The bot must hold every bit of `need` in the guild (ADMINISTRATOR and ownership hold them all). */
export function requireGuildPermission(store: SandboxStore, guild: GuildRecord, need: bigint): void {
  if ((store.permissionsOf(guild, store.applicationId) & need) !== need) throw Errors.missingPermissions();
}

/**
 * The bot may act on a member (kick, ban, nick, timeout) only when it owns the guild, or the target is not the
 * owner and the bot's highest role is above the target's.
 */
export function requireAbove(store: SandboxStore, guild: GuildRecord, targetUserId: string): void {
  const bot = store.applicationId;
  if (guild.ownerId === bot) return;
  if (guild.ownerId === targetUserId) throw Errors.missingPermissions();
  if (store.highestRolePosition(guild, bot) <= store.highestRolePosition(guild, targetUserId)) throw Errors.missingPermissions();
}

/** The bot may manage a role (assign, edit, delete) when it owns the guild or the role is below its highest. */
export function requireRoleBelow(store: SandboxStore, guild: GuildRecord, role: RoleRecord): void {
  if (guild.ownerId === store.applicationId) return;
  if (role.position >= store.highestRolePosition(guild, store.applicationId)) throw Errors.missingPermissions();
}

/** A role of the guild by id (10011 when unknown). */
export function roleOf(guild: GuildRecord, roleId: string): RoleRecord {
  const role = guild.roles.find((r) => r.id === roleId);
  if (!role) throw Errors.unknownRole();
  return role;
}

/** `X-Audit-Log-Reason` (URL-encoded by clients, as the service expects); null when absent or undecodable. */
export function auditReason(ctx: RestContext): string | null {
  const raw = ctx.headers['x-audit-log-reason'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.length === 0) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The JSON body as an object ({} when there is none); anything else is 50035 at the root. */
export function objectBody(ctx: RestContext): Json {
  const body = jsonValue(ctx.body) ?? {};
  if (!isObject(body)) {
    const tree = emptyErrorTree();
    addTreeError(tree, [], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
    throw invalidFormBody(tree);
  }
  return body;
}

/** Collects 50035 problems of a body, field by field, and throws them together. */
export class FormErrors {
  readonly tree = emptyErrorTree();
  private count = 0;

  add(path: ReadonlyArray<string | number>, code: string, message: string): void {
    addTreeError(this.tree, path, { code, message });
    this.count++;
  }

  /** The value at `field` as a string of at most `max` characters (null / undefined passed through). */
  string(body: Json, field: string, min: number, max: number): string | null | undefined {
    const v = body[field];
    if (v === undefined || v === null) return v as null | undefined;
    if (typeof v !== 'string') this.add([field], 'STRING_TYPE_CONVERT', 'Could not interpret the value as string.');
    else if ([...v].length < min || [...v].length > max) this.add([field], 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
    else return v;
    return undefined;
  }

  /** A boolean field (undefined when absent or invalid). */
  bool(body: Json, field: string): boolean | undefined {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.add([field], 'BOOLEAN_TYPE_CONVERT', 'Must be either true or false.');
      return undefined;
    }
    return v;
  }

  /** An integer field within [min, max] (undefined when absent or invalid). */
  int(body: Json, field: string, min: number, max: number): number | undefined {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) this.add([field], 'NUMBER_TYPE_COERCE', `Value "${String(v)}" is not int.`);
    else if (v < min) this.add([field], 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${min}.`);
    else if (v > max) this.add([field], 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${max}.`);
    else return v;
    return undefined;
  }

  /** A permission bit set given as a string of digits (or a number), as the service takes it. */
  permissions(body: Json, field: string): bigint | undefined {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if ((typeof v === 'string' && /^\d{1,20}$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return BigInt(v);
    this.add([field], 'NUMBER_TYPE_COERCE', `Value "${String(v)}" is not int.`);
    return undefined;
  }

  throwIfAny(): void {
    if (this.count > 0) throw invalidFormBody(this.tree);
  }
}

/** Bits a bot may put on a role or overwrite: only those it holds itself (ADMINISTRATOR holds all). */
export function requireGrantable(store: SandboxStore, guild: GuildRecord, bits: bigint): void {
  const own = store.permissionsOf(guild, store.applicationId);
  if ((own & P.ADMINISTRATOR) !== 0n) return;
  if ((bits & ~own) !== 0n) throw Errors.missingPermissions();
}

/**
 * The guild channel or thread of the route (10003 when unknown). The bot's DMs are channels too, but none of the
 * guild-side writes applies to them: those answer the unmodelled marker rather than a made-up refusal.
 */
export function guildChannelOf(store: SandboxStore, ctx: RestContext, extra: Record<string, string> = {}): { guild: GuildRecord; channel: ChannelRecord } {
  snowflakeParams(ctx, { channelId: 'channel_id', ...extra });
  const found = store.guildChannel(ctx.params.channelId!);
  if (found) return found;
  if (store.messages.dm(ctx.params.channelId!)) throw unmodelled(ctx.method, ctx.path, `${ctx.method} on a DM channel`);
  throw Errors.unknownChannel();
}

/** The bot must see the channel (50001) and hold `need` there, overwrites applied (50013). */
export function requireChannelPermission(store: SandboxStore, guild: GuildRecord, channel: ChannelRecord, need: bigint): void {
  const perms = store.channelPermissionsOf(guild, channel, store.applicationId);
  if ((perms & P.VIEW_CHANNEL) === 0n) throw Errors.missingAccess();
  if ((perms & need) !== need) throw Errors.missingPermissions();
}
