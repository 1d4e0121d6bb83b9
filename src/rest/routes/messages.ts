import type {
  RESTGetAPIChannelMessageResult,
  RESTGetAPIChannelMessagesQuery,
  RESTGetAPIChannelMessagesResult,
  RESTPatchAPIChannelMessageJSONBody,
  RESTPatchAPIChannelMessageResult,
  RESTPostAPIChannelMessageCrosspostResult,
  RESTPostAPIChannelMessageJSONBody,
  RESTPostAPIChannelMessageResult,
} from 'discord-api-types/v10';
import { RequestRefusedError } from '../errors.js';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type FileOptions, type ReasonOptions } from './options.js';

/** Messages of a channel: list, read, send (with files), edit, delete, bulk delete, crosspost. */

const MESSAGES = '/channels/{channel_id}/messages';
const MESSAGE = '/channels/{channel_id}/messages/{message_id}';
const BULK_DELETE = '/channels/{channel_id}/messages/bulk-delete';

/** Messages per bulk delete (the service's bounds; each no older than two weeks). */
export const MIN_BULK_DELETE = 2;
export const MAX_BULK_DELETE = 100;

/** Newest first; page with one of around/before/after (limit 1-100, default 50). */
export async function listMessages(
  rest: RestRequester,
  channelId: string,
  query: RESTGetAPIChannelMessagesQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelMessagesResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: MESSAGES,
    params: { channel_id: channelId },
    query: pickQuery(query, ['around', 'before', 'after', 'limit']),
  });
}

export function getMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIChannelMessageResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: MESSAGE,
    params: { channel_id: channelId, message_id: messageId },
  });
}

/**
 * Send a message. With `files`, the message goes as multipart (`payload_json` plus `files[n]`). Not retried
 * after a lost answer unless the body carries a `nonce` with `enforce_nonce: true` (then the service
 * deduplicates, so sending twice posts once).
 */
export function createMessage(
  rest: RestRequester,
  channelId: string,
  message: RESTPostAPIChannelMessageJSONBody,
  options: CallOptions & FileOptions = {},
): Promise<RESTPostAPIChannelMessageResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: MESSAGES,
    params: { channel_id: channelId },
    body: message,
    idempotent: message.nonce !== undefined && message.enforce_nonce === true,
  });
}

/** Edit a message; `attachments` lists the attachments to keep (new `files` are added). */
export function editMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  patch: RESTPatchAPIChannelMessageJSONBody,
  options: CallOptions & FileOptions = {},
): Promise<RESTPatchAPIChannelMessageResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: MESSAGE,
    params: { channel_id: channelId, message_id: messageId },
    body: patch,
  });
}

/** Delete a message (another user's needs MANAGE_MESSAGES; the reason is then logged). */
export async function deleteMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: MESSAGE,
    params: { channel_id: channelId, message_id: messageId },
  });
}

/** Delete 2-100 messages at once (none older than two weeks, no id twice: the service refuses those). */
export async function bulkDeleteMessages(
  rest: RestRequester,
  channelId: string,
  messageIds: readonly string[],
  options: ReasonOptions = {},
): Promise<void> {
  const distinct = new Set(messageIds).size;
  if (messageIds.length < MIN_BULK_DELETE || messageIds.length > MAX_BULK_DELETE || distinct !== messageIds.length) {
    throw new RequestRefusedError(
      'POST',
      BULK_DELETE,
      'invalid-input',
      `${messageIds.length} message ids (${distinct} distinct); bulk delete takes ${MIN_BULK_DELETE}-${MAX_BULK_DELETE} distinct ids (use deleteMessage for one)`,
    );
  }
  await rest.request({
    ...options,
    method: 'POST',
    route: BULK_DELETE,
    params: { channel_id: channelId },
    body: { messages: [...messageIds] },
    // Deleting the same messages again deletes nothing more.
    idempotent: true,
  });
}

/** Publish a message of an announcement channel to the channels that follow it. */
export function crosspostMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: CallOptions = {},
): Promise<RESTPostAPIChannelMessageCrosspostResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: '/channels/{channel_id}/messages/{message_id}/crosspost',
    params: { channel_id: channelId, message_id: messageId },
  });
}
