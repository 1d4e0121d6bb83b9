import type {
  RESTGetAPICurrentUserApplicationRoleConnectionResult,
  RESTGetAPICurrentUserConnectionsResult,
  RESTGetAPICurrentUserGuildsQuery,
  RESTGetAPICurrentUserGuildsResult,
  RESTGetAPICurrentUserResult,
  RESTGetAPIUserResult,
  RESTGetCurrentUserGuildMemberResult,
  RESTPatchAPICurrentUserJSONBody,
  RESTPatchAPICurrentUserResult,
  RESTPostAPICurrentUserCreateDMChannelResult,
  RESTPutAPICurrentUserApplicationRoleConnectionJSONBody,
  RESTPutAPICurrentUserApplicationRoleConnectionResult,
} from 'discord-api-types/v10';
import { bearerAuth, type CallOptions, type RestRequester } from '../types.js';

/** The authenticated user: works with the bot token (default) or a Bearer token passed in `auth`. */
export function getCurrentUser(rest: RestRequester, options: CallOptions = {}): Promise<RESTGetAPICurrentUserResult> {
  return rest.request({ ...options, method: 'GET', route: '/users/@me' });
}

export function getUser(rest: RestRequester, userId: string, options: CallOptions = {}): Promise<RESTGetAPIUserResult> {
  return rest.request({ ...options, method: 'GET', route: '/users/{user_id}', params: { user_id: userId } });
}

/** Change the bot's username, avatar or banner (data URIs). */
export function editCurrentUser(
  rest: RestRequester,
  patch: RESTPatchAPICurrentUserJSONBody,
  options: CallOptions = {},
): Promise<RESTPatchAPICurrentUserResult> {
  return rest.request({ ...options, method: 'PATCH', route: '/users/@me', body: patch });
}

/** Open (or get) the DM channel with a user. */
export function createDM(
  rest: RestRequester,
  userId: string,
  options: CallOptions = {},
): Promise<RESTPostAPICurrentUserCreateDMChannelResult> {
  // The same DM channel comes back each time: safe to retry.
  return rest.request({
    ...options,
    method: 'POST',
    route: '/users/@me/channels',
    body: { recipient_id: userId },
    idempotent: true,
  });
}

/** Make the bot leave a guild. */
export async function leaveGuild(rest: RestRequester, guildId: string, options: CallOptions = {}): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: '/users/@me/guilds/{guild_id}',
    params: { guild_id: guildId },
  });
}

/** Accounts connected to the user (scope `connections` with a Bearer token in `auth`). */
export function getCurrentUserConnections(
  rest: RestRequester,
  options: CallOptions = {},
): Promise<RESTGetAPICurrentUserConnectionsResult> {
  return rest.request({ ...options, method: 'GET', route: '/users/@me/connections' });
}

/** The user's member object in a guild; needs the user's Bearer token (scope `guilds.members.read`). */
export function getCurrentUserGuildMember(
  rest: RestRequester,
  guildId: string,
  bearerToken: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTGetCurrentUserGuildMemberResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/users/@me/guilds/{guild_id}/member',
    params: { guild_id: guildId },
    auth: bearerAuth(bearerToken),
  });
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

/** Remove the user's role connection for an app (Bearer token, scope role_connections.write). */
export async function deleteCurrentUserRoleConnection(
  rest: RestRequester,
  applicationId: string,
  bearerToken: string,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: ROLE_CONNECTION,
    params: { application_id: applicationId },
    auth: bearerAuth(bearerToken),
  });
}
