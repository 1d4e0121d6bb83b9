import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionType,
  MessageFlags,
  type APIApplicationCommandAutocompleteInteraction,
  type APIApplicationCommandInteraction,
  type APIInteraction,
  type APIMessageComponentInteraction,
  type APIModalSubmitInteraction,
  type APIInteractionResponseCallbackData,
} from 'discord-api-types/v10';
import type { Logger } from 'pino';
import { ComponentContext, ModalContext } from './component-context.js';
import { kindOfComponentType, type ComponentKind } from './component-values.js';
import {
  AutocompleteContext,
  CommandContext,
  type AutocompleteChoice,
  type ContextServices,
  type RespondingContext,
} from './context.js';
import { compileCustomId, CustomIdTable } from './custom-id.js';
import { checkingTransport } from './message-limits.js';
import { parseOptions, type OptionValue } from './options.js';
import type { InteractionTransport } from './rest-port.js';
import { RateLimitedWarner, warnKeyPattern } from '../util/rate-limited-warner.js';
import { inSpan, PLUGIN_KEY, SpanKind } from '../util/tracing.js';

/*
 * Handlers are declared with method syntax on purpose: method parameters are checked bivariantly, so a
 * handler written for a narrower context (typed options, the concrete cache) is accepted here without
 * widening anything to `any`.
 */
type LooseCommandContext = CommandContext<Record<string, OptionValue | undefined>, unknown, unknown>;
type LooseAutocompleteContext = AutocompleteContext<Record<string, OptionValue | undefined>, unknown, unknown>;
type LooseComponentContext = ComponentContext<ComponentKind, Readonly<Record<string, string>>, unknown, unknown>;
type LooseModalContext = ModalContext<Readonly<Record<string, string>>, unknown, unknown>;
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

/** A component handler: a custom_id (exact, or a pattern such as `poll:{id}:{choice}`) and what it accepts. */
export interface RoutableComponent {
  readonly customId: string;
  /** The component kinds this handler takes; any when absent. */
  readonly kind?: ComponentKind | readonly ComponentKind[];
  run(ctx: LooseComponentContext): unknown;
  /** When the deadline guard has to defer a modal that no component opened, make it ephemeral. */
  readonly deferEphemeral?: boolean;
}

/** A modal-submission handler, by the modal's custom_id (exact or pattern). */
export interface RoutableModal {
  readonly customId: string;
  run(ctx: LooseModalContext): unknown;
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
  /**
   * Unhandled interactions are logged once per command name (or custom_id pattern: the ids in it folded, see
   * warnKeyPattern) per this window. Default 60 s.
   */
  unhandledWarnMs?: number;
  /** The clock the unhandled warnings' window is measured by. Default Date.now. */
  now?: () => number;
  /**
   * Told of every interaction no plugin handles; returns the message the user gets (ephemeral, say), or null to
   * leave it unanswered. Default: "This command is not available right now.", ephemeral. An autocomplete gets no
   * message: it is answered with no choices.
   */
  unhandled?: (kind: UnhandledKind, interaction: APIInteraction) => UnavailableAnswer | null;
  /** Asked before a command, component or modal handler runs (the plugins' preconditions); none: every handler runs. */
  gate?: InteractionGate;
}

/** What a gate is asked about: the handler's plugin, what it was declared on, and its label in logs. */
export type GateTarget =
  | { readonly kind: 'command'; readonly plugin: string; readonly command: RoutableCommand; readonly path: readonly string[]; readonly label: string }
  | { readonly kind: 'component'; readonly plugin: string; readonly handler: RoutableComponent; readonly label: string }
  | { readonly kind: 'modal'; readonly plugin: string; readonly handler: RoutableModal; readonly label: string };

export type GatedInteraction = APIApplicationCommandInteraction | APIMessageComponentInteraction | APIModalSubmitInteraction;

/**
 * Decides whether a handler may run. Resolves null to run it, or with the message the user gets instead (sent
 * ephemerally; the handler never runs). A rejection is handled as the handler's own failure would be.
 */
export interface InteractionGate {
  check(target: GateTarget, interaction: GatedInteraction): Promise<APIInteractionResponseCallbackData | null>;
}

export type UnhandledKind = 'command' | 'autocomplete' | 'component' | 'modal';

/** The message an unhandled interaction is answered with (a CHANNEL_MESSAGE_WITH_SOURCE callback's data). */
export interface UnavailableAnswer {
  content: string;
  flags?: number;
}

const DEFAULT_UNAVAILABLE: UnavailableAnswer = { content: 'This command is not available right now.', flags: MessageFlags.Ephemeral };
/** Interaction callback types (protocol §14.4). */
const CHANNEL_MESSAGE_WITH_SOURCE = 4;
const AUTOCOMPLETE_RESULT = 8;

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
 * Routes interactions to the handlers plugins declare: APPLICATION_COMMAND and AUTOCOMPLETE by command type,
 * name and scope (guild-scoped registrations first, then global), then by subcommand path; MESSAGE_COMPONENT
 * and MODAL_SUBMIT by custom_id (exact ids first, then patterns; at most one can match). Nothing here depends
 * on how an interaction arrived: answers go out through the InteractionTransport port.
 */
