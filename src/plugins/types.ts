/**
 * The plugin module shape (docs/plugins.md "Writing a plugin"): a default-exported object with a name, command
 * definitions (the API's own JSON plus handlers), component and modal handlers by custom_id, event handlers,
 * an optional schema for its configuration section, and setup/teardown hooks.
 */
import type { APIWebhookEventApplicationAuthorizedData, APIWebhookEventApplicationDeauthorizedData } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import type { CommandAccess } from '../api/command-access.js';
import type { CacheReader } from '../cache/index.js';
import type { CommandQuery } from './command-access.js';
import type { DispatchEventMap } from './events.js';
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
import type { PreconditionDenial, Preconditions, PreconditionTranslations } from './preconditions/types.js';

export type OptionBag = Record<string, OptionValue | undefined>;

/**
 * A command handler's context. `TConfig` is the plugin's config type (the output of its schema, see
 * definePlugin): `ctx.config` and `ctx.plugin.config` have it.
 */
export type PluginCommandContext<TOptions = OptionBag, TConfig = PluginConfigBag> = CommandContext<TOptions, CacheReader, PluginContext<TConfig>>;
export type PluginAutocompleteContext<TOptions = OptionBag, TConfig = PluginConfigBag> = AutocompleteContext<
  TOptions,
  CacheReader,
  PluginContext<TConfig>
>;
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
  /** Checked before `run` (docs/plugins.md "Preconditions"). */
  preconditions?: Preconditions;
}

/** A handler for the submission of modals whose custom_id is `customId` (exact, or a pattern). */
export interface ModalHandlerDefinition {
  customId: string;
  run(ctx: PluginModalContext): unknown;
  /** When the deadline guard has to defer a modal no component opened, make the "thinking" message ephemeral. */
  deferEphemeral?: boolean;
  /** Checked before `run` (docs/plugins.md "Preconditions"). */
  preconditions?: Preconditions;
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
  /** Checked before the handler runs, over the plugin's defaults (docs/plugins.md "Preconditions"). */
  preconditions?: Preconditions;
}

/**
 * A command with its handlers; `TConfig` types `ctx.config` in them (definePlugin gives inline commands, and
 * defineCommand calls inside `commands`, the plugin's config type).
 */
export type PluginCommand<TConfig = PluginConfigBag> =
  | (ChatInputCommandDefinition<PluginCommandContext<OptionBag, TConfig>, PluginAutocompleteContext<OptionBag, TConfig>> & CommandBehaviour)
  | (ContextMenuCommandDefinition<PluginCommandContext<OptionBag, TConfig>> & CommandBehaviour)
  | (EntryPointCommandDefinition<PluginCommandContext<OptionBag, TConfig>> & CommandBehaviour);

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
  /**
   * Whether a member may use a command (by name, or the API command object) in a channel or thread, and why:
   * command permissions v2 over the cache, the guild's command permission settings read from REST the first
   * time. Undefined when it cannot be told (an unknown command; a guild, member or channel the cache lacks).
   */
  canUseCommand(guildId: string, userId: string, channelId: string, command: CommandQuery): Promise<CommandAccess | undefined>;
}

/**
 * Events delivered to plugins: every gateway dispatch (src/plugins/events.ts names them: the dispatch in
 * camelCase, its payload discord-api-types' type for it), after the cache has applied it, and the events of the
 * HTTP endpoint and of no dispatch below.
 */
export interface PluginEventMap extends DispatchEventMap {
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
  /** A precondition of one of this plugin's handlers denied an interaction (the handler did not run). */
  preconditionDenied: PreconditionDenial;
}

export type PluginEventName = keyof PluginEventMap;

/**
 * Event handlers, one per event name. Declared as methods (the bivariance of a method parameter), so that a
 * plugin typed for its own config fits the host's looser type.
 */
export type PluginEventHandlers<TConfig = PluginConfigBag> = {
  [K in PluginEventName]?: { handler(payload: PluginEventMap[K], ctx: PluginContext<TConfig>): unknown }['handler'];
};

export interface PluginDefinition<TConfig = PluginConfigBag> {
  /** Unique among loaded plugins; names the plugin in logs, errors and its config section. */
  name: string;
  commands?: readonly PluginCommand<NoInfer<TConfig>>[];
  /** Button and select-menu handlers by custom_id. */
  components?: readonly ComponentHandlerDefinition[];
  /** Modal-submission handlers by custom_id. */
  modals?: readonly ModalHandlerDefinition[];
  /** Preconditions every command of the plugin has, unless the command (or subcommand) says otherwise. */
  preconditions?: Preconditions;
  /** The denial messages in other languages, by locale (`fr`, `pt-BR`); English otherwise. */
  preconditionTexts?: PreconditionTranslations;
  /** Schema of `plugins.config.<name>`; a section that does not fit keeps the plugin from loading. */
  config?: PluginConfigSchema<TConfig>;
  on?: PluginEventHandlers<TConfig>;
  setup?(ctx: PluginContext<TConfig>): unknown;
  teardown?(ctx: PluginContext<TConfig>): unknown;
}
