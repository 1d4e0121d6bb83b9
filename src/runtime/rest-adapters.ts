/**
 * The ports lower layers define, implemented over the REST client: command sync, interaction responses and
 * gateway discovery. Kept here so that commands/, interactions/ and gateway/ never import the REST layer.
 */
import type {
  RESTPatchAPIApplicationCommandJSONBody,
  RESTPatchAPIApplicationGuildCommandJSONBody,
  RESTPostAPIApplicationGuildCommandsJSONBody,
  RESTPutAPIApplicationGuildCommandsJSONBody,
} from 'discord-api-types/v10';
import type { CommandsPort, RegisteredCommand, Scope } from '../commands/index.js';
import type { GatewayBotPort } from '../gateway/index.js';
import type { InteractionTransport } from '../interactions/rest-port.js';
import {
  bulkOverwriteGlobalCommands,
  bulkOverwriteGuildCommands,
  createFollowup,
  createGlobalCommand,
  createGuildCommand,
  createInteractionResponse,
  deleteGlobalCommand,
  deleteGuildCommand,
  deleteFollowup,
  deleteOriginalResponse,
  editFollowup,
  editGlobalCommand,
  editGuildCommand,
  editOriginalResponse,
  getGatewayBot,
  getGlobalCommands,
  getGuildCommands,
  type RestClient,
} from '../rest/index.js';

// The commands model has already dropped the global-only fields from guild-scope bodies (scopes.ts), so the
// guild request types, which lack those fields, describe what is sent.
export function commandsPort(rest: RestClient, applicationId: string): CommandsPort {
  return {
    list: (scope: Scope) =>
      scope.kind === 'global'
        ? getGlobalCommands(rest, applicationId, { withLocalizations: true })
        : getGuildCommands(rest, applicationId, scope.guildId, { withLocalizations: true }),
    create: async (scope, body) =>
      (scope.kind === 'global'
        ? await createGlobalCommand(rest, applicationId, body)
        : await createGuildCommand(rest, applicationId, scope.guildId, body as RESTPostAPIApplicationGuildCommandsJSONBody)
      ).command,
    edit: (scope, commandId, body) => {
      const patch = body as RESTPatchAPIApplicationCommandJSONBody;
      return scope.kind === 'global'
        ? editGlobalCommand(rest, applicationId, commandId, patch)
        : editGuildCommand(rest, applicationId, scope.guildId, commandId, patch as RESTPatchAPIApplicationGuildCommandJSONBody);
    },
    delete: (scope, commandId) =>
      scope.kind === 'global'
        ? deleteGlobalCommand(rest, applicationId, commandId)
        : deleteGuildCommand(rest, applicationId, scope.guildId, commandId),
    bulkOverwrite: (scope, body): Promise<RegisteredCommand[]> =>
      scope.kind === 'global'
        ? bulkOverwriteGlobalCommands(rest, applicationId, body)
        : bulkOverwriteGuildCommands(rest, applicationId, scope.guildId, body as RESTPutAPIApplicationGuildCommandsJSONBody),
  };
}

export function interactionTransport(rest: RestClient): InteractionTransport {
  return {
    callback: async (interactionId, token, body) => {
      await createInteractionResponse(rest, interactionId, token, body);
    },
    editOriginal: (applicationId, token, body) => editOriginalResponse(rest, applicationId, token, body),
    deleteOriginal: (applicationId, token) => deleteOriginalResponse(rest, applicationId, token),
    followUp: (applicationId, token, body) => createFollowup(rest, applicationId, token, body),
    editFollowUp: (applicationId, token, messageId, body) => editFollowup(rest, applicationId, token, messageId, body),
    deleteFollowUp: (applicationId, token, messageId) => deleteFollowup(rest, applicationId, token, messageId),
  };
}

export function gatewayBotPort(rest: RestClient): GatewayBotPort {
  return { getGatewayBot: () => getGatewayBot(rest) };
}
