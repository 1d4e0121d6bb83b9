/**
 * Guild members beyond the reads of guilds.ts (discord-api-docs "Guild" resource): search by prefix, modify a
 * member (nick, roles, timeout, voice mute/deafen, flags), kick, and add / remove one role. Each checks the bot's
 * own permission and the role hierarchy (guild-access.ts) and dispatches what the service does:
 * GUILD_MEMBER_UPDATE for a change, GUILD_MEMBER_REMOVE for a kick.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import type { GuildRecord, MemberRecord } from '../../state/model.js';
import { AuditAction, changesOf, recordAudit, roleChanges } from '../../state/audit-log.js';
import { P } from '../../state/permissions.js';
import { memberObject } from '../../state/serialize.js';
import type { MemberPatch, SandboxStore } from '../../state/store.js';
import { compareSnowflakes, queryParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { auditReason, FormErrors, guildOf, objectBody, requireAbove, requireGuildPermission, requireRoleBelow, roleOf, type Json } from './guild-access.js';

/** A timeout may end at most 28 days ahead (discord-api-docs "Modify Guild Member"). */
const MAX_TIMEOUT_MS = 28 * 86_400_000;
/** Member flags a bot may set: BYPASSES_VERIFICATION (discord-api-docs "Guild Member Flags"). */
const EDITABLE_MEMBER_FLAGS = 1 << 2;

const notInVoice = (): SandboxApiError => new SandboxApiError(400, 40032, 'Target user is not connected to voice');

/** A member of the guild (10013 for an id that is nobody's, 10007 for a user not in the guild). */
export function memberOf(store: SandboxStore, guild: GuildRecord, userId: string): MemberRecord {
  const m = store.members(guild).get(userId);
  if (m) return m;
  if (!store.user(userId)) throw Errors.unknownUser();
  throw Errors.unknownMember();
}

export function memberBody(store: SandboxStore, guild: GuildRecord, userId: string): Json {
  const m = memberOf(store, guild, userId);
  return memberObject(m, store.userOf(m));
}

/** `communication_disabled_until`: an ISO timestamp at most 28 days ahead, or null to lift the timeout. */
function timeoutField(form: FormErrors, value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) form.add(['communication_disabled_until'], 'DATE_TYPE_CONVERT', 'Could not parse the value as a date.');
  // The service's wording for a timeout too far ahead is not known; the code says what is wrong.
  else if (at > Date.now() + MAX_TIMEOUT_MS) form.add(['communication_disabled_until'], 'BASE_TYPE_BAD_TIMESTAMP', 'Must be at most 28 days in the future.');
  else return at;
  return undefined;
}

