/**
 * `gatehouse commands validate FILE [--scope global|guild]` (design.md contract 3), run as a real process:
 * exit 0 valid (an OK line), 1 invalid (one `path: reason` line per problem), 2 unreadable/unparsable file or
 * bad usage. A few usage details are checked in-process through the same dispatcher.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = join(ROOT, 'test/fixtures/commands');

interface Run {
  code: number;
  stdout: string[];
  stderr: string[];
}

function lines(s: string): string[] {
  return s.split('\n').filter((l) => l !== '');
}

/** Runs `gatehouse commands ...` from the sources with tsx, as `npm run gatehouse -- commands ...` does. */
function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=gatehouse-source', 'src/cli.ts', 'commands', ...args],
      { cwd: ROOT, timeout: 100_000, env: { ...process.env, NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        if (code === null) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve({ code, stdout: lines(stdout), stderr: lines(stderr) });
      },
    );
  });
}

async function inProcess(...args: string[]): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(['commands', ...args], { out: (l) => stdout.push(...lines(l)), err: (l) => stderr.push(...lines(l)) });
  return { code, stdout, stderr };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gatehouse-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

// Each case starts one or two processes through tsx: 3 s apiece on an idle machine, 15 s when both cores are
// busy, which made a two-process case pass the default 20 s once in CI. Bounds well past twice the busy case.
describe('gatehouse commands validate (real process)', { timeout: 120_000 }, () => {
  it('exits 0 with an OK line for a valid list', async () => {
    const r = await cli('validate', join(FIXTURES, 'moderation-global.json'));
    expect(r.code).toBe(0);
    expect(r.stdout).toEqual([`OK: ${join(FIXTURES, 'moderation-global.json')}: 20 commands valid for the global scope`]);
    expect(r.stderr).toEqual([]);
  });

  it('exits 1 with one line per problem: path, reason, code', async () => {
    const f = join(FIXTURES, 'invalid.json');
    const r = await cli('validate', f);
    expect(r.code).toBe(1);
    expect(r.stdout).toEqual([
      "[0].name: must be lowercase; 'P' (U+0050) has a lowercase variant (APPLICATION_COMMAND_NAME_LOWERCASE)",
      '[1].options[1]: required options must be placed before non-required options (option 0 is optional) (APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID)',
      '[1].options[2].choices[1].value: must be an integer (the option is INTEGER), not a number (0.5) (NUMBER_TYPE_COERCE)',
      '[2].description: USER commands take no description (only "") (APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED)',
      "[3].name: application command names must be unique per type; a CHAT_INPUT command 'echo' is already at [1] (APPLICATION_COMMANDS_DUPLICATE_NAME)",
    ]);
    expect(r.stderr).toEqual([`${f}: 5 problems (global scope)`]);
  });

  it('exits 2 when the file cannot be read or parsed', async () => {
    const missing = await cli('validate', join(dir, 'missing.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr[0]).toBe(`gatehouse commands validate: cannot read ${join(dir, 'missing.json')}: no such file`);
    expect(missing.stdout).toEqual([]);
    const bad = await cli('validate', await file('bad.json', '[{"name": "ping",'));
    expect(bad.code).toBe(2);
    expect(bad.stderr[0]).toMatch(/bad\.json is not valid JSON: /);
  });

  it('--scope guild applies guild rules; a single command object reports paths without an index', async () => {
    const f = await file('one.json', { name: 'info', description: 'About', contexts: [0, 1], options: [{ type: 3, name: 'Topic', description: 'x' }] });
    const global = await cli('validate', f, '--scope', 'global');
    expect(global.code).toBe(1);
    expect(global.stdout).toEqual(["options[0].name: must be lowercase; 'T' (U+0054) has a lowercase variant (APPLICATION_COMMAND_NAME_LOWERCASE)"]);
    const guild = await cli('validate', '--scope=guild', f);
    expect(guild.code).toBe(1);
    expect(guild.stdout).toEqual([
      "options[0].name: must be lowercase; 'T' (U+0054) has a lowercase variant (APPLICATION_COMMAND_NAME_LOWERCASE)",
      'contexts: contexts is for global commands only (APPLICATION_COMMAND_GLOBAL_ONLY)',
      'contexts[1]: guild commands do not support the BOT_DM context (APPLICATION_COMMAND_CONTEXT_UNSUPPORTED)',
    ]);
  });

  it('exits 2 on bad usage', async () => {
    const r = await cli('validate', join(FIXTURES, 'invalid.json'), '--scope', 'planet');
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toBe("gatehouse commands validate: --scope must be global or guild, not 'planet'");
  });
});

describe('gatehouse commands (in process)', () => {
  it('validates a single valid object and counts it as one command', async () => {
    const f = await file('ok.json', { type: 2, name: 'User info' });
    expect(await inProcess('validate', f, '--scope', 'guild')).toEqual({
      code: 0,
      stdout: [`OK: ${f}: 1 command valid for the guild scope`],
      stderr: [],
    });
  });

  it('names a whole-command problem (the 8000 budget) as (command), and a non-array, non-object as invalid', async () => {
    const options = Array.from({ length: 25 }, (_, i) => ({
      type: 3,
      name: `o${i}`,
      description: 'd'.repeat(100),
      choices: Array.from({ length: 25 }, (_, j) => ({ name: `${j}`.padEnd(100, 'n'), value: `${j}` })),
    }));
    const r = await inProcess('validate', await file('huge.json', { name: 'huge', description: 'x', options }));
    expect(r.code).toBe(1);
    expect(r.stdout).toHaveLength(1);
    expect(r.stdout[0]).toMatch(/^\(command\): Command exceeds maximum size \(8000\)/);
    const n = await inProcess('validate', await file('number.json', '42'));
    expect(n.code).toBe(1);
    expect(n.stdout).toEqual(['(command): must be a command object, not a number (42) (MODEL_TYPE_CONVERT)']);
  });

  it('prints advisories on stderr without failing', async () => {
    const f = await file('typo.json', [{ name: 'ping', description: 'Pong', optionz: [] }]);
    const r = await inProcess('validate', f);
    expect(r.code).toBe(0);
    expect(r.stderr).toEqual(["warning: [0].optionz: unknown field 'optionz' (the service ignores it) (UNKNOWN_FIELD)"]);
  });

  it('reads a BOM-prefixed file; rejects a directory with exit 2', async () => {
    const f = await file('bom.json', `\uFEFF${JSON.stringify([{ name: 'ping', description: 'Pong' }])}`);
    expect((await inProcess('validate', f)).code).toBe(0);
    const d = await inProcess('validate', dir);
    expect(d.code).toBe(2);
    expect(d.stderr[0]).toContain('is a directory');
  });

  it('exits 2 for missing FILE, extra arguments, unknown options and unknown subcommands', async () => {
    expect((await inProcess('validate')).code).toBe(2);
    expect((await inProcess('validate', 'a.json', 'b.json')).code).toBe(2);
    expect((await inProcess('validate', 'a.json', '--strict')).code).toBe(2);
    expect((await inProcess('validate', 'a.json', '--scope')).code).toBe(2);
    expect((await inProcess('frobnicate')).code).toBe(2);
    expect((await inProcess()).code).toBe(2);
    expect((await inProcess('--help')).code).toBe(0);
  });

  it('diff and sync without a token say what they need and exit 2', async () => {
    const saved = process.env.DISCORD_TOKEN;
    delete process.env.DISCORD_TOKEN;
    try {
      for (const sub of ['diff', 'sync']) {
        const r = await inProcess(sub);
        expect(r.code).toBe(2);
        expect(r.stderr[0]).toMatch(new RegExp(`^gatehouse commands ${sub}: needs DISCORD_TOKEN`));
      }
      expect((await inProcess('diff', '--dry-run')).code).toBe(2);
    } finally {
      if (saved !== undefined) process.env.DISCORD_TOKEN = saved;
    }
  });
});
