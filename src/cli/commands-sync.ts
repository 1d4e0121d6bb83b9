/**
 * `gatehouse commands diff [--exit-code]` and `gatehouse commands sync [--dry-run]`: the startup sync path,
 * run alone. They load the plugins, validate every definition (exit 1 with one line per problem), list what
 * is registered and print the plan; `sync` then applies it. `diff --exit-code` is for CI drift checks: exit 0
 * only when the service already holds exactly what the plugins define.
 */
import type { CliIo } from './io.js';
import { describePlan, type SyncPlan } from '../commands/index.js';
import { formatPluginProblem, type CommandSyncResult } from '../runtime/command-sync.js';
import { parseVerb, type VerbSpec } from './args.js';
import { loadConfigFor } from './config.js';
import { cli } from './hint.js';
import { createLogger } from '../runtime/logger.js';
import { Runtime } from '../runtime/runtime.js';

export const DIFF: VerbSpec = {
  verb: 'commands diff',
  summary: 'Load the plugins and print what a sync would change (needs DISCORD_TOKEN; offline checks: `gatehouse check`).',
  options: {
    'exit-code': { type: 'boolean', help: 'exit 1 when a sync would change anything (or cannot tell), 0 when all is in sync' },
  },
};

export const SYNC: VerbSpec = {
  verb: 'commands sync',
  summary: 'Sync every plugin\'s commands now, with the fewest writes (needs DISCORD_TOKEN).',
  options: { 'dry-run': { type: 'boolean', help: 'print the plan, send nothing' } },
};

function hasChanges(plan: SyncPlan): boolean {
  return plan.scopes.some((s) => s.creates.length + s.edits.length + s.deletes.length > 0);
}

export async function diffOrSync(mode: 'diff' | 'sync', args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(mode === 'diff' ? DIFF : SYNC, args, io);
  if (typeof parsed === 'number') return parsed;
  const dryRun = mode === 'diff' || parsed.values['dry-run'] === true;
  const exitCode = parsed.values['exit-code'] === true;
  const config = loadConfigFor(`commands ${mode}`, io);
  if (config === null) return 2;
  if (config.token === undefined) {
    io.err(
      `gatehouse commands ${mode}: needs DISCORD_TOKEN (it compares with what the service holds). To check plugins ` +
        `offline, run \`${cli('check')}\`. Against a local sandbox, set DISCORD_API_URL and DISCORD_TOKEN to the REST URL ` +
        `and bot token that \`${cli('sandbox')}\` prints.`,
    );
    return 2;
  }
  // Only warnings and errors on the log: the plan and summary are this command's output.
  const log = createLogger({ level: config.log.level === 'info' ? 'warn' : config.log.level, pretty: false });
  const runtime = new Runtime({ config, log });
  let result: CommandSyncResult;
  try {
    result = await runtime.syncCommands({ dryRun, quiet: true });
  } catch (err) {
    io.err(`gatehouse commands ${mode}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await runtime.stop().catch(() => undefined);
  }
  switch (result.status) {
    case 'invalid':
      for (const p of result.problems) io.out(formatPluginProblem(p));
      io.err(`${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}; nothing was sent`);
      return 1;
    case 'blocked':
      io.err(`gatehouse commands ${mode}: ${result.reason}`);
      return 1;
    case 'planned':
      for (const line of describePlan(result.plan)) io.out(line);
      return exitCode && hasChanges(result.plan) ? 1 : 0;
    case 'synced': {
      for (const s of result.summary.scopes) {
        const error = s.error === undefined ? '' : ` FAILED: ${s.error instanceof Error ? s.error.message : String(s.error)}`;
        io.out(`${s.key}: ${s.created} created, ${s.updated} updated, ${s.deleted} deleted, ${s.unchanged} unchanged (${s.requests} requests)${error}`);
      }
      return result.summary.ok ? 0 : 1;
    }
  }
}
