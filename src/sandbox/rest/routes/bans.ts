/**
 * Bans (discord-api-docs "Guild" resource): list (`limit` 1-1000, `before` / `after`, by user id), get (10026),
 * create (the reason is the `X-Audit-Log-Reason` header; a member is removed), remove, and bulk-ban (at most 200
 * ids; needs BAN_MEMBERS and MANAGE_GUILD; 500000 when nobody could be banned). Dispatches GUILD_BAN_ADD /
 * GUILD_BAN_REMOVE (`{guild_id, user}`) and, for a member, GUILD_MEMBER_REMOVE.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import type { BanRecord, GuildRecord } from '../../state/model.js';
import { AuditAction, recordAudit } from '../../state/audit-log.js';
import { P } from '../../state/permissions.js';
import { userObject } from '../../state/serialize.js';
import type { SandboxStore } from '../../state/store.js';
import { compareSnowflakes, queryParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { auditReason, FormErrors, guildOf, objectBody, requireAbove, requireGuildPermission, type Json } from './guild-access.js';

const unknownBan = (): SandboxApiError => new SandboxApiError(404, 10026, 'Unknown Ban');
const MAX_DELETE_SECONDS = 604_800;
const MAX_BULK = 200;

function bansOf(guild: GuildRecord): Map<string, BanRecord> {
  return (guild.bans ??= new Map());
}

function banObject(store: SandboxStore, ban: BanRecord): Json {
  return { reason: ban.reason, user: userObject(store.user(ban.userId)!) };
}

/** Why the bot may not ban this user, or null when it may: nobody (10013), the owner or a member above it (50013). */
function banRefusal(store: SandboxStore, guild: GuildRecord, userId: string): SandboxApiError | null {
  if (!store.user(userId)) return Errors.unknownUser();
  if (userId === guild.ownerId || userId === store.applicationId) return Errors.missingPermissions();
  if (store.isMember(guild, userId)) {
    try {
      requireAbove(store, guild, userId);
    } catch (err) {
      return err as SandboxApiError;
    }
  }
  return null;
}

/** Ban a user: record it, GUILD_BAN_ADD, then the member leaves (GUILD_MEMBER_REMOVE). */
export function banUser(store: SandboxStore, guild: GuildRecord, userId: string, reason: string | null): void {
  bansOf(guild).set(userId, { userId, reason });
  recordAudit(store, guild.id, { action: AuditAction.MEMBER_BAN_ADD, targetId: userId, reason });
  store.emit(guild.id, 'GUILD_BAN_ADD', JSON.stringify({ guild_id: guild.id, user: userObject(store.user(userId)!) }), userId);
  if (store.isMember(guild, userId)) store.removeMember(guild.id, userId);
}

/** `delete_message_seconds` (or the deprecated `delete_message_days`) within the service's range. */
function checkDeleteWindow(form: FormErrors, body: Json): void {
  form.int(body, 'delete_message_seconds', 0, MAX_DELETE_SECONDS);
  form.int(body, 'delete_message_days', 0, 7);
}

export function banRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const list = (ctx: RestContext): Json[] => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.BAN_MEMBERS);
    const q = queryParams(ctx, { limit: { min: 1, max: 1000, fallback: 1000 } }, ['before', 'after']);
    const before = q.snowflakes.get('before');
    const after = q.snowflakes.get('after');
    let ids = [...bansOf(guild).keys()].sort(compareSnowflakes);
    if (before !== undefined && after === undefined) ids = ids.filter((id) => compareSnowflakes(id, before) < 0).slice(-q.ints.get('limit')!);
    else ids = ids.filter((id) => after === undefined || compareSnowflakes(id, after) > 0).slice(0, q.ints.get('limit')!);
    return ids.map((id) => banObject(store, bansOf(guild).get(id)!));
  };

  const get = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx, { userId: 'user_id' });
    requireGuildPermission(store, guild, P.BAN_MEMBERS);
    const ban = bansOf(guild).get(ctx.params.userId!);
    if (!ban) throw unknownBan();
    return banObject(store, ban);
  };

  const create = (ctx: RestContext): void => {
    const guild = guildOf(store, ctx, { userId: 'user_id' });
    requireGuildPermission(store, guild, P.BAN_MEMBERS);
    const form = new FormErrors();
    checkDeleteWindow(form, objectBody(ctx));
    form.throwIfAny();
    const refusal = banRefusal(store, guild, ctx.params.userId!);
    if (refusal) throw refusal;
    banUser(store, guild, ctx.params.userId!, auditReason(ctx));
  };

  const remove = (ctx: RestContext): void => {
    const guild = guildOf(store, ctx, { userId: 'user_id' });
    requireGuildPermission(store, guild, P.BAN_MEMBERS);
    const ban = bansOf(guild).get(ctx.params.userId!);
    if (!ban) throw unknownBan();
    bansOf(guild).delete(ban.userId);
    recordAudit(store, guild.id, { action: AuditAction.MEMBER_BAN_REMOVE, targetId: ban.userId, reason: auditReason(ctx) });
    store.emit(guild.id, 'GUILD_BAN_REMOVE', JSON.stringify({ guild_id: guild.id, user: userObject(store.user(ban.userId)!) }), ban.userId);
  };

  const bulk = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.BAN_MEMBERS | P.MANAGE_GUILD);
    const body = objectBody(ctx);
    const form = new FormErrors();
    checkDeleteWindow(form, body);
    const ids = body.user_ids;
    if (!Array.isArray(ids)) form.add(['user_ids'], 'BASE_TYPE_REQUIRED', 'This field is required');
    else if (ids.length < 1 || ids.length > MAX_BULK) form.add(['user_ids'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${MAX_BULK} in length.`);
    else ids.forEach((id: unknown, i) => typeof id !== 'string' || !/^\d{1,20}$/.test(id) ? form.add(['user_ids', i], 'NUMBER_TYPE_COERCE', `Value "${String(id)}" is not snowflake.`) : undefined);
    form.throwIfAny();
    const banned: string[] = [];
    const failed: string[] = [];
    const reason = auditReason(ctx);
    for (const id of new Set(ids as string[])) {
      if (bansOf(guild).has(id) || banRefusal(store, guild, id) !== null) failed.push(id);
      else {
        banUser(store, guild, id, reason);
        banned.push(id);
      }
    }
    if (banned.length === 0) throw new SandboxApiError(400, 500000, 'Failed to ban users');
    return { banned_users: banned, failed_users: failed };
  };

  const base = { major: 'guildId', auth: 'bot' } as const;
  return [
    { ...base, method: 'GET', path: '/guilds/:guildId/bans', bucket: 'guilds.bans', handler: (ctx) => ({ status: 200, body: list(ctx) }) },
    { ...base, method: 'GET', path: '/guilds/:guildId/bans/:userId', bucket: 'guilds.bans', handler: (ctx) => ({ status: 200, body: get(ctx) }) },
    { ...base, method: 'PUT', path: '/guilds/:guildId/bans/:userId', bucket: 'guilds.bans.edit', handler: (ctx) => (create(ctx), { status: 204 }) },
    { ...base, method: 'DELETE', path: '/guilds/:guildId/bans/:userId', bucket: 'guilds.bans.edit', handler: (ctx) => (remove(ctx), { status: 204 }) },
    { ...base, method: 'POST', path: '/guilds/:guildId/bulk-ban', bucket: 'guilds.bans.bulk', handler: (ctx) => ({ status: 200, body: bulk(ctx) }) },
  ];
}
