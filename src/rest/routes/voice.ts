import type {
  RESTGetAPIGuildVoiceStateCurrentMemberResult,
  RESTGetAPIGuildVoiceStateUserResult,
  RESTPatchAPIGuildVoiceStateCurrentMemberJSONBody,
  RESTPatchAPIGuildVoiceStateUserJSONBody,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';

/**
 * Voice states in a guild: read them, and in stage channels ask to speak or move speakers. Setting a voice
 * channel's status is setVoiceChannelStatus in channels.ts.
 */

const OWN = '/guilds/{guild_id}/voice-states/@me';
const USER = '/guilds/{guild_id}/voice-states/{user_id}';

export function getCurrentUserVoiceState(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildVoiceStateCurrentMemberResult> {
  return rest.request({ ...options, method: 'GET', route: OWN, params: { guild_id: guildId } });
}

export function getUserVoiceState(
  rest: RestRequester,
  guildId: string,
  userId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildVoiceStateUserResult> {
  return rest.request({ ...options, method: 'GET', route: USER, params: { guild_id: guildId, user_id: userId } });
}

/** The bot in a stage: `suppress`, `request_to_speak_timestamp` (the stage channel in `channel_id`). */
export async function editCurrentUserVoiceState(
  rest: RestRequester,
  guildId: string,
  patch: RESTPatchAPIGuildVoiceStateCurrentMemberJSONBody,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'PATCH', route: OWN, params: { guild_id: guildId }, body: patch });
}

/** Another user in a stage: `suppress` (MUTE_MEMBERS). */
export async function editUserVoiceState(
  rest: RestRequester,
  guildId: string,
  userId: string,
  patch: RESTPatchAPIGuildVoiceStateUserJSONBody,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PATCH',
    route: USER,
    params: { guild_id: guildId, user_id: userId },
    body: patch,
  });
}
