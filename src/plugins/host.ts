/**
 * The plugin host: loads plugin modules, gives each its own context (logger, config section, shared
 * services), runs setup/teardown, registers command, component and modal routes and delivers events. A plugin
 * that throws never takes the process or another plugin down: setup failures disable that plugin, handler
 * failures are logged with the plugin's name and, for interactions, answered with an ephemeral message.
 *
 * Plugins can also be swapped one at a time while the process runs (`npm run dev`): a replacement is checked
 * like a fresh load (shape, config, custom_id overlaps) before anything of the running version changes.
 */
import { MessageFlags } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import {
  CommandType,
  groupByScope,
  renderPath,
  validateDefinitions,
  type Problem,
  type ValidateDefinitionsOptions,
} from '../commands/index.js';
import { compileCustomId, CustomIdTable } from '../interactions/custom-id.js';
import type { InteractionRouter, RoutableCommand, RoutableComponent, RoutableModal } from '../interactions/router.js';
import { RateLimitedWarner } from '../util/rate-limited-warner.js';
import { own } from '../util/dict.js';
import { closest } from '../util/did-you-mean.js';
import { envName, resolveSection, type PluginEnvSetting } from './config-section.js';
import { CommandAccessService } from './command-access.js';
import { EVENT_OF_DISPATCH, intentProblems } from './events.js';
import { discoverPlugins, importPlugin, PluginLoadError, type PluginSource } from './loader.js';
import type { PluginCommand, PluginConfigSchema, PluginContext, PluginDefinition, PluginEventMap, PluginEventName } from './types.js';

/** Webhook event types and the plugin events they become (entitlements arrive by gateway and by webhook). */
const EVENT_OF_WEBHOOK: ReadonlyMap<string, PluginEventName> = new Map<string, PluginEventName>([
  ['APPLICATION_AUTHORIZED', 'applicationAuthorized'],
  ['APPLICATION_DEAUTHORIZED', 'applicationDeauthorized'],
  ['ENTITLEMENT_CREATE', 'entitlementCreate'],
  ['ENTITLEMENT_UPDATE', 'entitlementUpdate'],
  ['ENTITLEMENT_DELETE', 'entitlementDelete'],
]);

export type PluginState = 'loaded' | 'ready' | 'failed' | 'stopped';

export interface HostedPlugin {
  readonly name: string;
  readonly source: PluginSource;
  readonly definition: PluginDefinition;
  readonly context: PluginContext;
  state: PluginState;
  error?: unknown;
}

export interface LoadFailure {
  source: PluginSource;
  error: Error;
}

/** A command problem traced back to the plugin that declared it. */
export interface PluginCommandProblem {
  plugin: string;
  source: string;
  /** Path inside the plugin, e.g. `commands[0].options[2].choices[5].value`. */
  path: string;
  problem: Problem;
}

/** Shared services every plugin context exposes (the host adds the per-plugin name, log and config, and canUseCommand). */
export type SharedServices = Omit<PluginContext, 'name' | 'log' | 'config' | 'canUseCommand'>;

export interface PluginHostOptions {
  log: Logger;
  services: SharedServices;
  /** `plugins.config`: per-plugin sections by plugin name. */
  pluginConfig?: Readonly<Record<string, unknown>>;
  /** `GATEHOUSE_PLUGIN__<PLUGIN>__<KEY>` settings from the environment (see config-section.ts). */
  pluginEnvironment?: readonly PluginEnvSetting[];
  /** Plugin names not to load. */
  disabled?: readonly string[];
  cwd?: string;
  /**
   * An event handler that fails is logged with its stack the first time, then at most once per this window (per
   * plugin version and event), with the count of failures held back since. Default 60000.
   */
  eventFailureWindowMs?: number;
  now?: () => number;
  /** A plugin's setup that has not settled after this fails the start (PluginTimeoutError). Default 5000. */
  setupTimeoutMs?: number;
  /** A plugin's teardown that has not settled after this is left behind, logged with the plugin's name. Default 5000. */
  teardownTimeoutMs?: number;
  /**
   * The configured gateway intents: a plugin listening to an event none of them brings fails to load, naming the
   * intent (src/plugins/events.ts). Not checked when absent.
   */
  intents?: number;
}

