import type {
  RESTGetAPIChannelMessagesPinsQuery,
  RESTGetAPIChannelMessagesPinsResult,
  RESTGetAPIChannelPinsResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonOptions } from './options.js';

/**
 * Pinned messages. The `/messages/pins` routes are current (paginated, each item with its `pinned_at`);
 * the `/pins` routes are their deprecated predecessors (protocol §S9; the whole list at once),
 * kept because the description still lists them and older tooling uses them.
 */

const PINS = '/channels/{channel_id}/messages/pins';
const PIN = '/channels/{channel_id}/messages/pins/{message_id}';
const LEGACY_PINS = '/channels/{channel_id}/pins';
const LEGACY_PIN = '/channels/{channel_id}/pins/{message_id}';

/** Pins, newest first; page with `before` (an ISO8601 pinned_at) and `limit` (1-50). */
export async function listPins(
  rest: RestRequester,
  channelId: string,
  query: RESTGetAPIChannelMessagesPinsQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelMessagesPinsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: PINS,
    params: { channel_id: channelId },
    query: pickQuery(query, ['before', 'limit']),
  });
}

/** Pin a message (PIN_MESSAGES; at most 250 pins per channel). */
export async function pinMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: PIN,
    params: { channel_id: channelId, message_id: messageId },
  });
}

export async function unpinMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: PIN,
    params: { channel_id: channelId, message_id: messageId },
  });
}

/** @deprecated Use {@link listPins}: the service keeps this route for older clients. */
export function listPinnedMessagesLegacy(
  rest: RestRequester,
  channelId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIChannelPinsResult> {
  return rest.request({ ...options, method: 'GET', route: LEGACY_PINS, params: { channel_id: channelId } });
}

/** @deprecated Use {@link pinMessage}. */
export async function pinMessageLegacy(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: LEGACY_PIN,
    params: { channel_id: channelId, message_id: messageId },
  });
}

/** @deprecated Use {@link unpinMessage}. */
export async function unpinMessageLegacy(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: LEGACY_PIN,
    params: { channel_id: channelId, message_id: messageId },
  });
}
