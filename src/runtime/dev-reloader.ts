/**
 * The development loop (`npm run dev`): watch the plugin directories and, as files are saved, added or
 * removed, swap plugins in the running process. The gateway stays connected (no new IDENTIFY); each plugin
 * that changed is imported fresh, checked like a fresh load (shape, config, custom_id overlaps, its
 * commands validated with everyone else's), torn down and replaced, and then only what changed is synced.
 * A version that fails to load, validate or start leaves the previous one running.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { describePlan } from '../commands/index.js';
import { enableFreshImports, versionsLoaded } from '../plugins/fresh-import.js';
import type { HostedPlugin } from '../plugins/host.js';
import { discoverPlugins, importPlugin, isModuleFile, type PluginSource } from '../plugins/loader.js';
import { describeSkipped, formatPluginProblem } from './command-sync.js';
import { DirWatcher } from './dir-watcher.js';
import type { Runtime } from './runtime.js';

export interface DevReloaderOptions {
  runtime: Runtime;
  /** What changed, one line each. */
  out: (line: string) => void;
  /** What failed, one line each. */
  err: (line: string) => void;
  /** Quiet time after the last file event before a reload pass. Default 100 ms. */
  debounceMs?: number;
  cwd?: string;
  /**
   * Type-checks the plugins that changed, after their reload (src/cli/typecheck-plugins.ts, on a worker
   * thread). What it finds is reported; the version loaded stays running either way, as types are not checked
   * when a plugin is imported. Without it, nothing is type-checked.
   */
  typeCheck?: (sources: readonly PluginSource[]) => Promise<PluginTypeCheck>;
}

/** What a type check of some plugins found. */
export type PluginTypeCheck =
  | { status: 'checked'; problems: ReadonlyArray<{ file: string; line: number; column: number; code: number; message: string }> }
  | { status: 'skipped'; reason: string }
  /** The TypeScript installed is outside the supported range; `line` says so. */
  | { status: 'unsupported'; line: string };

/** What one pass did (for tests and the console). */
export interface ReloadReport {
  changed: string[];
  failed: string[];
  synced: boolean;
  /** Milliseconds from the first file event of the pass (or the pass start) to its end. */
  tookMs: number;
}

/** A warning once this many plugin versions are held in memory (ES modules cannot be unloaded). */
const VERSION_WARNING = 200;

export class DevReloader {
  private readonly known = new Map<string, string>();
  private watcher: DirWatcher | null = null;
  private readonly dirs: string[];
  private readonly cwd: string;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<ReloadReport> | null = null;
  private again = false;
  private firstEventAt: number | null = null;
  private warnedVersions = false;
  private stopped = false;
  /** Plugins waiting for a type check, and the check running (one at a time). */
  private readonly toCheck = new Map<string, PluginSource>();
  private checking: Promise<void> | null = null;
  /** Plugin files whose last check found errors (to say when they are gone). */
  private readonly withTypeErrors = new Set<string>();
  private warnedCheckSkipped = false;

  constructor(private readonly options: DevReloaderOptions) {
    this.cwd = options.cwd ?? process.cwd();
    this.dirs = options.runtime.config.plugins.dirs.map((d) => resolve(this.cwd, d));
  }

