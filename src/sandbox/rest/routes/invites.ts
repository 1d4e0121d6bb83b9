/**
 * Invites (discord-api-docs "Invite" and "Channel" resources): create one for a channel (CREATE_INSTANT_INVITE;
 * `max_age` 0-604800 seconds, default 86400, 0 never; `max_uses` 0-100, 0 unlimited; `temporary`; `unique`
 * false gives back a live invite of the bot's with the same settings), list a channel's (MANAGE_CHANNELS) or a
 * guild's (MANAGE_GUILD), resolve one by code (no permission; `with_counts`), and revoke one (MANAGE_CHANNELS on
 * its channel, or MANAGE_GUILD). An unknown or expired code is 404 / 10006. Dispatches INVITE_CREATE and
 * INVITE_DELETE `{channel_id, guild_id, code}` (intent GUILD_INVITES, and only to a bot with MANAGE_CHANNELS in
 * the invite's channel: protocol §9); changes are audited.
 * Invites aimed at a stream, an activity or listed users (`target_*`, `role_ids`) are not modelled.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors, unmodelled } from '../../errors.js';
import { AuditAction, changesOf, recordAudit } from '../../state/audit-log.js';
import { inviteCreateEvent, inviteObject, invitesOf, MAX_INVITES_PER_GUILD, type InviteRecord } from '../../state/invites.js';
import { P } from '../../state/permissions.js';
import type { SandboxStore } from '../../state/store.js';
import type { RestContext, RouteDef } from '../types.js';
import { queryBool } from './commands.js';
import { auditReason, FormErrors, guildChannelOf, guildOf, objectBody, requireChannelPermission, requireGuildPermission, type Json } from './guild-access.js';

const INVITE_CHANNEL_TYPES = new Set([0, 2, 5, 13, 15, 16]);
const DEFAULT_MAX_AGE = 86_400;
const TARGETED = ['target_type', 'target_user_id', 'target_application_id', 'role_ids', 'target_user_ids'] as const;
const unknownInvite = (): SandboxApiError => new SandboxApiError(404, 10006, 'Unknown Invite');

interface InviteSettings {
  maxAge: number;
  maxUses: number;
  temporary: boolean;
  unique: boolean;
}

function settingsOf(ctx: RestContext, body: Json): InviteSettings {
  const form = new FormErrors();
  const maxAge = form.int(body, 'max_age', 0, 604_800);
  const maxUses = form.int(body, 'max_uses', 0, 100);
  const temporary = form.bool(body, 'temporary');
  const unique = form.bool(body, 'unique');
  form.throwIfAny();
  const targeted = TARGETED.find((k) => body[k] !== undefined && body[k] !== null);
  if (targeted !== undefined) throw unmodelled(ctx.method, ctx.path, `invites with ${targeted}`);
  return { maxAge: maxAge ?? DEFAULT_MAX_AGE, maxUses: maxUses ?? 0, temporary: temporary ?? false, unique: unique ?? false };
}

/** The bot may revoke an invite with MANAGE_GUILD, or MANAGE_CHANNELS on the invite's channel. */
function requireRevoke(store: SandboxStore, inv: InviteRecord): void {
  const { guild, channel } = store.guildChannel(inv.channelId)!;
  if ((store.permissionsOf(guild, store.applicationId) & P.MANAGE_GUILD) !== 0n) return;
  requireChannelPermission(store, guild, channel, P.MANAGE_CHANNELS);
}

/** Invite events reach the bot only where it holds MANAGE_CHANNELS (protocol §9). */
function emitInvite(store: SandboxStore, inv: InviteRecord, t: 'INVITE_CREATE' | 'INVITE_DELETE', d: Json): void {
  const { guild, channel } = store.guildChannel(inv.channelId)!;
  if ((store.channelPermissionsOf(guild, channel, store.applicationId) & P.MANAGE_CHANNELS) === 0n) return;
  store.emit(guild.id, t, JSON.stringify(d));
}

