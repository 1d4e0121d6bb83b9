/**
 * Executing an incoming webhook and its messages (discord-api-docs "Webhook" resource): POST /webhooks/{id}/{token}
 * (`wait` gives the message with 200, else 204; `thread_id` posts in a thread of the webhook's channel) and
 * GET / PATCH / DELETE /webhooks/{id}/{token}/messages/{message_id}. A webhook's message lands in its channel as
 * any other (MESSAGE_CREATE / _UPDATE / _DELETE, GET /channels/{id}/messages), with `webhook_id` and the webhook
 * as its author.
 *
 * The same paths serve an interaction's follow-ups (application id + interaction token, interactions.ts). The
 * id tells them apart: an incoming webhook's id is answered here, anything else goes to the interaction route
 * unchanged, bucket and all.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors, unmodelled } from '../../errors.js';
import { baseMessage, checkMessage, editableFlags, editMessage, flagsOf, keptAttachments, attachmentObjects, MessageFlags } from '../../interactions/messages.js';
import { updateChannel } from '../../state/channels.js';
import type { MessageRecord } from '../../state/messages.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { messageDispatchJson } from '../../state/serialize.js';
import { webhookAuthor, webhooksOf, type WebhookRecord } from '../../state/webhooks.js';
import { jsonValue } from '../body.js';
import { queryParams, snowflakeParams } from '../params.js';
import type { HttpMethod, RestContext, RestResult, RouteDef } from '../types.js';
import { queryBool } from './commands.js';
import { FormErrors, type Json } from './guild-access.js';
import { uploadsOf } from './interactions.js';
import { checkWebhookName, webhookByToken, webhookRoutes } from './webhooks.js';

/** Flags a webhook message may be sent with. */
const EXECUTE_FLAGS = MessageFlags.SUPPRESS_EMBEDS | MessageFlags.SUPPRESS_NOTIFICATIONS | MessageFlags.IS_COMPONENTS_V2;
const FORUM_TYPES = new Set([15, 16]);

/** What a route does for an incoming webhook whose token checked out. */
type WebhookHandler = (ctx: RestContext, hook: WebhookRecord) => RestResult;

interface Target {
  guild: GuildRecord;
  channel: ChannelRecord;
}

function hasContent(m: Json): boolean {
  const list = (v: unknown): boolean => Array.isArray(v) && v.length > 0;
  return (typeof m.content === 'string' && m.content.length > 0) || list(m.embeds) || list(m.components) || list(m.attachments) || (typeof m.poll === 'object' && m.poll !== null);
}

