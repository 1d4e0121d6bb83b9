import type {
  RESTGetAPIChannelMessageReactionUsersQuery,
  RESTGetAPIChannelMessageReactionUsersResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery } from './options.js';

/**
 * Reactions. An emoji is given as the character itself (`👍`), as `name:id` for a custom emoji, or in
 * message form (`<:name:id>`, `<a:name:id>`); the client URL-encodes it. An already URL-encoded emoji
 * (`%F0%9F%91%8D`) is decoded first, so it is not encoded twice (custom emoji names have no `%`).
 */

const REACTIONS = '/channels/{channel_id}/messages/{message_id}/reactions';
const EMOJI = '/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}';
const OWN = '/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me';
const USER = '/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/{user_id}';

const MENTION = /^<a?:([A-Za-z0-9_~-]+):(\d+)>$/;

/** The emoji as the reaction routes take it (before URL-encoding). */
export function reactionEmoji(emoji: string): string {
  const mention = MENTION.exec(emoji);
  if (mention) return `${mention[1]}:${mention[2]}`;
  if (emoji.includes('%')) {
    try {
      return decodeURIComponent(emoji);
    } catch {
      return emoji;
    }
  }
  return emoji;
}

/** React as the bot (204; reacting again with the same emoji changes nothing). */
export async function addReaction(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  emoji: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: OWN,
    params: { channel_id: channelId, message_id: messageId, emoji_name: reactionEmoji(emoji) },
  });
}

export async function removeOwnReaction(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  emoji: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: OWN,
    params: { channel_id: channelId, message_id: messageId, emoji_name: reactionEmoji(emoji) },
  });
}

/** Remove another user's reaction (MANAGE_MESSAGES). */
export async function removeUserReaction(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  emoji: string,
  userId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: USER,
    params: { channel_id: channelId, message_id: messageId, emoji_name: reactionEmoji(emoji), user_id: userId },
  });
}

/** Users who reacted with an emoji; `type` 0 normal (default), 1 burst; page with `after` (limit 1-100). */
export async function getReactions(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  emoji: string,
  query: RESTGetAPIChannelMessageReactionUsersQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelMessageReactionUsersResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: EMOJI,
    params: { channel_id: channelId, message_id: messageId, emoji_name: reactionEmoji(emoji) },
    query: pickQuery(query, ['type', 'after', 'limit']),
  });
}

/** Remove every reaction of one emoji (MANAGE_MESSAGES). */
export async function removeEmojiReactions(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  emoji: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: EMOJI,
    params: { channel_id: channelId, message_id: messageId, emoji_name: reactionEmoji(emoji) },
  });
}

/** Remove every reaction of a message (MANAGE_MESSAGES). */
export async function removeAllReactions(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: REACTIONS,
    params: { channel_id: channelId, message_id: messageId },
  });
}
