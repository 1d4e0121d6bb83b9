#!/usr/bin/env node
/**
 * gatehouse CLI: `start`, `dev`, `check`, `sandbox ...`, `commands validate|diff|sync`, `reshard`.
 * Each verb lives in src/cli/<verb>.ts and is loaded only when used, so `commands validate` starts fast.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliIo, VerbModule } from './cli/io.js';

export type { CliIo } from './cli/io.js';

// A Map: the verb is whatever was typed (`gatehouse constructor` is an unknown verb, not Object). Each loads its
// module only when used, so `commands validate` starts fast.
export const VERBS: ReadonlyMap<string, () => Promise<VerbModule>> = new Map<string, () => Promise<VerbModule>>([
  ['start', () => import('./cli/start.js')],
  ['dev', () => import('./cli/dev.js')],
  ['check', () => import('./cli/check.js')],
  ['sandbox', () => import('./cli/sandbox.js')],
  ['commands', () => import('./cli/commands.js')],
  ['reshard', () => import('./cli/request-reshard.js')],
  ['init', () => import('./cli/init.js')],
]);

const USAGE = `usage: gatehouse <verb> [...]   (every verb takes --help)

  start                                  run the bot (the embedded sandbox when no DISCORD_TOKEN is set)
  dev                                    run the bot and reload plugins as their files change
  check                                  check the plugins offline: load, type-check, validate all commands
  sandbox                                run the local sandbox alone
  sandbox invoke|click|select|modal ...  act as a user against a running sandbox
  sandbox member|entitlement|permissions ...
                                         make an event happen in a running sandbox
  commands validate FILE [--scope global|guild]
                                         check a command list as it would be sent for one scope
  commands diff [--exit-code]            print what a sync would change
  commands sync [--dry-run]              sync every plugin's commands
  commands access COMMAND --guild G --user U [--channel C]
                                         can this member use the command there, and why not
  reshard [--shards N] [--url URL]       move a running bot to another shard count without a restart
  init DIR                               create a new bot project that depends on gatehouse`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '-h' || verb === '--help' || verb === 'help') {
    io.out(USAGE);
    return verb === undefined ? 2 : 0;
  }
  const load = VERBS.get(verb);
  if (!load) {
    io.err(`gatehouse: unknown verb '${verb}'\n${USAGE}`);
    return 2;
  }
  return (await load()).run(rest, io);
}

/**
 * Whether this module is the program node was asked to run, rather than imported. An installed bin is reached
 * through a symlink (node_modules/.bin/gatehouse, which npx and npm exec use too) while import.meta.url is the
 * resolved file, so both sides are compared as real paths; comparing them as given made the installed CLI a
 * silent no-op that exited 0.
 */
export function isEntryPoint(moduleUrl: string, argv1: string | undefined): boolean {
  if (argv1 === undefined) return false;
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return real(fileURLToPath(moduleUrl)) === real(argv1);
}

if (isEntryPoint(import.meta.url, process.argv[1])) {
  const io: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  main(process.argv.slice(2), io).then(
    (code) => {
      // Long-running verbs (start, sandbox) resolve only when they are done; others exit here.
      process.exitCode = code;
    },
    (err: unknown) => {
      io.err(`gatehouse: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