/** How long a plugin's setup or teardown may take by default: long enough for a connection to a store, short enough to notice. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 5_000;

/** A plugin's setup or teardown did not settle in time. */
export class PluginTimeoutError extends Error {
  constructor(
    readonly plugin: string,
    readonly phase: 'setup' | 'teardown',
    readonly timeoutMs: number,
  ) {
    const setting = phase === 'setup' ? 'plugins.setupTimeoutMs' : 'plugins.teardownTimeoutMs';
    super(`plugin "${plugin}": ${phase} did not settle within ${timeoutMs} ms (${setting})`);
    this.name = 'PluginTimeoutError';
  }
}

type AnyEventHandler = (payload: unknown, ctx: PluginContext) => unknown;

/** One plugin's handler for one event, with its rejection handler made once (nothing is allocated per event). */
interface EventListener {
  readonly plugin: HostedPlugin;
  readonly event: PluginEventName;
  readonly handler: AnyEventHandler;
  readonly onRejected: (err: unknown) => void;
  /** This plugin version's and event's key in the failure limiter (a reloaded version starts afresh). */
  readonly failureKey: string;
}

const CUSTOM_ID_LISTS = ['components', 'modals'] as const;

export class PluginHost {
  private readonly plugins: HostedPlugin[] = [];
  private readonly failures: LoadFailure[] = [];
  /** Per plugin event, the plugins that handle it, in load order (built once, read per dispatch). */
  private readonly listeners = new Map<PluginEventName, EventListener[]>();
  /** custom_id patterns of every loaded plugin, to refuse overlaps at load time. */
  private readonly customIds = { components: new CustomIdTable<null>(), modals: new CustomIdTable<null>() };
  /** Names of plugins skipped by configuration (their config sections are not unknown). */
  private readonly disabledNames = new Set<string>();
  /**
   * Plugins that were imported but refused (their config section, a name or custom_id clash): they exist, so a
   * setting naming one of them is not reported as naming no plugin.
   */
  private readonly refusedNames = new Set<string>();
  private readonly log: Logger;
  /** Event handler failures: a handler that throws on every event must not write a line per event. */
  private readonly handlerFailures: RateLimitedWarner;
  private readonly now: () => number;
  /** Plugin versions committed so far (each version's listeners get their own failure keys). */
  private versions = 0;
  /** ctx.canUseCommand, shared by every plugin (it keeps the loads and command lists it read). */
  private readonly commandAccess: CommandAccessService;

  constructor(private readonly options: PluginHostOptions) {
    this.log = options.log;
    this.commandAccess = new CommandAccessService(options.services);
    this.now = options.now ?? Date.now;
    this.handlerFailures = new RateLimitedWarner({ windowMs: options.eventFailureWindowMs ?? 60_000, now: this.now });
  }

  get loaded(): readonly HostedPlugin[] {
    return this.plugins;
  }
  get loadFailures(): readonly LoadFailure[] {
    return this.failures;
  }

  /** Discover and import every plugin under `dirs`. Failures are collected (and logged), never thrown. */
  async load(dirs: readonly string[]): Promise<void> {
    const { sources, missing, shadowed } = discoverPlugins(dirs, this.options.cwd);
    for (const dir of missing) this.log.warn({ dir }, 'plugin directory not found');
    for (const s of shadowed) this.log.warn({ file: s.file, loaded: s.by }, `plugin module not loaded: ${s.by} has the same name and comes first`);
    const disabled = new Set(this.options.disabled ?? []);
    for (const source of sources) {
      try {
        const { plugin } = await importPlugin(source);
        this.add(plugin, source, disabled);
      } catch (err) {
        this.recordFailure(source, err);
      }
    }
    for (const problem of this.configProblems()) this.log.warn(problem);
  }

  /** Keep a load failure (and log it): the file, and what is wrong with it. */
  recordFailure(source: PluginSource, err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.failures.push({ source, error });
    this.log.error({ file: source.label, err: error }, `plugin failed to load: ${error.message}`);
  }

  /** Add a plugin that is already in memory (tests, programmatic use). Throws PluginLoadError. */
  add(plugin: PluginDefinition, source: PluginSource, disabled: ReadonlySet<string> = new Set()): void {
    if (disabled.has(plugin.name)) {
      this.disabledNames.add(plugin.name);
      this.log.info({ plugin: plugin.name, file: source.label }, 'plugin disabled by configuration');
      return;
    }
    let prepared: HostedPlugin;
    try {
      prepared = this.prepare(plugin, source);
    } catch (err) {
      this.refusedNames.add(plugin.name);
      throw err;
    }
    this.commit(prepared, null);
  }

