/**
 * `gatehouse dev` (`npm run dev`): run the bot like `start`, and reload plugins in the running process as
 * their files change (see runtime/dev-reloader.ts). The gateway stays connected throughout.
 */
import type { CliIo } from './io.js';
import { DevReloader } from '../runtime/dev-reloader.js';
import { Runtime } from '../runtime/runtime.js';
import { StartupError } from '../runtime/startup-error.js';
import { defaultStateFilePath, removeStateFile, stateOf, writeStateFile } from '../sandbox/statefile.js';
import { parseVerb, type VerbSpec } from './args.js';
import { printEmbeddedBanner } from './banner.js';
import { loadConfigFor } from './config.js';
import { BackgroundTypeChecker } from './typecheck-worker.js';

const DEV: VerbSpec = {
  verb: 'dev',
  summary:
    'Run the bot and reload plugins as their files change (saved, added, removed): no restart, no new gateway session; only the commands that changed are synced. A version that fails to load keeps the previous one running. Changed plugins are type-checked in the background; type errors are reported, and the version loaded keeps running.',
  options: {},
};

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(DEV, args, io);
  if (typeof parsed === 'number') return parsed;
  const config = loadConfigFor('dev', io);
  if (config === null) return 2;
  const runtime = new Runtime({ config });
  const checker = new BackgroundTypeChecker();
  const reloader = new DevReloader({ runtime, out: io.out, err: io.err, typeCheck: async (sources) => {
      const result = await checker.check(sources);
      // An installed TypeScript outside the supported range: said once, like a missing one.
      return result.status === 'unsupported' ? { status: 'skipped', reason: result.line } : result;
    },
  });
  let statePath: string | null = null;
  let stopping: Promise<void> | null = null;
  const shutdown = (signal: string): Promise<void> => {
    stopping ??= (async () => {
      runtime.log.info({ signal }, 'shutting down');
      const reloading = reloader.stop();
      await checker.close();
      await reloading;
      await runtime.stop();
      if (statePath !== null) removeStateFile(statePath);
    })();
    return stopping;
  };
  // Listeners stay while stopping: a terminal's Ctrl+C may arrive twice (npm and tsx relay it).
  const done = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => void shutdown(signal).then(resolve);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });

  try {
    await runtime.start();
  } catch (err) {
    if (err instanceof StartupError) io.err(`gatehouse dev: ${err.message}`);
    else runtime.log.error({ err }, 'startup failed');
    await shutdown('startup failure');
    return 1;
  }
  if (runtime.sandbox !== null) {
    statePath = defaultStateFilePath();
    writeStateFile(statePath, stateOf(runtime.sandbox, 'gatehouse dev'));
  }
  // After the state file: where it sits in a plugin directory, writing it is not a change of the plugins
  // there (it used to reload them all once, just as a test or an author made the first edit).
  reloader.start();
  const watching = `Watching ${config.plugins.dirs.join(', ')} for changes. Stop with Ctrl+C.`;
  if (runtime.sandbox !== null) {
    printEmbeddedBanner(runtime, io, { stopHint: watching, dev: true });
  } else {
    const info = runtime.readyInfo;
    io.out(`gatehouse dev is running${info !== null ? ` as ${info.username} (id ${info.userId}), ${info.guilds} guilds` : ''}.`);
    if (config.commands.devGuildId === undefined) {
      io.err('note: global commands can take a while to show in clients; set GATEHOUSE_DEV_GUILD_ID to a test guild to see changes at once');
    }
    io.out(watching);
  }
  await done;
  return 0;
}
