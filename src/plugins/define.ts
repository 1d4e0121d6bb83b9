import type { ChatInputCommandDefinition, OptionDefinition } from '../commands/index.js';
import type { OptionValueByType } from '../interactions/options.js';
import type {
  CommandBehaviour,
  PluginAutocompleteContext,
  PluginCommand,
  PluginCommandContext,
  PluginDefinition,
} from './types.js';

/** Identity with types: `export default definePlugin({ ... })`. */
export function definePlugin<const P extends PluginDefinition>(plugin: P): P {
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

type TypedChatInput<O extends readonly OptionShape[]> = Omit<
  ChatInputCommandDefinition<PluginCommandContext, PluginAutocompleteContext>,
  'options' | 'run' | 'autocomplete'
> &
  CommandBehaviour & {
    options?: O & readonly OptionDefinition[];
    run?(ctx: PluginCommandContext<OptionsOf<O>>): unknown;
    autocomplete?(ctx: PluginAutocompleteContext<OptionsOf<O>>): unknown;
  };

/**
 * A slash command whose handlers see typed options: `ctx.options.sides` is a `number` when the option
 * is `{ type: 4, name: 'sides', required: true }`. For commands with subcommands, type each subcommand's
 * handler through its own context or use definePlugin's looser typing.
 */
export function defineCommand<const O extends readonly OptionShape[] = []>(command: TypedChatInput<O>): PluginCommand {
  return command as unknown as PluginCommand;
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
};

/** A subcommand whose handlers see typed options, like defineCommand does for plain commands. */
export function defineSubcommand<const O extends readonly OptionShape[] = []>(
  subcommand: TypedSubcommand<O>,
): OptionDefinition<PluginCommandContext, PluginAutocompleteContext> {
  return subcommand as unknown as OptionDefinition<PluginCommandContext, PluginAutocompleteContext>;
}
