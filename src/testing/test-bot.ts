/**
 * A bot as its owner runs it (the real Runtime: plugin host, command sync, gateway, cache, REST client) on a
 * sandbox of its own, driven through the sandbox as users drive it. Actions on events (a member joins, an
 * entitlement is granted, command permissions change) settle once the runtime has handled the dispatch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { LevelWithSilent } from 'pino';
import { createSandbox } from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/contract.js';
import { intentBits, loadConfig, type Config, type ConfigInput } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { Runtime } from '../runtime/runtime.js';
import { TestClock } from './clock.js';
import { dropNamespace } from '../runtime/embedded-namespace.js';
import { openRedis } from '../util/redis-connection.js';
import { INTENT_BITS } from '../api/intents.js';
import { pluginOf, resolvePlugins, type PluginInput } from './plugins.js';
import type { Reply } from './reply.js';
import { DEFAULT_TIMEOUT_MS, sandboxDefaults, TestSandbox, type DispatchExpectation, type StartSandboxOptions } from './test-sandbox.js';
import { waitFor, type ChangeSource } from './wait.js';

export interface StartBotOptions extends StartSandboxOptions {
  /** Plugin objects (definePlugin), plugin modules (file, or folder with an index) and plugin directories. */
  plugins: readonly PluginInput[];
  /**
   * Configuration, as in config/*.json (plugin sections under `plugins.config`, intents, cache...). The kit reads
   * no configuration file and no environment variable of the process: the bot runs on its sandbox whatever the
   * shell says (a token in the configuration is refused).
   */
  config?: ConfigInput;
  /** Environment variables the configuration sees (GATEHOUSE_PLUGIN__<PLUGIN>__<KEY> and the like). Default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Paths of plugins resolve against this folder. Default process.cwd(). */
  cwd?: string;
  /** Level of the log lines kept in `bot.logs`. Default "debug". */
  logLevel?: LevelWithSilent;
  /** Also print the bot's log lines (to stderr). Default false. */
  printLogs?: boolean;
  /** The runtime defers an interaction whose handler has not answered after this long. Default 2000. */
  deferAfterMs?: number;
  /**
   * Refuse to start when a plugin fails to load or to set up, or its commands are invalid (the embedded sandbox
   * would skip it). Default true; false to test how the bot copes.
   */
  strict?: boolean;
}