/** The body of PATCH /guilds/{id}/members/{user}, checked field by field into a patch. */
function memberPatchOf(body: Json): { patch: MemberPatch; flags?: number; voice: boolean } {
  const form = new FormErrors();
  const patch: MemberPatch = {};
  if (body.nick !== undefined) {
    const nick = body.nick === '' ? null : form.string(body, 'nick', 1, 32);
    if (nick !== undefined) patch.nick = nick;
  }
  if (body.roles !== undefined && body.roles !== null) {
    if (!Array.isArray(body.roles)) form.add(['roles'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else {
      body.roles.forEach((r: unknown, i) => {
        if (typeof r !== 'string' || !/^\d{1,20}$/.test(r)) form.add(['roles', i], 'NUMBER_TYPE_COERCE', `Value "${String(r)}" is not snowflake.`);
      });
      patch.roles = [...new Set(body.roles as string[])];
    }
  }
  const until = timeoutField(form, body.communication_disabled_until);
  if (until !== undefined) patch.communicationDisabledUntil = until;
  const mute = form.bool(body, 'mute');
  const deaf = form.bool(body, 'deaf');
  if (mute !== undefined) patch.mute = mute;
  if (deaf !== undefined) patch.deaf = deaf;
  const flags = form.int(body, 'flags', 0, 2 ** 31 - 1);
  form.throwIfAny();
  const voice = mute !== undefined || deaf !== undefined || (body.channel_id !== undefined && body.channel_id !== null);
  return { patch, ...(flags !== undefined ? { flags } : {}), voice };
}

/** The bot's permission and hierarchy checks for a member patch, in the order the service applies them. */
function checkMemberPatch(store: SandboxStore, guild: GuildRecord, target: MemberRecord, patch: MemberPatch): void {
  const self = target.userId === store.applicationId;
  if (patch.nick !== undefined) {
    requireGuildPermission(store, guild, self ? P.CHANGE_NICKNAME : P.MANAGE_NICKNAMES);
    if (!self) requireAbove(store, guild, target.userId);
  }
  if (patch.roles !== undefined) {
    requireGuildPermission(store, guild, P.MANAGE_ROLES);
    const before = new Set(target.roles);
    const after = new Set(patch.roles);
    for (const id of patch.roles) if (id === guild.id) throw Errors.unknownRole();
    const changed = [...patch.roles.filter((id) => !before.has(id)), ...target.roles.filter((id) => !after.has(id))];
    for (const id of changed) {
      const role = roleOf(guild, id);
      // Managed roles (bots', boosters') belong to their integration: nobody assigns or removes them.
      if (role.managed) throw Errors.missingPermissions();
      requireRoleBelow(store, guild, role);
    }
  }
  if (patch.communicationDisabledUntil !== undefined) {
    requireGuildPermission(store, guild, P.MODERATE_MEMBERS);
    if (self) throw Errors.missingPermissions();
    requireAbove(store, guild, target.userId);
    // Administrators cannot be timed out (discord-api-docs "Modify Guild Member").
    if ((store.permissionsOf(guild, target.userId) & P.ADMINISTRATOR) !== 0n) throw Errors.missingPermissions();
  }
}

export function memberRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const search = (ctx: RestContext): Json[] => {
    const guild = guildOf(store, ctx);
    const q = queryParams(ctx, { limit: { min: 1, max: 1000, fallback: 1 } }, []);
    const query = ctx.query.get('query');
    if (query === null) {
      const form = new FormErrors();
      form.add(['query'], 'BASE_TYPE_REQUIRED', 'This field is required');
      form.throwIfAny();
    }
    const prefix = query!.toLowerCase();
    const out: Json[] = [];
    const ids = [...store.members(guild).keys()].sort(compareSnowflakes);
    for (const id of ids) {
      const m = store.members(guild).get(id)!;
      const user = store.userOf(m);
      if (user.username.toLowerCase().startsWith(prefix) || (m.nick ?? '').toLowerCase().startsWith(prefix) || (user.globalName ?? '').toLowerCase().startsWith(prefix)) {
        out.push(memberObject(m, user));
        if (out.length >= q.ints.get('limit')!) break;
      }
    }
    return out;
  };

  const modify = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx, { userId: 'user_id' });
    const target = memberOf(store, guild, ctx.params.userId!);
    const { patch, flags, voice } = memberPatchOf(objectBody(ctx));
    checkMemberPatch(store, guild, target, patch);
    if (flags !== undefined) requireGuildPermission(store, guild, P.MANAGE_GUILD);
    // Nobody is in a voice channel in the sandbox: the service refuses voice changes for such members.
    if (voice) throw notInVoice();
    if (flags !== undefined) target.flags = (target.flags & ~EDITABLE_MEMBER_FLAGS) | (flags & EDITABLE_MEMBER_FLAGS);
    const rolesBefore = [...target.roles];
    const was = { nick: target.nick, communication_disabled_until: target.communicationDisabledUntil ?? null };
    store.updateMember(guild.id, target.userId, patch);
    if (patch.roles !== undefined) recordAudit(store, guild.id, { action: AuditAction.MEMBER_ROLE_UPDATE, targetId: target.userId, reason: auditReason(ctx), changes: roleChanges(guild, rolesBefore, patch.roles) });
    if (patch.nick !== undefined || patch.communicationDisabledUntil !== undefined) recordAudit(store, guild.id, { action: AuditAction.MEMBER_UPDATE, targetId: target.userId, reason: auditReason(ctx), changes: changesOf(was, { nick: target.nick, communication_disabled_until: target.communicationDisabledUntil ?? null }, ['nick', 'communication_disabled_until']) });
    return memberBody(store, guild, target.userId);
  };

  const kick = (ctx: RestContext): void => {
    const guild = guildOf(store, ctx, { userId: 'user_id' });
    const target = memberOf(store, guild, ctx.params.userId!);
    requireGuildPermission(store, guild, P.KICK_MEMBERS);
    requireAbove(store, guild, target.userId);
    store.removeMember(guild.id, target.userId);
    recordAudit(store, guild.id, { action: AuditAction.MEMBER_KICK, targetId: target.userId, reason: auditReason(ctx) });
  };

  const setRole = (ctx: RestContext, add: boolean): void => {
    const guild = guildOf(store, ctx, { userId: 'user_id', roleId: 'role_id' });
    const target = memberOf(store, guild, ctx.params.userId!);
    requireGuildPermission(store, guild, P.MANAGE_ROLES);
    const role = roleOf(guild, ctx.params.roleId!);
    if (role.id === guild.id || role.managed) throw Errors.missingPermissions();
    requireRoleBelow(store, guild, role);
    const has = target.roles.includes(role.id);
    // Adding a role the member has, or removing one it lacks, changes nothing and dispatches nothing.
    if (has === add) return;
    store.updateMember(guild.id, target.userId, { roles: add ? [...target.roles, role.id] : target.roles.filter((id) => id !== role.id) });
    recordAudit(store, guild.id, { action: AuditAction.MEMBER_ROLE_UPDATE, targetId: target.userId, reason: auditReason(ctx), changes: roleChanges(guild, add ? [] : [role.id], add ? [role.id] : []) });
  };

  const base = { major: 'guildId', auth: 'bot' } as const;
  return [
    { ...base, method: 'GET', path: '/guilds/:guildId/members/search', bucket: 'guilds.members', handler: (ctx) => ({ status: 200, body: search(ctx) }) },
    { ...base, method: 'PATCH', path: '/guilds/:guildId/members/:userId', bucket: 'guilds.member.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...base, method: 'DELETE', path: '/guilds/:guildId/members/:userId', bucket: 'guilds.member.kick', handler: (ctx) => (kick(ctx), { status: 204 }) },
    { ...base, method: 'PUT', path: '/guilds/:guildId/members/:userId/roles/:roleId', bucket: 'guilds.member.roles', handler: (ctx) => (setRole(ctx, true), { status: 204 }) },
    { ...base, method: 'DELETE', path: '/guilds/:guildId/members/:userId/roles/:roleId', bucket: 'guilds.member.roles', handler: (ctx) => (setRole(ctx, false), { status: 204 }) },
  ];
}
