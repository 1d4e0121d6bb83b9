import type {
  APIApplicationCommandPermission,
  RESTGetAPIApplicationCommandPermissionsResult,
  RESTGetAPIGuildApplicationCommandsPermissionsResult,
  RESTPutAPIApplicationCommandPermissionsResult,
} from 'discord-api-types/v10';
import { RequestRefusedError } from '../errors.js';
import { bearerAuth, type CallOptions, type RestRequester } from '../types.js';

/**
 * Command permissions (protocol §S4.3). Batch editing is disabled by the service (permissions v2) and is
 * deliberately not offered; the client also refuses it if called by hand.
 */

const ALL = '/applications/{application_id}/guilds/{guild_id}/commands/permissions';
const ONE = '/applications/{application_id}/guilds/{guild_id}/commands/{command_id}/permissions';

/** Maximum overwrites per command (protocol §S2.7, §S8). */
export const MAX_PERMISSION_OVERWRITES = 100;

/** Permissions of every command of the app in a guild (an entry with id = application id is the app-wide default). */
export function getGuildCommandPermissions(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildApplicationCommandsPermissionsResult> {
  return rest.request({ ...options, method: 'GET', route: ALL, params: { application_id: applicationId, guild_id: guildId } });
}

export function getCommandPermissions(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  commandId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIApplicationCommandPermissionsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: ONE,
    params: { application_id: applicationId, guild_id: guildId, command_id: commandId },
  });
}

export interface EditPermissionsOptions extends Omit<CallOptions, 'auth'> {
  /**
   * The OAuth2 access token of a user who may manage the guild and its roles, with scope
   * `applications.commands.permissions.update` (protocol §S5). A bot token is rejected by the service,
   * so none is accepted here.
   */
  bearerToken: string;
}

/** Replace one command's overwrites (use the application id as `commandId` for the app-wide default). */
export function editCommandPermissions(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  commandId: string,
  permissions: readonly APIApplicationCommandPermission[],
  options: EditPermissionsOptions,
): Promise<RESTPutAPIApplicationCommandPermissionsResult> {
  const { bearerToken, ...call } = options;
  if (permissions.length > MAX_PERMISSION_OVERWRITES) {
    return Promise.reject(
      new RequestRefusedError(
        'PUT',
        ONE,
        'invalid-input',
        `${permissions.length} permission overwrites; at most ${MAX_PERMISSION_OVERWRITES} per command`,
      ),
    );
  }
  return rest.request({
    ...call,
    method: 'PUT',
    route: ONE,
    params: { application_id: applicationId, guild_id: guildId, command_id: commandId },
    body: { permissions },
    auth: bearerAuth(bearerToken),
  });
}
