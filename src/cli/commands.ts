/**
 * `gatehouse commands validate|diff|sync`.
 *
 * validate FILE [--scope global|guild]: FILE holds one command object or an array of them, exactly as they
 * would be sent for a bulk overwrite of one scope (default: global). Exit 0 when valid (one OK line),
 * 1 when not (one line per problem on stdout: `path: reason (CODE)`), 2 when the file cannot be read or
 * parsed, or on bad usage. FILE `-` reads standard input. Advisories (lintCommands) go to stderr as `warning: ...` and do not change the
 * exit code.
 */
import { diffOrSync } from './commands-sync.js';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { CliIo } from '../cli.js';
import {
  formatProblem,
  lintCommand,
  lintCommands,
  validateCommand,
  validateCommands,
  type ScopeKind,
} from '../commands/index.js';

const USAGE = `usage: gatehouse commands <validate|diff|sync> ...

  commands validate FILE [--scope global|guild]
      check FILE (a command object or an array, as sent for a bulk overwrite of one scope; default scope global)
      exit 0 valid, 1 invalid (one line per problem), 2 unreadable file or bad usage
  commands diff              print what a sync would change
  commands sync [--dry-run]  sync every plugin's commands`;

type Subverb = (args: string[], io: CliIo) => Promise<number>;

const SUBVERBS = new Map<string, Subverb>([
  ['validate', validate],
  ['diff', (args, io) => diffOrSync('diff', args, io)],
  ['sync', (args, io) => diffOrSync('sync', args, io)],
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


interface ValidateArgs {
  file: string;
  scope: ScopeKind;
}

function parseValidateArgs(args: string[]): ValidateArgs | string {
  let file: string | undefined;
  let scope: string = 'global';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--scope') {
      const v = args[++i];
      if (v === undefined) return '--scope needs a value: global or guild';
      scope = v;
    } else if (a.startsWith('--scope=')) {
      scope = a.slice('--scope='.length);
    } else if (a.startsWith('-') && a !== '-') {
      return `unknown option '${a}'`;
    } else if (file === undefined) {
      file = a;
    } else {
      return `unexpected argument '${a}' (one FILE only)`;
    }
  }
  if (file === undefined) return 'FILE is required';
  if (scope !== 'global' && scope !== 'guild') return `--scope must be global or guild, not '${scope}'`;
  return { file, scope };
}

async function validate(args: string[], io: CliIo): Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    io.out(USAGE);
    return 0;
  }
  const parsed = parseValidateArgs(args);
  if (typeof parsed === 'string') {
    io.err(`gatehouse commands validate: ${parsed}\n${USAGE}`);
    return 2;
  }
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
