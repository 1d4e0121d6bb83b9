import type {
  RESTDeleteAPIChannelResult,
  RESTGetAPIChannelResult,
  RESTGetAPIChannelThreadMemberResult,
  RESTGetAPIChannelThreadMembersResult,
  RESTPatchAPIChannelJSONBody,
  RESTPatchAPIChannelResult,
  RESTPostAPIChannelTypingResult,
  RESTPutAPIChannelPermissionJSONBody,
} from 'discord-api-types/v10';
import { RequestRefusedError } from '../errors.js';
import type { CallOptions, RestRequester } from '../types.js';
import type { ReasonOptions } from './options.js';

/**
 * Channels (guild channels, threads, DMs): read, edit, delete, permission overwrites, typing, voice status.
 * Threads' own endpoints are in threads.ts, messages in messages.ts; the thread-member helpers below stay
 * here where they were first exported.
 */

const CHANNEL = '/channels/{channel_id}';
const OVERWRITE = '/channels/{channel_id}/permissions/{overwrite_id}';

export function getChannel(
  rest: RestRequester,
  channelId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIChannelResult> {
  return rest.request({ ...options, method: 'GET', route: CHANNEL, params: { channel_id: channelId } });
}

/** Edit a guild channel, a thread (archived, locked, auto_archive_duration, ...) or a group DM. */
export function editChannel(
  rest: RestRequester,
  channelId: string,
  patch: RESTPatchAPIChannelJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIChannelResult> {
  return rest.request({ ...options, method: 'PATCH', route: CHANNEL, params: { channel_id: channelId }, body: patch });
}

/** Delete a guild channel or thread (close a DM); resolves with the channel as it was. */
export function deleteChannel(
  rest: RestRequester,
  channelId: string,
  options: ReasonOptions = {},
): Promise<RESTDeleteAPIChannelResult> {
  return rest.request({ ...options, method: 'DELETE', route: CHANNEL, params: { channel_id: channelId } });
}

/** Create or replace the overwrite of a role (`type: 0`) or member (`type: 1`) on a channel. */
export async function editChannelPermissions(
  rest: RestRequester,
  channelId: string,
  overwriteId: string,
  overwrite: RESTPutAPIChannelPermissionJSONBody,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: OVERWRITE,
    params: { channel_id: channelId, overwrite_id: overwriteId },
    body: overwrite,
  });
}

export async function deleteChannelPermission(
  rest: RestRequester,
  channelId: string,
  overwriteId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: OVERWRITE,
    params: { channel_id: channelId, overwrite_id: overwriteId },
  });
}

/** Show "typing..." in a channel for about 10 seconds, or until the bot sends a message there. */
export async function triggerTyping(
  rest: RestRequester,
  channelId: string,
  options: CallOptions = {},
): Promise<RESTPostAPIChannelTypingResult> {
  // Sending it twice has the effect of sending it once: a lost answer may be retried.
  await rest.request({
    ...options,
    method: 'POST',
    route: '/channels/{channel_id}/typing',
    params: { channel_id: channelId },
    idempotent: true,
  });
}

/** Maximum length of a voice channel status (protocol §S4.4, §S8). */
export const MAX_VOICE_STATUS_LENGTH = 500;

const VOICE_STATUS = '/channels/{channel_id}/voice-status';

/** Set (or clear, with null) a voice channel's status. */
export async function setVoiceChannelStatus(
  rest: RestRequester,
  channelId: string,
  status: string | null,
  options: ReasonOptions = {},
): Promise<void> {
  if (status !== null && [...status].length > MAX_VOICE_STATUS_LENGTH) {
    throw new RequestRefusedError(
      'PUT',
      VOICE_STATUS,
      'invalid-input',
      `voice channel status is ${[...status].length} characters; at most ${MAX_VOICE_STATUS_LENGTH}`,
    );
  }
  await rest.request({
    ...options,
    method: 'PUT',
    route: VOICE_STATUS,
    params: { channel_id: channelId },
    body: { status },
  });
}

export interface ThreadMembersQuery {
  /** Include a guild member object per thread member; enables pagination. */
  withMember?: boolean;
  after?: string;
  /** 1-100, default 100 (only with withMember). */
  limit?: number;
}

export function getThreadMembers(
  rest: RestRequester,
  channelId: string,
  query: ThreadMembersQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelThreadMembersResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/thread-members',
    params: { channel_id: channelId },
    query: { with_member: query.withMember, after: query.after, limit: query.limit },
  });
}

export function getThreadMember(
  rest: RestRequester,
  channelId: string,
  userId: string,
  query: { withMember?: boolean } = {},
  options: CallOptions = {},
): Promise<RESTGetAPIChannelThreadMemberResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/thread-members/{user_id}',
    params: { channel_id: channelId, user_id: userId },
    query: { with_member: query.withMember },
  });
}

/** Add the current user (the bot) to a thread. */
export async function joinThread(rest: RestRequester, channelId: string, options: CallOptions = {}): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: '/channels/{channel_id}/thread-members/@me',
    params: { channel_id: channelId },
  });
}

export async function addThreadMember(
  rest: RestRequester,
  channelId: string,
  userId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: '/channels/{channel_id}/thread-members/{user_id}',
    params: { channel_id: channelId, user_id: userId },
  });
}
