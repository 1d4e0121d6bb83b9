/** Public API of gatehouse: what plugin authors and embedders import from 'gatehouse'. */
export {
  definePlugin,
  defineCommand,
  defineSubcommand,
  defineSubcommandGroup,
  defineButton,
  defineSelect,
  defineModal,
  type OptionsOf,
  type CustomIdParams,
  type PluginSubcommand,
  type PluginSubcommandGroup,
  type SelectKind,
} from './plugins/define.js';
export type {
  ComponentHandlerDefinition,
  ModalHandlerDefinition,
  OptionBag,
  PluginAutocompleteContext,
  PluginCommand,
  PluginCommandContext,
  PluginComponentContext,
  PluginConfigSchema,
  PluginContext,
  PluginDefinition,
  PluginEventHandlers,
  PluginEventMap,
  PluginEventName,
  PluginModalContext,
} from './plugins/types.js';
export type {
  CooldownRule,
  CooldownScope,
  CustomPrecondition,
  EntitlementRule,
  PermissionList,
  PermissionName,
  PermissionRule,
  PreconditionDenial,
  PreconditionName,
  PreconditionResult,
  Preconditions,
  PreconditionSubject,
  PreconditionTexts,
  PreconditionTranslations,
} from './plugins/preconditions/types.js';
export type { ComponentKind, ComponentValuesByKind, ModalField } from './interactions/component-values.js';
export { MessageLimitError, MESSAGE_LIMITS, type LimitProblem } from './interactions/message-limits.js';
export type {
  OptionValue,
  ResolvedAttachment,
  ResolvedChannel,
  ResolvedRole,
  ResolvedUser,
  FocusedOption,
} from './interactions/options.js';
export type { AutocompleteChoice, ReplyInput, ResponseState } from './interactions/context.js';
export { FollowUpLimitError, InteractionStateError } from './interactions/errors.js';
export { Runtime, type RuntimeOptions } from './runtime/runtime.js';
export { loadConfig, ConfigError, intentBits, type Config, type ConfigInput } from './runtime/config.js';
export { createLogger, type Logger } from './runtime/logger.js';
export { INTENT_BITS, type IntentName } from './api/intents.js';
export { shardForGuild, snowflakeTimestamp, type Snowflake } from './api/snowflake.js';
export type {
  CacheReader,
  GuildView,
  MemberView,
  UserView,
  RoleView,
  EntitlementView,
  ChannelView,
  ThreadMetadataView,
  PermissionOverwriteView,
  VoiceStateView,
  GuildCommandPermissionsView,
  CommandRef,
} from './cache/index.js';
export { ALL_PERMISSIONS, computePermissions, permissionNames, PermissionFlagsBits, type PermissionOverwrite, type PermissionSubject } from './api/permissions.js';
export {
  evaluateCommandAccess,
  allChannelsId,
  type CommandAccess,
  type CommandAccessInput,
  type CommandAccessReason,
  type CommandPermissionEntry,
} from './api/command-access.js';
export { DISPATCH_OF_EVENT, INTENTS_OF_EVENT, type DispatchEventName } from './plugins/events.js';
export {
  RestClient,
  RestError,
  ApiError,
  RateLimitError,
  TimeoutError,
  InvalidRequestGuardError,
  LocalRateLimits,
  type RateLimitStore,
} from './rest/index.js';
export { SharedRateLimits, type SharedRateLimitsOptions } from './rest/redis/index.js';
export type { ReshardPlan } from './gateway/index.js';
export { createSandbox } from './sandbox/index.js';
export type { Sandbox, SandboxOptions, InteractionRecord, InvokeOptions, AutocompleteOptions } from './sandbox/contract.js';
export type { Cache, CacheSizes, EntitlementQuery, MemberPage } from './cache/index.js';
export { ShardManager, type ShardInfo, type ShardStatus } from './gateway/index.js';
export { validateCommand, validateCommands, type Problem } from './commands/index.js';
