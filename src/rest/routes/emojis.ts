import type {
  RESTGetAPIApplicationEmojiResult,
  RESTGetAPIApplicationEmojisResult,
  RESTGetAPIGuildEmojiResult,
  RESTGetAPIGuildEmojisResult,
  RESTPatchAPIApplicationEmojiJSONBody,
  RESTPatchAPIApplicationEmojiResult,
  RESTPatchAPIGuildEmojiJSONBody,
  RESTPatchAPIGuildEmojiResult,
  RESTPostAPIApplicationEmojiJSONBody,
  RESTPostAPIApplicationEmojiResult,
  RESTPostAPIGuildEmojiJSONBody,
  RESTPostAPIGuildEmojiResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import type { ReasonOptions } from './options.js';

/**
 * Custom emojis of a guild (CREATE/MANAGE_GUILD_EXPRESSIONS) and of the application (usable by the app in
 * every guild). `image` is a data URI (`data:image/png;base64,...`, at most 256 KiB).
 */

const GUILD_EMOJIS = '/guilds/{guild_id}/emojis';
const GUILD_EMOJI = '/guilds/{guild_id}/emojis/{emoji_id}';
const APP_EMOJIS = '/applications/{application_id}/emojis';
const APP_EMOJI = '/applications/{application_id}/emojis/{emoji_id}';

export function listGuildEmojis(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildEmojisResult> {
  return rest.request({ ...options, method: 'GET', route: GUILD_EMOJIS, params: { guild_id: guildId } });
}

export function getGuildEmoji(
  rest: RestRequester,
  guildId: string,
  emojiId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildEmojiResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: GUILD_EMOJI,
    params: { guild_id: guildId, emoji_id: emojiId },
  });
}

export function createGuildEmoji(
  rest: RestRequester,
  guildId: string,
  emoji: RESTPostAPIGuildEmojiJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIGuildEmojiResult> {
  return rest.request({ ...options, method: 'POST', route: GUILD_EMOJIS, params: { guild_id: guildId }, body: emoji });
}

export function editGuildEmoji(
  rest: RestRequester,
  guildId: string,
  emojiId: string,
  patch: RESTPatchAPIGuildEmojiJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildEmojiResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: GUILD_EMOJI,
    params: { guild_id: guildId, emoji_id: emojiId },
    body: patch,
  });
}

export async function deleteGuildEmoji(
  rest: RestRequester,
  guildId: string,
  emojiId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: GUILD_EMOJI,
    params: { guild_id: guildId, emoji_id: emojiId },
  });
}

/** The application's emojis, as `{ items: [...] }`. */
export function listApplicationEmojis(
  rest: RestRequester,
  applicationId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIApplicationEmojisResult> {
  return rest.request({ ...options, method: 'GET', route: APP_EMOJIS, params: { application_id: applicationId } });
}

export function getApplicationEmoji(
  rest: RestRequester,
  applicationId: string,
  emojiId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIApplicationEmojiResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: APP_EMOJI,
    params: { application_id: applicationId, emoji_id: emojiId },
  });
}

export function createApplicationEmoji(
  rest: RestRequester,
  applicationId: string,
  emoji: RESTPostAPIApplicationEmojiJSONBody,
  options: CallOptions = {},
): Promise<RESTPostAPIApplicationEmojiResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: APP_EMOJIS,
    params: { application_id: applicationId },
    body: emoji,
  });
}

export function editApplicationEmoji(
  rest: RestRequester,
  applicationId: string,
  emojiId: string,
  patch: RESTPatchAPIApplicationEmojiJSONBody,
  options: CallOptions = {},
): Promise<RESTPatchAPIApplicationEmojiResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: APP_EMOJI,
    params: { application_id: applicationId, emoji_id: emojiId },
    body: patch,
  });
}

export async function deleteApplicationEmoji(
  rest: RestRequester,
  applicationId: string,
  emojiId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: APP_EMOJI,
    params: { application_id: applicationId, emoji_id: emojiId },
  });
}