/** One line of the bot's log (pino's JSON): level (30 info, 40 warn, 50 error), msg, and its fields. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly time?: number;
  readonly [field: string]: unknown;
}

/** The bot did not start as the test asked: every problem is listed. */
export class BotStartError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the bot did not start cleanly:\n  ${problems.join('\n  ')}`);
    this.name = 'BotStartError';
  }
}

interface Waiter {
  event: string;
  match: (d: Record<string, unknown>) => boolean;
  resolve: () => void;
}

/** What the runtime handled, for actions waiting on it (fed by the runtime's observeDispatch hook). */
class DispatchWatch {
  private waiters: Waiter[] = [];
  private readonly listeners = new Set<() => void>();
  /** Dispatches the runtime handled, by event name. */
  readonly counts = new Map<string, number>();

  readonly observe = (_shardId: number, t: string, d: unknown): void => {
    this.counts.set(t, (this.counts.get(t) ?? 0) + 1);
    if (this.waiters.length > 0 && typeof d === 'object' && d !== null) {
      const data = d as Record<string, unknown>;
      this.waiters = this.waiters.filter((w) => {
        if (w.event !== t) return true;
        let hit = false;
        try {
          hit = w.match(data);
        } catch {
          hit = false;
        }
        if (hit) w.resolve();
        return !hit;
      });
    }
    for (const l of this.listeners) l();
  };

  add(waiter: Waiter): () => void {
    this.waiters.push(waiter);
    return () => {
      this.waiters = this.waiters.filter((w) => w !== waiter);
    };
  }

  readonly changes: ChangeSource = (listener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/** Collects the runtime's JSON log lines. */
class LogCollector extends Writable {
  readonly lines: LogLine[] = [];
  private partial = '';

  constructor(private readonly echo: boolean) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (this.echo) process.stderr.write(chunk);
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line.trim() === '') continue;
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.lines.push({ level: 30, msg: line });
      }
    }
    callback();
  }
}

/** Event names that need an intent, for timeout errors that say why an event never came. */
const EVENT_INTENTS: ReadonlyMap<string, keyof typeof INTENT_BITS> = new Map([
  ['GUILD_MEMBER_ADD', 'GUILD_MEMBERS'],
  ['GUILD_MEMBER_UPDATE', 'GUILD_MEMBERS'],
  ['GUILD_MEMBER_REMOVE', 'GUILD_MEMBERS'],
]);

export class TestBot extends TestSandbox {
  /** @internal Use startBot(). */
  constructor(
    sandbox: Sandbox,
    timeoutMs: number,
    /** The bot's runtime (its cache, REST client, plugin host, readiness...). */
    readonly runtime: Runtime,
    private readonly watch: DispatchWatch,
    private readonly collector: LogCollector,
    private readonly scratch: string,
    /** The preconditions' cooldown clock: `bot.clock.advance(10_000)` lets ten seconds of cooldown pass at once. */
    readonly clock: TestClock = new TestClock(),
  ) {
    super(sandbox, timeoutMs);
  }

  /** The configuration the bot runs with. */
  get config(): Config {
    return this.runtime.config;
  }

  /** The bot's log lines so far (at `logLevel` and above). */
  get logs(): readonly LogLine[] {
    return this.collector.lines;
  }

  /** Warnings and errors the bot logged so far: a clean run has none. */
  get warnings(): readonly LogLine[] {
    return this.collector.lines.filter((l) => l.level >= 40);
  }

  protected override expectDispatch(event: string, match: (d: Record<string, unknown>) => boolean, what: string, timeoutMs: number | undefined): DispatchExpectation {
    let handled = false;
    const remove = this.watch.add({ event, match, resolve: () => (handled = true) });
    let cancelled = false;
    const done = waitFor(() => (handled ? true : cancelled ? false : undefined), {
      what: `the bot to handle ${what}`,
      timeoutMs: timeoutMs ?? this.timeoutMs,
      sources: [this.watch.changes],
      detail: () => {
        const intent = EVENT_INTENTS.get(event);
        const lines = [`  the bot handled ${this.watch.counts.get(event) ?? 0} ${event} event(s) so far`];
        if (intent !== undefined && (intentBits(this.config) & INTENT_BITS[intent]) === 0) {
          lines.push(`  ${event} needs the ${intent} intent, which the bot's configuration (intents) leaves out`);
        }
        return lines.join('\n');
      },
    }).then(
      () => undefined,
      (err: unknown) => {
        remove();
        throw err;
      },
    );
    return {
      done,
      cancel: () => {
        cancelled = true;
        remove();
        done.catch(() => undefined);
      },
    };
  }

  protected override async afterReconnect(shard: number, timeoutMs: number): Promise<void> {
    await waitFor(() => (this.runtime.readiness().ready ? true : undefined), {
      what: `the bot to be ready again after shard ${shard} reconnected`,
      timeoutMs,
      sources: [this.watch.changes],
      detail: () => `  readiness: ${JSON.stringify(this.runtime.readiness().detail)}`,
    });
  }

  override diagnose(reply: Reply): string {
    const base = super.diagnose(reply);
    const lines = this.collector.lines.filter((l) => l.level >= 40 && (l.time === undefined || l.time >= reply.at)).slice(-5);
    const logged = lines.map((l) => `  bot ${l.level >= 50 ? 'error' : 'warning'}: ${l.msg}${errorText(l)}`).join('\n');
    return [base, logged].filter((s) => s !== '').join('\n');
  }

  protected override async closeParts(): Promise<void> {
    try {
      await this.runtime.stop({ graceMs: 2_000 });
      await this.dropRedisKeys();
    } finally {
      try {
        await super.closeParts();
      } finally {
        rmSync(this.scratch, { recursive: true, force: true });
      }
    }
  }

  /** The bot's Redis keys (their namespace is this sandbox's alone): a test leaves nothing behind. */
  private async dropRedisKeys(): Promise<void> {
    const { redisUrl, transport } = this.runtime.config;
    if (redisUrl === undefined || this.runtime.state !== 'stopped') return;
    if (this.runtime.parts.cache?.backend !== 'redis' && transport === 'gateway') return;
    const redis = openRedis(redisUrl, { name: 'test kit cleanup', redisOptions: { maxRetriesPerRequest: 1 } });
    try {
      await dropNamespace(redis, this.runtime.cacheNamespace);
    } finally {
      redis.disconnect();
    }
  }
}