export function webhookMessageRoutes(core: SandboxCore, interactions: readonly RouteDef[]): RouteDef[] {
  const store = core.store;
  const messages = store.messages;

  /** The channel a request names: the webhook's own, or a thread of it (`thread_id`; 10003 otherwise). */
  const targetOf = (ctx: RestContext, hook: WebhookRecord): Target => {
    const threadId = queryParams(ctx, {}, ['thread_id']).snowflakes.get('thread_id');
    const own = store.guildChannel(hook.channelId)!;
    if (threadId === undefined) return own;
    const thread = store.guildChannel(threadId);
    if (thread === undefined || thread.channel.thread === undefined || thread.channel.parentId !== hook.channelId) throw Errors.unknownChannel();
    return thread;
  };

  /** A thread takes the message while open or archived-but-unlocked (the message unarchives it). */
  const intoThread = (target: Target): void => {
    const t = target.channel.thread;
    if (t === undefined) return;
    if (t.locked) throw new SandboxApiError(403, 160005, 'Thread is locked');
    if (t.archived) updateChannel(store, target.guild, target.channel, { archived: false });
    t.messageCount++;
    t.totalMessageSent++;
  };

  const execute = (ctx: RestContext, hook: WebhookRecord): RestResult => {
    const target = targetOf(ctx, hook);
    const uploads = uploadsOf(ctx);
    const data = checkMessage(jsonValue(ctx.body), { at: [], requireContent: true, allowedFlags: EXECUTE_FLAGS, files: uploads.length });
    const form = new FormErrors();
    const username = checkWebhookName(form, data, 'username', false);
    form.throwIfAny();
    if (FORUM_TYPES.has(target.channel.type)) {
      if (typeof data.thread_name === 'string') throw unmodelled(ctx.method, ctx.path, 'creating a forum post through a webhook (thread_name)');
      throw new SandboxApiError(400, 220001, 'Webhooks posted to forum channels must have a thread_name or thread_id');
    }
    intoThread(target);
    const id = store.ids.next();
    const attachments = [...keptAttachments(data), ...attachmentObjects(target.channel.id, uploads, () => store.ids.next())];
    const flags = typeof data.flags === 'number' ? data.flags : 0;
    const message = baseMessage({ id, type: 0, channelId: target.channel.id, author: webhookAuthor(hook, username, hook.avatar), attachments, flags }, data);
    message.webhook_id = hook.id;
    messages.add({ id, channelId: target.channel.id, guildId: target.guild.id, recipientId: null, message, createdAt: Date.now() });
    store.emit(target.guild.id, 'MESSAGE_CREATE', messageDispatchJson(target.guild, undefined, message));
    return queryBool(ctx.query.get('wait')) ? { status: 200, body: message } : { status: 204 };
  };

  /** A message this webhook sent, in its channel or the thread named (10008 otherwise). */
  const messageOf = (ctx: RestContext, hook: WebhookRecord): { target: Target; record: MessageRecord } => {
    snowflakeParams(ctx, { messageId: 'message_id' });
    const target = targetOf(ctx, hook);
    const record = messages.get(target.channel.id, ctx.params.messageId!);
    if (record === undefined || record.message.webhook_id !== hook.id) throw Errors.unknownMessage();
    return { target, record };
  };

  const edit = (ctx: RestContext, hook: WebhookRecord): RestResult => {
    const { target, record } = messageOf(ctx, hook);
    const uploads = uploadsOf(ctx);
    const patch = checkMessage(jsonValue(ctx.body) ?? {}, { at: [], requireContent: false, allowedFlags: editableFlags(), files: uploads.length, existingFlags: flagsOf(record.message) });
    const next = editMessage(record.message, patch, { uploads, attach: (u) => attachmentObjects(record.channelId, u, () => store.ids.next()) });
    if (!hasContent(next)) throw Errors.emptyMessage();
    messages.edit(record, next);
    store.emit(target.guild.id, 'MESSAGE_UPDATE', messageDispatchJson(target.guild, undefined, next));
    return { status: 200, body: next };
  };

  const remove = (ctx: RestContext, hook: WebhookRecord): RestResult => {
    const { target, record } = messageOf(ctx, hook);
    messages.delete(record);
    store.emit(target.guild.id, 'MESSAGE_DELETE', JSON.stringify({ id: record.id, channel_id: record.channelId, guild_id: target.guild.id }));
    return { status: 204 };
  };

  const message = '/webhooks/:webhookId/:token/messages/:messageId';
  const table: Array<[HttpMethod, string, WebhookHandler]> = [
    ['POST', '/webhooks/:webhookId/:token', execute],
    ['GET', message, (ctx, hook) => ({ status: 200, body: messageOf(ctx, hook).record.message })],
    ['PATCH', message, edit],
    ['DELETE', message, remove],
  ];
  return table.map(([method, path, handler]) => shared(core, interactions, method, path, handler));
}

/**
 * A route of a path the interaction follow-ups share: an incoming webhook's id is answered by `own`, any other
 * id by the interaction route of the same method and path, with its parameters named as it names them.
 */
function shared(core: SandboxCore, interactions: readonly RouteDef[], method: HttpMethod, path: string, own: WebhookHandler): RouteDef {
  const interactionPath = path.replace(':webhookId', ':applicationId');
  const fallback = interactions.find((r) => r.method === method && r.path === interactionPath);
  return {
    method,
    path,
    bucket: 'webhook',
    major: (p) => `${p.webhookId}:${p.token}`,
    auth: 'none',
    global: false,
    handler: (ctx) => {
      if (webhooksOf(core.store).get(ctx.params.webhookId!) !== undefined) return own(ctx, webhookByToken(core.store, ctx));
      if (fallback === undefined) throw Errors.unknownWebhook();
      const params = Object.create(null) as Record<string, string>;
      for (const [k, v] of Object.entries(ctx.params)) params[k === 'webhookId' ? 'applicationId' : k] = v;
      return fallback.handler({ ...ctx, params });
    },
  };
}

/**
 * Every webhook route: management (webhooks.ts) and execution. `interactions` is the interaction route table,
 * whose follow-up routes answer the ids that are not incoming webhooks; register this table before it.
 */
export function incomingWebhookRoutes(core: SandboxCore, interactions: readonly RouteDef[]): RouteDef[] {
  return [...webhookRoutes(core), ...webhookMessageRoutes(core, interactions)];
}