export class InteractionRouter<TCache = unknown, TPlugin = unknown> {
  private readonly routes = new Map<string, Route>();
  private readonly componentRoutes = new CustomIdTable<RoutableComponent>();
  private readonly modalRoutes = new CustomIdTable<RoutableModal>();
  private readonly deferAfterMs: number;
  private readonly errorMessage: (command: string) => string;
  private readonly transport: InteractionTransport;
  /** Unhandled interactions are an author's mistake, not a per-event log line on the hot path. */
  private readonly unhandled: RateLimitedWarner;

  constructor(private readonly options: RouterOptions<TCache, TPlugin>) {
    this.deferAfterMs = options.deferAfterMs ?? 2000;
    this.errorMessage =
      options.errorMessage ?? ((command) => `Something went wrong while running \`/${command}\`. It has been logged.`);
    this.transport = checkingTransport(options.transport);
    this.unhandled = new RateLimitedWarner({ windowMs: options.unhandledWarnMs ?? 60_000, now: options.now ?? Date.now });
  }

  /** Register a component handler. Throws when its custom_id could also reach another handler. */
  addComponent(plugin: string, handler: RoutableComponent): void {
    this.componentRoutes.add(plugin, compileCustomId(handler.customId), handler);
  }

  /** Register a modal-submission handler. Throws when its custom_id could also reach another handler. */
  addModal(plugin: string, handler: RoutableModal): void {
    this.modalRoutes.add(plugin, compileCustomId(handler.customId), handler);
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
    this.componentRoutes.removeOwner(plugin);
    this.modalRoutes.removeOwner(plugin);
  }

  /** Command routes (one per scope a command is registered in). */
  get size(): number {
    return this.routes.size;
  }
  /** Component and modal handlers. */
  get customIdRoutes(): number {
    return this.componentRoutes.size + this.modalRoutes.size;
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
    if (interaction.type === InteractionType.MessageComponent) return this.handleComponent(interaction);
    if (interaction.type === InteractionType.ModalSubmit) return this.handleModal(interaction);
  }

