import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionType,
  MessageFlags,
  type APIApplicationCommandAutocompleteInteraction,
  type APIApplicationCommandInteraction,
  type APIInteraction,
} from 'discord-api-types/v10';
import type { Logger } from 'pino';
import {
  AutocompleteContext,
  CommandContext,
  type AutocompleteChoice,
  type ContextServices,
} from './context.js';
import { parseOptions, type OptionValue } from './options.js';
import type { InteractionTransport } from './transport.js';

/*
 * Handlers are declared with method syntax on purpose: method parameters are checked bivariantly, so a
 * handler written for a narrower context (typed options, the concrete cache) is accepted here without
 * widening anything to `any`.
 */
type LooseCommandContext = CommandContext<Record<string, OptionValue | undefined>, unknown, unknown>;
type LooseAutocompleteContext = AutocompleteContext<Record<string, OptionValue | undefined>, unknown, unknown>;
/** Handlers return choices (or answer through ctx.respond); what they return is checked at run time. */
export type AutocompleteResult = unknown;
export type RunHandler = (ctx: LooseCommandContext) => unknown;
export type AutocompleteHandler = (ctx: LooseAutocompleteContext) => AutocompleteResult;

/** The parts of a command definition the router reads: names, nesting and the handlers declared on them. */
export interface RoutableOption {
  readonly type: number;
  readonly name: string;
  readonly options?: readonly RoutableOption[];
  run?(ctx: LooseCommandContext): unknown;
  /** On a leaf option this is the API's boolean; on a subcommand it may be a handler. */
  readonly autocomplete?: boolean | ((ctx: LooseAutocompleteContext) => AutocompleteResult);
}

export interface RoutableCommand {
  readonly type?: number;
  readonly name: string;
  readonly options?: readonly RoutableOption[];
  run?(ctx: LooseCommandContext): unknown;
  autocomplete?(ctx: LooseAutocompleteContext): AutocompleteResult;
  /** Whether the automatic defer (deadline guard) should be ephemeral. */
  readonly deferEphemeral?: boolean;
}

export interface RouterOptions<TCache, TPlugin> {
  transport: InteractionTransport;
  log: Logger;
  /** The services (logger, config, cache) a plugin's handlers get. */
  servicesFor(plugin: string): ContextServices<TCache, TPlugin>;
  /**
   * Defer automatically when a handler has not answered this long after the interaction arrived.
   * The service invalidates the token 3 s after receipt; 2 s leaves room for the round trip.
   */
  deferAfterMs?: number;
  /** Text of the ephemeral message a user sees when a handler throws. */
  errorMessage?: (command: string) => string;
}

interface Route {
  plugin: string;
  command: RoutableCommand;
}

export interface RouteScope {
  /** Guilds where the command is registered; undefined = global. */
  guildIds?: readonly string[];
}

const GLOBAL = '*';

function routeKey(scope: string, type: number, name: string): string {
  return `${scope}|${type}|${name}`;
}

function checkChoices(result: unknown, command: string): readonly AutocompleteChoice[] {
  const valid =
    Array.isArray(result) &&
    result.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as { name?: unknown }).name === 'string' &&
        ['string', 'number'].includes(typeof (c as { value?: unknown }).value),
    );
  if (!valid) {
    throw new TypeError(`autocomplete handler of /${command} must return an array of { name, value } choices`);
  }
  return result as readonly AutocompleteChoice[];
}

/** Find the handler declared closest to the invoked subcommand path, falling back outwards. */
function handlerAt<K extends 'run' | 'autocomplete'>(
  command: RoutableCommand,
  path: readonly string[],
  kind: K,
): RoutableCommand[K] | undefined {
  let found: RoutableCommand[K] | undefined = command[kind];
  let level = command.options;
  for (const name of path) {
    const option = level?.find(
      (o) =>
        o.name === name &&
        (o.type === ApplicationCommandOptionType.Subcommand || o.type === ApplicationCommandOptionType.SubcommandGroup),
    );
    if (option === undefined) break;
    const own = option[kind];
    if (typeof own === 'function') found = own as RoutableCommand[K];
    level = option.options;
  }
  return found;
}

/**
 * Routes APPLICATION_COMMAND and AUTOCOMPLETE interactions to the handlers declared on plugin commands:
 * by command type, name and scope (guild-scoped registrations first, then global), then by subcommand path.
 */
export class InteractionRouter<TCache = unknown, TPlugin = unknown> {
  private readonly routes = new Map<string, Route>();
  private readonly deferAfterMs: number;
  private readonly errorMessage: (command: string) => string;

  constructor(private readonly options: RouterOptions<TCache, TPlugin>) {
    this.deferAfterMs = options.deferAfterMs ?? 2000;
    this.errorMessage =
      options.errorMessage ?? ((command) => `Something went wrong while running \`/${command}\`. It has been logged.`);
  }

  /** Register a plugin's command. Throws if another plugin already routes the same type, name and scope. */
  add(plugin: string, command: RoutableCommand, scope: RouteScope = {}): void {
    const type = command.type ?? ApplicationCommandType.ChatInput;
    const scopes = scope.guildIds ?? [GLOBAL];
    for (const s of scopes) {
      const key = routeKey(s, type, command.name);
      const existing = this.routes.get(key);
      if (existing !== undefined && existing.plugin !== plugin) {
        throw new Error(
          `command "${command.name}" (type ${type}) of plugin "${plugin}" is already declared by plugin "${existing.plugin}" in the same scope`,
        );
      }
      this.routes.set(key, { plugin, command });
    }
  }

