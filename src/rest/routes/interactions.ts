import type {
  RESTGetAPIInteractionFollowupResult,
  RESTGetAPIInteractionOriginalResponseResult,
  RESTPatchAPIInteractionFollowupJSONBody,
  RESTPatchAPIInteractionFollowupResult,
  RESTPatchAPIInteractionOriginalResponseJSONBody,
  RESTPatchAPIInteractionOriginalResponseResult,
  RESTPostAPIInteractionCallbackJSONBody,
  RESTPostAPIInteractionCallbackWithResponseResult,
  RESTPostAPIInteractionFollowupJSONBody,
  RESTPostAPIInteractionFollowupResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestFile, RestRequester } from '../types.js';

/**
 * Answering interactions. These routes carry the interaction token in the path: they are named by template
 * everywhere (logs, errors, bucket keys hash the token), need no bot token (none is sent), and do not count
 * against the global limit. The initial response is due within 3 seconds; pass a `signal` or `timeoutMs`
 * that fits that budget.
 */

const CALLBACK = '/interactions/{interaction_id}/{interaction_token}/callback';
/** The error code of a second callback for one interaction. */
const ALREADY_ACKNOWLEDGED = 40060;
const ORIGINAL = '/webhooks/{application_id}/{interaction_token}/messages/@original';
const FOLLOWUPS = '/webhooks/{application_id}/{interaction_token}';
const FOLLOWUP = '/webhooks/{application_id}/{interaction_token}/messages/{message_id}';

export interface InteractionCallOptions extends Omit<CallOptions, 'auth'> {
  files?: readonly RestFile[];
}

/** Initial response (204). */
export function createInteractionResponse(
  rest: RestRequester,
  interactionId: string,
  interactionToken: string,
  response: RESTPostAPIInteractionCallbackJSONBody,
  options?: InteractionCallOptions & { withResponse?: false },
): Promise<undefined>;
/** Initial response with `with_response=true` (200 and the callback resource). */
export function createInteractionResponse(
  rest: RestRequester,
  interactionId: string,
  interactionToken: string,
  response: RESTPostAPIInteractionCallbackJSONBody,
  options: InteractionCallOptions & { withResponse: true },
): Promise<RESTPostAPIInteractionCallbackWithResponseResult>;
export function createInteractionResponse(
  rest: RestRequester,
  interactionId: string,
  interactionToken: string,
  response: RESTPostAPIInteractionCallbackJSONBody,
  options: InteractionCallOptions & { withResponse?: boolean } = {},
): Promise<RESTPostAPIInteractionCallbackWithResponseResult | undefined> {
  const { withResponse, ...call } = options;
  return rest.request({
    ...call,
    method: 'POST',
    route: CALLBACK,
    params: { interaction_id: interactionId, interaction_token: interactionToken },
    query: { with_response: withResponse ? true : undefined },
    body: response,
    auth: false,
    // Sent twice after a stale socket, a callback that did arrive is refused 40060 (protocol §14.4, §2.6): safe
    // to repeat, and that refusal is the success. Not with_response: its body would be lost.
    ...(withResponse === true ? {} : { repeatRefusedCode: ALREADY_ACKNOWLEDGED }),
  });
}

export function getOriginalResponse(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTGetAPIInteractionOriginalResponseResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: ORIGINAL,
    params: { application_id: applicationId, interaction_token: interactionToken },
    auth: false,
  });
}

export function editOriginalResponse(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  patch: RESTPatchAPIInteractionOriginalResponseJSONBody,
  options: InteractionCallOptions = {},
): Promise<RESTPatchAPIInteractionOriginalResponseResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: ORIGINAL,
    params: { application_id: applicationId, interaction_token: interactionToken },
    body: patch,
    auth: false,
  });
}

export async function deleteOriginalResponse(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: ORIGINAL,
    params: { application_id: applicationId, interaction_token: interactionToken },
    auth: false,
  });
}

/** A follow-up message (returns the message; the service forces `wait`). */
export function createFollowup(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  message: RESTPostAPIInteractionFollowupJSONBody,
  options: InteractionCallOptions = {},
): Promise<RESTPostAPIInteractionFollowupResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: FOLLOWUPS,
    params: { application_id: applicationId, interaction_token: interactionToken },
    body: message,
    auth: false,
  });
}

export function getFollowup(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  messageId: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTGetAPIInteractionFollowupResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: FOLLOWUP,
    params: { application_id: applicationId, interaction_token: interactionToken, message_id: messageId },
    auth: false,
  });
}

export function editFollowup(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  messageId: string,
  patch: RESTPatchAPIInteractionFollowupJSONBody,
  options: InteractionCallOptions = {},
): Promise<RESTPatchAPIInteractionFollowupResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: FOLLOWUP,
    params: { application_id: applicationId, interaction_token: interactionToken, message_id: messageId },
    body: patch,
    auth: false,
  });
}

export async function deleteFollowup(
  rest: RestRequester,
  applicationId: string,
  interactionToken: string,
  messageId: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: FOLLOWUP,
    params: { application_id: applicationId, interaction_token: interactionToken, message_id: messageId },
    auth: false,
  });
}
