/**
 * The runtime as a bot owner runs it: real plugins (the examples in plugins/ and fixtures), startup sync,
 * interaction routing and plugin events, against the sandbox over real sockets on 127.0.0.1.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type InteractionRecord, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig, type ConfigInput } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import type { SessionStore } from '../../src/gateway/manager.js';
import type { SessionState } from '../../src/gateway/shard.js';
import { loadZstdNapi } from '../../src/util/zstd.js';
import { LogSink } from '../helpers/log-sink.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = 'test/fixtures/plugins';


async function newSandbox(): Promise<Sandbox> {
  return createSandbox({
    activities: true,
    seed: { guilds: 2, membersPerGuild: 20 },
    gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 },
  });
}

const running: Runtime[] = [];

async function startBot(
  sandbox: Sandbox,
  plugins: string[],
  options: {
    overrides?: ConfigInput;
    deferAfterMs?: number;
    gateway?: RuntimeOptions['gateway'];
    observeDispatch?: RuntimeOptions['observeDispatch'];
    realToken?: boolean;
  } = {},
): Promise<{ runtime: Runtime; logs: LogSink }> {
  const logs = new LogSink();
  // With realToken the sandbox stands in for the real service (a token is configured): the strict sync rules
  // apply. Without, the runtime runs on the embedded sandbox.
  const remote: ConfigInput = options.realToken === true ? { token: sandbox.botToken, apiUrl: sandbox.restUrl } : {};
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: { plugins: { dirs: plugins }, http: { enabled: false }, ...remote, ...options.overrides },
  });
  const runtime = new Runtime({
    config,
    sandbox,
    cwd: ROOT,
    log: createLogger({ level: 'debug', pretty: false, destination: logs }),
    // The sandbox spaces identifies across runtimes too; a quick re-identify after its op 9 keeps tests short.
    gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60 }, ...options.gateway },
    ...(options.deferAfterMs !== undefined ? { deferAfterMs: options.deferAfterMs } : {}),
    ...(options.observeDispatch !== undefined ? { observeDispatch: options.observeDispatch } : {}),
  });
  running.push(runtime);
  await runtime.start();
  return { runtime, logs };
}

/** Wait (bounded) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function content(record: InteractionRecord, index = 0): string {
  return String(record.callbacks[index]?.data?.content ?? '');
}

async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((r) => r.stop({ graceMs: 1_000 })));
}

describe('example plugins', () => {
  let sandbox: Sandbox;
  let runtime: Runtime;
  let guildId: string;

  beforeAll(async () => {
    sandbox = await newSandbox();
    guildId = sandbox.state.guildIds[0]!;
    ({ runtime } = await startBot(sandbox, ['plugins']));
  });
  afterAll(async () => {
    await stopAll();
    await sandbox.close();
  });

  it('syncs every example command and answers each one as documented', async () => {
    expect(runtime.commandSync?.status).toBe('synced');
    const names = sandbox.state.commands().map((c) => `${String(c.type)}:${String(c.name)}`).sort();
    expect(names).toEqual(['1:dice', '1:perks', '1:timeout', '1:untimeout', '2:Show profile', '3:Count words', '4:launch']);

    const roll = await sandbox.invoke({ name: 'dice', subcommand: ['roll'], options: { sides: 20, count: 3 }, guildId });
    await roll.firstResponse(5_000);
    const m = /^You rolled (\d+) \+ (\d+) \+ (\d+) = (\d+) \(3d20\)$/.exec(content(roll));
    expect(m, content(roll)).not.toBeNull();
    const dice = m!.slice(1, 4).map(Number);
    for (const d of dice) expect(d).toBeGreaterThanOrEqual(1), expect(d).toBeLessThanOrEqual(20);
    expect(Number(m![4])).toBe(dice.reduce((a, b) => a + b, 0));

    const flip = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
    await flip.firstResponse(5_000);
    expect(content(flip)).toMatch(/^(Heads|Tails)$/);
  });

  it('answers autocomplete with the focused option, partial input and missing required options', async () => {
    const partial = await sandbox.autocomplete({ name: 'dice', subcommand: ['roll'], options: { sides: 1 }, focused: 'sides', guildId });
    expect(await partial.firstResponse(5_000)).toEqual({
      type: 8,
      data: { choices: [{ name: 'd10', value: 10 }, { name: 'd12', value: 12 }, { name: 'd100', value: 100 }] },
    });
    const empty = await sandbox.autocomplete({ name: 'dice', subcommand: ['roll'], options: { count: 2, sides: '' }, focused: 'sides', guildId });
    const answer = await empty.firstResponse(5_000);
    expect((answer.data?.choices as unknown[]).length).toBe(7);
  });

  it('shows the cached member from the user context menu', async () => {
    const target = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const record = await sandbox.invoke({ name: 'Show profile', type: 2, targetId: target, guildId });
    await record.firstResponse(5_000);
    const member = await runtime.cache.getMember(guildId, target);
    expect(member).toBeDefined();
    const name = member!.nick ?? member!.user?.globalName ?? member!.user?.username;
    expect(content(record)).toContain(`**${name}**`);
    expect(content(record)).toMatch(/Joined: \d{4}-\d{2}-\d{2}/);
    expect(record.callbacks[0]?.data?.flags).toBe(64);
  });

  it('counts the words of the targeted message', async () => {
    const record = await sandbox.invoke({ name: 'Count words', type: 3, guildId });
    await record.firstResponse(5_000);
    const data = record.payload.data as { target_id: string; resolved: { messages: Record<string, { content: string }> } };
    const text = data.resolved.messages[data.target_id]!.content;
    const words = text.split(/\s+/u).filter((w) => w.length > 0).length;
    expect(content(record)).toBe(`That message has ${words} word${words === 1 ? '' : 's'}.`);
  });

  it('gates /perks on an entitlement that the cache learns from ENTITLEMENT_CREATE', async () => {
    const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const before = await sandbox.invoke({ name: 'perks', guildId, userId });
    await before.firstResponse(5_000);
    expect(content(before)).toMatch(/for supporters/);
    for (const skuId of sandbox.state.skuIds) sandbox.state.grantEntitlement({ skuId, userId, subscription: true });
    await until(
      async () => (await runtime.cache.entitlementsOf({ userId })).length === sandbox.state.skuIds.length,
      'entitlements in the cache',
    );
    const after = await sandbox.invoke({ name: 'perks', guildId, userId });
    await after.firstResponse(5_000);
    expect(content(after)).toMatch(/^Thank you for supporting us/);
  });

  it('moderation: says what is missing, privately, until its channel and role are configured', async () => {
    const target = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const record = await sandbox.invoke({ name: 'timeout', options: { member: target, minutes: 10 }, guildId });
    await record.firstResponse(5_000);
    expect(content(record)).toMatch(/^Moderation is not set up: set plugins\.config\.moderation\.logChannelId and timeoutRoleId/);
    expect(record.callbacks.find((c) => c.data !== undefined)?.data?.flags).toBe(64);
  });

  it('launches the Activity from its own entry-point command', async () => {
    const record = await sandbox.invoke({ name: 'launch', type: 4, guildId });
    expect(await record.firstResponse(5_000)).toEqual({ type: 12 });
  });
});

describe.runIf(loadZstdNapi() !== null)('gateway.compress: zstd-stream', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await newSandbox();
  });
  afterAll(async () => {
    await stopAll();
    await sandbox.close();
  });

  it('connects with compress=zstd-stream, caches every guild and answers a command through it', async () => {
    const compressions: Array<string | undefined> = [];
    sandbox.gatewayEvents.on('connection', (e) => compressions.push(e.compression));
    const { runtime } = await startBot(sandbox, ['plugins'], { overrides: { gateway: { compress: 'zstd-stream' } } });
    expect(compressions).toEqual(['zstd-stream']);
    const guildId = sandbox.state.guildIds[0]!;
    await until(async () => (await runtime.cache.getGuild(guildId))?.name != null, 'the guild from its GUILD_CREATE');
    const userId = sandbox.state.addMember(guildId, { username: 'zstd-joiner', nick: 'über ✓ 日本' });
    await until(async () => (await runtime.cache.getMember(guildId, userId)) !== undefined, 'the new member cached');
    expect((await runtime.cache.getMember(guildId, userId))?.nick).toBe('über ✓ 日本');
    const flip = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
    await flip.firstResponse(5_000);
    expect(content(flip)).toMatch(/^(Heads|Tails)$/);
  });
});

describe('isolation', () => {
  afterEach(stopAll);
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await newSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('a plugin throwing in setup or in run leaves the others working', async () => {
    const { runtime, logs } = await startBot(sandbox, [`${FIXTURES}/broken-setup`]);
    const guildId = sandbox.state.guildIds[0]!;
    const states = Object.fromEntries(runtime.plugins.loaded.map((p) => [p.name, p.state]));
    expect(states).toEqual({ working: 'ready', broken: 'failed', thrower: 'ready', listener: 'ready' });
    expect(logs.find((l) => l.plugin === 'broken' && l.msg === 'plugin setup failed; the plugin is disabled')).toBeDefined();

    const boom = await sandbox.invoke({ name: 'boom', guildId });
    await boom.firstResponse(5_000);
    expect(content(boom)).toMatch(/went wrong while running `\/boom`/);
    expect(boom.callbacks[0]?.data?.flags).toBe(64);
    const logged = logs.find((l) => l.msg === 'command handler failed');
    expect(logged).toMatchObject({ plugin: 'thrower', command: 'boom' });

    const broken = await sandbox.invoke({ name: 'broken', guildId });
    await broken.firstResponse(5_000);
    expect(content(broken)).toMatch(/unavailable right now \(plugin "broken" failed to start\)/);

    const ping = await sandbox.invoke({ name: 'ping', guildId });
    await ping.firstResponse(5_000);
    expect(content(ping)).toBe('pong');

    // A member joins: the throwing listener is logged, the other listener still runs and sees the cache updated.
    const joined = sandbox.state.addMember(guildId, { username: 'newcomer' });
    const { seen } = (await import(`../fixtures/plugins/broken-setup/d-listener.js`)) as {
      seen: Array<{ userId: string; cached: boolean }>;
    };
    await until(() => seen.some((s) => s.userId === joined), 'the listener to see the join');
    expect(seen.find((s) => s.userId === joined)).toEqual({ userId: joined, cached: true });
    await until(() => logs.find((l) => l.msg === 'plugin event handler failed') !== undefined, 'the event error log');
    expect(logs.find((l) => l.msg === 'plugin event handler failed')).toMatchObject({ plugin: 'thrower', event: 'guildMemberAdd' });

    const again = await sandbox.invoke({ name: 'ping', guildId });
    await again.firstResponse(5_000);
    expect(content(again)).toBe('pong');
  });
});

describe('responses', () => {
  afterEach(stopAll);
  let sandbox: Sandbox;
  let guildId: string;
  beforeAll(async () => {
    sandbox = await newSandbox();
    guildId = sandbox.state.guildIds[0]!;
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('defers for a slow handler, then fills the deferred message', async () => {
    await startBot(sandbox, [`${FIXTURES}/behaviour`], { deferAfterMs: 100 });
    const record = await sandbox.invoke({ name: 'slow', guildId });
    expect(await record.firstResponse(5_000)).toEqual({ type: 5 });
    await until(() => record.original?.content === 'finally', 'the edited original');
    expect(record.callbacks).toHaveLength(1);
  });

  it('edits, follows up, and stops at five follow-ups for a user-installed app', async () => {
    await startBot(sandbox, [`${FIXTURES}/behaviour`]);
    const inGuild = await sandbox.invoke({ name: 'chatty', options: { followups: 3 }, guildId });
    await until(() => inGuild.original?.content === 'sent 3', 'three follow-ups', 8_000);
    expect(inGuild.followups.map((f) => f.content)).toEqual(['follow-up 1', 'follow-up 2', 'follow-up 3']);
    expect(inGuild.callbacks).toEqual([{ type: 5, data: { flags: 64 } }]);

    const userInstalled = await sandbox.invoke({ name: 'chatty', options: { followups: 7 }, guildId, integration: 'user' });
    await until(() => String(userInstalled.original?.content).startsWith('stopped'), 'the follow-up limit', 8_000);
    expect(userInstalled.original?.content).toBe('stopped after 5: FollowUpLimitError');
    expect(userInstalled.followups).toHaveLength(5);
  });

  it('answers a throwing handler with an ephemeral error, shows modals, and cuts choices to 25', async () => {
    const { logs } = await startBot(sandbox, [`${FIXTURES}/behaviour`]);
    const crash = await sandbox.invoke({ name: 'crash', guildId });
    await crash.firstResponse(5_000);
    expect(crash.callbacks[0]).toEqual({
      type: 4,
      data: { content: 'Something went wrong while running `/crash`. It has been logged.', flags: 64 },
    });
    expect(logs.find((l) => l.msg === 'command handler failed')).toMatchObject({ plugin: 'responses', command: 'crash' });

    const form = await sandbox.invoke({ name: 'form', guildId });
    expect(await form.firstResponse(5_000)).toMatchObject({ type: 9, data: { custom_id: 'feedback', title: 'Feedback' } });

    const many = await sandbox.autocomplete({ name: 'many', options: { pick: 'c' }, focused: 'pick', guildId });
    const answer = await many.firstResponse(5_000);
    expect((answer.data?.choices as unknown[]).length).toBe(25);
  });
});

/** Messages of an interaction everyone in the channel sees, with their text: public callbacks, original, follow-ups. */
function publicTexts(record: InteractionRecord): string[] {
  const isPublic = (flags: unknown): boolean => ((typeof flags === 'number' ? flags : 0) & 64) === 0;
  const out: string[] = [];
  for (const cb of record.callbacks) if (cb.type === 4 && isPublic(cb.data?.flags)) out.push(String(cb.data?.content ?? ''));
  if (record.original !== null && isPublic(record.original.flags)) out.push(String(record.original.content ?? ''));
  for (const f of record.followups) if (isPublic(f.flags)) out.push(String(f.content ?? ''));
  return out;
}