  private async handleCommand(interaction: APIApplicationCommandInteraction): Promise<void> {
    const route = this.find(interaction);
    const data = interaction.data;
    const parsed =
      data.type === ApplicationCommandType.ChatInput
        ? parseOptions(data.options, data.resolved)
        : parseOptions(undefined, undefined);
    const commandLabel = [data.name, ...parsed.path].join(' ');
    if (route === undefined) {
      this.warnUnhandled(`command ${data.type} ${commandLabel}`, { command: commandLabel, type: data.type }, 'no plugin handles this command');
      return this.answerUnhandled('command', interaction);
    }
    const services = this.options.servicesFor(route.plugin);
    const ctx = new CommandContext(interaction, this.transport, services, parsed.options, parsed.path);
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
      await handlerSpan(route.plugin, `/${commandLabel}`, async () => {
        const target = { kind: 'command', plugin: route.plugin, command: route.command, path: parsed.path, label: `/${commandLabel}` } as const;
        if (await this.denied(target, ctx)) return;
        await run(ctx);
        await ctx.settled();
      });
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

  /**
   * Answer an interaction no plugin handles, so that the user reads why instead of "This interaction failed":
   * the message `unhandled` gives (ephemeral by default), or, for autocomplete, no choices.
   */
  private async answerUnhandled(kind: UnhandledKind, interaction: APIInteraction): Promise<void> {
    const answer = this.options.unhandled !== undefined ? this.options.unhandled(kind, interaction) : DEFAULT_UNAVAILABLE;
    if (answer === null) return;
    const body =
      kind === 'autocomplete' ? { type: AUTOCOMPLETE_RESULT, data: { choices: [] } } : { type: CHANNEL_MESSAGE_WITH_SOURCE, data: answer };
    try {
      await this.transport.callback(interaction.id, interaction.token, body);
    } catch (err) {
      this.options.log.warn({ err, interaction: interaction.id }, 'could not answer an interaction no plugin handles');
    }
  }

  /** Log an unhandled interaction at most once per key and window, with the count of repeats in between. */
  private warnUnhandled(key: string, fields: Record<string, unknown>, message: string): void {
    const logged = this.unhandled.fields(warnKeyPattern(key), fields);
    if (logged !== null) this.options.log.warn(logged, message);
  }

  /**
   * Component clicks and modal submissions: find the handler by custom_id, check the component kind it
   * declared, run it under the deadline guard (a deferred update when there is a message to update, since
   * that shows nothing and keeps a later reply's own ephemeral flag), and answer a failure ephemerally.
   */
  private async handleComponent(interaction: APIMessageComponentInteraction): Promise<void> {
    const { custom_id: customId, component_type: componentType } = interaction.data;
    const found = this.componentRoutes.find(customId);
    if (found === undefined) {
      this.warnUnhandled(`component ${customId}`, { customId, componentType }, 'no plugin handles this component');
      return this.answerUnhandled('component', interaction);
    }
    const { route, params } = found;
    const services = this.options.servicesFor(route.owner);
    const ctx = new ComponentContext(interaction, this.transport, services, params);
    const label = `component ${route.pattern.source}`;
    const target = { kind: 'component', plugin: route.owner, handler: route.value, label } as const;
    await this.runGuarded(ctx, target, services.log, () => {
      const kinds = route.value.kind === undefined ? undefined : typeof route.value.kind === 'string' ? [route.value.kind] : route.value.kind;
      const kind = kindOfComponentType(componentType);
      if (kinds !== undefined && (kind === undefined || !kinds.includes(kind))) {
        throw new Error(
          `plugin "${route.owner}" handles custom_id ${JSON.stringify(route.pattern.source)} as ${kinds.join(' or ')}, but a ${kind ?? `component of type ${componentType}`} sent it`,
        );
      }
      return route.value.run(ctx as unknown as LooseComponentContext);
    }, () => ctx.deferUpdate());
  }

  private async handleModal(interaction: APIModalSubmitInteraction): Promise<void> {
    const customId = interaction.data.custom_id;
    const found = this.modalRoutes.find(customId);
    if (found === undefined) {
      this.warnUnhandled(`modal ${customId}`, { customId }, 'no plugin handles this modal');
      return this.answerUnhandled('modal', interaction);
    }
    const { route, params } = found;
    const services = this.options.servicesFor(route.owner);
    const ctx = new ModalContext(interaction, this.transport, services, params);
    const target = { kind: 'modal', plugin: route.owner, handler: route.value, label: `modal ${route.pattern.source}` } as const;
    await this.runGuarded(ctx, target, services.log, () => route.value.run(ctx as unknown as LooseModalContext), () =>
      interaction.message !== undefined ? ctx.deferUpdate() : ctx.defer({ ephemeral: route.value.deferEphemeral === true }),
    );
  }

  /** Run a handler with the deadline guard; log and answer its failure. */
  private async runGuarded(
    ctx: RespondingContext<APIMessageComponentInteraction | APIModalSubmitInteraction, TCache, TPlugin>,
    target: GateTarget,
    log: Logger,
    run: () => unknown,
    deferLate: () => Promise<void>,
  ): Promise<void> {
    const { plugin, label } = target;
    const guard = setTimeout(() => {
      if (ctx.acknowledged) return;
      log.debug({ handler: label }, 'handler has not answered in time; deferring');
      deferLate().catch((err: unknown) => log.warn({ err, handler: label }, 'automatic defer failed'));
    }, this.deferAfterMs);
    guard.unref();
    try {
      await handlerSpan(plugin, label, async () => {
        if (await this.denied(target, ctx)) return;
        await run();
        await ctx.settled();
      });
      if (!ctx.acknowledged) log.warn({ handler: label }, 'handler finished without answering the interaction');
    } catch (err) {
      log.error({ err, plugin, handler: label }, 'component or modal handler failed');
      await this.answerError(ctx, label, log, 'Something went wrong while handling that. It has been logged.');
    } finally {
      clearTimeout(guard);
    }
  }

  /**
   * Ask the gate; when it denies, answer with its message (ephemeral) and tell the caller not to run the handler.
   * Asked under the deadline guard, so a slow check is deferred like a slow handler.
   */
  private async denied(target: GateTarget, ctx: RespondingContext<GatedInteraction, TCache, TPlugin>): Promise<boolean> {
    const gate = this.options.gate;
    if (gate === undefined) return false;
    const answer = await gate.check(target, ctx.interaction);
    if (answer === null) return false;
    const body = { ...answer, flags: (answer.flags ?? 0) | MessageFlags.Ephemeral };
    await ctx.settled();
    // After the guard's deferred update of a component's message, the answer can only be a follow-up.
    if (ctx.state === 'deferred-update') await ctx.followUp(body);
    else await ctx.reply(body);
    return true;
  }

  private async answerError(
    ctx: RespondingContext<APIApplicationCommandInteraction | APIMessageComponentInteraction | APIModalSubmitInteraction, TCache, TPlugin>,
    command: string,
    log: Logger,
    text: string = this.errorMessage(command),
  ): Promise<void> {
    const body = { content: text, flags: MessageFlags.Ephemeral };
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
      this.warnUnhandled(`autocomplete ${commandLabel}`, { command: commandLabel }, 'no plugin handles autocomplete for this command');
      return this.answerUnhandled('autocomplete', interaction);
    }
    const services = this.options.servicesFor(route.plugin);
    if (parsed.focused === null) {
      services.log.warn({ command: commandLabel }, 'autocomplete interaction without a focused option');
      return;
    }
    const ctx = new AutocompleteContext(
      interaction,
      this.transport,
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
      const result = await handlerSpan(route.plugin, `/${commandLabel} (autocomplete)`, async () => handler(ctx));
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

/** Run a plugin's handler inside a "gatehouse.handler" span, with the plugin in the context for REST spans. */
function handlerSpan<T>(plugin: string, handler: string, run: () => Promise<T>): Promise<T> {
  return inSpan('gatehouse.handler', SpanKind.INTERNAL, { 'gatehouse.plugin': plugin, 'gatehouse.handler': handler }, [[PLUGIN_KEY, plugin]], run);
}