  /** Forget every route of a plugin (a plugin disabled after its setup failed). */
  removePlugin(plugin: string): void {
    for (const [key, route] of this.routes) if (route.plugin === plugin) this.routes.delete(key);
  }

  get size(): number {
    return this.routes.size;
  }

  private find(interaction: APIApplicationCommandInteraction | APIApplicationCommandAutocompleteInteraction): Route | undefined {
    const { data } = interaction;
    if (data.guild_id !== undefined) {
      const scoped = this.routes.get(routeKey(data.guild_id, data.type, data.name));
      if (scoped !== undefined) return scoped;
    }
    return this.routes.get(routeKey(GLOBAL, data.type, data.name));
  }

  /** Handle one interaction; never throws (handler errors are logged and answered). */
  async handle(interaction: APIInteraction): Promise<void> {
    if (interaction.type === InteractionType.ApplicationCommand) return this.handleCommand(interaction);
    if (interaction.type === InteractionType.ApplicationCommandAutocomplete) return this.handleAutocomplete(interaction);
  }

  private async handleCommand(interaction: APIApplicationCommandInteraction): Promise<void> {
    const log = this.options.log;
    const route = this.find(interaction);
    const data = interaction.data;
    const parsed =
      data.type === ApplicationCommandType.ChatInput
        ? parseOptions(data.options, data.resolved)
        : parseOptions(undefined, undefined);
    const commandLabel = [data.name, ...parsed.path].join(' ');
    if (route === undefined) {
      log.warn({ command: commandLabel, type: data.type }, 'no plugin handles this command');
      return;
    }
    const services = this.options.servicesFor(route.plugin);
    const ctx = new CommandContext(interaction, this.options.transport, services, parsed.options, parsed.path);
    const run = handlerAt(route.command, parsed.path, 'run');
    const guard = setTimeout(() => {
      if (ctx.acknowledged) return;
      services.log.debug({ command: commandLabel }, 'handler has not answered in time; deferring');
      ctx.defer({ ephemeral: route.command.deferEphemeral === true }).catch((err: unknown) => {
        services.log.warn({ err, command: commandLabel }, 'automatic defer failed');
      });
    }, this.deferAfterMs);
    guard.unref();
    try {
      if (typeof run !== 'function') {
        throw new Error(`plugin "${route.plugin}" declares no run handler for /${commandLabel}`);
      }
      await run(ctx);
      await ctx.settled();
      if (!ctx.acknowledged) {
        services.log.warn({ command: commandLabel }, 'handler finished without answering the interaction');
      }
    } catch (err) {
      services.log.error({ err, plugin: route.plugin, command: commandLabel }, 'command handler failed');
      await this.answerError(ctx, commandLabel, services.log);
    } finally {
      clearTimeout(guard);
    }
  }

  private async answerError(ctx: CommandContext<unknown, TCache, TPlugin>, command: string, log: Logger): Promise<void> {
    const body = { content: this.errorMessage(command), flags: MessageFlags.Ephemeral };
    try {
      await ctx.settled();
      if (ctx.state === 'pending' && !ctx.acknowledged) await ctx.reply(body);
      else if (ctx.state === 'deferred') await ctx.editReply(body);
      else await ctx.followUp(body);
    } catch (err) {
      log.warn({ err, command }, 'could not tell the user about the failure');
    }
  }

  private async handleAutocomplete(interaction: APIApplicationCommandAutocompleteInteraction): Promise<void> {
    const route = this.find(interaction);
    const parsed = parseOptions(interaction.data.options, interaction.data.resolved);
    const commandLabel = [interaction.data.name, ...parsed.path].join(' ');
    if (route === undefined) {
      this.options.log.warn({ command: commandLabel }, 'no plugin handles autocomplete for this command');
      return;
    }
    const services = this.options.servicesFor(route.plugin);
    if (parsed.focused === null) {
      services.log.warn({ command: commandLabel }, 'autocomplete interaction without a focused option');
      return;
    }
    const ctx = new AutocompleteContext(
      interaction,
      this.options.transport,
      services,
      parsed.options,
      parsed.focused,
      parsed.path,
    );
    const handler = handlerAt(route.command, parsed.path, 'autocomplete');
    let choices: readonly AutocompleteChoice[] = [];
    try {
      if (typeof handler !== 'function') {
        throw new Error(`plugin "${route.plugin}" declares no autocomplete handler for /${commandLabel}`);
      }
      const result = await handler(ctx);
      if (result !== undefined && !ctx.answered) choices = checkChoices(result, commandLabel);
    } catch (err) {
      services.log.error(
        { err, plugin: route.plugin, command: commandLabel, option: parsed.focused.name },
        'autocomplete handler failed',
      );
    }
    if (ctx.answered) return;
    try {
      const sent = await ctx.respond(choices);
      if (sent < choices.length) {
        services.log.warn({ command: commandLabel, offered: choices.length, sent }, 'autocomplete choices cut to 25');
      }
    } catch (err) {
      services.log.warn({ err, command: commandLabel }, 'could not answer autocomplete');
    }
  }
}