function errorText(line: LogLine): string {
  const err = line.err as { message?: unknown } | undefined;
  return typeof err?.message === 'string' ? ` (${err.message})` : '';
}

/**
 * Start a bot with these plugins on a sandbox of its own (loopback, random port), synced and ready: every shard
 * READY, every plugin set up. Throws BotStartError naming what went wrong (strict by default).
 */
export async function startBot(options: StartBotOptions): Promise<TestBot> {
  const cwd = options.cwd ?? process.cwd();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const resolved = resolvePlugins(options.plugins, cwd);
  const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-testkit-'));
  const collector = new LogCollector(options.printLogs === true);
  const log = createLogger({ level: options.logLevel ?? 'debug', pretty: false, destination: collector });
  const watch = new DispatchWatch();
  let sandbox: Sandbox | null = null;
  let runtime: Runtime | null = null;
  const fail = async (err: unknown): Promise<never> => {
    await runtime?.stop({ graceMs: 500 }).catch(() => undefined);
    await sandbox?.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  };
  try {
    const user = options.config ?? {};
    const dirs = [...(user.plugins?.dirs ?? []), ...resolved.dirs];
    const config = loadConfig({
      cwd,
      // A folder that does not exist: no configuration file of the project is read.
      dir: join(scratch, 'no-config'),
      env: { ...options.env },
      overrides: {
        ...user,
        // An empty directory when the test names no plugin directory: the project's plugins/ is not loaded.
        plugins: { ...user.plugins, dirs: dirs.length > 0 ? dirs : [scratch] },
        http: user.http ?? { enabled: false },
        sandbox: { ...user.sandbox, mode: 'embedded' },
      },
    });
    const sandboxOptions = sandboxDefaults({ activities: true, ...options.sandbox });
    sandbox = await createSandbox({ logger: log.child({ component: 'sandbox' }), ...sandboxOptions });
    const clock = new TestClock();
    runtime = new Runtime({
      preconditionClock: clock.now,
      config,
      sandbox,
      cwd,
      log,
      production: false,
      observeDispatch: watch.observe,
      gateway: { identifyWindowMs: sandboxOptions.gateway?.identifyWindowMs ?? 100 },
      ...(options.deferAfterMs !== undefined ? { deferAfterMs: options.deferAfterMs } : {}),
    });
    const problems: string[] = [];
    const host = await runtime.loadPlugins();
    for (const entry of resolved.modules) {
      try {
        const { plugin, source } = await pluginOf(entry);
        host.add(plugin, source, new Set(config.plugins.disabled));
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (problems.length > 0) throw new BotStartError(problems);
    await runtime.start();
    if (options.strict !== false) {
      const found = startProblems(runtime);
      if (found.length > 0) throw new BotStartError(found);
    }
    const bot = new TestBot(sandbox, timeoutMs, runtime, watch, collector, scratch, clock);
    return await bot.init();
  } catch (err) {
    return fail(err);
  }
}

/** Plugins that did not load or set up, and commands the embedded sync skipped. */
function startProblems(runtime: Runtime): string[] {
  const out: string[] = [];
  for (const f of runtime.plugins.loadFailures) out.push(`${f.source.label}: ${f.error.message}`);
  for (const p of runtime.plugins.loaded) {
    if (p.state === 'failed') out.push(`plugin ${p.name} (${p.source.label}): setup failed: ${p.error instanceof Error ? p.error.message : String(p.error)}`);
  }
  const sync = runtime.commandSync;
  if (sync !== null) {
    if (sync.status === 'invalid') out.push(...sync.problems.map((p) => `${p.plugin}: ${p.path}: ${p.problem.message}`));
    else if (sync.status === 'blocked') out.push(`command sync blocked: ${sync.reason}`);
    // Files that did not load are listed above already.
    else for (const s of sync.skipped) if (s.plugin !== null) out.push(`plugin ${s.plugin} (${s.file}): commands not synced: ${s.reasons.join('; ')}`);
  }
  return out;
}
