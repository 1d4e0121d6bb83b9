/**
 * The plugin module shape (design.md contract 4): a default-exported object with a name, command
 * definitions (the API's own JSON plus handlers), event handlers, and setup/teardown hooks.
 */
import type {
  APIEntitlement,
  GatewayApplicationCommandPermissionsUpdateDispatchData,
  GatewayGuildCreateDispatchData,
  GatewayGuildDeleteDispatchData,
  GatewayGuildMemberAddDispatchData,
  GatewayGuildMemberRemoveDispatchData,
  GatewayGuildMemberUpdateDispatchData,
  GatewayReadyDispatchData,
  APIWebhookEventApplicationAuthorizedData,
  APIWebhookEventApplicationDeauthorizedData,
} from 'discord-api-types/v10';
import type { Logger } from 'pino';
import type { CacheReader } from '../cache/index.js';
import type {
  ChatInputCommandDefinition,
  ContextMenuCommandDefinition,
  EntryPointCommandDefinition,
} from '../commands/index.js';
import type { AutocompleteContext, CommandContext } from '../interactions/context.js';
import type { OptionValue } from '../interactions/options.js';
import type { MemberRequestResult, RequestMembersOptions } from '../gateway/index.js';
import type { RestClient } from '../rest/index.js';

export type OptionBag = Record<string, OptionValue | undefined>;

export type PluginCommandContext<TOptions = OptionBag> = CommandContext<TOptions, CacheReader, PluginContext>;
export type PluginAutocompleteContext<TOptions = OptionBag> = AutocompleteContext<TOptions, CacheReader, PluginContext>;

/** Runtime-only settings of a command (never sent to the service). */
export interface CommandBehaviour {
  /** When the deadline guard defers for a slow handler, make the "thinking" message ephemeral. */
  deferEphemeral?: boolean;
}

export type PluginCommand =
  | (ChatInputCommandDefinition<PluginCommandContext, PluginAutocompleteContext> & CommandBehaviour)
  | (ContextMenuCommandDefinition<PluginCommandContext> & CommandBehaviour)
  | (EntryPointCommandDefinition<PluginCommandContext> & CommandBehaviour);

/** What setup, teardown and event handlers get: the plugin's own logger and config, and shared services. */
export interface PluginContext {
  readonly name: string;
  readonly log: Logger;
  /** This plugin's section of `plugins.config` in the configuration (an empty object when absent). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly cache: CacheReader;
  readonly rest: RestClient;
  readonly applicationId: string;
  /** Op 8 through the shard that owns the guild. */
  requestMembers(options: RequestMembersOptions): Promise<MemberRequestResult>;
}

/** Events delivered to plugins, after the cache has applied them. */
export interface PluginEventMap {
  ready: GatewayReadyDispatchData & { shardId: number };
  guildCreate: GatewayGuildCreateDispatchData;
  guildDelete: GatewayGuildDeleteDispatchData;
  guildMemberAdd: GatewayGuildMemberAddDispatchData;
  guildMemberUpdate: GatewayGuildMemberUpdateDispatchData;
  guildMemberRemove: GatewayGuildMemberRemoveDispatchData;
  entitlementCreate: APIEntitlement;
  entitlementUpdate: APIEntitlement;
  entitlementDelete: APIEntitlement;
  commandPermissionsUpdate: GatewayApplicationCommandPermissionsUpdateDispatchData;
  /** Every dispatch, as received. */
  raw: { shardId: number; t: string; d: unknown };
  /**
   * Webhook events (the HTTP endpoint with `endpoint.eventsPath`): the app was installed to a user or a server
   * (`integration_type` 1 or 0; `guild` for a server), with the scopes the user granted.
   */
  applicationAuthorized: APIWebhookEventApplicationAuthorizedData & { timestamp: string };
  /** Webhook event: a user removed the app from their account. */
  applicationDeauthorized: APIWebhookEventApplicationDeauthorizedData & { timestamp: string };
  /** Every webhook event, as received, once per event (redeliveries are dropped); unknown types arrive only here. */
  webhookEvent: { type: string; timestamp: string; data: unknown };
}

export type PluginEventName = keyof PluginEventMap;

export type PluginEventHandlers = {
  [E in PluginEventName]?: (payload: PluginEventMap[E], ctx: PluginContext) => unknown;
};

export interface PluginDefinition {
  /** Unique among loaded plugins; names the plugin in logs, errors and its config section. */
  name: string;
  commands?: readonly PluginCommand[];
  on?: PluginEventHandlers;
  setup?(ctx: PluginContext): unknown;
  teardown?(ctx: PluginContext): unknown;
}
