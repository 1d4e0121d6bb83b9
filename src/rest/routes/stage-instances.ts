import type {
  RESTGetAPIStageInstanceResult,
  RESTPatchAPIStageInstanceJSONBody,
  RESTPatchAPIStageInstanceResult,
  RESTPostAPIStageInstanceJSONBody,
  RESTPostAPIStageInstanceResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import type { ReasonOptions } from './options.js';

/** Stage instances: a live stage in a stage channel (the bot must be a stage moderator). */

const INSTANCE = '/stage-instances/{channel_id}';

export function createStageInstance(
  rest: RestRequester,
  instance: RESTPostAPIStageInstanceJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIStageInstanceResult> {
  return rest.request({ ...options, method: 'POST', route: '/stage-instances', body: instance });
}

export function getStageInstance(
  rest: RestRequester,
  channelId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIStageInstanceResult> {
  return rest.request({ ...options, method: 'GET', route: INSTANCE, params: { channel_id: channelId } });
}

export function editStageInstance(
  rest: RestRequester,
  channelId: string,
  patch: RESTPatchAPIStageInstanceJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIStageInstanceResult> {
  return rest.request({ ...options, method: 'PATCH', route: INSTANCE, params: { channel_id: channelId }, body: patch });
}

/** End a stage. */
export async function deleteStageInstance(
  rest: RestRequester,
  channelId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'DELETE', route: INSTANCE, params: { channel_id: channelId } });
}
