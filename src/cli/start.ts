/**
 * `gatehouse start`: run the bot until SIGINT/SIGTERM, then shut down gracefully. Without DISCORD_TOKEN the
 * runtime starts the embedded sandbox and this prints how to invoke the plugins' commands against it, except
 * in production (NODE_ENV=production), where that is a configuration error (exit 2) unless
 * GATEHOUSE_SANDBOX=embedded asks for the sandbox on purpose.
 */
import type { CliIo } from './io.js';
import { parseVerb, type VerbSpec } from './args.js';
import { printEmbeddedBanner, sampleUserId } from './banner.js';
import { cli } from './hint.js';
import { loadConfigFor } from './config.js';
import { ConfigError, isProduction, usesEmbeddedSandbox } from '../runtime/config.js';
import { StartupError } from '../runtime/startup-error.js';
import { Runtime } from '../runtime/runtime.js';
import { defaultStateFilePath, removeStateFile, writeStateFile, stateOf } from '../sandbox/statefile.js';

/** Kept for importers: the examples the banner prints now live in banner.ts. */
export { invocationExamples } from './banner.js';

const START: VerbSpec = {
  verb: 'start',
  summary: 'Run the bot until SIGINT/SIGTERM (the embedded sandbox when no DISCORD_TOKEN is set). Configuration: config/*.json and environment variables (docs/configuration.md).',
  options: {},
};

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(START, args, io);
  if (typeof parsed === 'number') return parsed;
  const config = loadConfigFor('start', io);
  if (config === null) return 2;
  const production = isProduction();
  try {
    usesEmbeddedSandbox(config, production);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(`gatehouse start: ${err.message}`);
    return 2;
  }
  const runtime = new Runtime({ config, production });
  const log = runtime.log;

  let stopping: Promise<void> | null = null;
  let statePath: string | null = null;
  const shutdown = (signal: string): Promise<void> => {
    stopping ??= (async () => {
      log.info({ signal }, 'shutting down');
      await runtime.stop();
      if (statePath !== null) removeStateFile(statePath);
      log.info('stopped');
    })();
    return stopping;
  };
  // Listeners stay installed while stopping: a signal can arrive twice (a terminal's Ctrl+C reaches the whole
  // process group, and wrappers such as npm and tsx relay it again), and a repeat must not kill the process
  // in the middle of a graceful stop.
  const done = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      void shutdown(signal).then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });

  try {
    await runtime.start();
  } catch (err) {
    // A signal during startup stopped the runtime; start() gave up because of it, which is no failure.
    if (stopping !== null) {
      await stopping;
      return 0;
    }
    // A failure the operator can fix is said in one line, without a stack.
    if (err instanceof StartupError) io.err(`gatehouse start: ${err.message}`);
    else log.error({ err }, 'startup failed');
    await shutdown('startup failure');
    return 1;
  }

  const sandbox = runtime.sandbox;
  if (sandbox !== null) {
    statePath = defaultStateFilePath();
    writeStateFile(statePath, stateOf(sandbox, 'gatehouse start'));
    printEmbeddedBanner(runtime, io);
    if (runtime.endpoint !== null) {
      io.out(`Interactions arrive signed over HTTP (transport "${runtime.config.transport}"); install the app or grant an entitlement:`);
      io.out(`  ${cli('sandbox app install', '--user', sampleUserId(runtime) ?? '0')}`);
    }
  } else {
    const info = runtime.readyInfo;
    const who = info !== null ? `as ${info.username} (id ${info.userId}), ${info.guilds} guilds, ` : '';
    const shards = runtime.parts.gateway === null ? 'no shards' : `${runtime.gateway.shardIds.length} shards`;
    const endpoint = runtime.endpoint?.address;
    const http = endpoint !== undefined && endpoint !== null ? `, HTTP endpoint on ${endpoint.host}:${endpoint.port}` : '';
    io.out(`gatehouse is running ${who}${shards}${http}. Stop with Ctrl+C.`);
  }
  await done;
  return 0;
}
