/**
 * `gatehouse commands diff` and `commands sync [--dry-run]` against a running sandbox: the same path as the
 * startup sync, from the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

interface Run {
  code: number;
  stdout: string[];
  stderr: string[];
}

let sandbox: Sandbox;
const saved: Record<string, string | undefined> = {};
const ENV = ['DISCORD_TOKEN', 'DISCORD_API_URL', 'GATEHOUSE_PLUGIN_DIRS', 'LOG_LEVEL', 'REDIS_URL'] as const;

function setEnv(values: Partial<Record<(typeof ENV)[number], string>>): void {
  for (const key of ENV) {
    if (values[key] === undefined) delete process.env[key];
    else process.env[key] = values[key];
  }
}

async function cli(pluginDir: string, ...args: string[]): Promise<Run> {
  setEnv({ DISCORD_TOKEN: sandbox.botToken, DISCORD_API_URL: sandbox.restUrl, GATEHOUSE_PLUGIN_DIRS: pluginDir, LOG_LEVEL: 'error' });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(['commands', ...args], {
    out: (l) => stdout.push(...l.split('\n')),
    err: (l) => stderr.push(...l.split('\n')),
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  for (const key of ENV) saved[key] = process.env[key];
  sandbox = await createSandbox({ activities: true });
});
afterAll(async () => {
  for (const key of ENV) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  await sandbox.close();
});

describe('commands diff / sync', () => {
  it('diff and sync --dry-run print the plan and write nothing; sync applies it; then diff is clean', async () => {
    const before = sandbox.counters.commandWrites;
    const diff = await cli('plugins', 'diff');
    expect(diff.code, diff.stderr.join('\n')).toBe(0);
    // For CI drift checks: --exit-code fails while a sync would change anything.
    const drift = await cli('plugins', 'diff', '--exit-code');
    expect(drift.code).toBe(1);
    expect(drift.stdout).toEqual(diff.stdout);
    expect(diff.stdout[0]).toMatch(/^global: 7 changes in one bulk overwrite/);
    expect(diff.stdout).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}create .*dice/),
        expect.stringMatching(/^ {2}create .*Show profile/),
        expect.stringMatching(/^ {2}edit .*launch/),
      ]),
    );
    const dry = await cli('plugins', 'sync', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toEqual(diff.stdout);
    expect(sandbox.counters.commandWrites).toBe(before);

    const sync = await cli('plugins', 'sync');
    expect(sync.code, sync.stderr.join('\n')).toBe(0);
    expect(sync.stdout).toEqual(['global: 6 created, 1 updated, 0 deleted, 0 unchanged (1 requests)']);
    expect(sandbox.counters.commandWrites).toBe(before + 1);

    const clean = await cli('plugins', 'diff', '--exit-code');
    expect(clean.stdout).toEqual(['global: up to date (7 unchanged, 0 new)']);
    expect(clean.code).toBe(0);
  }, 120_000);

  it('--help exits 0 for diff and sync; diff without a token points to the offline check', async () => {
    for (const verb of ['diff', 'sync']) {
      const help = await cli('plugins', verb, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout[0]).toMatch(new RegExp(`^usage: gatehouse commands ${verb}`));
    }
    setEnv({ GATEHOUSE_PLUGIN_DIRS: 'plugins' });
    const stderr: string[] = [];
    const code = await main(['commands', 'diff'], { out: () => undefined, err: (l) => stderr.push(l) });
    expect(code).toBe(2);
    expect(stderr[0]).toMatch(/needs DISCORD_TOKEN .* To check plugins offline, run `npm run gatehouse -- check`/);
  });

  it('exits 1 with one line per problem, naming plugin, file and field, and sends nothing', async () => {
    const before = sandbox.counters.commandWrites;
    const run = await cli('test/fixtures/plugins/invalid', 'sync');
    expect(run.code).toBe(1);
    expect(run.stdout.length).toBeGreaterThanOrEqual(4);
    for (const line of run.stdout) expect(line).toMatch(/^(one|two) \(test\/fixtures\/plugins\/invalid\/(one|two)\.ts\): commands\[\d\]\S* /);
    expect(run.stderr.at(-1)).toMatch(/problems; nothing was sent$/);
    expect(sandbox.counters.commandWrites).toBe(before);
  });
});
