import type {
  RESTGetAPIChannelWebhooksResult,
  RESTGetAPIGuildWebhooksResult,
  RESTGetAPIWebhookResult,
  RESTGetAPIWebhookWithTokenMessageResult,
  RESTGetAPIWebhookWithTokenResult,
  RESTPatchAPIWebhookJSONBody,
  RESTPatchAPIWebhookResult,
  RESTPatchAPIWebhookWithTokenJSONBody,
  RESTPatchAPIWebhookWithTokenMessageJSONBody,
  RESTPatchAPIWebhookWithTokenMessageResult,
  RESTPatchAPIWebhookWithTokenResult,
  RESTPostAPIChannelWebhookJSONBody,
  RESTPostAPIChannelWebhookResult,
  RESTPostAPIWebhookWithTokenJSONBody,
  RESTPostAPIWebhookWithTokenWaitResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type FileOptions, type ReasonOptions } from './options.js';

/**
 * Webhooks: managed with the bot's token (MANAGE_WEBHOOKS), used with the webhook's own token. Routes that
 * carry the webhook token send no Authorization header, are named by template everywhere (the token is
 * hashed in bucket keys, never logged) and do not count against the global limit.
 *
 * An interaction's messages are webhook messages of the application: use interactions.ts for those
 * (`@original` and follow-ups).
 */

const CHANNEL_WEBHOOKS = '/channels/{channel_id}/webhooks';
const WEBHOOK = '/webhooks/{webhook_id}';
const WITH_TOKEN = '/webhooks/{webhook_id}/{webhook_token}';
const MESSAGE = '/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}';

type TokenOptions = Omit<CallOptions, 'auth'>;

export function createWebhook(
  rest: RestRequester,
  channelId: string,
  webhook: RESTPostAPIChannelWebhookJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIChannelWebhookResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: CHANNEL_WEBHOOKS,
    params: { channel_id: channelId },
    body: webhook,
  });
}

export function listChannelWebhooks(
  rest: RestRequester,
  channelId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIChannelWebhooksResult> {
  return rest.request({ ...options, method: 'GET', route: CHANNEL_WEBHOOKS, params: { channel_id: channelId } });
}

export function listGuildWebhooks(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildWebhooksResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/webhooks',
    params: { guild_id: guildId },
  });
}

export function getWebhook(
  rest: RestRequester,
  webhookId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIWebhookResult> {
  return rest.request({ ...options, method: 'GET', route: WEBHOOK, params: { webhook_id: webhookId } });
}

/** Rename, re-avatar or move (`channel_id`) a webhook. */
export function editWebhook(
  rest: RestRequester,
  webhookId: string,
  patch: RESTPatchAPIWebhookJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIWebhookResult> {
  return rest.request({ ...options, method: 'PATCH', route: WEBHOOK, params: { webhook_id: webhookId }, body: patch });
}

export async function deleteWebhook(
  rest: RestRequester,
  webhookId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'DELETE', route: WEBHOOK, params: { webhook_id: webhookId } });
}

export function getWebhookWithToken(
  rest: RestRequester,
  webhookId: string,
  token: string,
  options: TokenOptions = {},
): Promise<RESTGetAPIWebhookWithTokenResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: WITH_TOKEN,
    params: { webhook_id: webhookId, webhook_token: token },
    auth: false,
  });
}

/** Like editWebhook, without moving it (no `channel_id`). */
export function editWebhookWithToken(
  rest: RestRequester,
  webhookId: string,
  token: string,
  patch: RESTPatchAPIWebhookWithTokenJSONBody,
  options: Omit<ReasonOptions, 'auth'> = {},
): Promise<RESTPatchAPIWebhookWithTokenResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: WITH_TOKEN,
    params: { webhook_id: webhookId, webhook_token: token },
    body: patch,
    auth: false,
  });
}

