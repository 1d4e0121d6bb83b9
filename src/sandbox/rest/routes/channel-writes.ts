/**
 * Channel writes (discord-api-docs "Guild" and "Channel" resources): create a guild channel (201), reorder the
 * guild's channels, modify a channel or thread (200), delete one (200 with the channel as it was), and put or
 * delete one permission overwrite (204). Guild channels need MANAGE_CHANNELS; overwrites need MANAGE_ROLES and
 * may only allow or deny bits the bot holds in the guild; threads need MANAGE_THREADS unless the bot owns the
 * thread (and it is not locked). State changes and their dispatches live in state/channels.ts.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors, SandboxError } from '../../errors.js';
import { createChannel, CREATABLE_TYPES, deleteChannel, deleteOverwrite, MAX_GUILD_CHANNELS, setOverwrite, updateChannel, channelJson, type ChannelPatch } from '../../state/channels.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { AuditAction, changesOf, recordAudit } from '../../state/audit-log.js';
import { P } from '../../state/permissions.js';
import type { SandboxStore } from '../../state/store.js';
import { jsonValue } from '../body.js';
import type { RestContext, RouteDef } from '../types.js';
import { channelPatchOf, overwriteOf } from './channel-body.js';
import { auditReason, FormErrors, guildChannelOf, guildOf, objectBody, requireChannelPermission, requireGrantable, requireGuildPermission, type Json } from './guild-access.js';

/** Channel fields an audit entry shows the change of. */
const AUDITED_CHANNEL_KEYS = ['name', 'type', 'topic', 'nsfw', 'rate_limit_per_user', 'parent_id', 'bitrate', 'user_limit'] as const;
const unknownOverwrite = (): SandboxApiError => new SandboxApiError(404, 10009, 'Unknown Overwrite');
const maxChannels = (): SandboxApiError => new SandboxApiError(400, 30013, `Maximum number of guild channels reached (${MAX_GUILD_CHANNELS})`);

/** Overwrites in a body need MANAGE_ROLES, and only bits the bot holds may be allowed or denied. */
function checkOverwrites(store: SandboxStore, guild: GuildRecord, channel: ChannelRecord | null, patch: ChannelPatch): void {
  if (patch.overwrites === undefined) return;
  if (channel) requireChannelPermission(store, guild, channel, P.MANAGE_ROLES);
  else requireGuildPermission(store, guild, P.MANAGE_ROLES);
  for (const o of patch.overwrites) requireGrantable(store, guild, o.allow | o.deny);
}

/** A thread's owner may rename, archive and re-time it; locking, or anything on a locked thread, is a moderator's. */
function checkThreadEdit(store: SandboxStore, guild: GuildRecord, channel: ChannelRecord, patch: ChannelPatch): void {
  const own = channel.thread!.ownerId === store.applicationId;
  const needsModerator = !own || channel.thread!.locked || patch.locked !== undefined || patch.invitable !== undefined;
  requireChannelPermission(store, guild, channel, needsModerator ? P.MANAGE_THREADS : 0n);
}

/** POST /guilds/{id}/channels: MANAGE_CHANNELS (and MANAGE_ROLES for overwrites); the channel as created. */
function createFromBody(store: SandboxStore, ctx: RestContext): Json {
  const guild = guildOf(store, ctx);
  requireGuildPermission(store, guild, P.MANAGE_CHANNELS);
  const body = objectBody(ctx);
  const type = body.type ?? 0;
  if (typeof type !== 'number' || !CREATABLE_TYPES.has(type)) {
    const form = new FormErrors();
    form.add(['type'], 'BASE_TYPE_CHOICES', `Value must be one of {${[...CREATABLE_TYPES].join(', ')}}.`);
    form.throwIfAny();
  }
  const patch = channelPatchOf(body, guild, undefined);
  checkOverwrites(store, guild, null, patch);
  try {
    const channel = createChannel(store, guild, {
      type: type as number,
      name: patch.name!,
      ...(patch.position !== undefined ? { position: patch.position } : {}),
      parentId: patch.parentId ?? null,
      topic: patch.topic ?? null,
      nsfw: patch.nsfw ?? false,
      overwrites: patch.overwrites ?? [],
      ...(patch.rateLimitPerUser !== undefined ? { rateLimitPerUser: patch.rateLimitPerUser } : {}),
      ...(patch.bitrate !== undefined ? { bitrate: patch.bitrate } : {}),
      ...(patch.userLimit !== undefined ? { userLimit: patch.userLimit } : {}),
    });
    recordAudit(store, guild.id, { action: AuditAction.CHANNEL_CREATE, targetId: channel.id, reason: auditReason(ctx), changes: changesOf(null, channelJson(guild, channel), AUDITED_CHANNEL_KEYS) });
    return channelJson(guild, channel);
  } catch (err) {
    if (err instanceof SandboxError) throw maxChannels();
    throw err;
  }
}

