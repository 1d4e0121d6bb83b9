/**
 * `gatehouse init DIR`: a new bot project that depends on gatehouse (see init-files.ts for what it holds).
 * Refuses a folder that has files in it, so nothing is overwritten.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { LIBRARY_VERSION } from '../rest/index.js';
import { parseVerb, type VerbSpec } from './args.js';
import { initFiles } from './init-files.js';
import { shellQuote } from './hint.js';
import type { CliIo } from './io.js';

const INIT: VerbSpec = {
  verb: 'init',
  args: 'DIR',
  summary: 'Create a new bot project in DIR: package.json (ESM), tsconfig, plugins/hello.ts and its test, Dockerfile, compose.yaml, README.',
  options: {
    gatehouse: { type: 'string', value: 'SPEC', help: `what package.json depends on for gatehouse (default ^${LIBRARY_VERSION}; a tarball or path works too)` },
  },
  positionals: { min: 1, max: 1 },
  notes: ['Then: cd DIR && npm install && npm start'],
};

/** An npm package name from a folder name: lower case, npm's characters only. */
function packageName(dir: string): string {
  const name = basename(resolve(dir)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '');
  return name === '' ? 'bot' : name.slice(0, 214);
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(INIT, args, io);
  if (typeof parsed === 'number') return parsed;
  const target = resolve(parsed.positionals[0]!);
  if (existsSync(target) && readdirSync(target).length > 0) {
    io.err(`gatehouse init: ${target} is not empty; choose a new folder`);
    return 1;
  }
  const spec = typeof parsed.values.gatehouse === 'string' ? parsed.values.gatehouse : `^${LIBRARY_VERSION}`;
  for (const [file, text] of initFiles({ name: packageName(target), gatehouse: spec })) {
    const path = join(target, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  mkdirSync(join(target, 'config'), { recursive: true });
  writeFileSync(join(target, 'config', 'default.json'), '{\n  "plugins": { "dirs": ["plugins"] }\n}\n');
  const shown = relative(process.cwd(), target) || '.';
  io.out(`created ${shown}: a bot with plugins/hello.ts and its test`);
  io.out(`next: cd ${shellQuote(shown)} && npm install && npm start`);
  return 0;
}
