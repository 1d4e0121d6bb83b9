/**
 * Webhook management (discord-api-docs "Webhook" resource): create in a channel, list a channel's or a guild's,
 * get / modify / delete by id with the bot's token (MANAGE_WEBHOOKS in the webhook's channel, 50013 otherwise),
 * and get / modify / delete with the webhook's own token (no Authorization; the answer has no `user`; a wrong
 * token is 401 / 50027). Names are 1-80 characters and may not contain "clyde" or "discord" (any case). Every
 * change dispatches WEBHOOKS_UPDATE `{guild_id, channel_id}` (intent GUILD_WEBHOOKS, protocol §9) and is
 * recorded in the guild's audit log. Executing a webhook and its messages are in webhook-messages.ts.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, emptyErrorTree, Errors } from '../../errors.js';
import { AuditAction, changesOf, recordAudit } from '../../state/audit-log.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import type { SandboxStore } from '../../state/store.js';
import { MAX_WEBHOOKS_PER_CHANNEL, MAX_WEBHOOKS_PER_GUILD, webhookObject, webhooksOf, type WebhookRecord } from '../../state/webhooks.js';
import { snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { imageHash } from './identity.js';
import { auditReason, FormErrors, guildChannelOf, guildOf, objectBody, requireChannelPermission, requireGuildPermission, type Json } from './guild-access.js';

/** Channel types a webhook can belong to: text, voice, announcement, stage, forum, media (not threads, not DMs). */
const WEBHOOK_CHANNEL_TYPES = new Set([0, 2, 5, 13, 15, 16]);
const FORBIDDEN_NAME_PARTS = ['clyde', 'discord'] as const;

/**
 * A webhook name (or an execute `username`) at `field`: a string of 1-80 characters without the forbidden
 * substrings. The service answers those with USERNAME_INVALID_CONTAINS (`Username cannot contain "discord"`,
 * as bots quote it).
 */
