import type {
  RESTGetAPIPollAnswerVotersQuery,
  RESTGetAPIPollAnswerVotersResult,
  RESTPostAPIPollExpireResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery } from './options.js';

/** Polls: a poll is created as part of a message (`poll` in createMessage's body); these read and end it. */

/** Users who voted for one answer (answer ids start at 1); page with `after` (limit 1-100, default 25). */
export async function getPollAnswerVoters(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  answerId: number | string,
  query: RESTGetAPIPollAnswerVotersQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIPollAnswerVotersResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/channels/{channel_id}/polls/{message_id}/answers/{answer_id}',
    params: { channel_id: channelId, message_id: messageId, answer_id: String(answerId) },
    query: pickQuery(query, ['after', 'limit']),
  });
}

/** End a poll of the bot's now; resolves with the message, its results being finalized. */
export function endPoll(
  rest: RestRequester,
  channelId: string,
  messageId: string,
  options: CallOptions = {},
): Promise<RESTPostAPIPollExpireResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: '/channels/{channel_id}/polls/{message_id}/expire',
    params: { channel_id: channelId, message_id: messageId },
  });
}