  /**
   * Check a plugin against the running set (name, config section, custom_id overlaps) and build its context,
   * without changing anything. `replacing` is the running version it would replace (dev reload).
   */
  prepare(plugin: PluginDefinition, source: PluginSource, replacing: HostedPlugin | null = null): HostedPlugin {
    const clash = this.plugins.find((p) => p.name === plugin.name && p !== replacing);
    if (clash !== undefined) {
      throw new PluginLoadError(source, [`name: "${plugin.name}" is already used by ${clash.source.label}`]);
    }
    const problems = this.customIdProblems(plugin, replacing?.name ?? null);
    const settings = (this.options.pluginEnvironment ?? []).filter((s) => s.plugin === envName(plugin.name));
    const section = resolveSection(plugin.name, own(this.options.pluginConfig, plugin.name), settings, plugin.config as PluginConfigSchema<unknown> | undefined);
    problems.push(...section.problems);
    if (this.options.intents !== undefined) problems.push(...intentProblems(plugin.on, this.options.intents));
    if (problems.length > 0) throw new PluginLoadError(source, problems);
    const log = this.options.log.child({ plugin: plugin.name });
    for (const note of section.notes) log.error({ plugin: plugin.name, key: `plugins.config.${plugin.name}` }, note);
    const context: PluginContext = { ...this.options.services, canUseCommand: this.commandAccess.canUseCommand, name: plugin.name, log, config: section.config };
    return { name: plugin.name, source, definition: plugin, context, state: 'loaded' };
  }

  /** custom_id patterns that overlap another plugin's (or each other), with both plugins named. */
  private customIdProblems(plugin: PluginDefinition, ignoreOwner: string | null): string[] {
    const problems: string[] = [];
    for (const list of CUSTOM_ID_LISTS) {
      const mine = new CustomIdTable<null>();
      (plugin[list] ?? []).forEach((handler, i) => {
        const pattern = compileCustomId(handler.customId);
        const conflict = mine.conflict(plugin.name, pattern) ?? this.customIds[list].conflict(plugin.name, pattern, ignoreOwner);
        if (conflict !== null) problems.push(`${list}[${i}].customId: ${conflict.message}`);
        else mine.add(plugin.name, pattern, null);
      });
    }
    return problems;
  }

  /** Put a prepared plugin in place of `replacing` (or at the end), with its listeners and custom_ids. */
  commit(hosted: HostedPlugin, replacing: HostedPlugin | null): void {
    const at = replacing === null ? -1 : this.plugins.indexOf(replacing);
    if (replacing !== null) this.remove(replacing);
    // A new version keeps its place in load order (setup, teardown and events go in that order).
    if (at >= 0) this.plugins.splice(at, 0, hosted);
    else this.plugins.push(hosted);
    const version = ++this.versions;
    for (const [event, handler] of Object.entries(hosted.definition.on ?? {})) {
      const name = event as PluginEventName;
      let list = this.listeners.get(name);
      if (list === undefined) this.listeners.set(name, (list = []));
      const listener: EventListener = {
        plugin: hosted,
        event: name,
        handler: handler as AnyEventHandler,
        onRejected: (err: unknown) => this.eventFailed(listener, err),
        failureKey: `${version}\u0000${name}`,
      };
      list.push(listener);
    }
    for (const list of CUSTOM_ID_LISTS) {
      for (const handler of hosted.definition[list] ?? []) this.customIds[list].add(hosted.name, compileCustomId(handler.customId), null);
    }
    // A failure recorded for this file no longer stands once a version of it loaded.
    const failed = this.failures.findIndex((f) => f.source.file === hosted.source.file);
    if (failed !== -1) this.failures.splice(failed, 1);
  }

  /** Take a plugin out (its listeners and custom_ids too). Teardown is the caller's business. */
  remove(hosted: HostedPlugin): void {
    const i = this.plugins.indexOf(hosted);
    if (i !== -1) this.plugins.splice(i, 1);
    for (const list of this.listeners.values()) {
      for (let j = list.length - 1; j >= 0; j--) if (list[j]!.plugin === hosted) list.splice(j, 1);
    }
    for (const list of CUSTOM_ID_LISTS) this.customIds[list].removeOwner(hosted.name);
  }

  /** Forget the load failure of a file (it was removed). */
  forgetFailure(file: string): void {
    const i = this.failures.findIndex((f) => f.source.file === file);
    if (i !== -1) this.failures.splice(i, 1);
  }

