/**
 * Typed helpers for plugin authors. Each is the identity at run time; at compile time it gives handlers
 * typed contexts: options by name and type at every level (command, subcommand, subcommand in a group),
 * custom_id parameters by name, select values by kind, and the plugin's config by its schema.
 */
import type {
  ChatInputCommandDefinition,
  OptionDefinition,
  SubcommandDefinition,
  SubcommandGroupDefinition,
} from '../commands/index.js';
import type { OptionValueByType } from '../interactions/options.js';
import type {
  CommandBehaviour,
  ComponentHandlerDefinition,
  ModalHandlerDefinition,
  PluginAutocompleteContext,
  PluginCommand,
  PluginCommandContext,
  PluginComponentContext,
  PluginConfigBag,
  PluginConfigSchema,
  PluginDefinition,
  PluginModalContext,
} from './types.js';
import type { Preconditions } from './preconditions/types.js';

/**
 * `export default definePlugin({ ... })`. With `config: z.object({...})` the plugin's context (setup,
 * teardown, events) sees the parsed config with its type.
 */
export function definePlugin<TConfig = PluginConfigBag>(plugin: PluginDefinition<TConfig>): PluginDefinition<TConfig> {
  return plugin;
}

interface OptionShape {
  readonly type: number;
  readonly name: string;
  readonly required?: boolean;
}

type ValueOfType<T> = T extends keyof OptionValueByType ? OptionValueByType[T] : never;

/** The `ctx.options` type of a command whose options are these (subcommand entries excluded). */
export type OptionsOf<O extends readonly OptionShape[]> = {
  [K in O[number] as K['type'] extends 1 | 2 ? never : K['name']]: K['required'] extends true
    ? ValueOfType<K['type']>
    : ValueOfType<K['type']> | undefined;
};

type TypedChatInput<O extends readonly OptionShape[], C> = Omit<
  ChatInputCommandDefinition<PluginCommandContext, PluginAutocompleteContext>,
  'options' | 'run' | 'autocomplete'
> &
  CommandBehaviour & {
    options?: O & readonly OptionDefinition[];
    run?(ctx: PluginCommandContext<OptionsOf<O>, C>): unknown;
    autocomplete?(ctx: PluginAutocompleteContext<OptionsOf<O>, C>): unknown;
  };

/**
 * A slash command whose handlers see typed options: `ctx.options.sides` is a `number` when the option
 * is `{ type: 4, name: 'sides', required: true }`. Subcommands and groups made with defineSubcommand and
 * defineSubcommandGroup go in `options` and type their own handlers.
 *
 * `ctx.config` has the plugin's config type when the call knows it: pass the plugin's schema as the second
 * argument (`defineCommand({ ... }, config)`; it is only read for its type), or declare the result's type
 * (`const cmd: PluginCommand<Config> = defineCommand({ ... })`). Inside definePlugin's `commands` the plugin's
 * schema does not reach the call by itself: TypeScript settles a call's types before those of the object
 * around it. Plain object commands written inside `commands` need neither.
 */
export function defineCommand<const O extends readonly OptionShape[] = [], C = PluginConfigBag>(
  command: TypedChatInput<O, C>,
  config?: PluginConfigSchema<C>,
): PluginCommand<C> {
  void config;
  return command as unknown as PluginCommand<C>;
}

type TypedSubcommand<O extends readonly OptionShape[]> = {
  type: 1;
  name: string;
  description: string;
  name_localizations?: Record<string, string> | null;
  description_localizations?: Record<string, string> | null;
  options?: O & readonly OptionDefinition[];
  run?(ctx: PluginCommandContext<OptionsOf<O>>): unknown;
  autocomplete?(ctx: PluginAutocompleteContext<OptionsOf<O>>): unknown;
  /** Checked before `run`, over the command's (docs/plugins.md "Preconditions"). */
  preconditions?: Preconditions;
};

/** The type a subcommand has once made: it fits a command's options and a group's options alike. */
export type PluginSubcommand = SubcommandDefinition<PluginCommandContext, PluginAutocompleteContext>;
export type PluginSubcommandGroup = SubcommandGroupDefinition<PluginCommandContext, PluginAutocompleteContext>;

/** A subcommand whose handlers see typed options, like defineCommand does for plain commands. */
export function defineSubcommand<const O extends readonly OptionShape[] = []>(subcommand: TypedSubcommand<O>): PluginSubcommand {
  return subcommand as unknown as PluginSubcommand;
}

/** A subcommand group (type 2): subcommands made with defineSubcommand, each with its own typed handlers. */
export function defineSubcommandGroup(group: {
  type: 2;
  name: string;
  description: string;
  name_localizations?: Record<string, string> | null;
  description_localizations?: Record<string, string> | null;
  options: readonly PluginSubcommand[];
  /** Checked before each of its subcommands runs, over the command's. */
  preconditions?: Preconditions;
}): PluginSubcommandGroup {
  return group as unknown as PluginSubcommandGroup;
}

type ParamNames<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | ParamNames<Rest> : never;

/** The parameters a custom_id pattern yields: `CustomIdParams<'poll:{id}:{choice}'>` is `{ id; choice }`. */
export type CustomIdParams<S extends string> = { readonly [K in ParamNames<S>]: string };

/** A button handler: `ctx.params` typed from the pattern; `ctx.update`, `ctx.reply`, `ctx.showModal`, ... */
export function defineButton<const S extends string>(handler: {
  customId: S;
  run(ctx: PluginComponentContext<'button', CustomIdParams<S>>): unknown;
  preconditions?: Preconditions;
}): ComponentHandlerDefinition {
  return { ...handler, kind: 'button' } as unknown as ComponentHandlerDefinition;
}

export type SelectKind = 'stringSelect' | 'userSelect' | 'roleSelect' | 'mentionableSelect' | 'channelSelect';

/**
 * A select-menu handler: `ctx.values` holds strings (string selects) or resolved users, roles, mentionables
 * or channels, by `kind`.
 */
export function defineSelect<const S extends string, K extends SelectKind>(handler: {
  customId: S;
  kind: K;
  run(ctx: PluginComponentContext<K, CustomIdParams<S>>): unknown;
  preconditions?: Preconditions;
}): ComponentHandlerDefinition {
  return handler as unknown as ComponentHandlerDefinition;
}

/** A modal-submission handler: `ctx.text(id)`, `ctx.values(id)`, `ctx.files(id)`, and `ctx.params`. */
export function defineModal<const S extends string>(handler: {
  customId: S;
  run(ctx: PluginModalContext<CustomIdParams<S>>): unknown;
  deferEphemeral?: boolean;
  preconditions?: Preconditions;
}): ModalHandlerDefinition {
  return handler as unknown as ModalHandlerDefinition;
}
