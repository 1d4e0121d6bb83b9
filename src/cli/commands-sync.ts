/**
 * `gatehouse commands diff` and `gatehouse commands sync [--dry-run]`: the startup sync path, run alone.
 * They load the plugins, validate every definition (exit 1 with one line per problem), list what is
 * registered and print the plan; `sync` then applies it.
 */
import type { CliIo } from '../cli.js';
import { describePlan } from '../commands/index.js';
import { formatPluginProblem, type CommandSyncResult } from '../runtime/command-sync.js';
import { loadConfigFor } from './config.js';
import { createLogger } from '../runtime/logger.js';
import { Runtime } from '../runtime/runtime.js';

export async function diffOrSync(mode: 'diff' | 'sync', args: string[], io: CliIo): Promise<number> {
  let dryRun = mode === 'diff';
  for (const a of args) {
    if (a === '--dry-run' && mode === 'sync') dryRun = true;
    else {
      io.err(`gatehouse commands ${mode}: unexpected argument '${a}'`);
      return 2;
    }
  }
  const config = loadConfigFor(`commands ${mode}`, io);
  if (config === null) return 2;
  if (config.token === undefined) {
    io.err(
      `gatehouse commands ${mode}: needs DISCORD_TOKEN. Against a local sandbox, set DISCORD_API_URL and ` +
        'DISCORD_TOKEN to the REST URL and bot token that `gatehouse sandbox` prints.',
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
      return 0;
    case 'synced': {
      for (const s of result.summary.scopes) {
        const error = s.error === undefined ? '' : ` FAILED: ${s.error instanceof Error ? s.error.message : String(s.error)}`;
        io.out(`${s.key}: ${s.created} created, ${s.updated} updated, ${s.deleted} deleted, ${s.unchanged} unchanged (${s.requests} requests)${error}`);
      }
      return result.summary.ok ? 0 : 1;
    }
  }
}
