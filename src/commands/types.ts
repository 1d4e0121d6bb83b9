/**
 * Typed command definitions.
 *
 * A plugin's command definition is the API's own JSON (snake_case, discord-api-types' request bodies) plus
 * runtime-only fields that are never sent: `run` and `autocomplete` handlers (on the command, and `run` /
 * `autocomplete` on subcommands), and `guilds`, naming the guilds where it is a guild command (global when
 * absent). `toPayload` strips the runtime fields, so the definition is the payload and nothing is translated.
 *
 * Handler context types belong to the interaction layer; here they are type parameters (default `never`, which
 * accepts any handler) so this layer does not depend on it.
 */
import type {
  APIApplicationCommand,
  APIApplicationCommandBasicOption,
  APIApplicationCommandSubcommandGroupOption,
  APIApplicationCommandSubcommandOption,
  RESTPostAPIApplicationCommandsJSONBody,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
  RESTPostAPIContextMenuApplicationCommandsJSONBody,
  RESTPostAPIPrimaryEntryPointApplicationCommandJSONBody,
} from 'discord-api-types/v10';

/**
 * A command or autocomplete handler. Checked as a method (bivariantly) on purpose: a plugin's handlers see its
 * own config type, and its commands must still fit the host's list of every plugin's commands.
 */
export type CommandHandler<Ctx> = { handler(ctx: Ctx): unknown }['handler'];

export interface SubcommandDefinition<RunCtx = never, AutocompleteCtx = never>
  extends APIApplicationCommandSubcommandOption {
  run?: CommandHandler<RunCtx>;
  autocomplete?: CommandHandler<AutocompleteCtx>;
}

export interface SubcommandGroupDefinition<RunCtx = never, AutocompleteCtx = never>
  extends Omit<APIApplicationCommandSubcommandGroupOption, 'options'> {
  options?: SubcommandDefinition<RunCtx, AutocompleteCtx>[];
}

export type OptionDefinition<RunCtx = never, AutocompleteCtx = never> =
  | APIApplicationCommandBasicOption
  | SubcommandDefinition<RunCtx, AutocompleteCtx>
  | SubcommandGroupDefinition<RunCtx, AutocompleteCtx>;

/** Fields a definition carries that are never sent to the service. */
export interface RuntimeFields<RunCtx = never, AutocompleteCtx = never> {
  run?: CommandHandler<RunCtx>;
  autocomplete?: CommandHandler<AutocompleteCtx>;
  /** Guild ids where this is a guild command; absent = global. */
  guilds?: string[];
}

/**
 * The names of the runtime-only fields, on commands and on subcommands. `deferEphemeral` is the plugin host's
 * setting for the deadline guard's defer and `preconditions` its checks before a handler runs (plugins/types.ts
 * CommandBehaviour): never sent either. Subcommands and groups may carry `preconditions` too.
 */
export const RUNTIME_FIELDS: ReadonlySet<string> = new Set(['run', 'autocomplete', 'guilds', 'deferEphemeral', 'preconditions']);

export interface ChatInputCommandDefinition<RunCtx = never, AutocompleteCtx = never>
  extends Omit<RESTPostAPIChatInputApplicationCommandsJSONBody, 'options'>,
    RuntimeFields<RunCtx, AutocompleteCtx> {
  options?: OptionDefinition<RunCtx, AutocompleteCtx>[];
}

export interface ContextMenuCommandDefinition<RunCtx = never>
  extends RESTPostAPIContextMenuApplicationCommandsJSONBody,
    Omit<RuntimeFields<RunCtx>, 'autocomplete'> {}

/** An entry point command is global only, so it takes no `guilds`. With handler 2 the service needs no `run`. */
export interface EntryPointCommandDefinition<RunCtx = never>
  extends RESTPostAPIPrimaryEntryPointApplicationCommandJSONBody,
    Omit<RuntimeFields<RunCtx>, 'autocomplete' | 'guilds'> {}

export type CommandDefinition<RunCtx = never, AutocompleteCtx = never> =
  | ChatInputCommandDefinition<RunCtx, AutocompleteCtx>
  | ContextMenuCommandDefinition<RunCtx>
  | EntryPointCommandDefinition<RunCtx>;

/** What is sent for one command (create body; a bulk overwrite item may also carry the `id` it replaces). */
export type CommandPayload = RESTPostAPIApplicationCommandsJSONBody & { id?: string };

/** A command as the service returns it (GET with with_localizations=true, or a create/edit/bulk answer). */
export type RegisteredCommand = APIApplicationCommand;

export type ScopeKind = 'global' | 'guild';
export type Scope = { kind: 'global' } | { kind: 'guild'; guildId: string };

export const GLOBAL_SCOPE: Scope = Object.freeze({ kind: 'global' });

export function guildScope(guildId: string): Scope {
  return { kind: 'guild', guildId };
}

/** 'global' or 'guild:<id>': a Map key and a log label. */
export function scopeKey(scope: Scope): string {
  return scope.kind === 'global' ? 'global' : `guild:${scope.guildId}`;
}

export type LocalizationDict = Record<string, string>;

/** A choice in normalized form. */
export interface NormalizedChoice {
  name: string;
  name_localizations: LocalizationDict | null;
  value: string | number;
}

/**
 * An option in normalized form: defaults filled in (`required: false` on value options, localizations null),
 * empty lists dropped, `autocomplete` present only when true, `channel_types` sorted (a set), and fields that
 * are not valid for the option type dropped.
 */
export interface NormalizedOption {
  type: number;
  name: string;
  name_localizations: LocalizationDict | null;
  description: string;
  description_localizations: LocalizationDict | null;
  required?: boolean;
  choices?: NormalizedChoice[];
  options?: NormalizedOption[];
  channel_types?: number[];
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
  autocomplete?: true;
  file_types?: string[];
}

/**
 * A command in normalized form (the shape the service returns, without server-only fields): `type` 1 when
 * omitted, description "" for USER/MESSAGE (and for an entry point without one), localizations null when
 * absent or empty, `nsfw` false, `default_member_permissions` null (else a canonical decimal string),
 * `handler` 2 on an entry point that names none (the service's own "Launch" uses 2), options dropped when empty.
 *
 * The global-only fields whose server default depends on the application's settings or on each other
 * (`integration_types`, `contexts`, `dm_permission`) and the legacy `default_permission` are present only when
 * the definition sets them: sync manages them only then (see diff.ts). They never appear for guild scope.
 */
export interface NormalizedCommand {
  type: number;
  name: string;
  name_localizations: LocalizationDict | null;
  description: string;
  description_localizations: LocalizationDict | null;
  options?: NormalizedOption[];
  default_member_permissions: string | null;
  nsfw: boolean;
  handler?: number;
  dm_permission?: boolean | null;
  default_permission?: boolean | null;
  integration_types?: number[];
  contexts?: number[] | null;
}

/** Top-level fields that sync manages only when the local definition sets them. */
export const OPTIONAL_MANAGED_FIELDS: readonly (keyof NormalizedCommand)[] = [
  'integration_types',
  'contexts',
  'dm_permission',
  'default_permission',
];
