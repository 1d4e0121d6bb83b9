import type {
  APIMessage,
  APIMessageSearchIndexNotReadyResponse,
  APIThreadChannel,
  APIThreadMember,
  RESTGetAPIChannelThreadsArchivedPrivateResult,
  RESTGetAPIChannelThreadsArchivedPublicResult,
  RESTGetAPIChannelThreadsArchivedQuery,
  RESTGetAPIChannelUsersThreadsArchivedResult,
  RESTGetAPIGuildThreadsResult,
  RESTPostAPIChannelMessagesThreadsJSONBody,
  RESTPostAPIChannelMessagesThreadsResult,
  RESTPostAPIChannelThreadsJSONBody,
  RESTPostAPIChannelThreadsResult,
  RESTPostAPIGuildForumThreadsJSONBody,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonFileOptions, type ReasonOptions } from './options.js';

/**
 * Threads: start one (from a message, on its own, or as a forum/media post), list archived and active
 * ones, search a forum, and leave or remove members. Joining, adding and reading thread members are in
 * channels.ts (exported from there first); editing and deleting a thread are editChannel/deleteChannel.
 */

/** Start a thread on an existing message (its id becomes the thread's id). */
export function startThreadFromMessage(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  thread: RESTPostAPIChannelMessagesThreadsJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIChannelMessagesThreadsResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: '/channels/{channel_id}/messages/{message_id}/threads',
    params: { channel_id: channelId, message_id: messageId },
    body: thread,
  });
}

/**
 * Start a thread without a message (`type` 11 public, 12 private; default private), or, in a forum or media
 * channel, a post with its first `message` (files for that message go in `files`).
 */
export function startThread(
  rest: RestRequester,
  channelId: string,
  thread: RESTPostAPIChannelThreadsJSONBody | RESTPostAPIGuildForumThreadsJSONBody,
  options: ReasonFileOptions = {},
): Promise<RESTPostAPIChannelThreadsResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: '/channels/{channel_id}/threads',
    params: { channel_id: channelId },
    body: thread,
  });
}

/** Remove the bot from a thread. */
export async function leaveThread(rest: RestRequester, channelId: string, options: CallOptions = {}): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: '/channels/{channel_id}/thread-members/@me',
    params: { channel_id: channelId },
  });
}

/** Remove a member from a thread (MANAGE_THREADS, or the creator of a private thread). */
export async function removeThreadMember(
  rest: RestRequester,
  channelId: string,
  userId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: '/channels/{channel_id}/thread-members/{user_id}',
    params: { channel_id: channelId, user_id: userId },
  });
}

/** Archived public threads, newest archived first; page with `before` (ISO8601) and `limit`. */
export async function listPublicArchivedThreads(
  rest: RestRequester,
  channelId: string,
  query: RESTGetAPIChannelThreadsArchivedQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelThreadsArchivedPublicResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/threads/archived/public',
    params: { channel_id: channelId },
    query: pickQuery(query, ['before', 'limit']),
  });
}

/** Archived private threads (MANAGE_THREADS). */
export async function listPrivateArchivedThreads(
  rest: RestRequester,
  channelId: string,
  query: RESTGetAPIChannelThreadsArchivedQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelThreadsArchivedPrivateResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/threads/archived/private',
    params: { channel_id: channelId },
    query: pickQuery(query, ['before', 'limit']),
  });
}

/** Archived private threads the bot has joined; `before` is a thread id here. */
export async function listJoinedPrivateArchivedThreads(
  rest: RestRequester,
  channelId: string,
  query: RESTGetAPIChannelThreadsArchivedQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelUsersThreadsArchivedResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/users/@me/threads/archived/private',
    params: { channel_id: channelId },
    query: pickQuery(query, ['before', 'limit']),
  });
}

/** Every active thread of a guild the bot can see, with the bot's thread members. */
export function listActiveGuildThreads(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildThreadsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/threads/active',
    params: { guild_id: guildId },
  });
}

/** Query of a thread search (the published description's parameters; discord-api-types has none). */
export interface ThreadSearchQuery {
  name?: string;
  slop?: number;
  min_id?: string;
  max_id?: string;
  /** Tag ids: repeated in the query. */
  tag?: readonly string[];
  tag_setting?: 'match_all' | 'match_some';
  archived?: boolean;
  sort_by?: 'relevance' | 'creation_time' | 'last_message_time' | 'archive_time';
  sort_order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export interface ThreadSearchResult {
  threads: APIThreadChannel[];
  members: APIThreadMember[];
  has_more: boolean;
  first_messages?: APIMessage[];
  total_results: number;
}

/**
 * Search the threads (posts) of a forum or text channel. While the channel is being indexed the service
 * answers 202 with `documents_indexed` and `retry_after` (seconds) instead: try again after that.
 */
export async function searchThreads(
  rest: RestRequester,
  channelId: string,
  query: ThreadSearchQuery = {},
  options: CallOptions = {},
): Promise<ThreadSearchResult | APIMessageSearchIndexNotReadyResponse> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/threads/search',
    params: { channel_id: channelId },
    query: pickQuery(query, [
      'name',
      'slop',
      'min_id',
      'max_id',
      'tag',
      'tag_setting',
      'archived',
      'sort_by',
      'sort_order',
      'limit',
      'offset',
    ]),
  });
}