export function inviteRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const invites = invitesOf(store);
  const withMeta = { metadata: true, counts: false };

  const create = (ctx: RestContext): Json => {
    const { guild, channel } = guildChannelOf(store, ctx);
    requireChannelPermission(store, guild, channel, P.CREATE_INSTANT_INVITE);
    if (!INVITE_CHANNEL_TYPES.has(channel.type)) throw Errors.wrongChannelType();
    const s = settingsOf(ctx, objectBody(ctx));
    if (!s.unique) {
      const same = invites.list({ channelId: channel.id }).find((i) => i.inviterId === store.applicationId && i.maxAge === s.maxAge && i.maxUses === s.maxUses && i.temporary === s.temporary);
      if (same !== undefined) return inviteObject(store, same, withMeta);
    }
    if (invites.list({ guildId: guild.id }).length >= MAX_INVITES_PER_GUILD) throw new SandboxApiError(400, 30016, `Maximum number of invites reached (${MAX_INVITES_PER_GUILD})`);
    const inv = invites.create({ guildId: guild.id, channelId: channel.id, inviterId: store.applicationId, maxAge: s.maxAge, maxUses: s.maxUses, temporary: s.temporary });
    emitInvite(store, inv, 'INVITE_CREATE', inviteCreateEvent(store, inv));
    const audited = { code: inv.code, channel_id: inv.channelId, inviter_id: inv.inviterId, uses: 0, max_uses: inv.maxUses, max_age: inv.maxAge, temporary: inv.temporary };
    recordAudit(store, guild.id, { action: AuditAction.INVITE_CREATE, targetId: null, reason: auditReason(ctx), changes: changesOf(null, audited, Object.keys(audited)) });
    return inviteObject(store, inv, withMeta);
  };

  const revoke = (ctx: RestContext): Json => {
    const inv = invites.get(ctx.params.code!);
    if (inv === undefined) throw unknownInvite();
    requireRevoke(store, inv);
    const body = inviteObject(store, inv, { metadata: false, counts: false });
    emitInvite(store, inv, 'INVITE_DELETE', { channel_id: inv.channelId, guild_id: inv.guildId, code: inv.code });
    invites.delete(inv.code);
    const audited = { code: inv.code, channel_id: inv.channelId, inviter_id: inv.inviterId, uses: inv.uses, max_uses: inv.maxUses, max_age: inv.maxAge, temporary: inv.temporary };
    recordAudit(store, inv.guildId, { action: AuditAction.INVITE_DELETE, targetId: null, reason: auditReason(ctx), changes: changesOf(audited, null, Object.keys(audited)) });
    return body;
  };

  return [
    {
      method: 'GET',
      path: '/channels/:channelId/invites',
      bucket: 'invites.read',
      major: 'channelId',
      auth: 'bot',
      handler: (ctx) => {
        const { guild, channel } = guildChannelOf(store, ctx);
        requireChannelPermission(store, guild, channel, P.MANAGE_CHANNELS);
        return { status: 200, body: invites.list({ channelId: channel.id }).map((i) => inviteObject(store, i, withMeta)) };
      },
    },
    { method: 'POST', path: '/channels/:channelId/invites', bucket: 'invites.edit', major: 'channelId', auth: 'bot', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    {
      method: 'GET',
      path: '/guilds/:guildId/invites',
      bucket: 'invites.read',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => {
        const guild = guildOf(store, ctx);
        requireGuildPermission(store, guild, P.MANAGE_GUILD);
        return { status: 200, body: invites.list({ guildId: guild.id }).map((i) => inviteObject(store, i, withMeta)) };
      },
    },
    {
      method: 'GET',
      path: '/invites/:code',
      bucket: 'invites.read',
      auth: 'none',
      handler: (ctx) => {
        const inv = invites.get(ctx.params.code!);
        if (inv === undefined) throw unknownInvite();
        return { status: 200, body: inviteObject(store, inv, { metadata: false, counts: queryBool(ctx.query.get('with_counts')) }) };
      },
    },
    { method: 'DELETE', path: '/invites/:code', bucket: 'invites.edit', auth: 'bot', handler: (ctx) => ({ status: 200, body: revoke(ctx) }) },
  ];
}