export function checkWebhookName(form: FormErrors, body: Json, field: string, required: boolean): string | undefined {
  if (required && (body[field] === undefined || body[field] === null)) {
    form.add([field], 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  const name = form.string(body, field, 1, 80);
  if (typeof name !== 'string') return undefined;
  const bad = FORBIDDEN_NAME_PARTS.find((part) => name.toLowerCase().includes(part));
  if (bad !== undefined) {
    form.add([field], 'USERNAME_INVALID_CONTAINS', `Username cannot contain "${bad}"`);
    return undefined;
  }
  return name;
}

function webhookChannelOf(store: SandboxStore, ctx: RestContext): { guild: GuildRecord; channel: ChannelRecord } {
  const place = guildChannelOf(store, ctx);
  requireChannelPermission(store, place.guild, place.channel, P.MANAGE_WEBHOOKS);
  if (!WEBHOOK_CHANNEL_TYPES.has(place.channel.type)) throw Errors.wrongChannelType();
  return place;
}

/** A webhook by the route's id (50035 when not a snowflake, 10015 when unknown). */
export function webhookOf(store: SandboxStore, ctx: RestContext): WebhookRecord {
  snowflakeParams(ctx, { webhookId: 'webhook_id' });
  const hook = webhooksOf(store).get(ctx.params.webhookId!);
  if (hook === undefined) throw Errors.unknownWebhook();
  return hook;
}

/** The webhook of a token route: its id known (10015) and the token its own (401 / 50027). */
export function webhookByToken(store: SandboxStore, ctx: RestContext): WebhookRecord {
  const hook = webhookOf(store, ctx);
  if (hook.token !== ctx.params.token) throw Errors.invalidWebhookToken();
  return hook;
}

/** With the bot's token: MANAGE_WEBHOOKS in the webhook's channel. */
function requireManage(store: SandboxStore, hook: WebhookRecord): void {
  const place = store.guildChannel(hook.channelId)!;
  requireChannelPermission(store, place.guild, place.channel, P.MANAGE_WEBHOOKS);
}

/** `avatar`: image data becomes a hash, null clears it; anything else is 50035 at `avatar`. */
function avatarOf(form: FormErrors, body: Json): string | null | undefined {
  if (body.avatar === undefined) return undefined;
  const hash = imageHash(emptyErrorTree(), 'avatar', body.avatar);
  if (hash === undefined) form.add(['avatar'], 'IMAGE_INVALID', 'Invalid image data');
  return hash;
}

interface WebhookPatch {
  name?: string;
  avatar?: string | null;
  channelId?: string;
}

function patchOf(body: Json, allowChannel: boolean): WebhookPatch {
  const form = new FormErrors();
  const out: WebhookPatch = {};
  const name = checkWebhookName(form, body, 'name', false);
  if (name !== undefined) out.name = name;
  const avatar = avatarOf(form, body);
  if (avatar !== undefined) out.avatar = avatar;
  if (allowChannel && body.channel_id !== undefined && body.channel_id !== null) {
    if (typeof body.channel_id !== 'string' || !/^\d{1,20}$/.test(body.channel_id)) form.add(['channel_id'], 'NUMBER_TYPE_COERCE', `Value "${String(body.channel_id)}" is not snowflake.`);
    else out.channelId = body.channel_id;
  }
  form.throwIfAny();
  return out;
}

export function webhookRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const hooks = webhooksOf(store);
  const json = (w: WebhookRecord, withUser: boolean): Json => webhookObject(store, w, core.urls.rest, withUser);
  const updated = (guildId: string, channelId: string): void => store.emit(guildId, 'WEBHOOKS_UPDATE', JSON.stringify({ guild_id: guildId, channel_id: channelId }));

  const create = (ctx: RestContext): Json => {
    const { guild, channel } = webhookChannelOf(store, ctx);
    const form = new FormErrors();
    const body = objectBody(ctx);
    const name = checkWebhookName(form, body, 'name', true);
    const avatar = avatarOf(form, body);
    form.throwIfAny();
    if (hooks.list({ channelId: channel.id }).length >= MAX_WEBHOOKS_PER_CHANNEL) throw new SandboxApiError(400, 30007, `Maximum number of webhooks reached (${MAX_WEBHOOKS_PER_CHANNEL})`);
    if (hooks.list({ guildId: guild.id }).length >= MAX_WEBHOOKS_PER_GUILD) throw new SandboxApiError(400, 30058, `Maximum number of webhooks per guild reached (${MAX_WEBHOOKS_PER_GUILD})`);
    const hook = hooks.create({ guildId: guild.id, channelId: channel.id, name: name!, avatar: avatar ?? null, creatorId: store.applicationId });
    updated(guild.id, channel.id);
    recordAudit(store, guild.id, { action: AuditAction.WEBHOOK_CREATE, targetId: hook.id, reason: auditReason(ctx), changes: changesOf(null, { name: hook.name, channel_id: hook.channelId, type: 1 }, ['name', 'channel_id', 'type']) });
    return json(hook, true);
  };

  /** Apply a patch (a move checks MANAGE_WEBHOOKS in the target, which must be a channel of the same guild). */
  const modify = (ctx: RestContext, hook: WebhookRecord, patch: WebhookPatch): void => {
    const before = { name: hook.name, avatar_hash: hook.avatar, channel_id: hook.channelId };
    const from = hook.channelId;
    if (patch.channelId !== undefined && patch.channelId !== hook.channelId) {
      const target = store.guildChannel(patch.channelId);
      if (target === undefined || target.guild.id !== hook.guildId) throw Errors.unknownChannel();
      requireChannelPermission(store, target.guild, target.channel, P.MANAGE_WEBHOOKS);
      if (!WEBHOOK_CHANNEL_TYPES.has(target.channel.type)) throw Errors.wrongChannelType();
      hook.channelId = patch.channelId;
    }
    if (patch.name !== undefined) hook.name = patch.name;
    if (patch.avatar !== undefined) hook.avatar = patch.avatar;
    updated(hook.guildId, hook.channelId);
    if (from !== hook.channelId) updated(hook.guildId, from);
    const after = { name: hook.name, avatar_hash: hook.avatar, channel_id: hook.channelId };
    recordAudit(store, hook.guildId, { action: AuditAction.WEBHOOK_UPDATE, targetId: hook.id, reason: auditReason(ctx), changes: changesOf(before, after, ['name', 'avatar_hash', 'channel_id']) });
  };

  const remove = (ctx: RestContext, hook: WebhookRecord): void => {
    hooks.delete(hook.id);
    updated(hook.guildId, hook.channelId);
    recordAudit(store, hook.guildId, { action: AuditAction.WEBHOOK_DELETE, targetId: hook.id, reason: auditReason(ctx), changes: changesOf({ name: hook.name, channel_id: hook.channelId, type: 1 }, null, ['name', 'channel_id', 'type']) });
  };

  const managed = (ctx: RestContext): WebhookRecord => {
    const hook = webhookOf(store, ctx);
    requireManage(store, hook);
    return hook;
  };

  const read = { auth: 'bot', bucket: 'webhooks.read' } as const;
  const edit = { auth: 'bot', bucket: 'webhooks.edit' } as const;
  const token = { auth: 'none', bucket: 'webhook', global: false, major: (p: Record<string, string>) => `${p.webhookId}:${p.token}` } as const;
  return [
    { ...edit, method: 'POST', path: '/channels/:channelId/webhooks', major: 'channelId', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    { ...read, method: 'GET', path: '/channels/:channelId/webhooks', major: 'channelId', handler: (ctx) => ({ status: 200, body: hooks.list({ channelId: webhookChannelOf(store, ctx).channel.id }).map((w) => json(w, true)) }) },
    {
      ...read,
      method: 'GET',
      path: '/guilds/:guildId/webhooks',
      major: 'guildId',
      handler: (ctx) => {
        const guild = guildOf(store, ctx);
        requireGuildPermission(store, guild, P.MANAGE_WEBHOOKS);
        return { status: 200, body: hooks.list({ guildId: guild.id }).map((w) => json(w, true)) };
      },
    },
    { ...read, method: 'GET', path: '/webhooks/:webhookId', major: 'webhookId', handler: (ctx) => ({ status: 200, body: json(managed(ctx), true) }) },
    {
      ...edit,
      method: 'PATCH',
      path: '/webhooks/:webhookId',
      major: 'webhookId',
      handler: (ctx) => {
        const hook = managed(ctx);
        modify(ctx, hook, patchOf(objectBody(ctx), true));
        return { status: 200, body: json(hook, true) };
      },
    },
    { ...edit, method: 'DELETE', path: '/webhooks/:webhookId', major: 'webhookId', handler: (ctx) => (remove(ctx, managed(ctx)), { status: 204 }) },
    { ...token, method: 'GET', path: '/webhooks/:webhookId/:token', handler: (ctx) => ({ status: 200, body: json(webhookByToken(store, ctx), false) }) },
    {
      ...token,
      method: 'PATCH',
      path: '/webhooks/:webhookId/:token',
      handler: (ctx) => {
        const hook = webhookByToken(store, ctx);
        modify(ctx, hook, patchOf(objectBody(ctx), false));
        return { status: 200, body: json(hook, false) };
      },
    },
    { ...token, method: 'DELETE', path: '/webhooks/:webhookId/:token', handler: (ctx) => (remove(ctx, webhookByToken(store, ctx)), { status: 204 }) },
  ];
}
