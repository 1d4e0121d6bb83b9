/**
 * `gatehouse start`: run the bot until SIGINT/SIGTERM, then shut down gracefully. Without DISCORD_TOKEN the
 * runtime starts the embedded sandbox and this prints how to invoke the plugins' commands against it, except
 * in production (NODE_ENV=production), where that is a configuration error (exit 2) unless
 * GATEHOUSE_SANDBOX=embedded asks for the sandbox on purpose.
 */
import type { CliIo } from '../cli.js';
import { CommandType } from '../commands/index.js';
import type { PluginCommand } from '../plugins/types.js';
import { loadConfigFor } from './config.js';
import { ConfigError, isProduction, usesEmbeddedSandbox } from '../runtime/config.js';
import { Runtime } from '../runtime/runtime.js';
import { defaultStateFilePath, removeStateFile, writeStateFile, stateOf } from '../sandbox/statefile.js';

/** How to run the CLI the way this process runs: compiled (the Docker image) or from sources (npm start). */
const INVOKE = import.meta.url.includes('/dist/src/')
  ? 'node dist/src/cli.js sandbox invoke'
  : 'npm run gatehouse -- sandbox invoke';

/** An example invocation for each command, as `gatehouse sandbox invoke` takes it. */
export function invocationExamples(
  commands: readonly PluginCommand[],
  sample: { userId?: string; messageId?: string } = {},
): string[] {
  const lines: string[] = [];
  const quote = (s: string): string => (/\s/.test(s) ? `'${s}'` : s);
  for (const c of commands) {
    const type = c.type ?? CommandType.CHAT_INPUT;
    if (type === CommandType.USER) lines.push(`${INVOKE} ${quote(c.name)} --type 2 --target ${sample.userId ?? '<user id>'}`);
    // Without --target the sandbox makes up a message to target.
    else if (type === CommandType.MESSAGE) lines.push(`${INVOKE} ${quote(c.name)} --type 3${sample.messageId !== undefined ? ` --target ${sample.messageId}` : ''}`);
    else if (type === CommandType.PRIMARY_ENTRY_POINT) lines.push(`${INVOKE} ${quote(c.name)} --type 4`);
    else {
      const options = 'options' in c ? (c.options ?? []) : [];
      const subs = options.filter((o) => o.type === 1 || o.type === 2);
      if (subs.length === 0) {
        const args = options.filter((o) => 'required' in o && o.required).map((o) => `${o.name}:<${o.name}>`);
        lines.push([INVOKE, c.name, ...args].join(' '));
        continue;
      }
      for (const sub of subs) {
        const leaves = sub.type === 1 ? [[sub.name, sub.options ?? []] as const] : (sub.options ?? []).map((s) => [`${sub.name} ${s.name}`, s.options ?? []] as const);
        for (const [path, opts] of leaves) {
          const args = opts
            .filter((o) => 'required' in o && o.required)
            .map((o) => `${o.name}:${o.type === 4 || o.type === 10 ? '20' : `<${o.name}>`}`);
          lines.push([INVOKE, c.name, path, ...args].join(' '));
        }
      }
    }
  }
  return lines;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  if (args.length > 0 && args[0] !== '--help') {
    io.err(`gatehouse start: unexpected argument '${args[0]}'`);
    return 2;
  }
  if (args[0] === '--help') {
    io.out('usage: gatehouse start    (configuration: config/*.json and environment variables; see README)');
    return 0;
  }
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
    log.error({ err }, 'startup failed');
    await shutdown('startup failure');
    return 1;
  }

  const sandbox = runtime.sandbox;
  if (sandbox !== null) {
    statePath = defaultStateFilePath();
    writeStateFile(statePath, stateOf(sandbox));
    const commands = runtime.plugins.commands().map((c) => c.command);
    io.out('');
    io.out(`gatehouse is running on the local sandbox with ${runtime.plugins.loaded.length} plugins.`);
    io.out('Invoke a command from another terminal:');
    const guildId = sandbox.state.guildIds[0];
    const userId = guildId === undefined ? undefined : sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId);
    for (const line of invocationExamples(commands, userId !== undefined ? { userId } : {})) io.out(`  ${line}`);
    if (runtime.endpoint !== null) {
      io.out(`Interactions arrive signed over HTTP (transport "${runtime.config.transport}"); install the app or grant an entitlement:`);
      io.out(`  ${INVOKE.replace(/ invoke$/, '')} app install --user ${userId ?? '<user id>'}`);
    }
    io.out('Stop with Ctrl+C.');
  } else {
    const shards = runtime.parts.gateway === null ? 'no shards' : `${runtime.gateway.shardIds.length} shards`;
    const endpoint = runtime.endpoint?.address;
    const http = endpoint !== undefined && endpoint !== null ? `, HTTP endpoint on ${endpoint.host}:${endpoint.port}` : '';
    io.out(`gatehouse is running (${shards}${http}). Stop with Ctrl+C.`);
  }
  await done;
  return 0;
}
