import type {
  RESTGetAPIChannelThreadMemberResult,
  RESTGetAPIChannelThreadMembersResult,
} from 'discord-api-types/v10';
import { RequestRefusedError } from '../errors.js';
import type { CallOptions, RestRequester } from '../types.js';

/** Maximum length of a voice channel status (spec 4.4, 8). */
export const MAX_VOICE_STATUS_LENGTH = 500;

const VOICE_STATUS = '/channels/{channel_id}/voice-status';

/** Set (or clear, with null) a voice channel's status. */
export async function setVoiceChannelStatus(
  rest: RestRequester,
  channelId: string,
  status: string | null,
  options: CallOptions & { reason?: string } = {},
): Promise<void> {
  if (status !== null && [...status].length > MAX_VOICE_STATUS_LENGTH) {
    throw new RequestRefusedError(
      'PUT',
      VOICE_STATUS,
      'invalid-input',
      `voice channel status is ${[...status].length} characters; at most ${MAX_VOICE_STATUS_LENGTH}`,
    );
  }
  await rest.request({ ...options, method: 'PUT', route: VOICE_STATUS, params: { channel_id: channelId }, body: { status } });
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