  /**
   * Config sections and environment settings that name no plugin (a misspelt plugin name would otherwise
   * leave that plugin without its settings, silently).
   */
  configProblems(): string[] {
    const names = new Set([...this.plugins.map((p) => p.name), ...this.disabledNames, ...this.refusedNames]);
    const failing = this.failures.length > 0 ? ' (unless it is one of the plugins that failed to load)' : '';
    const problems: string[] = [];
    const mean = (key: string, pool: Iterable<string>): string => {
      const best = closest(key, pool);
      return best === null ? '' : `; did you mean "${best}"?`;
    };
    for (const key of Object.keys(this.options.pluginConfig ?? {})) {
      if (!names.has(key)) problems.push(`plugins.config.${key}: no plugin is named "${key}"${mean(key, names)}${failing}`);
    }
    const byEnv = new Map([...names].map((n) => [envName(n), n]));
    for (const s of this.options.pluginEnvironment ?? []) {
      if (!byEnv.has(s.plugin)) problems.push(`${s.variable}: no plugin is named "${s.plugin}"${mean(s.plugin, byEnv.keys())}${failing}`);
    }
    return problems;
  }

  /** Every command of the given plugins (default: all loaded) with the plugin that declared it, in order. */
  commands(plugins: readonly HostedPlugin[] = this.plugins): Array<{ plugin: HostedPlugin; command: PluginCommand; index: number }> {
    const out: Array<{ plugin: HostedPlugin; command: PluginCommand; index: number }> = [];
    for (const plugin of plugins) {
      (plugin.definition.commands ?? []).forEach((command, index) => out.push({ plugin, command, index }));
    }
    return out;
  }

  /**
   * Validate the plugins' commands together (duplicates across plugins count) and trace each problem back to
   * its plugin and field. An empty list means the definitions may be synced. Pass what is known of the
   * application (EMBEDDED, installation contexts) to check the rules that depend on it.
   */
  validateCommands(options: ValidateDefinitionsOptions = {}, plugins: readonly HostedPlugin[] = this.plugins): PluginCommandProblem[] {
    const all = this.commands(plugins);
    const problems = validateDefinitions(
      all.map((c) => c.command),
      options,
    );
    return problems.map((problem) => {
      const [first, ...rest] = problem.segments;
      const owner = typeof first === 'number' ? all[first] : undefined;
      if (owner === undefined) {
        return { plugin: '(all plugins)', source: '', path: problem.path, problem };
      }
      const path = renderPath(['commands', owner.index, ...rest]);
      return { plugin: owner.plugin.name, source: owner.plugin.source.label, path, problem };
    });
  }

  /** Register every plugin's commands, components and modals with the router. */
  registerRoutes(router: InteractionRouter<unknown, unknown>, options: { devGuildId?: string } = {}): void {
    for (const plugin of this.plugins) this.registerPluginRoutes(router, plugin, options);
  }

  /** Register one plugin's routes: commands in the scopes sync puts them in, then custom_id handlers. */
  registerPluginRoutes(router: InteractionRouter<unknown, unknown>, plugin: HostedPlugin, options: { devGuildId?: string } = {}): void {
    const commands = plugin.definition.commands ?? [];
    const { groups } = groupByScope(commands, options.devGuildId !== undefined ? { devGuildId: options.devGuildId } : {});
    for (const group of groups) {
      for (const index of group.sources) {
        const command = commands[index]!;
        const route = plugin.state === 'failed' ? unavailableRoute(command, plugin.name) : (command as RoutableCommand);
        try {
          router.add(plugin.name, route, group.scope.kind === 'guild' ? { guildIds: [group.scope.guildId] } : {});
        } catch (err) {
          // Two plugins declaring one command is also a validation problem (and blocks the sync); the first
          // declaration keeps the route.
          plugin.context.log.error({ err, plugin: plugin.name, command: command.name }, 'command not routed');
        }
      }
    }
    const failed = plugin.state === 'failed';
    for (const handler of plugin.definition.components ?? []) {
      router.addComponent(plugin.name, failed ? unavailableHandler(handler.customId, plugin.name) : (handler as RoutableComponent));
    }
    for (const handler of plugin.definition.modals ?? []) {
      router.addModal(plugin.name, failed ? unavailableHandler(handler.customId, plugin.name) : (handler as RoutableModal));
    }
  }

