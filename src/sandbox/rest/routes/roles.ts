/**
 * Role writes (discord-api-docs "Guild" resource): create, modify, reorder, delete. The bot needs MANAGE_ROLES,
 * may only touch roles below its highest one and may only grant bits it holds itself (50013 otherwise).
 * Dispatches GUILD_ROLE_CREATE / GUILD_ROLE_UPDATE (`{guild_id, role}`) and GUILD_ROLE_DELETE (`{guild_id,
 * role_id}`); a deleted role leaves every member that had it, as on the service (no member event is sent).
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import type { GuildRecord, RoleRecord } from '../../state/model.js';
import { AuditAction, changesOf, recordAudit } from '../../state/audit-log.js';
import { P } from '../../state/permissions.js';
import { roleObject } from '../../state/serialize.js';
import type { SandboxStore } from '../../state/store.js';
import { jsonValue } from '../body.js';
import type { RestContext, RouteDef } from '../types.js';
import { auditReason, FormErrors, guildOf, objectBody, requireGrantable, requireGuildPermission, requireRoleBelow, roleOf, type Json } from './guild-access.js';

const MAX_ROLES = 250;
/** Role fields an audit entry shows the change of. */
const AUDITED_ROLE_KEYS = ['name', 'permissions', 'color', 'hoist', 'mentionable'] as const;
const invalidRole = (): SandboxApiError => new SandboxApiError(400, 50028, 'Invalid Role');
const maxRoles = (): SandboxApiError => new SandboxApiError(400, 30005, `Maximum number of guild roles reached (${MAX_ROLES})`);

/** Fields of a role body (create and modify take the same ones). */
function roleFields(body: Json): Partial<Pick<RoleRecord, 'name' | 'permissions' | 'color' | 'hoist' | 'mentionable'>> {
  const form = new FormErrors();
  const out: ReturnType<typeof roleFields> = {};
  const name = form.string(body, 'name', 1, 100);
  if (typeof name === 'string') out.name = name;
  const permissions = form.permissions(body, 'permissions');
  if (permissions !== undefined) out.permissions = permissions;
  const color = form.int(body, 'color', 0, 0xffffff);
  if (color !== undefined) out.color = color;
  const hoist = form.bool(body, 'hoist');
  if (hoist !== undefined) out.hoist = hoist;
  const mentionable = form.bool(body, 'mentionable');
  if (mentionable !== undefined) out.mentionable = mentionable;
  form.throwIfAny();
  return out;
}

function emitRole(store: SandboxStore, guild: GuildRecord, t: 'GUILD_ROLE_CREATE' | 'GUILD_ROLE_UPDATE', role: RoleRecord): void {
  guild.payloadCache.clear();
  store.emit(guild.id, t, JSON.stringify({ guild_id: guild.id, role: roleObject(role) }));
}

