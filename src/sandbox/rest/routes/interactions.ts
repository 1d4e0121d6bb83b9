/**
 * Interaction callback and the webhook-style follow-up / @original endpoints (protocol §14.4, §14.5).
 * No bot auth needed; exempt from the global limit; limited per interaction / per webhook token.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import { attachmentObjects, type EditUploads, type MessageContext, type UploadedFile } from '../../interactions/messages.js';
import type { SandboxInteraction } from '../../interactions/store.js';
import { userObject } from '../../state/serialize.js';
import { jsonValue } from '../body.js';
import type { RestContext, RouteDef } from '../types.js';
import { queryBool } from './commands.js';

/** The default upload limit, per attachment, for webhooks and interaction responses (protocol §S8). */
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Files of a multipart body; any over the per-attachment limit is 413 / 40005. */
export function uploadsOf(ctx: RestContext): UploadedFile[] {
  if (ctx.body.kind !== 'multipart') return [];
  const files = ctx.body.files.map((f, i): UploadedFile => {
    // `files[n]` is what an `attachments` entry's id names; a part named otherwise counts by its position.
    const n = /^files\[(\d+)\]$/.exec(f.field);
    return { filename: f.filename, size: f.size, contentType: f.contentType, index: n ? Number(n[1]) : i };
  });
  if (files.some((f) => f.size > MAX_ATTACHMENT_BYTES)) throw new SandboxApiError(413, 40005, 'Request entity too large');
  return files;
}

export function interactionRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const messageContext = (record: SandboxInteraction, type: number, uploads: readonly UploadedFile[] = []): MessageContext => {
    const p = record.payload as {
      member?: { user?: unknown };
      user?: unknown;
      authorizing_integration_owners?: unknown;
      data?: { name?: unknown; type?: unknown; custom_id?: unknown };
    };
    const metadata: Record<string, unknown> = {
      id: record.id,
      type: record.type,
      user: p.member?.user ?? p.user,
      authorizing_integration_owners: p.authorizing_integration_owners,
    };
    // Commands name themselves; components and modals do not.
    if (record.type === 2 || record.type === 4) {
      if (p.data?.name !== undefined) metadata.name = p.data.name;
      if (p.data?.type !== undefined) metadata.command_type = p.data.type;
    }
    return {
      id: store.ids.next(),
      nextId: () => store.ids.next(),
      uploads,
      channelId: record.meta.channelId,
      guildId: record.meta.guildId,
      author: userObject(store.botUser),
      applicationId: store.applicationId,
      type,
      interactionMetadata: metadata,
    };
  };

  /** The interaction behind a webhook token; unknown app -> 10015, unknown or expired token -> 50027. */
  const byWebhook = (ctx: RestContext): SandboxInteraction => {
    if (ctx.params.applicationId !== store.applicationId) throw Errors.unknownWebhook();
    const record = core.interactions.byTokenValue(ctx.params.token!);
    if (!record) throw Errors.invalidWebhookToken();
    record.checkToken();
    return record;
  };

  const webhookMajor = (p: Record<string, string>): string => `${p.applicationId}:${p.token}`;
  const base = '/webhooks/:applicationId/:token';
  const message = `${base}/messages/:messageId`;

  return [
    {
      method: 'POST',
      path: '/interactions/:interactionId/:token/callback',
      bucket: 'interaction.callback',
      major: 'interactionId',
      auth: 'none',
      global: false,
      handler: (ctx) => {
        const record = core.interactions.get(ctx.params.interactionId!);
        if (!record || record.token !== ctx.params.token) throw Errors.unknownInteraction();
        const uploads = uploadsOf(ctx);
        const { type, message } = record.respond(jsonValue(ctx.body), uploads.length, (t) => messageContext(record, t, uploads), core.options.activities);
        if (!queryBool(ctx.query.get('with_response'))) return { status: 204 };
        const interaction: Record<string, unknown> = { id: record.id, type: record.type };
        const resource: Record<string, unknown> = { type };
        if (message) {
          interaction.response_message_id = message.id;
          interaction.response_message_loading = ((message.flags as number) & (1 << 7)) !== 0;
          interaction.response_message_ephemeral = ((message.flags as number) & (1 << 6)) !== 0;
          if (type === 4 || type === 7) resource.message = message;
        }
        if (type === 12) {
          const instance = `i-${record.id}`;
          interaction.activity_instance_id = instance;
          resource.activity_instance = { id: instance };
        }
        return { status: 200, body: { interaction, resource } };
      },
    },
    {
      method: 'POST',
      path: base,
      bucket: 'webhook',
      major: webhookMajor,
      auth: 'none',
      global: false,
      handler: (ctx) => {
        const record = byWebhook(ctx);
        // Follow-ups behave like Execute Webhook with wait=true: the message comes back.
        const uploads = uploadsOf(ctx);
        return { status: 200, body: record.followup(jsonValue(ctx.body), uploads.length, messageContext(record, 0, uploads)) };
      },
    },
    {
      method: 'GET',
      path: message,
      bucket: 'webhook',
      major: webhookMajor,
      auth: 'none',
      global: false,
      handler: (ctx) => ({ status: 200, body: byWebhook(ctx).message(ctx.params.messageId!) }),
    },
    {
      method: 'PATCH',
      path: message,
      bucket: 'webhook',
      major: webhookMajor,
      auth: 'none',
      global: false,
      handler: (ctx) => {
        const record = byWebhook(ctx);
        // Files of the edit become attachments as on create; `attachments` says which stay (editedAttachments).
        const files: EditUploads = { uploads: uploadsOf(ctx), attach: (u) => attachmentObjects(record.meta.channelId, u, () => store.ids.next()) };
        return { status: 200, body: record.editMessage(ctx.params.messageId!, jsonValue(ctx.body), files) };
      },
    },
    {
      method: 'DELETE',
      path: message,
      bucket: 'webhook',
      major: webhookMajor,
      auth: 'none',
      global: false,
      handler: (ctx) => {
        byWebhook(ctx).deleteMessage(ctx.params.messageId!);
        return { status: 204 };
      },
    },
  ];
}