  /**
   * Run every plugin's setup in load order; a throw disables that plugin only. A setup that does not settle within
   * the timeout rejects with PluginTimeoutError (the start fails, naming the plugin); so does `signal` aborting
   * (a stop while starting), at once.
   */
  async setupAll(signal?: AbortSignal): Promise<void> {
    for (const plugin of this.plugins) {
      signal?.throwIfAborted();
      await this.setup(plugin, signal);
      signal?.throwIfAborted();
      if (plugin.error instanceof PluginTimeoutError) throw plugin.error;
    }
  }

  /**
   * Run one plugin's setup; a throw disables it (state `failed`) and is logged, and so does a setup that does not
   * settle within the timeout (its error a PluginTimeoutError) or that `signal` cuts short. Never rejects.
   */
  async setup(plugin: HostedPlugin, signal?: AbortSignal): Promise<void> {
    if (plugin.state !== 'loaded') return;
    if (plugin.definition.setup === undefined) {
      plugin.state = 'ready';
      return;
    }
    const timeoutMs = this.options.setupTimeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS;
    const running = Promise.resolve().then(() => plugin.definition.setup?.(plugin.context));
    let outcome: Settled;
    try {
      outcome = await settleWithin(running, timeoutMs, signal);
    } catch (err) {
      plugin.state = 'failed';
      plugin.error = err;
      plugin.context.log.error({ err, plugin: plugin.name }, 'plugin setup failed; the plugin is disabled');
      return;
    }
    if (outcome === 'done') {
      plugin.state = 'ready';
      return;
    }
    // Timed out or cut short: the plugin counts as failed; should its setup still finish, it is torn down then.
    plugin.state = 'failed';
    const error = outcome === 'timeout' ? new PluginTimeoutError(plugin.name, 'setup', timeoutMs) : new Error('plugin setup cut short: the runtime is stopping');
    plugin.error = error;
    void running.then(
      () => this.teardownLate(plugin),
      () => undefined,
    );
    if (outcome === 'timeout') plugin.context.log.error({ err: error, plugin: plugin.name }, error.message);
  }

  /** A setup that finished after it timed out or the start was cut short: its plugin never served, so undo it. */
  private teardownLate(plugin: HostedPlugin): void {
    const teardown = plugin.definition.teardown;
    if (teardown === undefined) return;
    void settleWithin(Promise.resolve().then(() => teardown(plugin.context)), this.options.teardownTimeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS).catch(
      (err: unknown) => plugin.context.log.error({ err, plugin: plugin.name }, 'plugin teardown failed'),
    );
  }

  /** Run teardown in reverse load order; errors and timeouts are logged, and every plugin gets its turn. */
  async teardownAll(): Promise<void> {
    for (const plugin of [...this.plugins].reverse()) await this.teardown(plugin);
  }

  /** Run one plugin's teardown (when it is running); a throw is logged, and so is a teardown that does not settle in time. */
  async teardown(plugin: HostedPlugin): Promise<void> {
    if (plugin.state !== 'ready') return;
    const timeoutMs = this.options.teardownTimeoutMs ?? DEFAULT_PLUGIN_TIMEOUT_MS;
    try {
      const outcome = await settleWithin(Promise.resolve().then(() => plugin.definition.teardown?.(plugin.context)), timeoutMs);
      if (outcome === 'timeout') {
        const error = new PluginTimeoutError(plugin.name, 'teardown', timeoutMs);
        plugin.context.log.error({ err: error, plugin: plugin.name }, `${error.message}; stopping without it`);
      }
    } catch (err) {
      plugin.context.log.error({ err, plugin: plugin.name }, 'plugin teardown failed');
    }
    plugin.state = 'stopped';
  }

  /**
   * Deliver a dispatch to the plugins that listen for it. Call after the cache has applied it. `typed: false`
   * delivers it to `raw` listeners only: the typed event already reached plugins another way, or the cache
   * refused the payload (a GUILD_MEMBER_ADD without `user`: Cache#apply's verdict), so that a typed handler
   * never gets one that is not its documented type. On the hot path: a Map lookup, the handlers, and nothing
   * allocated unless a plugin listens to `ready` or `raw`.
   */
  dispatch(shardId: number, t: string, d: unknown, typed = true): void {
    const event = typed ? EVENT_OF_DISPATCH.get(t) : undefined;
    if (event !== undefined) {
      const list = this.listeners.get(event);
      if (list !== undefined) {
        const payload = event === 'ready' ? { ...(d as PluginEventMap['ready']), shardId } : event === 'resumed' ? { shardId } : d;
        for (let i = 0; i < list.length; i++) this.invoke(list[i]!, payload);
      }
    }
    const raw = this.listeners.get('raw');
    if (raw !== undefined) {
      const payload: PluginEventMap['raw'] = { shardId, t, d };
      for (let i = 0; i < raw.length; i++) this.invoke(raw[i]!, payload);
    }
  }