export function roleRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const create = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.MANAGE_ROLES);
    const fields = roleFields(objectBody(ctx));
    if (fields.permissions !== undefined) requireGrantable(store, guild, fields.permissions);
    if (guild.roles.length >= MAX_ROLES) throw maxRoles();
    // A new role sits at position 1, just above @everyone, and the others move up one (positions stay distinct,
    // so a client's reordering does not move roles it did not mean to); its permissions default to @everyone's.
    const role: RoleRecord = { id: store.ids.next(), name: 'new role', color: 0, hoist: false, position: 1, permissions: guild.roles[0]!.permissions, managed: false, mentionable: false, ...fields };
    const shifted = guild.roles.filter((r) => r.id !== guild.id && r.position >= 1);
    for (const r of shifted) r.position++;
    guild.roles.push(role);
    emitRole(store, guild, 'GUILD_ROLE_CREATE', role);
    recordAudit(store, guild.id, { action: AuditAction.ROLE_CREATE, targetId: role.id, reason: auditReason(ctx), changes: changesOf(null, roleObject(role), AUDITED_ROLE_KEYS) });
    for (const r of shifted) emitRole(store, guild, 'GUILD_ROLE_UPDATE', r);
    return roleObject(role);
  };

  const modify = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx, { roleId: 'role_id' });
    requireGuildPermission(store, guild, P.MANAGE_ROLES);
    const role = roleOf(guild, ctx.params.roleId!);
    requireRoleBelow(store, guild, role);
    const fields = roleFields(objectBody(ctx));
    if (fields.permissions !== undefined) requireGrantable(store, guild, fields.permissions);
    if (role.id === guild.id) delete fields.name;
    const was = roleObject(role);
    Object.assign(role, fields);
    emitRole(store, guild, 'GUILD_ROLE_UPDATE', role);
    recordAudit(store, guild.id, { action: AuditAction.ROLE_UPDATE, targetId: role.id, reason: auditReason(ctx), changes: changesOf(was, roleObject(role), AUDITED_ROLE_KEYS) });
    return roleObject(role);
  };

  const positions = (ctx: RestContext): Json[] => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.MANAGE_ROLES);
    const body = jsonValue(ctx.body);
    const form = new FormErrors();
    const moves: Array<{ role: RoleRecord; position: number }> = [];
    if (!Array.isArray(body)) form.add([], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else {
      body.forEach((entry: unknown, i) => {
        const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Json;
        if (typeof e.id !== 'string') return form.add([i, 'id'], 'BASE_TYPE_REQUIRED', 'This field is required');
        const p = e.position;
        if (p !== undefined && p !== null && (typeof p !== 'number' || !Number.isInteger(p) || p < 0)) return form.add([i, 'position'], 'NUMBER_TYPE_COERCE', `Value "${String(p)}" is not int.`);
        if (typeof p === 'number') moves.push({ role: roleOf(guild, e.id), position: p });
      });
    }
    form.throwIfAny();
    const top = store.highestRolePosition(guild, store.applicationId);
    // Clients send the whole ordering (discord.js does); only the roles that really move are checked.
    for (const m of moves.filter((x) => x.role.position !== x.position)) {
      if (m.role.id === guild.id) throw invalidRole();
      requireRoleBelow(store, guild, m.role);
      if (guild.ownerId !== store.applicationId && m.position >= top) throw Errors.missingPermissions();
    }
    for (const m of moves) {
      if (m.role.position === m.position) continue;
      m.role.position = m.position;
      emitRole(store, guild, 'GUILD_ROLE_UPDATE', m.role);
    }
    return guild.roles.map(roleObject);
  };

  const remove = (ctx: RestContext): void => {
    const guild = guildOf(store, ctx, { roleId: 'role_id' });
    requireGuildPermission(store, guild, P.MANAGE_ROLES);
    const role = roleOf(guild, ctx.params.roleId!);
    if (role.id === guild.id || role.managed) throw invalidRole();
    requireRoleBelow(store, guild, role);
    guild.roles.splice(guild.roles.indexOf(role), 1);
    for (const m of store.members(guild).values()) if (m.roles.includes(role.id)) m.roles = m.roles.filter((id) => id !== role.id);
    guild.payloadCache.clear();
    store.emit(guild.id, 'GUILD_ROLE_DELETE', JSON.stringify({ guild_id: guild.id, role_id: role.id }));
    recordAudit(store, guild.id, { action: AuditAction.ROLE_DELETE, targetId: role.id, reason: auditReason(ctx), changes: changesOf(roleObject(role), null, AUDITED_ROLE_KEYS) });
  };

  const base = { major: 'guildId', auth: 'bot' } as const;
  return [
    { ...base, method: 'POST', path: '/guilds/:guildId/roles', bucket: 'guilds.roles.edit', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    { ...base, method: 'PATCH', path: '/guilds/:guildId/roles', bucket: 'guilds.roles.edit', handler: (ctx) => ({ status: 200, body: positions(ctx) }) },
    { ...base, method: 'PATCH', path: '/guilds/:guildId/roles/:roleId', bucket: 'guilds.roles.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...base, method: 'DELETE', path: '/guilds/:guildId/roles/:roleId', bucket: 'guilds.roles.edit', handler: (ctx) => (remove(ctx), { status: 204 }) },
  ];
}
