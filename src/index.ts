/**
 * `gatehouse`: what a plugin author imports. The plugin API, the cache views a plugin reads, permission and
 * command-access helpers, and every error class the runtime can throw, so that `instanceof` works without
 * reaching into another entry point. Embedders take the Runtime from `gatehouse/runtime`, the REST route
 * helpers are in `gatehouse/rest`, the sandbox in `gatehouse/sandbox` and the test kit in `gatehouse/testing`
 * (its own errors, BotStartError and KitTimeoutError, are exported there).
 */
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
export type { RestRequester, CallOptions, RequestOptions, RestResponse, RestFile } from './rest/index.js';
export { validateCommand, validateCommands, type Problem } from './commands/index.js';

// Every error class, by layer. Each has a stable `name` (its class name) and, where it wraps another error,
// that error as `cause`.
export {
  RestError,
  ApiError,
  RateLimitError,
  TimeoutError,
  RequestAbortedError,
  RestClientClosedError,
  NetworkError,
  InvalidRequestGuardError,
  RequestRefusedError,
  type HttpMethod,
  type RateLimitScope,
  type RefusalReason,
} from './rest/index.js';
export {
  GatewayError,
  GatewayFatalCloseError,
  SessionStartLimitError,
  IdentifyBudgetExhaustedError,
  MemberRequestRateLimitedError,
  MemberRequestTimeoutError,
  SendQueueFullError,
  ShardClosedError,
  ShardFencedError,
  GatewayPayloadError,
  GatewayDecodeError,
} from './gateway/index.js';
export { ClusterError, ShardCountMismatchError, IdentifyQueueTimeoutError } from './cluster/errors.js';
export { CacheWriteError } from './cache/index.js';
export { CustomIdPatternError, CustomIdConflictError } from './interactions/custom-id.js';
export { PluginLoadError } from './plugins/loader.js';
export { PluginTimeoutError } from './plugins/host.js';
export { ConfigError } from './runtime/config.js';
export { StartupError } from './runtime/startup-error.js';
export { PublicKeyError } from './transports/http/signature.js';
export { SandboxError, SandboxApiError } from './sandbox/errors.js';
export { SandboxOptionsError } from './sandbox/options.js';
