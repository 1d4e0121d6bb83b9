/**
 * Startup command sync (and `gatehouse commands diff|sync`): every plugin's definitions are validated
 * together; on any problem nothing is sent. Otherwise each scope is listed, diffed and brought up to date
 * with the fewest writes the commands model can plan.
 *
 * Against the embedded sandbox (no token) the sync is partial instead: plugins that failed to load or whose
 * commands do not validate are skipped, loudly, and the others' commands are registered, so one broken file
 * does not leave a newcomer with no command at all. The sandbox's registrations are private and thrown away
 * with it; with a real token the rule stays.
 */
import type { Logger } from 'pino';
import {
  GLOBAL_SCOPE,
  describePlan,
  formatProblem,
  groupByScope,
  guildScope,
  syncCommands,
  type Scope,
  type SyncPlan,
  type SyncSummary,
} from '../commands/index.js';
import type { HostedPlugin, PluginCommandProblem, PluginHost } from '../plugins/host.js';
import { getCurrentApplication, type RestClient } from '../rest/index.js';
import { commandsPort } from './rest-adapters.js';

/** A plugin (or a file that did not load) whose commands a partial sync left out, and why. */
export interface SkippedPlugin {
  /** Null when the file did not load (its plugin name is unknown). */
  plugin: string | null;
  file: string;
  reasons: string[];
}

export type CommandSyncResult =
  | { status: 'invalid'; problems: PluginCommandProblem[] }
  | { status: 'blocked'; reason: string }
  | { status: 'planned'; plan: SyncPlan; skipped: SkippedPlugin[] }
  | { status: 'synced'; plan: SyncPlan; summary: SyncSummary; skipped: SkippedPlugin[] };

export interface CommandSyncOptions {
  host: PluginHost;
  rest: RestClient;
  applicationId: string;
  devGuildId?: string;
  dryRun?: boolean;
  /** Skip broken plugins instead of syncing nothing (the embedded sandbox only). */
  partial?: boolean;
  /** What is known of the application already (it does not change while the process runs). */
  facts?: ApplicationFacts;
  log: Logger;
}

/** Application flag EMBEDDED: the app has an Activity (protocol §S2.1: only then may a command set `handler`). */
const EMBEDDED_FLAG = 1 << 17;

/**
 * What the application allows, for the rules that depend on it (the handler: protocol §S2.1; integration types:
 * protocol §S2.3).
 */
export interface ApplicationFacts {
  embedded?: boolean;
  appIntegrationTypes?: readonly number[];
}

/**
 * The application's facts from GET /applications/@me. Unknown when the request fails: the service then
 * checks those two rules itself, and the sync reports what it answers.
 */
export async function applicationFacts(rest: RestClient, log: Logger): Promise<ApplicationFacts> {
  try {
    const app = await getCurrentApplication(rest);
    const facts: ApplicationFacts = {};
    if (typeof app.flags === 'number') facts.embedded = (app.flags & EMBEDDED_FLAG) !== 0;
    const config = (app as { integration_types_config?: unknown }).integration_types_config;
    if (typeof config === 'object' && config !== null) {
      facts.appIntegrationTypes = Object.keys(config).map(Number).filter((n) => Number.isInteger(n));
    }
    return facts;
  } catch (err) {
    log.warn({ err }, 'could not read the application (GET /applications/@me); its Activity and installation settings are checked by the service');
    return {};
  }
}

/** One line per problem: plugin, file and the field path inside the plugin. */
export function formatPluginProblem(p: PluginCommandProblem): string {
  const where = p.source === '' ? p.plugin : `${p.plugin} (${p.source})`;
  return `${where}: ${formatProblem({ ...p.problem, path: p.path })}`;
}

/**
 * The plugins whose commands validate together, and the others with their problems: plugins with problems
 * are set aside and the rest validated again (a clash between two plugins is reported on one of them), until
 * what remains is clean.
 */