describe('ephemeral answers stay private', () => {
  afterEach(stopAll);
  let sandbox: Sandbox;
  let guildId: string;
  beforeAll(async () => {
    sandbox = await newSandbox();
    guildId = sandbox.state.guildIds[0]!;
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('a late ephemeral reply after a public automatic defer replaces the placeholder with an ephemeral follow-up', async () => {
    await startBot(sandbox, [`${FIXTURES}/ephemeral`], { deferAfterMs: 100 });
    const record = await sandbox.invoke({ name: 'secret', guildId });
    // The command did not declare it: the guard's defer is public.
    expect(await record.firstResponse(5_000)).toEqual({ type: 5 });
    await until(() => record.followups.some((f) => String(f.content).includes('edited')), 'the edited answer');
    // The public "thinking" message is gone; the answer, and its edit, exist only as an ephemeral follow-up.
    expect(record.original).toBeNull();
    expect(record.followups).toHaveLength(1);
    expect(record.followups[0]).toMatchObject({ content: 'for your eyes only (edited)', flags: 64 });
    expect(publicTexts(record)).toEqual([]);
  });

  it('a command that declares deferEphemeral is deferred ephemerally, and its answer fills that placeholder', async () => {
    await startBot(sandbox, [`${FIXTURES}/ephemeral`], { deferAfterMs: 100 });
    const record = await sandbox.invoke({ name: 'declared', guildId });
    expect(await record.firstResponse(5_000)).toEqual({ type: 5, data: { flags: 64 } });
    await until(() => record.original?.content === 'declared secret', 'the answer');
    expect(record.followups).toEqual([]);
    expect(publicTexts(record)).toEqual([]);
  });

  it('the error message of a handler that throws after the automatic defer is not shown to the channel', async () => {
    const { logs } = await startBot(sandbox, [`${FIXTURES}/ephemeral`], { deferAfterMs: 100 });
    const record = await sandbox.invoke({ name: 'late-crash', guildId });
    expect(await record.firstResponse(5_000)).toEqual({ type: 5 });
    await until(() => record.followups.length === 1, 'the error message');
    expect(record.followups[0]).toMatchObject({ content: 'Something went wrong while running `/late-crash`. It has been logged.', flags: 64 });
    expect(record.original).toBeNull();
    expect(publicTexts(record)).toEqual([]);
    expect(logs.find((l) => l.msg === 'command handler failed')).toMatchObject({ plugin: 'privacy', command: 'late-crash' });
  });

  it('an ephemeral follow-up while a public placeholder is loading removes the placeholder first', async () => {
    await startBot(sandbox, [`${FIXTURES}/ephemeral`]);
    const record = await sandbox.invoke({ name: 'whisper', guildId });
    await until(() => record.followups.length === 2, 'the whisper and the answer');
    expect(record.followups.map((f) => [f.content, f.flags])).toEqual([
      ['psst', 64],
      ['done', 0],
    ]);
    expect(record.original).toBeNull();
    expect(publicTexts(record)).toEqual(['done']);
  });

  it('the profile example keeps its answer private when its member request makes it slower than the guard', async () => {
    // A small send window the bot fills itself, so that the profile's op 8 must wait in the shard's queue and
    // the guard defers first: deterministic, whatever the machine's speed.
    const slow = await createSandbox({
      activities: true,
      seed: { guilds: 1, membersPerGuild: 5 },
      gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000, sendLimit: { count: 20, windowMs: 3_000 } },
    });
    try {
      const { runtime } = await startBot(slow, ['plugins'], {
        deferAfterMs: 100,
        gateway: { sendLimit: { count: 20, windowMs: 3_000, marginMs: 300 } },
      });
      const guild = slow.state.guildIds[0]!;
      const target = slow.state.memberIds(guild).find((id) => id !== runtime.applicationId)!;
      expect(await runtime.cache.getMember(guild, target)).toBeUndefined();
      const shard = runtime.gateway.shardForGuild(guild)!;
      const presence = { since: null, activities: [], status: 'online', afk: false };
      const fill = Array.from({ length: 17 }, () => shard.send(3, presence).catch((e: unknown) => e));
      expect(shard.queuedSends).toBeGreaterThan(0);
      const record = await slow.invoke({ name: 'Show profile', type: 2, targetId: target, guildId: guild });
      expect(await record.firstResponse(5_000)).toEqual({ type: 5, data: { flags: 64 } });
      await until(() => record.original !== null && !(Number(record.original.flags) & 128), 'the answer', 8_000);
      expect(String(record.original!.content)).toMatch(new RegExp(`<@${target}>|Joined:`));
      expect(publicTexts(record)).toEqual([]);
      expect((await Promise.all(fill)).filter((outcome) => outcome !== undefined)).toEqual([]);
    } finally {
      await stopAll();
      await slow.close();
    }
  });
});

describe('startup sync', () => {
  afterEach(stopAll);
  let sandbox: Sandbox;
  let dir: string;
  beforeAll(async () => {
    sandbox = await newSandbox();
    mkdirSync(join(ROOT, 'test/.tmp'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'test/.tmp/sync-'));
  });
  afterAll(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Write a plugin set into a fresh folder (a fresh path, so the module is imported anew). */
  function pluginSet(name: string, description: string): string {
    const folder = join(dir, name);
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'tools.mjs'),
      `export default {
        name: 'tools',
        commands: [
          { name: 'echo', description: ${JSON.stringify(description)}, options: [{ type: 3, name: 'text', description: 'Text', required: true }], async run(ctx) { await ctx.reply(String(ctx.options.text)); } },
          { name: 'config', description: 'Settings', options: [
            { type: 1, name: 'get', description: 'Read one', options: [{ type: 3, name: 'key', description: 'Key', required: true }], async run(ctx) { await ctx.reply('get'); } },
            { type: 1, name: 'set', description: 'Write one', options: [{ type: 3, name: 'key', description: 'Key', required: true }, { type: 3, name: 'value', description: 'Value' }], async run(ctx) { await ctx.reply('set'); } },
          ] },
          { type: 2, name: 'Inspect', async run(ctx) { await ctx.reply('inspect'); } },
        ],
      };\n`,
    );
    return folder;
  }

  it('makes zero writes when nothing changed and exactly one when one description changed', async () => {
    const first = await startBot(sandbox, [pluginSet('first', 'Repeat text')]);
    expect(first.runtime.commandSync?.status).toBe('synced');
    await first.runtime.stop();
    const afterFirst = { ...sandbox.counters };
    expect(afterFirst.commandCreates).toBeGreaterThanOrEqual(3);

    const second = await startBot(sandbox, [pluginSet('second', 'Repeat text')]);
    expect(second.runtime.commandSync).toMatchObject({ status: 'synced', summary: { requests: 0, unchanged: 3 } });
    await second.runtime.stop();
    expect(sandbox.counters.commandWrites).toBe(afterFirst.commandWrites);

    const ids = new Map(sandbox.state.commands().map((c) => [c.name, c.id]));
    const third = await startBot(sandbox, [pluginSet('third', 'Repeat the text you give')]);
    expect(third.runtime.commandSync).toMatchObject({ status: 'synced', summary: { requests: 1, updated: 1, created: 0, deleted: 0 } });
    expect(sandbox.counters.commandWrites).toBe(afterFirst.commandWrites + 1);
    expect(sandbox.counters.commandCreates).toBe(afterFirst.commandCreates);
    // Same command ids: nothing was deleted and recreated (permissions survive).
    expect(new Map(sandbox.state.commands().map((c) => [c.name, c.id]))).toEqual(ids);
    const echo = sandbox.state.commands().find((c) => c.name === 'echo');
    expect(echo?.description).toBe('Repeat the text you give');
  });

  it('refuses to sync invalid definitions, listing every problem with its plugin, and sends nothing', async () => {
    const before = { ...sandbox.counters };
    const { runtime, logs } = await startBot(sandbox, [`${FIXTURES}/invalid`], { realToken: true });
    const result = runtime.commandSync;
    expect(result?.status).toBe('invalid');
    if (result?.status !== 'invalid') return;
    const found = result.problems.map((p) => `${p.plugin} ${p.path} ${p.problem.code}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^one commands\[0\]\.name /),
        expect.stringMatching(/^one commands\[1\]\.options\[1\]/),
        expect.stringMatching(/^two commands\[0\]\.name /),
        expect.stringMatching(/^two commands\[1\]\.description /),
      ]),
    );
    expect(found.filter((f) => f.startsWith('one commands[1].options[1]')).length).toBeGreaterThanOrEqual(2);
    for (const p of result.problems) expect(p.source).toMatch(/^test\/fixtures\/plugins\/invalid\/(one|two)\.ts$/);
    expect(logs.lines.filter((l) => l.level === 50 && String(l.msg).startsWith('one (test/fixtures')).length).toBeGreaterThan(0);
    expect(sandbox.counters.commandWrites).toBe(before.commandWrites);
  });

  it('names the file and the fields of a malformed plugin, loads the others, and syncs nothing', async () => {
    const before = { ...sandbox.counters };
    const { runtime } = await startBot(sandbox, [`${FIXTURES}/bad-shape`], { realToken: true });
    expect(runtime.plugins.loaded.map((p) => p.name)).toEqual(['ok']);
    const failure = runtime.plugins.loadFailures[0];
    expect(failure?.source.label).toBe('test/fixtures/plugins/bad-shape/typo.js');
    expect(failure?.error.message.split('\n').map((l) => l.trim())).toEqual([
      'test/fixtures/plugins/bad-shape/typo.js:',
      'comands: unknown key; did you mean "commands"?',
      'on.guildMemberAd: unknown event; did you mean "guildMemberAdd"?',
      'setup: must be a function, not a string',
    ]);
    expect(runtime.commandSync?.status).toBe('blocked');
    expect(sandbox.counters.commandWrites).toBe(before.commandWrites);
  });
});

describe('development mode and shutdown', () => {
  afterEach(stopAll);
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await newSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('registers every command in the development guild only, and routes it there', async () => {
    const devGuild = sandbox.state.guildIds[1]!;
    const before = sandbox.state.commands().length;
    const { runtime } = await startBot(sandbox, [`${FIXTURES}/broken-setup`], { overrides: { commands: { devGuildId: devGuild } } });
    expect(runtime.commandSync?.status).toBe('synced');
    expect(sandbox.state.commands(devGuild).map((c) => c.name).sort()).toEqual(['boom', 'broken', 'ping', 'seen']);
    // Only the development guild is managed: the global scope keeps what it had (the service's "Launch").
    expect(sandbox.state.commands()).toHaveLength(before);
    const ping = await sandbox.invoke({ name: 'ping', guildId: devGuild });
    await ping.firstResponse(5_000);
    expect(content(ping)).toBe('pong');
  });

  it('stop() closes the shards first, then lets an interaction in flight finish answering', async () => {
    const { runtime } = await startBot(sandbox, [`${FIXTURES}/behaviour`], { deferAfterMs: 100 });
    const guildId = sandbox.state.guildIds[0]!;
    const record = await sandbox.invoke({ name: 'slow', guildId });
    expect(await record.firstResponse(5_000)).toEqual({ type: 5 });
    expect(runtime.interactionsInFlight).toBe(1);
    await runtime.stop({ graceMs: 5_000 });
    // The handler's answer went out before stop() resolved.
    expect(record.original?.content).toBe('finally');
    expect(runtime.interactionsInFlight).toBe(0);
    expect(runtime.state).toBe('stopped');
  });
});

describe('rolling restart in one process', () => {
  afterEach(stopAll);

  it('every interaction of a steady stream is answered exactly once across a graceful stop and a RESUME', async () => {
    // Interactions replayed to the next runtime may wait for its start; this test is about loss, not latency.
    const sandbox = await createSandbox({
      activities: true,
      seed: { guilds: 2, membersPerGuild: 5 },
      gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 },
      rest: { interactionResponseMs: 20_000 },
    });
    try {
      const sessions = new Map<number, SessionState | null>();
      const store: SessionStore = { load: (id) => sessions.get(id) ?? null, save: (id, state) => void sessions.set(id, state) };
      const handledBy = new Map<string, string[]>();
      const observe = (name: string): RuntimeOptions['observeDispatch'] => (_shard, t, d) => {
        if (t !== 'INTERACTION_CREATE') return;
        const id = (d as { id: string }).id;
        handledBy.set(id, [...(handledBy.get(id) ?? []), name]);
      };
      const overrides: ConfigInput = { applicationId: sandbox.applicationId };
      const first = await startBot(sandbox, [`${FIXTURES}/behaviour`], { overrides, gateway: { sessionStore: store }, observeDispatch: observe('first') });
      const guildId = sandbox.state.guildIds[0]!;
      const records: InteractionRecord[] = [];
      let streaming = true;
      const stream = (async () => {
        for (let i = 0; streaming && i < 300; i++) {
          records.push(await sandbox.invoke({ name: 'slow', guildId }));
          await new Promise((r) => setTimeout(r, 25));
        }
      })();
      await until(() => first.runtime.interactionsInFlight > 2, 'handlers in flight');
      // The slow handlers (400 ms each) keep the drain busy while interactions keep arriving.
      await first.runtime.stop({ resumable: true, graceMs: 5_000 });
      expect(sessions.get(0)?.sessionId).toMatch(/.+/);
      const second = await startBot(sandbox, [`${FIXTURES}/behaviour`], { overrides, gateway: { sessionStore: store }, observeDispatch: observe('second') });
      expect(second.runtime.gateway.status()[0]!.sessionId).toBe(sessions.get(0)!.sessionId);
      await new Promise((r) => setTimeout(r, 300));
      streaming = false;
      await stream;
      await until(() => records.every((r) => r.callbacks.length === 1), 'every interaction answered', 15_000);
      expect(records.length).toBeGreaterThan(10);
      for (const record of records) {
        expect(record.callbacks, `interaction ${record.id}`).toEqual([{ type: 4, data: { content: 'finally' } }]);
        expect(handledBy.get(record.id), `runtimes that handled ${record.id}`).toHaveLength(1);
      }
      // Both runtimes answered some: the stream really crossed the restart.
      const by = [...handledBy.values()].map((v) => v[0]);
      expect(by).toContain('first');
      expect(by).toContain('second');
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });
});

describe('rules that depend on the application', () => {
  afterEach(stopAll);

  it('refuses an entry point with a handler when the application has no Activity, before sending anything', async () => {
    const sandbox = await createSandbox({ activities: false, seed: { guilds: 1, membersPerGuild: 5 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
    try {
      const { runtime } = await startBot(sandbox, [`${FIXTURES}/no-activities`], { realToken: true });
      const result = runtime.commandSync;
      expect(result?.status).toBe('invalid');
      if (result?.status !== 'invalid') return;
      expect(result.problems.map((p) => `${p.plugin} ${p.path} ${p.problem.code}`)).toEqual([
        'launcher commands[0].handler APPLICATION_COMMAND_HANDLER_NOT_EMBEDDED',
      ]);
      expect(sandbox.counters.commandWrites).toBe(0);
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });
});
