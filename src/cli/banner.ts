/**
 * What `npm start` (and `npm run dev`) print on the embedded sandbox: exactly which commands are registered,
 * each with an invocation that a shell accepts as printed (sample values, never `<placeholders>`), and,
 * loudly, what was skipped and why.
 */
import type { CliIo } from './io.js';
import { CommandType } from '../commands/index.js';
import type { PluginCommand } from '../plugins/types.js';
import { describeSkipped } from '../runtime/command-sync.js';
import type { Runtime } from '../runtime/runtime.js';
import { cli, runVerb, shellQuote } from './hint.js';

/** Ids of the sandbox that make sample values real. */
export interface SampleIds {
  userId?: string;
  roleId?: string;
  channelId?: string;
  messageId?: string;
}

interface SampleOption {
  readonly type: number;
  readonly name: string;
  readonly required?: boolean;
  readonly choices?: ReadonlyArray<{ readonly value: string | number }>;
  readonly min_value?: number;
  readonly max_value?: number;
  readonly min_length?: number;
}

/** A value the sandbox accepts for an option, as one shell word. */
export function sampleValue(o: SampleOption, ids: SampleIds): string {
  const choice = o.choices?.[0]?.value;
  if (choice !== undefined) return shellQuote(String(choice));
  switch (o.type) {
    case 4:
    case 10: {
      const min = o.min_value ?? -Infinity;
      const max = o.max_value ?? Infinity;
      return String(20 >= min && 20 <= max ? 20 : Number.isFinite(min) ? min : max);
    }
    case 5:
      return 'true';
    case 6:
    case 9:
      return ids.userId ?? '0';
    case 7:
      return ids.channelId ?? '0';
    case 8:
      return ids.roleId ?? '0';
    case 11:
      return 'report.txt';
    default:
      return 'hello'.padEnd(Math.max(5, o.min_length ?? 0), 'o');
  }
}

function args(options: readonly SampleOption[], ids: SampleIds): string[] {
  return options.filter((o) => o.required === true).map((o) => `${o.name}:${sampleValue(o, ids)}`);
}

/** An example invocation for each command, as `gatehouse sandbox invoke` takes it. */
export function invocationExamples(commands: readonly PluginCommand[], ids: SampleIds = {}): string[] {
  const lines: string[] = [];
  const invoke = (...parts: string[]): void => void lines.push(cli('sandbox invoke', ...parts));
  for (const c of commands) {
    const type = c.type ?? CommandType.CHAT_INPUT;
    const name = shellQuote(c.name);
    if (type === CommandType.USER) invoke(name, '--type', '2', ...(ids.userId !== undefined ? ['--target', ids.userId] : []));
    // Without --target the sandbox makes up a message to target.
    else if (type === CommandType.MESSAGE) invoke(name, '--type', '3', ...(ids.messageId !== undefined ? ['--target', ids.messageId] : []));
    else if (type === CommandType.PRIMARY_ENTRY_POINT) invoke(name, '--type', '4');
    else {
      const options = ('options' in c ? (c.options ?? []) : []) as readonly (SampleOption & { options?: readonly SampleOption[] })[];
      const subs = options.filter((o) => o.type === 1 || o.type === 2);
      if (subs.length === 0) {
        invoke(name, ...args(options, ids));
        continue;
      }
      for (const sub of subs) {
        const leaves = sub.type === 1 ? [{ path: [sub.name], opts: sub.options ?? [] }] : (sub.options ?? []).map((s) => ({ path: [sub.name, s.name], opts: (s as { options?: readonly SampleOption[] }).options ?? [] }));
        for (const leaf of leaves) invoke(name, ...leaf.path.map(shellQuote), ...args(leaf.opts, ids));
      }
    }
  }
  return lines;
}

/** A member of the first seeded guild other than the bot: the user sample invocations act as. */
export function sampleUserId(runtime: Runtime): string | undefined {
  const sandbox = runtime.sandbox;
  const guildId = sandbox?.state.guildIds[0];
  if (sandbox === null || guildId === undefined) return undefined;
  return sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId);
}

/** The embedded-sandbox banner: registered commands with examples, skipped plugins, how to stop. */
export function printEmbeddedBanner(runtime: Runtime, io: CliIo, options: { stopHint?: string; dev?: boolean } = {}): void {
  const sandbox = runtime.sandbox;
  if (sandbox === null) return;
  const result = runtime.commandSync;
  const skipped = result !== null && (result.status === 'synced' || result.status === 'planned') ? result.skipped : [];
  const skippedNames = new Set(skipped.flatMap((s) => (s.plugin !== null ? [s.plugin] : [])));
  const registered = runtime.plugins.commands().filter((c) => !skippedNames.has(c.plugin.name));
  const guildId = sandbox.state.guildIds[0];
  const ids: SampleIds = {};
  if (guildId !== undefined) {
    const userId = sampleUserId(runtime);
    if (userId !== undefined) ids.userId = userId;
    const roleId = sandbox.state.roleIds(guildId)[1];
    if (roleId !== undefined) ids.roleId = roleId;
    const channelId = sandbox.state.channelIds(guildId)[0];
    if (channelId !== undefined) ids.channelId = channelId;
  }
  const plugins = runtime.plugins.loaded.length - skippedNames.size;
  io.out('');
  io.out(`gatehouse is running on the local sandbox with ${plugins} plugin${plugins === 1 ? '' : 's'}.`);
  const info = runtime.readyInfo;
  if (info !== null) io.out(`Logged in as ${info.username} (id ${info.userId}), ${info.guilds} guild${info.guilds === 1 ? '' : 's'} on ${info.shards} shard${info.shards === 1 ? '' : 's'}.`);
  if (registered.length === 0) io.out('No command is registered.');
  else {
    io.out(`Registered ${registered.length} command${registered.length === 1 ? '' : 's'}; invoke them from another terminal:`);
    for (const line of invocationExamples(registered.map((c) => c.command), ids)) io.out(`  ${line}`);
  }
  if (skipped.length > 0) {
    io.err('');
    for (const line of describeSkipped(skipped)) io.err(`!! ${line}`);
    const fix = options.dev === true ? 'fix them and save: the bot reloads them' : `fix them and restart (\`${runVerb('dev')}\` reloads plugins as you save)`;
    io.err(`!! ${fix}; \`${cli('check')}\` lists every problem`);
  }
  io.out(`Events and components: ${cli('sandbox --help')}`);
  io.out(options.stopHint ?? 'Stop with Ctrl+C.');
}