  /** Note the running versions and watch the directories. */
  start(): void {
    for (const source of this.sources()) this.known.set(source.file, this.fingerprint(source));
    enableFreshImports(this.dirs);
    // One watch per directory, not a recursive one: see dir-watcher.ts for the saves a recursive watch misses.
    this.watcher = new DirWatcher(this.dirs, {
      onChange: () => this.schedule(),
      onError: (dir, err) => this.options.err(`[dev] watching ${dir} failed: ${err.message}`),
    });
    this.watcher.start();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.timer !== null) clearTimeout(this.timer);
    this.toCheck.clear();
    return Promise.all([this.running, this.checking]).then(() => undefined);
  }

  /** Resolves once the type checks asked for so far have been reported (for tests). */
  async typeChecksDone(): Promise<void> {
    while (this.checking !== null) await this.checking;
  }

  private queueTypeCheck(sources: readonly PluginSource[]): void {
    if (this.options.typeCheck === undefined || this.stopped) return;
    for (const s of sources) if (/\.[cm]?tsx?$/.test(s.file)) this.toCheck.set(s.file, s);
    if (this.checking !== null || this.toCheck.size === 0) return;
    this.checking = this.runTypeChecks().finally(() => {
      this.checking = null;
    });
  }

  private async runTypeChecks(): Promise<void> {
    const check = this.options.typeCheck!;
    // Bounded: each round takes what changed meanwhile, and the loop ends with the dev loop.
    for (let round = 0; round < 1000 && this.toCheck.size > 0 && !this.stopped; round++) {
      const batch = [...this.toCheck.values()];
      this.toCheck.clear();
      let result: PluginTypeCheck;
      try {
        result = await check(batch);
      } catch (err) {
        if (!this.stopped) this.options.err(`[dev] type check failed: ${errorText(err)}`);
        continue;
      }
      if (!this.stopped) this.reportTypeCheck(batch, result);
    }
  }

  private reportTypeCheck(batch: readonly PluginSource[], result: PluginTypeCheck): void {
    if (result.status !== 'checked') {
      const why = result.status === 'skipped' ? result.reason : result.line;
      if (!this.warnedCheckSkipped) this.options.err(`[dev] plugins are not type-checked: ${why}`);
      this.warnedCheckSkipped = true;
      return;
    }
    for (const source of batch) {
      const own = result.problems.filter((p) => this.belongsTo(source, resolve(this.cwd, p.file)));
      if (own.length === 0) {
        if (this.withTypeErrors.delete(source.file)) this.options.out(`[dev] ${source.label}: no type errors now`);
        continue;
      }
      this.withTypeErrors.add(source.file);
      this.options.err(`[dev] ${source.label} has ${own.length} type error${own.length === 1 ? '' : 's'} (the version loaded keeps running):`);
      for (const p of own) this.options.err(`  ${p.file}:${p.line}:${p.column} TS${p.code}: ${p.message}`);
    }
  }

  /** Whether a file is the plugin's, or one of its folder's. */
  private belongsTo(source: PluginSource, file: string): boolean {
    if (file === source.file) return true;
    return /^index\.[cm]?[jt]s$/.test(basename(source.file)) && file.startsWith(`${dirname(source.file)}${sep}`);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.firstEventAt ??= Date.now();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.reloadNow();
    }, this.options.debounceMs ?? 100);
  }

  /** Run a pass now (one at a time: events during a pass cause another after it). */
  reloadNow(): Promise<ReloadReport> {
    if (this.running !== null) {
      this.again = true;
      return this.running;
    }
    const started = this.firstEventAt ?? Date.now();
    this.firstEventAt = null;
    this.running = this.pass(started).finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.reloadNow();
      }
    });
    return this.running;
  }

  private sources(): PluginSource[] {
    return discoverPlugins(this.options.runtime.config.plugins.dirs, this.cwd).sources;
  }

  /** The files a plugin consists of: itself, or every file of its folder a module can import. */
  private filesOf(source: PluginSource): string[] {
    if (!/^index\.[cm]?[jt]s$/.test(basename(source.file))) return [source.file];
    const out: string[] = [];
    const walk = (d: string, depth: number): void => {
      if (depth > 8) return;
      for (const name of listing(d)) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        const full = join(d, name);
        const kind = kindOf(full);
        if (kind === 'dir') walk(full, depth + 1);
        else if (kind === 'file' && importable(name)) out.push(full);
      }
    };
    walk(dirname(source.file), 0);
    return out;
  }

  /**
   * A content hash of a plugin's files and of the helpers beside it (files of its directory that are not
   * plugins, such as `_shared.ts`): a change to either makes a new version. Only files a module can import
   * count: an editor's temporary file (`sed -i`'s `sedXXXXXX`, vim's `4913`, `hello.ts~`) is no new version,
   * which would reload the old content once before the save lands.
   */
  private fingerprint(source: PluginSource): string {
    const hash = createHash('sha256');
    const read = (file: string): void => {
      hash.update(file);
      try {
        hash.update(readFileSync(file));
      } catch {
        hash.update('(unreadable)');
      }
    };
    for (const f of this.filesOf(source)) read(f);
    const dir = this.dirs.find((d) => source.file.startsWith(`${d}/`) || source.file.startsWith(`${d}\\`));
    if (dir !== undefined) {
      for (const name of listing(dir)) {
        const full = join(dir, name);
        if (importable(name) && !isModuleFile(name) && kindOf(full) === 'file') read(full);
      }
    }
    return hash.digest('hex').slice(0, 16);
  }

  private async pass(started: number): Promise<ReloadReport> {
    const { runtime } = this.options;
    const host = runtime.plugins;
    const changed: string[] = [];
    const failed: string[] = [];
    const current = new Map(this.sources().map((s) => [s.file, s]));

    for (const file of [...this.known.keys()]) {
      if (current.has(file)) continue;
      this.known.delete(file);
      this.withTypeErrors.delete(file);
      const hosted = host.loaded.find((p) => p.source.file === file);
      const label = hosted?.source.label ?? host.loadFailures.find((f) => f.source.file === file)?.source.label ?? file;
      host.forgetFailure(file);
      if (hosted !== undefined) {
        await host.teardown(hosted);
        host.remove(hosted);
        runtime.router.removePlugin(hosted.name);
        changed.push(`${label} removed: plugin "${hosted.name}" stopped`);
      } else {
        changed.push(`${label} removed`);
      }
    }

    const versioned: PluginSource[] = [];
    for (const source of current.values()) {
      const version = this.fingerprint(source);
      if (this.known.get(source.file) === version) continue;
      this.known.set(source.file, version);
      versioned.push(source);
      const old = host.loaded.find((p) => p.source.file === source.file) ?? null;
      const outcome = await this.replace(source, version, old);
      (outcome.ok ? changed : failed).push(...outcome.lines);
    }

    // Only a change that took effect can change what is registered.
    const synced = changed.length > 0 ? await this.sync(changed, failed) : false;
    const versions = versionsLoaded();
    if (versions >= VERSION_WARNING && !this.warnedVersions) {
      this.warnedVersions = true;
      failed.push(`${versions} plugin versions are held in memory (ES modules cannot be unloaded); restart \`npm run dev\` now and then to free them`);
    }
    const tookMs = Date.now() - started;
    for (const line of changed) this.options.out(`[dev] ${line}`);
    for (const line of failed) this.options.err(`[dev] ${line}`);
    if (changed.length > 0) this.options.out(`[dev] live in ${tookMs} ms`);
    this.queueTypeCheck(versioned);
    return { changed, failed, synced, tookMs };
  }

  /** Load a new version and swap it in; the old one stays when anything fails. */
  private async replace(source: PluginSource, version: string, old: HostedPlugin | null): Promise<{ ok: boolean; lines: string[] }> {
    const { runtime } = this.options;
    const host = runtime.plugins;
    const keep = old !== null ? '; the previous version keeps running' : '';
    const what = old !== null ? 'changed' : 'added';
    let next: HostedPlugin;
    try {
      const { plugin } = await importPlugin(source, version);
      if (runtime.config.plugins.disabled.includes(plugin.name)) return { ok: true, lines: [`${source.label} ${what}: plugin "${plugin.name}" is disabled by configuration`] };
      next = host.prepare(plugin, source, old);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Without a running version the file counts as broken: the sync skips it (or, with a token, waits).
      if (old === null) {
        host.forgetFailure(source.file);
        host.recordFailure(source, err);
      }
      return { ok: false, lines: [`${source.label} ${what} but failed to load${keep}:`, ...indent(message)] };
    }
    const devGuildId = runtime.config.commands.devGuildId;
    const devOptions = devGuildId !== undefined ? { devGuildId } : {};
    if (old !== null) {
      const candidate = host.loaded.map((p) => (p === old ? next : p));
      const problems = host.validateCommands(devOptions, candidate).filter((p) => p.plugin === next.name);
      if (problems.length > 0) {
        return { ok: false, lines: [`${source.label} changed but its commands do not validate${keep}:`, ...problems.map((p) => `  ${formatPluginProblem(p)}`)] };
      }
      await host.teardown(old);
    }
    host.forgetFailure(source.file);
    host.commit(next, old);
    await host.setup(next);
    if (next.state === 'failed' && old !== null) {
      // The new version did not start: put the previous one back.
      host.commit(old, next);
      old.state = 'loaded';
      await host.setup(old);
      return { ok: false, lines: [`${source.label} changed but its setup failed${keep}: ${errorText(next.error)}`] };
    }
    runtime.router.removePlugin(next.name);
    if (old !== null && old.name !== next.name) runtime.router.removePlugin(old.name);
    host.registerPluginRoutes(runtime.router, next, devOptions);
    const state = next.state === 'failed' ? ` (its setup failed: ${errorText(next.error)})` : '';
    return { ok: true, lines: [`${source.label} ${what}: plugin "${next.name}" ${old !== null ? 'reloaded' : 'loaded'}${state}`] };
  }

  /** Sync what changed and say what the service now holds differently. */
  private async sync(changed: string[], failed: string[]): Promise<boolean> {
    const { runtime } = this.options;
    if (!runtime.config.commands.sync) return false;
    try {
      const result = await runtime.syncCommands({ quiet: true });
      switch (result.status) {
        case 'invalid':
          failed.push('commands not synced: the definitions do not validate', ...result.problems.map((p) => `  ${formatPluginProblem(p)}`));
          return false;
        case 'blocked':
          failed.push(`commands not synced: ${result.reason}`);
          return false;
        case 'planned':
        case 'synced': {
          // The writes only: scopes that change, and what changes in them.
          const lines = describePlan(result.plan).filter((l) => !/: up to date \(/.test(l) && !l.startsWith('    keep ') && !l.startsWith('  keep '));
          if (lines.some((l) => l.startsWith('  '))) changed.push('commands:', ...lines.map((l) => `  ${l}`));
          failed.push(...describeSkipped(result.skipped));
          if (result.status === 'synced') {
            for (const s of result.summary.scopes) if (s.error !== undefined) failed.push(`commands of ${s.key} not synced: ${errorText(s.error)}`);
          }
          return result.status === 'synced';
        }
      }
    } catch (err) {
      failed.push(`commands not synced: ${errorText(err)}`);
      return false;
    }
  }
}

/** Extensions of files a plugin's modules may import (the loader's own, CommonJS, TSX, JSON). */
const IMPORTABLE = /\.(?:[cm]?[jt]s|tsx|json)$/;

function importable(name: string): boolean {
  return IMPORTABLE.test(name) && !name.startsWith('.');
}

/** A directory's entries, sorted; none when it is gone (a save may remove and recreate files meanwhile). */
function listing(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** What a path is now; a file that vanished since its directory was listed is neither. */
function kindOf(path: string): 'file' | 'dir' | null {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function indent(message: string): string[] {
  return message.split('\n').map((l) => `  ${l.trim()}`);
}
