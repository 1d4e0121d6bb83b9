import type {
  RESTGetAPIGuildRoleResult,
  RESTGetAPIGuildRolesResult,
  RESTPatchAPIGuildRoleJSONBody,
  RESTPatchAPIGuildRolePositionsJSONBody,
  RESTPatchAPIGuildRolePositionsResult,
  RESTPatchAPIGuildRoleResult,
  RESTPostAPIGuildRoleJSONBody,
  RESTPostAPIGuildRoleResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import type { ReasonOptions } from './options.js';

/** Guild roles (MANAGE_ROLES for changes). A member's roles are changed in members.ts. */

const ROLES = '/guilds/{guild_id}/roles';
const ROLE = '/guilds/{guild_id}/roles/{role_id}';

export function listRoles(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildRolesResult> {
  return rest.request({ ...options, method: 'GET', route: ROLES, params: { guild_id: guildId } });
}

export function getRole(
  rest: RestRequester,
  guildId: string,
  roleId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildRoleResult> {
  return rest.request({ ...options, method: 'GET', route: ROLE, params: { guild_id: guildId, role_id: roleId } });
}

export function createRole(
  rest: RestRequester,
  guildId: string,
  role: RESTPostAPIGuildRoleJSONBody = {},
  options: ReasonOptions = {},
): Promise<RESTPostAPIGuildRoleResult> {
  return rest.request({ ...options, method: 'POST', route: ROLES, params: { guild_id: guildId }, body: role });
}

/** Move roles; resolves with every role of the guild. */
export function editRolePositions(
  rest: RestRequester,
  guildId: string,
  positions: RESTPatchAPIGuildRolePositionsJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildRolePositionsResult> {
  return rest.request({ ...options, method: 'PATCH', route: ROLES, params: { guild_id: guildId }, body: positions });
}

export function editRole(
  rest: RestRequester,
  guildId: string,
  roleId: string,
  patch: RESTPatchAPIGuildRoleJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildRoleResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: ROLE,
    params: { guild_id: guildId, role_id: roleId },
    body: patch,
  });
}

export async function deleteRole(
  rest: RestRequester,
  guildId: string,
  roleId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'DELETE', route: ROLE, params: { guild_id: guildId, role_id: roleId } });
}