  /**
   * Deliver a webhook event (call after the cache has applied it): the typed event when the type is known, its
   * data an object and `typed` (false: the cache refused it, as in `dispatch`; authorizations get the event's
   * `timestamp` added), then `webhookEvent` with the event as received.
   */
  dispatchWebhookEvent(event: { type: string; timestamp: string; data: unknown }, typed = true): void {
    const name = typed ? EVENT_OF_WEBHOOK.get(event.type) : undefined;
    const data = event.data;
    if (name !== undefined && typeof data === 'object' && data !== null && !Array.isArray(data)) {
      const list = this.listeners.get(name);
      if (list !== undefined) {
        const payload = name === 'applicationAuthorized' || name === 'applicationDeauthorized' ? { ...data, timestamp: event.timestamp } : data;
        for (const entry of list) this.invoke(entry, payload);
      }
    }
    const all = this.listeners.get('webhookEvent');
    if (all !== undefined) {
      const payload: PluginEventMap['webhookEvent'] = { type: event.type, timestamp: event.timestamp, data };
      for (const entry of all) this.invoke(entry, payload);
    }
  }

  /** Deliver an event to one plugin's handler only (a plugin's own `preconditionDenied`). */
  deliverTo<K extends PluginEventName>(plugin: string, event: K, payload: PluginEventMap[K]): void {
    const list = this.listeners.get(event);
    if (list === undefined) return;
    for (const listener of list) if (listener.plugin.name === plugin) this.invoke(listener, payload);
  }

  private invoke(listener: EventListener, payload: unknown): void {
    const plugin = listener.plugin;
    if (plugin.state !== 'ready') return;
    let result: unknown;
    try {
      result = listener.handler(payload, plugin.context);
    } catch (err) {
      this.eventFailed(listener, err);
      return;
    }
    if (result instanceof Promise) result.catch(listener.onRejected);
  }

  /**
   * A handler threw (or its promise rejected): the first failure is logged with its stack, plugin and event;
   * after it one line per window at most, with `repeats`, the failures held back since the last line.
   */
  private eventFailed(listener: EventListener, err: unknown): void {
    const plugin = listener.plugin;
    const logged = this.handlerFailures.fields(listener.failureKey, { err, plugin: plugin.name, event: listener.event });
    if (logged !== null) plugin.context.log.error(logged, 'plugin event handler failed');
  }
}

const unavailableText = (plugin: string): string => `This is unavailable right now (plugin "${plugin}" failed to start).`;

/** A route for the commands of a plugin whose setup failed: it stays registered and says so. */
function unavailableRoute(command: PluginCommand, plugin: string): RoutableCommand {
  const reply = { content: `This command is unavailable right now (plugin "${plugin}" failed to start).`, flags: MessageFlags.Ephemeral };
  return {
    type: command.type ?? CommandType.CHAT_INPUT,
    name: command.name,
    async run(ctx) {
      await ctx.reply(reply);
    },
    autocomplete: () => [],
  };
}

/** The same for a component or modal handler of a plugin whose setup failed. */
function unavailableHandler(customId: string, plugin: string): RoutableComponent & RoutableModal {
  return {
    customId,
    async run(ctx: { reply(input: { content: string; flags: number }): Promise<void> }) {
      await ctx.reply({ content: unavailableText(plugin), flags: MessageFlags.Ephemeral });
    },
  };
}

type Settled = 'done' | 'timeout' | 'aborted';

/** Wait for `work` for at most `timeoutMs` (or until `signal` aborts); rejects with its error. */
function settleWithin(work: Promise<unknown>, timeoutMs: number, signal?: AbortSignal): Promise<Settled> {
  return new Promise<Settled>((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      finish();
      resolve('aborted');
    };
    const timer = setTimeout(() => {
      finish();
      resolve('timeout');
    }, timeoutMs);
    if (signal?.aborted === true) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      () => {
        finish();
        resolve('done');
      },
      (err: unknown) => {
        finish();
        reject(err);
      },
    );
  });
}
