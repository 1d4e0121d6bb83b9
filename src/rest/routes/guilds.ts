import type {
  APIMessageSearchIndexNotReadyResponse,
  APIMessageSearchResult,
  RESTGetAPIGuildChannelsResult,
  RESTGetAPIGuildMessagesSearchQuery,
  RESTGetAPIGuildQuery,
  RESTGetAPIGuildResult,
  RESTPatchAPIGuildChannelPositionsJSONBody,
  RESTPatchAPIGuildJSONBody,
  RESTPatchAPIGuildResult,
  RESTPostAPIGuildChannelJSONBody,
  RESTPostAPIGuildChannelResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonOptions } from './options.js';

/** A guild itself, its channel list and its message search. Members, roles, bans... have their own modules. */

const GUILD = '/guilds/{guild_id}';
const CHANNELS = '/guilds/{guild_id}/channels';

/** The guild; `with_counts` adds approximate_member_count and approximate_presence_count. */
export async function getGuild(
  rest: RestRequester,
  guildId: string,
  query: RESTGetAPIGuildQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: GUILD,
    params: { guild_id: guildId },
    query: pickQuery(query, ['with_counts']),
  });
}

/** Edit the guild's settings (MANAGE_GUILD). */
export function editGuild(
  rest: RestRequester,
  guildId: string,
  patch: RESTPatchAPIGuildJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildResult> {
  return rest.request({ ...options, method: 'PATCH', route: GUILD, params: { guild_id: guildId }, body: patch });
}

/** The guild's channels, threads excluded (listActiveGuildThreads in threads.ts has those). */
export function listGuildChannels(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildChannelsResult> {
  return rest.request({ ...options, method: 'GET', route: CHANNELS, params: { guild_id: guildId } });
}

/** Create a channel (MANAGE_CHANNELS). */
export function createGuildChannel(
  rest: RestRequester,
  guildId: string,
  channel: RESTPostAPIGuildChannelJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIGuildChannelResult> {
  return rest.request({ ...options, method: 'POST', route: CHANNELS, params: { guild_id: guildId }, body: channel });
}

/** Move channels: positions, parents, and whether each takes its new parent's permissions. */
export async function editGuildChannelPositions(
  rest: RestRequester,
  guildId: string,
  positions: RESTPatchAPIGuildChannelPositionsJSONBody,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'PATCH', route: CHANNELS, params: { guild_id: guildId }, body: positions });
}

const SEARCH_KEYS = [
  'limit',
  'offset',
  'max_id',
  'min_id',
  'slop',
  'content',
  'channel_id',
  'author_type',
  'author_id',
  'mentions',
  'mentions_role_id',
  'mention_everyone',
  'replied_to_user_id',
  'replied_to_message_id',
  'pinned',
  'has',
  'embed_type',
  'embed_provider',
  'link_hostname',
  'attachment_filename',
  'attachment_extension',
  'sort_by',
  'sort_order',
  'include_nsfw',
] as const satisfies readonly (keyof RESTGetAPIGuildMessagesSearchQuery)[];

/**
 * Search a guild's messages (READ_MESSAGE_HISTORY; the MESSAGE_CONTENT intent for content). List-valued
 * filters repeat their key. While the guild is being indexed the service answers 202 with
 * `documents_indexed` and `retry_after` (seconds) instead: try again after that.
 */
export async function searchGuildMessages(
  rest: RestRequester,
  guildId: string,
  query: RESTGetAPIGuildMessagesSearchQuery = {},
  options: CallOptions = {},
): Promise<APIMessageSearchResult | APIMessageSearchIndexNotReadyResponse> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/messages/search',
    params: { guild_id: guildId },
    query: pickQuery(query, SEARCH_KEYS),
  });
}