export function channelWriteRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const positions = (ctx: RestContext): void => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.MANAGE_CHANNELS);
    const body = jsonValue(ctx.body);
    const form = new FormErrors();
    const moves: Array<{ channel: ChannelRecord; patch: ChannelPatch }> = [];
    if (!Array.isArray(body)) form.add([], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else {
      body.forEach((entry: unknown, i) => {
        const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Json;
        const channel = typeof e.id === 'string' ? guild.channels.find((c) => c.id === e.id) : undefined;
        if (!channel) return form.add([i, 'id'], 'CHANNEL_NOT_IN_GUILD', 'Channel is not in this guild.');
        const patch: ChannelPatch = {};
        if (typeof e.position === 'number' && Number.isInteger(e.position)) patch.position = e.position;
        if (e.parent_id === null || typeof e.parent_id === 'string') patch.parentId = e.parent_id;
        moves.push({ channel, patch });
      });
    }
    form.throwIfAny();
    for (const m of moves) updateChannel(store, guild, m.channel, m.patch);
  };

  const modify = (ctx: RestContext): Json => {
    const { guild, channel } = guildChannelOf(store, ctx);
    const patch = channelPatchOf(objectBody(ctx), guild, channel);
    if (channel.thread !== undefined) checkThreadEdit(store, guild, channel, patch);
    else {
      requireChannelPermission(store, guild, channel, P.MANAGE_CHANNELS);
      checkOverwrites(store, guild, channel, patch);
    }
    const was = channelJson(guild, channel);
    const now = channelJson(guild, updateChannel(store, guild, channel, patch));
    if (channel.thread === undefined) recordAudit(store, guild.id, { action: AuditAction.CHANNEL_UPDATE, targetId: channel.id, reason: auditReason(ctx), changes: changesOf(was, now, AUDITED_CHANNEL_KEYS) });
    return now;
  };

  const remove = (ctx: RestContext): Json => {
    const { guild, channel } = guildChannelOf(store, ctx);
    requireChannelPermission(store, guild, channel, channel.thread !== undefined ? P.MANAGE_THREADS : P.MANAGE_CHANNELS);
    const before = channelJson(guild, channel);
    deleteChannel(store, guild, channel);
    if (channel.thread === undefined) recordAudit(store, guild.id, { action: AuditAction.CHANNEL_DELETE, targetId: channel.id, reason: auditReason(ctx), changes: changesOf(before, null, AUDITED_CHANNEL_KEYS) });
    return before;
  };

  const putOverwrite = (ctx: RestContext): void => {
    const { guild, channel } = guildChannelOf(store, ctx, { overwriteId: 'overwrite_id' });
    if (channel.thread !== undefined) throw Errors.wrongChannelType();
    requireChannelPermission(store, guild, channel, P.MANAGE_ROLES);
    const form = new FormErrors();
    const overwrite = overwriteOf(form, { ...objectBody(ctx), id: ctx.params.overwriteId }, []);
    form.throwIfAny();
    requireGrantable(store, guild, overwrite!.allow | overwrite!.deny);
    setOverwrite(store, guild, channel, overwrite!);
  };

  const removeOverwrite = (ctx: RestContext): void => {
    const { guild, channel } = guildChannelOf(store, ctx, { overwriteId: 'overwrite_id' });
    requireChannelPermission(store, guild, channel, P.MANAGE_ROLES);
    if (!deleteOverwrite(store, guild, channel, ctx.params.overwriteId!)) throw unknownOverwrite();
  };

  const byGuild = { major: 'guildId', auth: 'bot' } as const;
  const byChannel = { major: 'channelId', auth: 'bot' } as const;
  return [
    { ...byGuild, method: 'POST', path: '/guilds/:guildId/channels', bucket: 'channels.create', handler: (ctx) => ({ status: 201, body: createFromBody(store, ctx) }) },
    { ...byGuild, method: 'PATCH', path: '/guilds/:guildId/channels', bucket: 'channels.edit', handler: (ctx) => (positions(ctx), { status: 204 }) },
    { ...byChannel, method: 'PATCH', path: '/channels/:channelId', bucket: 'channels.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...byChannel, method: 'DELETE', path: '/channels/:channelId', bucket: 'channels.delete', handler: (ctx) => ({ status: 200, body: remove(ctx) }) },
    { ...byChannel, method: 'PUT', path: '/channels/:channelId/permissions/:overwriteId', bucket: 'channels.permissions', handler: (ctx) => (putOverwrite(ctx), { status: 204 }) },
    { ...byChannel, method: 'DELETE', path: '/channels/:channelId/permissions/:overwriteId', bucket: 'channels.permissions', handler: (ctx) => (removeOverwrite(ctx), { status: 204 }) },
  ];
}