export function partitionValid(
  host: PluginHost,
  options: Parameters<PluginHost['validateCommands']>[0],
): { valid: HostedPlugin[]; skipped: SkippedPlugin[] } {
  let valid = [...host.loaded];
  const skipped: SkippedPlugin[] = host.loadFailures.map((f) => ({ plugin: null, file: f.source.label, reasons: [withoutLabel(f.error.message, f.source.label)] }));
  for (let round = 0; round <= host.loaded.length; round++) {
    const problems = host.validateCommands(options, valid);
    if (problems.length === 0) break;
    const bad = new Set(problems.map((p) => p.plugin));
    // A problem no plugin owns (a count over all of them) sets every plugin aside: nothing is certain.
    const all = bad.has('(all plugins)');
    for (const plugin of valid) {
      if (!all && !bad.has(plugin.name)) continue;
      const mine = problems.filter((p) => all || p.plugin === plugin.name).map((p) => formatProblem({ ...p.problem, path: p.path }));
      skipped.push({ plugin: plugin.name, file: plugin.source.label, reasons: mine });
    }
    valid = all ? [] : valid.filter((p) => !bad.has(p.name));
  }
  return { valid, skipped };
}

/** A load error's message without the file label it starts with (the skipped entry names the file). */
function withoutLabel(message: string, label: string): string {
  const text = message.startsWith(`${label}:`) ? message.slice(label.length + 1) : message;
  return text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0).join('; ');
}

export async function syncPluginCommands(options: CommandSyncOptions): Promise<CommandSyncResult> {
  const { host, log } = options;
  const devOptions = options.devGuildId !== undefined ? { devGuildId: options.devGuildId } : {};
  let plugins = host.loaded;
  let skipped: SkippedPlugin[] = [];
  if (options.partial === true) {
    const facts = options.facts ?? (await applicationFacts(options.rest, log));
    ({ valid: plugins, skipped } = partitionValid(host, { ...devOptions, ...facts }));
  } else {
    if (host.loadFailures.length > 0) {
      // A plugin that did not load would have its commands deleted (and their permissions lost) by a sync.
      const files = host.loadFailures.map((f) => f.source.label).join(', ');
      return { status: 'blocked', reason: `plugins failed to load (${files}); their commands are left as they are` };
    }
    const facts = options.facts ?? (await applicationFacts(options.rest, log));
    const problems = host.validateCommands({ ...devOptions, ...facts });
    if (problems.length > 0) return { status: 'invalid', problems };
  }

  const all = host.commands(plugins);
  const { groups, notes } = groupByScope(
    all.map((c) => c.command),
    devOptions,
  );
  for (const note of notes) {
    const owner = all[note.index];
    log.info({ plugin: owner?.plugin.name, command: owner?.command.name }, note.message);
  }
  // The global scope is always checked, so commands of removed plugins are deleted there too; in
  // development mode only the development guild is managed.
  const alsoCheck: Scope[] =
    options.devGuildId !== undefined ? [guildScope(options.devGuildId)] : [GLOBAL_SCOPE];
  const { plan, summary } = await syncCommands(
    groups.map((g) => ({ scope: g.scope, commands: g.commands })),
    commandsPort(options.rest, options.applicationId),
    { alsoCheck, dryRun: options.dryRun === true },
  );
  if (summary === null) return { status: 'planned', plan, skipped };
  return { status: 'synced', plan, summary, skipped };
}

/** One loud line per skipped plugin or file, for logs and the console. */
export function describeSkipped(skipped: readonly SkippedPlugin[]): string[] {
  return skipped.map((s) => {
    const who = s.plugin === null ? s.file : `plugin "${s.plugin}" (${s.file})`;
    return `SKIPPED ${who}: its commands are not registered: ${s.reasons.join('; ')}`;
  });
}

/** Log a sync result: every problem, or the summary per scope. */
export function logSyncResult(result: CommandSyncResult, log: Logger): void {
  switch (result.status) {
    case 'invalid':
      for (const p of result.problems) log.error(formatPluginProblem(p));
      log.error({ problems: result.problems.length }, 'command definitions are invalid; nothing was synced');
      return;
    case 'blocked':
      log.error(`command sync skipped: ${result.reason}`);
      return;
    case 'planned':
      for (const line of describeSkipped(result.skipped)) log.error(line);
      for (const line of describePlan(result.plan)) log.info(line);
      return;
    case 'synced':
      for (const line of describeSkipped(result.skipped)) log.error(line);
      for (const s of result.summary.scopes) {
        const fields = {
          scope: s.key,
          strategy: s.strategy,
          created: s.created,
          updated: s.updated,
          deleted: s.deleted,
          unchanged: s.unchanged,
          requests: s.requests,
        };
        if (s.error !== undefined) log.error({ ...fields, err: s.error }, 'command sync failed for a scope');
        else log.info(fields, 'commands synced');
      }
  }
}
