/**
 * `gatehouse commands validate|diff|sync`.
 *
 * validate FILE [--scope global|guild]: FILE holds one command object or an array of them, exactly as they
 * would be sent for a bulk overwrite of one scope (default: global). Exit 0 when valid (one OK line),
 * 1 when not (one line per problem on stdout: `path: reason (CODE)`), 2 when the file cannot be read or
 * parsed, or on bad usage. FILE `-` reads standard input. Advisories (lintCommands) go to stderr as `warning: ...` and do not change the
 * exit code.
 */
import { parseVerb, str, type VerbSpec } from './args.js';
import { diffOrSync } from './commands-sync.js';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { CliIo, Verb } from './io.js';
import {
  formatProblem,
  lintCommand,
  lintCommands,
  validateCommand,
  validateCommands,
  type ScopeKind,
} from '../commands/index.js';

const USAGE = `usage: gatehouse commands <validate|diff|sync|access> ...   (each takes --help)

  commands validate FILE [--scope global|guild]
      check FILE (a command object or an array, as sent for a bulk overwrite of one scope; default scope global)
      exit 0 valid, 1 invalid (one line per problem), 2 unreadable file or bad usage
  commands diff [--exit-code]  print what a sync would change (--exit-code: 1 when anything would change)
  commands sync [--dry-run]    sync every plugin's commands
  commands access COMMAND --guild G --user U [--channel C]
      can this member use the command there, and why not (exit 0 allowed, 1 denied, 2 cannot tell)`;

const VALIDATE: VerbSpec = {
  verb: 'commands validate',
  args: 'FILE',
  summary:
    'Check FILE (a command object or an array, as sent for a bulk overwrite of one scope; - reads standard input). Exit 0 valid, 1 invalid (one line per problem), 2 unreadable file or bad usage.',
  positionals: { min: 1, max: 1 },
  options: { scope: { type: 'string', value: 'global|guild', help: 'the scope the list is for (default global)' } },
};

export const SUBVERBS: ReadonlyMap<string, Verb> = new Map<string, Verb>([
  ['validate', validate],
  ['diff', (args, io) => diffOrSync('diff', args, io)],
  ['sync', (args, io) => diffOrSync('sync', args, io)],
  ['access', async (args, io) => (await import('./commands-access.js')).run(args, io)],
]);

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '-h' || sub === '--help' || sub === 'help') {
    io.out(USAGE);
    return sub === undefined ? 2 : 0;
  }
  const verb = SUBVERBS.get(sub);
  if (verb === undefined) {
    io.err(`gatehouse commands: unknown subcommand '${sub}'\n${USAGE}`);
    return 2;
  }
  return verb(rest, io);
}


async function validate(args: string[], io: CliIo): Promise<number> {
  const parsedArgs = parseVerb(VALIDATE, args, io);
  if (typeof parsedArgs === 'number') return parsedArgs;
  const scopeArg = str(parsedArgs.values, 'scope') ?? 'global';
  if (scopeArg !== 'global' && scopeArg !== 'guild') {
    io.err(`gatehouse commands validate: --scope must be global or guild, not '${scopeArg}'`);
    return 2;
  }
  const parsed: { file: string; scope: ScopeKind } = { file: parsedArgs.positionals[0]!, scope: scopeArg };
  const { file, scope } = parsed;

  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    io.err(`gatehouse commands validate: cannot read ${file}: ${why}`);
    return 2;
  }
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    io.err(`gatehouse commands validate: ${file} is not valid JSON: ${(err as Error).message}`);
    return 2;
  }

  const isList = Array.isArray(data);
  const problems = isList ? validateCommands(data, { scope }) : validateCommand(data, { scope });
  const warnings = isList ? lintCommands(data, { scope }) : lintCommand(data, { scope });
  const root = isList ? '(list)' : '(command)';
  for (const w of warnings) io.err(`warning: ${formatProblem(w, root)}`);
  if (problems.length > 0) {
    for (const p of problems) io.out(formatProblem(p, root));
    io.err(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} (${scope} scope)`);
    return 1;
  }
  const count = isList ? (data as unknown[]).length : 1;
  io.out(`OK: ${file}: ${count} command${count === 1 ? '' : 's'} valid for the ${scope} scope`);
  return 0;
}
