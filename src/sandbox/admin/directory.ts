/**
 * Admin API entries for what the sandbox serves and who is in its guilds (a route table for ./api.ts):
 *
 *   GET    /_sandbox                                   info (URLs, application id, bot token)
 *   GET    /_sandbox/counters                          counters
 *   GET    /_sandbox/guilds                            [{ id, name, member_count }]
 *   GET    /_sandbox/guilds/:guild/members             user ids
 *   POST   /_sandbox/guilds/:guild/members             { id?, username?, roles?, nick? } -> { id }   (GUILD_MEMBER_ADD)
 *   PATCH  /_sandbox/guilds/:guild/members/:user       { nick?, roles? }                             (GUILD_MEMBER_UPDATE)
 *   DELETE /_sandbox/guilds/:guild/members/:user                                                     (GUILD_MEMBER_REMOVE)
 */
import type { SandboxCore } from '../core.js';
import { SandboxError } from '../errors.js';
import type { GuildRecord } from '../state/model.js';
import type { SandboxStore } from '../state/store.js';
import { obj, optString, optStrings } from './fields.js';
import { param, type AdminContext, type AdminReply, type AdminRoute } from './types.js';

/** The guild a path names; UNKNOWN_GUILD when there is none (also what api.ts answers for other guild paths). */
export function guildOf(store: SandboxStore, id: string): GuildRecord {
  const guild = store.guild(id);
  if (!guild) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${id}`);
  return guild;
}

function info(core: SandboxCore): AdminReply {
  return {
    status: 200,
    body: {
      restUrl: core.urls.rest,
      gatewayUrl: core.urls.gateway,
      adminUrl: core.urls.admin,
      applicationId: core.store.applicationId,
      clientId: core.store.applicationId,
      botToken: core.botToken,
      guilds: core.store.guilds.length,
    },
  };
}

function addMember(store: SandboxStore, ctx: AdminContext): AdminReply {
  const guild = guildOf(store, param(ctx, 'guild'));
  const o = obj(ctx.body, 'empty');
  const input: { id?: string; username?: string; roles?: string[]; nick?: string } = {};
  const id = optString(o, 'id');
  const username = optString(o, 'username');
  const nick = optString(o, 'nick');
  const roles = optStrings(o, 'roles');
  if (id !== undefined) input.id = id;
  if (username !== undefined) input.username = username;
  if (nick !== undefined) input.nick = nick;
  if (roles !== undefined) input.roles = roles;
  return { status: 201, body: { id: store.addMember(guild.id, input) } };
}

function updateMember(store: SandboxStore, ctx: AdminContext): AdminReply {
  const guild = guildOf(store, param(ctx, 'guild'));
  const o = obj(ctx.body);
  const patch: { nick?: string | null; roles?: string[] } = {};
  if (o.nick === null) patch.nick = null;
  else {
    const nick = optString(o, 'nick');
    if (nick !== undefined) patch.nick = nick;
  }
  const roles = optStrings(o, 'roles');
  if (roles !== undefined) patch.roles = roles;
  store.updateMember(guild.id, param(ctx, 'user'), patch);
  return { status: 204 };
}

export function directoryRoutes(core: SandboxCore): AdminRoute[] {
  const store = core.store;
  return [
    { method: 'GET', path: '', handler: () => info(core) },
    { method: 'GET', path: '/counters', handler: () => ({ status: 200, body: core.counters }) },
    {
      method: 'GET',
      path: '/guilds',
      handler: () => ({ status: 200, body: store.guilds.map((g) => ({ id: g.id, name: g.name, member_count: store.memberCount(g) })) }),
    },
    { method: 'GET', path: '/guilds/:guild/members', handler: (ctx) => ({ status: 200, body: [...store.members(guildOf(store, param(ctx, 'guild'))).keys()] }) },
    { method: 'POST', path: '/guilds/:guild/members', handler: (ctx) => addMember(store, ctx) },
    { method: 'PATCH', path: '/guilds/:guild/members/:user', handler: (ctx) => updateMember(store, ctx) },
    {
      method: 'DELETE',
      path: '/guilds/:guild/members/:user',
      handler: (ctx) => {
        const guild = guildOf(store, param(ctx, 'guild'));
        store.removeMember(guild.id, param(ctx, 'user'));
        return { status: 204 };
      },
    },
  ];
}
