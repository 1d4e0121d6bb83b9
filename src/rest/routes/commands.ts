import type {
  RESTGetAPIApplicationCommandResult,
  RESTGetAPIApplicationCommandsResult,
  RESTGetAPIApplicationGuildCommandResult,
  RESTGetAPIApplicationGuildCommandsResult,
  RESTPatchAPIApplicationCommandJSONBody,
  RESTPatchAPIApplicationCommandResult,
  RESTPatchAPIApplicationGuildCommandJSONBody,
  RESTPatchAPIApplicationGuildCommandResult,
  RESTPostAPIApplicationCommandsJSONBody,
  RESTPostAPIApplicationCommandsResult,
  RESTPostAPIApplicationGuildCommandsJSONBody,
  RESTPostAPIApplicationGuildCommandsResult,
  RESTPutAPIApplicationCommandsJSONBody,
  RESTPutAPIApplicationCommandsResult,
  RESTPutAPIApplicationGuildCommandsJSONBody,
  RESTPutAPIApplicationGuildCommandsResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester, RestResponse } from '../types.js';

/**
 * Application commands, global and per guild (protocol §S4.1, §S4.2). Every endpoint accepts the bot token or a
 * client-credentials Bearer token of the app (protocol §S5): pass `auth` to use the latter.
 */

export interface ListCommandsOptions extends CallOptions {
  /** Full localization dictionaries instead of the requester's `name_localized` (default false). */
  withLocalizations?: boolean;
}

/** A create is an upsert by name: `created` is true for 201 (new), false for 200 (overwritten). */
export interface UpsertResult<T> {
  command: T;
  created: boolean;
}

const GLOBAL = '/applications/{application_id}/commands';
const GLOBAL_ONE = '/applications/{application_id}/commands/{command_id}';
const GUILD = '/applications/{application_id}/guilds/{guild_id}/commands';
const GUILD_ONE = '/applications/{application_id}/guilds/{guild_id}/commands/{command_id}';

function upsert<T>(res: RestResponse<T>): UpsertResult<T> {
  return { command: res.data, created: res.status === 201 };
}

// ---- global ----------------------------------------------------------------------------------------

export function getGlobalCommands(
  rest: RestRequester,
  applicationId: string,
  options: ListCommandsOptions = {},
): Promise<RESTGetAPIApplicationCommandsResult> {
  const { withLocalizations, ...call } = options;
  return rest.request({
    ...call,
    method: 'GET',
    route: GLOBAL,
    params: { application_id: applicationId },
    query: { with_localizations: withLocalizations },
  });
}

export async function createGlobalCommand(
  rest: RestRequester,
  applicationId: string,
  command: RESTPostAPIApplicationCommandsJSONBody,
  options: CallOptions = {},
): Promise<UpsertResult<RESTPostAPIApplicationCommandsResult>> {
  return upsert(
    await rest.requestWithStatus<RESTPostAPIApplicationCommandsResult>({
      ...options,
      method: 'POST',
      route: GLOBAL,
      params: { application_id: applicationId },
      body: command,
      // The create upserts by name (protocol §S3): sent twice, it leaves one command.
      idempotent: true,
    }),
  );
}

export function getGlobalCommand(
  rest: RestRequester,
  applicationId: string,
  commandId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIApplicationCommandResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: GLOBAL_ONE,
    params: { application_id: applicationId, command_id: commandId },
  });
}

/** Each provided field fully replaces the old value. */
export function editGlobalCommand(
  rest: RestRequester,
  applicationId: string,
  commandId: string,
  patch: RESTPatchAPIApplicationCommandJSONBody,
  options: CallOptions = {},
): Promise<RESTPatchAPIApplicationCommandResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: GLOBAL_ONE,
    params: { application_id: applicationId, command_id: commandId },
    body: patch,
  });
}

export async function deleteGlobalCommand(
  rest: RestRequester,
  applicationId: string,
  commandId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: GLOBAL_ONE,
    params: { application_id: applicationId, command_id: commandId },
  });
}

/** PUT on the global list: replaces every global command of every type; new ones count as creates. */
export function bulkOverwriteGlobalCommands(
  rest: RestRequester,
  applicationId: string,
  commands: RESTPutAPIApplicationCommandsJSONBody,
  options: CallOptions = {},
): Promise<RESTPutAPIApplicationCommandsResult> {
  return rest.request({
    ...options,
    method: 'PUT',
    route: GLOBAL,
    params: { application_id: applicationId },
    body: commands,
  });
}

// ---- guild -----------------------------------------------------------------------------------------

export function getGuildCommands(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  options: ListCommandsOptions = {},
): Promise<RESTGetAPIApplicationGuildCommandsResult> {
  const { withLocalizations, ...call } = options;
  return rest.request({
    ...call,
    method: 'GET',
    route: GUILD,
    params: { application_id: applicationId, guild_id: guildId },
    query: { with_localizations: withLocalizations },
  });
}

export async function createGuildCommand(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  command: RESTPostAPIApplicationGuildCommandsJSONBody,
  options: CallOptions = {},
): Promise<UpsertResult<RESTPostAPIApplicationGuildCommandsResult>> {
  return upsert(
    await rest.requestWithStatus<RESTPostAPIApplicationGuildCommandsResult>({
      ...options,
      method: 'POST',
      route: GUILD,
      params: { application_id: applicationId, guild_id: guildId },
      body: command,
      // The create upserts by name (protocol §S3): sent twice, it leaves one command.
      idempotent: true,
    }),
  );
}

export function getGuildCommand(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  commandId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIApplicationGuildCommandResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: GUILD_ONE,
    params: { application_id: applicationId, guild_id: guildId, command_id: commandId },
  });
}

export function editGuildCommand(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  commandId: string,
  patch: RESTPatchAPIApplicationGuildCommandJSONBody,
  options: CallOptions = {},
): Promise<RESTPatchAPIApplicationGuildCommandResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: GUILD_ONE,
    params: { application_id: applicationId, guild_id: guildId, command_id: commandId },
    body: patch,
  });
}

export async function deleteGuildCommand(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  commandId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: GUILD_ONE,
    params: { application_id: applicationId, guild_id: guildId, command_id: commandId },
  });
}

/** PUT on the guild's list: replaces every command of the app in that guild, all types. */
export function bulkOverwriteGuildCommands(
  rest: RestRequester,
  applicationId: string,
  guildId: string,
  commands: RESTPutAPIApplicationGuildCommandsJSONBody,
  options: CallOptions = {},
): Promise<RESTPutAPIApplicationGuildCommandsResult> {
  return rest.request({
    ...options,
    method: 'PUT',
    route: GUILD,
    params: { application_id: applicationId, guild_id: guildId },
    body: commands,
  });
}
