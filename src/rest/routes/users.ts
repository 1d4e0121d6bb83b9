import type {
  RESTGetAPICurrentUserApplicationRoleConnectionResult,
  RESTGetAPICurrentUserGuildsQuery,
  RESTGetAPICurrentUserGuildsResult,
  RESTGetAPICurrentUserResult,
  RESTPutAPICurrentUserApplicationRoleConnectionJSONBody,
  RESTPutAPICurrentUserApplicationRoleConnectionResult,
} from 'discord-api-types/v10';
import { bearerAuth, type CallOptions, type RestRequester } from '../types.js';

/** The authenticated user: works with the bot token (default) or a Bearer token passed in `auth`. */
export function getCurrentUser(rest: RestRequester, options: CallOptions = {}): Promise<RESTGetAPICurrentUserResult> {
  return rest.request({ ...options, method: 'GET', route: '/users/@me' });
}

/** Guilds of the current user; each carries its `banner`. Paginated with before/after/limit. */
export function getCurrentUserGuilds(
  rest: RestRequester,
  query: RESTGetAPICurrentUserGuildsQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPICurrentUserGuildsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/users/@me/guilds',
    query: { before: query.before, after: query.after, limit: query.limit, with_counts: query.with_counts },
  });
}

const ROLE_CONNECTION = '/users/@me/applications/{application_id}/role-connection';

/** The user's role connection for an app; needs the user's Bearer token (scope role_connections.write). */
export function getCurrentUserRoleConnection(
  rest: RestRequester,
  applicationId: string,
  bearerToken: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTGetAPICurrentUserApplicationRoleConnectionResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: ROLE_CONNECTION,
    params: { application_id: applicationId },
    auth: bearerAuth(bearerToken),
  });
}

export function updateCurrentUserRoleConnection(
  rest: RestRequester,
  applicationId: string,
  bearerToken: string,
  connection: RESTPutAPICurrentUserApplicationRoleConnectionJSONBody,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTPutAPICurrentUserApplicationRoleConnectionResult> {
  return rest.request({
    ...options,
    method: 'PUT',
    route: ROLE_CONNECTION,
    params: { application_id: applicationId },
    body: connection,
    auth: bearerAuth(bearerToken),
  });
}
