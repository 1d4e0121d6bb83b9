import type {
  RESTGetAPIApplicationRoleConnectionMetadataResult,
  RESTGetCurrentApplicationResult,
  RESTPatchCurrentApplicationJSONBody,
  RESTPatchCurrentApplicationResult,
  RESTPutAPIApplicationRoleConnectionMetadataJSONBody,
  RESTPutAPIApplicationRoleConnectionMetadataResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';

/** The application of the token; the runtime takes its id when none is configured. */
export function getCurrentApplication(
  rest: RestRequester,
  options: CallOptions = {},
): Promise<RESTGetCurrentApplicationResult> {
  return rest.request({ ...options, method: 'GET', route: '/applications/@me' });
}

/** Edit the application of the token (description, flags, install params, interactions endpoint, ...). */
export function editCurrentApplication(
  rest: RestRequester,
  patch: RESTPatchCurrentApplicationJSONBody,
  options: CallOptions = {},
): Promise<RESTPatchCurrentApplicationResult> {
  return rest.request({ ...options, method: 'PATCH', route: '/applications/@me', body: patch });
}

const APPLICATION = '/applications/{application_id}';

/** An application by id; with a bot token, only the bot's own. */
export function getApplication(
  rest: RestRequester,
  applicationId: string,
  options: CallOptions = {},
): Promise<RESTGetCurrentApplicationResult> {
  return rest.request({ ...options, method: 'GET', route: APPLICATION, params: { application_id: applicationId } });
}

export function editApplication(
  rest: RestRequester,
  applicationId: string,
  patch: RESTPatchCurrentApplicationJSONBody,
  options: CallOptions = {},
): Promise<RESTPatchCurrentApplicationResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: APPLICATION,
    params: { application_id: applicationId },
    body: patch,
  });
}

const ROLE_CONNECTION_METADATA = '/applications/{application_id}/role-connections/metadata';

/** Role-connection metadata records of the app (protocol §S4.4: authenticated with a Bearer token; pass `auth`). */
export function getRoleConnectionMetadata(
  rest: RestRequester,
  applicationId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIApplicationRoleConnectionMetadataResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: ROLE_CONNECTION_METADATA,
    params: { application_id: applicationId },
  });
}

export function updateRoleConnectionMetadata(
  rest: RestRequester,
  applicationId: string,
  records: RESTPutAPIApplicationRoleConnectionMetadataJSONBody,
  options: CallOptions = {},
): Promise<RESTPutAPIApplicationRoleConnectionMetadataResult> {
  return rest.request({
    ...options,
    method: 'PUT',
    route: ROLE_CONNECTION_METADATA,
    params: { application_id: applicationId },
    body: records,
  });
}
