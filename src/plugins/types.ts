/**
 * The plugin module shape (README "Writing a plugin"): a default-exported object with a name, command
 * definitions (the API's own JSON plus handlers), component and modal handlers by custom_id, event handlers,
 * an optional schema for its configuration section, and setup/teardown hooks.
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
import type { ComponentContext, ModalContext } from '../interactions/component-context.js';
import type { ComponentKind } from '../interactions/component-values.js';
import type { AutocompleteContext, CommandContext } from '../interactions/context.js';
import type { OptionValue } from '../interactions/options.js';
import type { MemberRequestResult, RequestMembersOptions } from '../gateway/index.js';
import type { RestClient } from '../rest/index.js';

export type OptionBag = Record<string, OptionValue | undefined>;

export type PluginCommandContext<TOptions = OptionBag> = CommandContext<TOptions, CacheReader, PluginContext>;
export type PluginAutocompleteContext<TOptions = OptionBag> = AutocompleteContext<TOptions, CacheReader, PluginContext>;
/** Parameters of a custom_id pattern, by name (`poll:{id}` gives `{ id: string }`). */
export type CustomIdParamsBag = Readonly<Record<string, string>>;
export type PluginComponentContext<TKind extends ComponentKind = ComponentKind, TParams = CustomIdParamsBag> = ComponentContext<
  TKind,
  TParams,
  CacheReader,
  PluginContext
>;
export type PluginModalContext<TParams = CustomIdParamsBag> = ModalContext<TParams, CacheReader, PluginContext>;

/**
 * A handler for buttons and select menus whose custom_id is `customId`: an exact id, or a pattern with named
 * parameters (`poll:{id}:{choice}`; a parameter never contains the punctuation of its pattern). Handlers keep
 * no state in memory: what they need travels in the id, so they work across restarts and processes.
 */
export interface ComponentHandlerDefinition {
  customId: string;
  /** Component kinds this handler takes (`button`, `stringSelect`, `userSelect`, ...); any when absent. */
  kind?: ComponentKind | readonly ComponentKind[];
  run(ctx: PluginComponentContext): unknown;
}

/** A handler for the submission of modals whose custom_id is `customId` (exact, or a pattern). */
export interface ModalHandlerDefinition {
  customId: string;
  run(ctx: PluginModalContext): unknown;
  /** When the deadline guard has to defer a modal no component opened, make the "thinking" message ephemeral. */
  deferEphemeral?: boolean;
}

/**
 * A schema for the plugin's configuration section: any Standard Schema (zod 4 schemas are), checked when the
 * plugin loads; `ctx.config` is then its output.
 */
export interface PluginConfigSchema<Output> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => PluginConfigResult<Output> | Promise<PluginConfigResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

export type PluginConfigResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }>;
    };

/** A plugin's configuration when it declares no schema: its section as written. */
export type PluginConfigBag = Readonly<Record<string, unknown>>;

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
export interface PluginContext<TConfig = PluginConfigBag> {
  readonly name: string;
  readonly log: Logger;
  /**
   * This plugin's section of `plugins.config` (with `GATEHOUSE_PLUGIN__<PLUGIN>__<KEY>` environment values
   * applied), checked by its schema when it declares one; an empty object when absent.
   */
  readonly config: TConfig;
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

/** Event handlers; methods, so that a plugin typed for its own config fits the host's looser type. */
export interface PluginEventHandlers<TConfig = PluginConfigBag> {
  ready?(payload: PluginEventMap['ready'], ctx: PluginContext<TConfig>): unknown;
  guildCreate?(payload: PluginEventMap['guildCreate'], ctx: PluginContext<TConfig>): unknown;
  guildDelete?(payload: PluginEventMap['guildDelete'], ctx: PluginContext<TConfig>): unknown;
  guildMemberAdd?(payload: PluginEventMap['guildMemberAdd'], ctx: PluginContext<TConfig>): unknown;
  guildMemberUpdate?(payload: PluginEventMap['guildMemberUpdate'], ctx: PluginContext<TConfig>): unknown;
  guildMemberRemove?(payload: PluginEventMap['guildMemberRemove'], ctx: PluginContext<TConfig>): unknown;
  entitlementCreate?(payload: PluginEventMap['entitlementCreate'], ctx: PluginContext<TConfig>): unknown;
  entitlementUpdate?(payload: PluginEventMap['entitlementUpdate'], ctx: PluginContext<TConfig>): unknown;
  entitlementDelete?(payload: PluginEventMap['entitlementDelete'], ctx: PluginContext<TConfig>): unknown;
  commandPermissionsUpdate?(payload: PluginEventMap['commandPermissionsUpdate'], ctx: PluginContext<TConfig>): unknown;
  raw?(payload: PluginEventMap['raw'], ctx: PluginContext<TConfig>): unknown;
  applicationAuthorized?(payload: PluginEventMap['applicationAuthorized'], ctx: PluginContext<TConfig>): unknown;
  applicationDeauthorized?(payload: PluginEventMap['applicationDeauthorized'], ctx: PluginContext<TConfig>): unknown;
  webhookEvent?(payload: PluginEventMap['webhookEvent'], ctx: PluginContext<TConfig>): unknown;
}

export interface PluginDefinition<TConfig = PluginConfigBag> {
  /** Unique among loaded plugins; names the plugin in logs, errors and its config section. */
  name: string;
  commands?: readonly PluginCommand[];
  /** Button and select-menu handlers by custom_id. */
  components?: readonly ComponentHandlerDefinition[];
  /** Modal-submission handlers by custom_id. */
  modals?: readonly ModalHandlerDefinition[];
  /** Schema of `plugins.config.<name>`; a section that does not fit keeps the plugin from loading. */
  config?: PluginConfigSchema<TConfig>;
  on?: PluginEventHandlers<TConfig>;
  setup?(ctx: PluginContext<TConfig>): unknown;
  teardown?(ctx: PluginContext<TConfig>): unknown;
}
