/**
 * `gatehouse check`: everything that can be known about the plugins without a token or a network. Loads every
 * plugin (shape, config schemas, custom_id overlaps), type-checks the TypeScript ones, validates all commands
 * together as a sync would, and reports config sections that name no plugin. One line per problem, naming the
 * file and the field (or line and column); exit 0 when clean, 1 when not, 2 on bad usage or configuration.
 */
import type { CliIo } from './io.js';
import { formatProblem, lintCommands, stripRuntimeFields } from '../commands/index.js';
import { PluginHost, type SharedServices } from '../plugins/host.js';
import { intentBits } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { parseVerb, type VerbSpec } from './args.js';
import { loadConfigFor } from './config.js';
import { typeCheckPlugins } from './typecheck-plugins.js';

const CHECK: VerbSpec = {
  verb: 'check',
  summary:
    'Check the plugins offline (no token, no network): load them, type-check the TypeScript ones, validate all commands together. Exit 0 when clean, 1 when not.',
  options: {
    'no-typecheck': { type: 'boolean', help: 'skip the TypeScript type check (faster)' },
  },
};

/** Services a plugin cannot have while it is only being checked: any use says so. */
function offlineServices(): SharedServices {
  const refuse = (what: string): never => {
    throw new Error(`${what} is not available in gatehouse check (no token, no network)`);
  };
  const inert = (what: string): object =>
    new Proxy({}, { get: (_t, key) => (typeof key === 'symbol' ? undefined : refuse(`${what}.${key}`)) });
  return {
    applicationId: '0',
    cache: inert('ctx.cache') as SharedServices['cache'],
    rest: inert('ctx.rest') as SharedServices['rest'],
    requestMembers: () => refuse('requestMembers'),
  };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(CHECK, args, io);
  if (typeof parsed === 'number') return parsed;
  const config = loadConfigFor('check', io);
  if (config === null) return 2;
  const cwd = process.cwd();

  const host = new PluginHost({
    log: createLogger({ level: 'silent', pretty: false }),
    services: offlineServices(),
    pluginConfig: config.plugins.config,
    pluginEnvironment: config.pluginEnvironment ?? [],
    disabled: config.plugins.disabled,
    intents: intentBits(config),
  });
  await host.load(config.plugins.dirs);

  const problems = new Map<string, string[]>();
  const add = (file: string, line: string): void => {
    const list = problems.get(file) ?? [];
    list.push(line);
    problems.set(file, list);
  };
  const warnings: string[] = [];

  // Files that did not load: their messages name the file and the fields already.
  for (const f of host.loadFailures) {
    const lines = f.error.message.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
    const [head, ...rest] = lines;
    if (rest.length === 0) add(f.source.label, head!.startsWith(`${f.source.label}: `) ? head!.slice(f.source.label.length + 2) : head!);
    else for (const l of rest) add(f.source.label, l);
  }

  let typeNote = '';
  if (parsed.values['no-typecheck'] !== true) {
    const sources = [...host.loaded.map((p) => p.source), ...host.loadFailures.map((f) => f.source)];
    const typed = await typeCheckPlugins(sources, cwd);
    if (typed.status === 'unsupported') {
      io.err(`gatehouse check: ${typed.line}`);
      return 1;
    }
    if (typed.status === 'skipped') typeNote = `; type check skipped: ${typed.reason}`;
    else {
      typeNote = `; ${typed.files} TypeScript file${typed.files === 1 ? '' : 's'} type-checked`;
      for (const p of typed.problems) add(p.file, `${p.line}:${p.column}: TS${p.code}: ${p.message}`);
    }
  }

  for (const p of host.validateCommands()) add(p.source === '' ? '(all plugins)' : p.source, formatProblem({ ...p.problem, path: p.path }));
  for (const line of host.configProblems()) add('(configuration)', line);
  for (const plugin of host.loaded) {
    const payloads = (plugin.definition.commands ?? []).map((c) => stripRuntimeFields(c));
    for (const scope of ['global'] as const) {
      for (const w of lintCommands(payloads, { scope })) warnings.push(`${plugin.source.label}: ${formatProblem({ ...w, path: w.path.replace(/^\[(\d+)\]/, 'commands[$1]') })}`);
    }
  }

  const loadedFiles = new Set(host.loaded.map((p) => p.source.label));
  for (const plugin of host.loaded) {
    if (problems.has(plugin.source.label)) continue;
    const n = plugin.definition.commands?.length ?? 0;
    const h = (plugin.definition.components?.length ?? 0) + (plugin.definition.modals?.length ?? 0);
    io.out(`ok   ${plugin.source.label} (plugin "${plugin.name}": ${n} command${n === 1 ? '' : 's'}${h > 0 ? `, ${h} component/modal handler${h === 1 ? '' : 's'}` : ''})`);
  }
  let count = 0;
  for (const [file, lines] of problems) {
    io.out(`FAIL ${file}${loadedFiles.has(file) || file.startsWith('(') ? '' : ' (not loaded)'}`);
    for (const l of lines) io.out(`  ${file}: ${l}`);
    count += lines.length;
  }
  for (const w of warnings) io.err(`warning: ${w}`);
  const plugins = host.loaded.length + host.loadFailures.length;
  const summary = `${plugins} plugin file${plugins === 1 ? '' : 's'} checked${typeNote}: ${count === 0 ? 'no problems' : `${count} problem${count === 1 ? '' : 's'}`}`;
  if (count === 0) io.out(summary);
  else io.err(summary);
  return count === 0 ? 0 : 1;
}
