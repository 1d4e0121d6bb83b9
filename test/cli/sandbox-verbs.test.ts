/**
 * The sandbox verbs against a bot running on a sandbox: clicks, selects and modal submissions reach the
 * plugin's handlers and print its answers; every event a plugin can receive can be made to happen and
 * prints what the bot did; every verb says which sandbox it talked to, and takes --help.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { checkoutRoot, defaultStateFilePath, stateOf, writeStateFile } from '../../src/sandbox/statefile.js';
import { newSandbox, startBot } from '../plugins/helpers.js';

let sandbox: Sandbox;
let runtime: Runtime;
let dir: string;
let statePath: string;

beforeAll(async () => {
  sandbox = await newSandbox({ roomyBuckets: true });
  ({ runtime } = await startBot(sandbox, ['test/fixtures/plugins/components', 'test/fixtures/plugins/events']));
  dir = mkdtempSync(join(tmpdir(), 'gh-verbs-'));
  statePath = join(dir, 'state.json');
  writeStateFile(statePath, stateOf(sandbox, 'gatehouse start'));
});
afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

function io(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(...l.split('\n')), err: (l) => errors.push(...l.split('\n')) };
}

async function gatehouse(...args: string[]): Promise<{ code: number; lines: string[]; errors: string[] }> {
  const out = io();
  const code = await main([...args, '--state-file', statePath], out);
  return { code, lines: out.lines, errors: out.errors };
}

const which = () => `sandbox ${sandbox.adminUrl} (pid ${process.pid}, gatehouse start, in ${checkoutRoot()})`;

describe('sandbox verbs: components and modals', () => {
  it('invokes, clicks the button it printed, picks in selects and submits the modal, each printing the answer', async () => {
    const poll = await gatehouse('sandbox', 'invoke', 'poll');
    expect(poll.code).toBe(0);
    expect(poll.lines[0]).toBe(which());
    const yes = poll.lines.find((l) => l.includes('[button "Yes"]'))!;
    // The printed line says how to click it, shell-safe.
    const id = /custom_id (poll:\d+:yes)/.exec(yes)![1]!;
    expect(yes).toContain(`npm run gatehouse -- sandbox click ${id}`);

    const click = await gatehouse('sandbox', 'click', id);
    expect(click.code).toBe(0);
    expect(click.lines[0]).toBe(which());
    expect(click.lines).toContain('response: UPDATE_MESSAGE (7)');
    expect(click.lines.join('\n')).toMatch(/owner voted yes in poll \d+/);

    const again = await gatehouse('sandbox', 'invoke', 'poll');
    const pollId = /custom_id pick:(\d+)/.exec(again.lines.join('\n'))![1]!;
    const pick = await gatehouse('sandbox', 'select', `pick:${pollId}`, 'a', 'b');
    expect(pick.lines).toContain(`  picked a+b in ${pollId}`);

    const open = await gatehouse('sandbox', 'click', `feedback:${pollId}`);
    expect(open.lines).toContain('response: MODAL (9)');
    expect(open.lines.join('\n')).toContain('[file upload] shots (optional)');
    const submit = await gatehouse('sandbox', 'modal', 'words:great bot', 'shots:a.png', 'shots:b.png');
    expect(submit.code).toBe(0);
    expect(submit.lines[0]).toBe(which());
    expect(submit.lines).toContain(`  thanks for "great bot" on ${pollId}; files: a.png, b.png; others: 0`);
  });

  it('says what the client refuses, with exit 1', async () => {
    const none = await gatehouse('sandbox', 'click', 'no-such-button');
    expect(none.code).toBe(1);
    expect(none.errors.join('\n')).toMatch(/no message the app sent has a component with custom_id 'no-such-button'/);
  });
});

describe('sandbox verbs: events', () => {
  const guildId = () => sandbox.state.guildIds[0]!;

  async function expectAnswered(args: string[], event: RegExp): Promise<string[]> {
    const r = await gatehouse(...args, '--wait', '3000');
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe(which());
    expect(r.lines[1]).toMatch(event);
    expect(r.lines).toContain('the bot answered with:');
    expect(r.lines.some((l) => /^ {2}GET \/applications\/@me -> 200$/.test(l))).toBe(true);
    return r.lines;
  }

  it('member join, update and leave', async () => {
    const joined = await expectAnswered(['sandbox', 'member', 'join', '--username', 'ada'], /^GUILD_MEMBER_ADD: user \d+ joined guild \d+$/);
    const userId = /user (\d+) joined/.exec(joined[1]!)![1]!;
    await expectAnswered(['sandbox', 'member', 'update', userId, '--nick', 'Ada'], /^GUILD_MEMBER_UPDATE: member \d+ of guild \d+ changed \(nick\)$/);
    await expectAnswered(['sandbox', 'member', 'leave', userId], /^GUILD_MEMBER_REMOVE: user \d+ left guild \d+$/);
    expect(sandbox.state.memberIds(guildId())).not.toContain(userId);
  });

  it('entitlement grant and end', async () => {
    const granted = await expectAnswered(['sandbox', 'entitlement', 'grant'], /^ENTITLEMENT_CREATE: entitlement \d+ to SKU \d+ for user \d+$/);
    const id = /entitlement (\d+)/.exec(granted[1]!)![1]!;
    await expectAnswered(['sandbox', 'entitlement', 'end', id], /^ENTITLEMENT_UPDATE: entitlement \d+ ends now$/);
  });

  it('command permissions update, as a guild admin with a bearer token', async () => {
    const role = sandbox.state.roleIds(guildId())[1]!;
    await expectAnswered(['sandbox', 'permissions', 'poll', '--role', `${role}:deny`], /^APPLICATION_COMMAND_PERMISSIONS_UPDATE: \/poll in guild \d+ has 1 overwrite$/);
    const bad = await gatehouse('sandbox', 'permissions', 'poll', '--role', 'x');
    expect(bad.code).toBe(2);
    expect(bad.errors[0]).toBe('gatehouse sandbox permissions: --role takes ID:allow or ID:deny; got x');
  });
});

describe('help and state files', () => {
  it('every verb takes --help and exits 0', async () => {
    const verbs = [
      ['start'], ['dev'], ['check'], ['sandbox'], ['sandbox', 'invoke'], ['sandbox', 'click'], ['sandbox', 'select'], ['sandbox', 'modal'],
      ['sandbox', 'member', 'join'], ['sandbox', 'member', 'update'], ['sandbox', 'member', 'leave'], ['sandbox', 'entitlement', 'grant'],
      ['sandbox', 'entitlement', 'end'], ['sandbox', 'permissions'], ['commands', 'validate'], ['commands', 'diff'], ['commands', 'sync'],
    ];
    for (const verb of verbs) {
      const out = io();
      expect(await main([...verb, '--help'], out), verb.join(' ')).toBe(0);
      expect(out.lines[0], verb.join(' ')).toBe(`usage: gatehouse ${verb.join(' ')}${out.lines[0]!.slice(`usage: gatehouse ${verb.join(' ')}`.length)}`);
      expect(out.errors).toEqual([]);
    }
  });

  it('keeps one state file per checkout, and says which sandbox is missing', async () => {
    const a = mkdtempSync(join(tmpdir(), 'gh-checkout-a-'));
    const b = mkdtempSync(join(tmpdir(), 'gh-checkout-b-'));
    try {
      const env = {} as NodeJS.ProcessEnv;
      expect(defaultStateFilePath(env, a)).not.toBe(defaultStateFilePath(env, b));
      expect(defaultStateFilePath(env, join(process.cwd(), 'src', 'cli'))).toBe(defaultStateFilePath(env, process.cwd()));
      expect(defaultStateFilePath({ GATEHOUSE_SANDBOX_STATE: '/x.json' }, a)).toBe('/x.json');
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
    const out = io();
    expect(await main(['sandbox', 'click', 'x', '--state-file', join(dir, 'none.json')], out)).toBe(1);
    expect(out.errors[0]).toMatch(/no running sandbox for this checkout \(state file .*none\.json\)\. Start one with `npm start`/);
  });
});