export async function deleteWebhookWithToken(
  rest: RestRequester,
  webhookId: string,
  token: string,
  options: Omit<ReasonOptions, 'auth'> = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: WITH_TOKEN,
    params: { webhook_id: webhookId, webhook_token: token },
    auth: false,
  });
}

export interface ExecuteWebhookOptions extends TokenOptions, FileOptions {
  /** Wait for the message to be created and resolve with it (otherwise 204 and undefined). */
  wait?: boolean;
  /** Post in this thread of the webhook's channel. */
  threadId?: string;
  /** Allow components on a webhook that no application owns. */
  withComponents?: boolean;
}

/** Post through a webhook (204). */
export function executeWebhook(
  rest: RestRequester,
  webhookId: string,
  token: string,
  message: RESTPostAPIWebhookWithTokenJSONBody,
  options?: ExecuteWebhookOptions & { wait?: false },
): Promise<undefined>;
/** Post through a webhook and resolve with the message (`wait=true`). */
export function executeWebhook(
  rest: RestRequester,
  webhookId: string,
  token: string,
  message: RESTPostAPIWebhookWithTokenJSONBody,
  options: ExecuteWebhookOptions & { wait: true },
): Promise<RESTPostAPIWebhookWithTokenWaitResult>;
export async function executeWebhook(
  rest: RestRequester,
  webhookId: string,
  token: string,
  message: RESTPostAPIWebhookWithTokenJSONBody,
  options: ExecuteWebhookOptions = {},
): Promise<RESTPostAPIWebhookWithTokenWaitResult | undefined> {
  const { wait, threadId, withComponents, ...call } = options;
  return rest.request({
    ...call,
    method: 'POST',
    route: WITH_TOKEN,
    params: { webhook_id: webhookId, webhook_token: token },
    query: pickQuery({ wait, thread_id: threadId, with_components: withComponents }, [
      'wait',
      'thread_id',
      'with_components',
    ]),
    body: message,
    auth: false,
  });
}

export interface WebhookMessageOptions extends TokenOptions {
  /** The message is in this thread of the webhook's channel. */
  threadId?: string;
}

export async function getWebhookMessage(
  rest: RestRequester,
  webhookId: string,
  token: string,
  messageId: string,
  options: WebhookMessageOptions = {},
): Promise<RESTGetAPIWebhookWithTokenMessageResult> {
  const { threadId, ...call } = options;
  return rest.request({
    ...call,
    method: 'GET',
    route: MESSAGE,
    params: { webhook_id: webhookId, webhook_token: token, message_id: messageId },
    query: pickQuery({ thread_id: threadId }, ['thread_id']),
    auth: false,
  });
}

/** Edit a message the webhook sent; `attachments` lists those to keep (new `files` are added). */
export async function editWebhookMessage(
  rest: RestRequester,
  webhookId: string,
  token: string,
  messageId: string,
  patch: RESTPatchAPIWebhookWithTokenMessageJSONBody,
  options: WebhookMessageOptions & FileOptions & { withComponents?: boolean } = {},
): Promise<RESTPatchAPIWebhookWithTokenMessageResult> {
  const { threadId, withComponents, ...call } = options;
  return rest.request({
    ...call,
    method: 'PATCH',
    route: MESSAGE,
    params: { webhook_id: webhookId, webhook_token: token, message_id: messageId },
    query: pickQuery({ thread_id: threadId, with_components: withComponents }, ['thread_id', 'with_components']),
    body: patch,
    auth: false,
  });
}

export async function deleteWebhookMessage(
  rest: RestRequester,
  webhookId: string,
  token: string,
  messageId: string,
  options: WebhookMessageOptions = {},
): Promise<void> {
  const { threadId, ...call } = options;
  await rest.request({
    ...call,
    method: 'DELETE',
    route: MESSAGE,
    params: { webhook_id: webhookId, webhook_token: token, message_id: messageId },
    query: pickQuery({ thread_id: threadId }, ['thread_id']),
    auth: false,
  });
}
