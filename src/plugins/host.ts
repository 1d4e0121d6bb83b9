/**
 * The plugin host: loads plugin modules, gives each its own context (logger, config section, shared
 * services), runs setup/teardown, registers command routes and delivers events. A plugin that throws never
 * takes the process or another plugin down: setup failures disable that plugin, handler failures are logged
 * with the plugin's name and, for commands, answered with an ephemeral message.
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
import type { InteractionRouter, RoutableCommand } from '../interactions/router.js';
import { discoverPlugins, importPlugin, PluginLoadError, type PluginSource } from './loader.js';
import type { PluginCommand, PluginContext, PluginDefinition, PluginEventMap, PluginEventName } from './types.js';

/** Dispatch names and the plugin events they become (a Map: dispatch names come from the gateway). */
const EVENT_OF_DISPATCH: ReadonlyMap<string, PluginEventName> = new Map<string, PluginEventName>([
  ['READY', 'ready'],
  ['GUILD_CREATE', 'guildCreate'],
  ['GUILD_DELETE', 'guildDelete'],
  ['GUILD_MEMBER_ADD', 'guildMemberAdd'],
  ['GUILD_MEMBER_UPDATE', 'guildMemberUpdate'],
  ['GUILD_MEMBER_REMOVE', 'guildMemberRemove'],
  ['ENTITLEMENT_CREATE', 'entitlementCreate'],
  ['ENTITLEMENT_UPDATE', 'entitlementUpdate'],
  ['ENTITLEMENT_DELETE', 'entitlementDelete'],
  ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', 'commandPermissionsUpdate'],
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

/** Shared services every plugin context exposes (the host adds the per-plugin name, log and config). */
export type SharedServices = Omit<PluginContext, 'name' | 'log' | 'config'>;

export interface PluginHostOptions {
  log: Logger;
  services: SharedServices;
  /** `plugins.config`: per-plugin sections by plugin name. */
  pluginConfig?: Readonly<Record<string, unknown>>;
  /** Plugin names not to load. */
  disabled?: readonly string[];
  cwd?: string;
}

type AnyEventHandler = (payload: unknown, ctx: PluginContext) => unknown;

/** One plugin's handler for one event, with its rejection handler made once (nothing is allocated per event). */
interface EventListener {
  readonly plugin: HostedPlugin;
  readonly event: PluginEventName;
  readonly handler: AnyEventHandler;
  readonly onRejected: (err: unknown) => void;
}

export class PluginHost {
  private readonly plugins: HostedPlugin[] = [];
  private readonly failures: LoadFailure[] = [];
  /** Per plugin event, the plugins that handle it, in load order (built once, read per dispatch). */
  private readonly listeners = new Map<PluginEventName, EventListener[]>();
  private readonly log: Logger;

  constructor(private readonly options: PluginHostOptions) {
    this.log = options.log;
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
        const error = err instanceof Error ? err : new Error(String(err));
        this.failures.push({ source, error });
        this.log.error({ file: source.label, err: error }, `plugin failed to load: ${error.message}`);
      }
    }
  }

  /** Add a plugin that is already in memory (tests, programmatic use). */
  add(plugin: PluginDefinition, source: PluginSource, disabled: ReadonlySet<string> = new Set()): void {
    if (disabled.has(plugin.name)) {
      this.log.info({ plugin: plugin.name, file: source.label }, 'plugin disabled by configuration');
      return;
    }
    const clash = this.plugins.find((p) => p.name === plugin.name);
    if (clash !== undefined) {
      throw new PluginLoadError(source, [`name: "${plugin.name}" is already used by ${clash.source.label}`]);
    }
    const log = this.options.log.child({ plugin: plugin.name });
    const section = this.options.pluginConfig?.[plugin.name];
    const isSection = typeof section === 'object' && section !== null && !Array.isArray(section);
    if (section !== undefined && !isSection) {
      log.error({ plugin: plugin.name, key: `plugins.config.${plugin.name}` }, `plugins.config.${plugin.name} must be an object of settings; the plugin gets none`);
    }
    const config = (isSection ? section : {}) as Readonly<Record<string, unknown>>;
    const context: PluginContext = { ...this.options.services, name: plugin.name, log, config };
    const hosted: HostedPlugin = { name: plugin.name, source, definition: plugin, context, state: 'loaded' };
    this.plugins.push(hosted);
    for (const [event, handler] of Object.entries(plugin.on ?? {})) {
      const name = event as PluginEventName;
      let list = this.listeners.get(name);
      if (list === undefined) this.listeners.set(name, (list = []));
      list.push({
        plugin: hosted,
        event: name,
        handler: handler as AnyEventHandler,
        onRejected: (err: unknown) => this.eventFailed(hosted, name, err),
      });
    }
  }

  /** Every command of every loaded plugin with the plugin that declared it, in load order. */
  commands(): Array<{ plugin: HostedPlugin; command: PluginCommand; index: number }> {
    const out: Array<{ plugin: HostedPlugin; command: PluginCommand; index: number }> = [];
    for (const plugin of this.plugins) {
      (plugin.definition.commands ?? []).forEach((command, index) => out.push({ plugin, command, index }));
    }
    return out;
  }

  /**
   * Validate all plugins' commands together (duplicates across plugins count) and trace each problem back to
   * its plugin and field. An empty list means the definitions may be synced. Pass what is known of the
   * application (EMBEDDED, installation contexts) to check the rules that depend on it.
   */
  validateCommands(options: ValidateDefinitionsOptions = {}): PluginCommandProblem[] {
    const all = this.commands();
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

  /** Register every plugin's commands with the router, in the scopes sync puts them in. */
  registerRoutes(router: InteractionRouter<unknown, unknown>, options: { devGuildId?: string } = {}): void {
    const all = this.commands();
    const { groups } = groupByScope(
      all.map((c) => c.command),
      options.devGuildId !== undefined ? { devGuildId: options.devGuildId } : {},
    );
    for (const group of groups) {
      for (const index of group.sources) {
        const { plugin, command } = all[index]!;
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
  }

  /** Run every plugin's setup in load order; a throw disables that plugin only. */
  async setupAll(): Promise<void> {
    for (const plugin of this.plugins) {
      if (plugin.state !== 'loaded') continue;
      try {
        await plugin.definition.setup?.(plugin.context);
        plugin.state = 'ready';
      } catch (err) {
        plugin.state = 'failed';
        plugin.error = err;
        plugin.context.log.error({ err, plugin: plugin.name }, 'plugin setup failed; the plugin is disabled');
      }
    }
  }

  /** Run teardown in reverse load order; errors are logged, and every plugin gets its turn. */
  async teardownAll(): Promise<void> {
    for (const plugin of [...this.plugins].reverse()) {
      if (plugin.state !== 'ready') continue;
      try {
        await plugin.definition.teardown?.(plugin.context);
      } catch (err) {
        plugin.context.log.error({ err, plugin: plugin.name }, 'plugin teardown failed');
      }
      plugin.state = 'stopped';
    }
  }

  /**
   * Deliver a dispatch to the plugins that listen for it. Call after the cache has applied it. On the hot path:
   * a Map lookup, the handlers, and nothing allocated unless a plugin listens to `ready` or `raw`.
   */
  dispatch(shardId: number, t: string, d: unknown): void {
    const event = EVENT_OF_DISPATCH.get(t);
    if (event !== undefined) {
      const list = this.listeners.get(event);
      if (list !== undefined) {
        const payload = event === 'ready' ? { ...(d as PluginEventMap['ready']), shardId } : d;
        for (let i = 0; i < list.length; i++) this.invoke(list[i]!, payload);
      }
    }
    const raw = this.listeners.get('raw');
    if (raw !== undefined) {
      const payload: PluginEventMap['raw'] = { shardId, t, d };
      for (let i = 0; i < raw.length; i++) this.invoke(raw[i]!, payload);
    }
  }

  private invoke(listener: EventListener, payload: unknown): void {
    const plugin = listener.plugin;
    if (plugin.state !== 'ready') return;
    let result: unknown;
    try {
      result = listener.handler(payload, plugin.context);
    } catch (err) {
      this.eventFailed(plugin, listener.event, err);
      return;
    }
    if (result instanceof Promise) result.catch(listener.onRejected);
  }

  private eventFailed(plugin: HostedPlugin, event: PluginEventName, err: unknown): void {
    plugin.context.log.error({ err, plugin: plugin.name, event }, 'plugin event handler failed');
  }
}

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
