import type {
  RESTDeleteAPIInviteResult,
  RESTGetAPIChannelInvitesResult,
  RESTGetAPIGuildInvitesResult,
  RESTGetAPIInviteQuery,
  RESTGetAPIInviteResult,
  RESTPostAPIChannelInviteJSONBody,
  RESTPostAPIChannelInviteResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonFileOptions, type ReasonOptions } from './options.js';

/** Invites: per channel, per guild, and by code. */

/** The parameters the published description gives the invite lookup (`with_expiration` is gone: always on). */
export type GetInviteQuery = Pick<RESTGetAPIInviteQuery, 'with_counts' | 'guild_scheduled_event_id'>;

export async function getInvite(
  rest: RestRequester,
  code: string,
  query: GetInviteQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIInviteResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/invites/{code}',
    params: { code },
    query: pickQuery(query, ['with_counts', 'guild_scheduled_event_id']),
  });
}

/** Revoke an invite (MANAGE_CHANNELS on its channel, or MANAGE_GUILD). */
export function deleteInvite(
  rest: RestRequester,
  code: string,
  options: ReasonOptions = {},
): Promise<RESTDeleteAPIInviteResult> {
  return rest.request({ ...options, method: 'DELETE', route: '/invites/{code}', params: { code } });
}

export function listChannelInvites(
  rest: RestRequester,
  channelId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIChannelInvitesResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/invites',
    params: { channel_id: channelId },
  });
}

/**
 * Create an invite (CREATE_INSTANT_INVITE). `unique: false` may return an existing one with the same
 * settings. To limit it to listed users, pass their ids as a CSV file with `key: 'target_users_file'`.
 */
export function createChannelInvite(
  rest: RestRequester,
  channelId: string,
  invite: RESTPostAPIChannelInviteJSONBody = {},
  options: ReasonFileOptions = {},
): Promise<RESTPostAPIChannelInviteResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: '/channels/{channel_id}/invites',
    params: { channel_id: channelId },
    body: invite,
  });
}

export function listGuildInvites(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildInvitesResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/invites',
    params: { guild_id: guildId },
  });
}
