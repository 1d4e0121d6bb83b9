/**
 * `gatehouse commands access` against a sandbox, and ctx.canUseCommand through the Runtime: command permission
 * settings written over REST (a user's bearer token) decide, with the reason printed; the runtime's answer
 * follows APPLICATION_COMMAND_PERMISSIONS_UPDATE events without reading REST again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, startBot } from '../plugins/helpers.js';
import { api } from '../sandbox/helpers.js';

const SCOPE = 'applications.commands.permissions.update';
let sandbox: Sandbox;
let guildId: string;
let commandId: string;
let channelId: string;
let plain: string;

beforeAll(async () => {
  sandbox = await newSandbox({ roomyBuckets: true });
  guildId = sandbox.state.guildIds[0]!;
  const command = await api(sandbox.restUrl, 'POST', `/applications/${sandbox.applicationId}/guilds/${guildId}/commands`, {
    token: sandbox.botToken,
    body: { name: 'ban', description: 'Ban someone', default_member_permissions: '4' },
  });
  commandId = command.body.id;
  const channels = await api(sandbox.restUrl, 'GET', `/guilds/${guildId}/channels`, { token: sandbox.botToken });
  channelId = channels.body.find((c: { type: number }) => c.type === 0).id;
  plain = sandbox.state.memberIds(guildId).find((id, i) => i > 2 && id !== sandbox.applicationId)!;
});
afterAll(async () => {
  await sandbox?.close();
});

async function setPermissions(target: string, permissions: unknown[]): Promise<void> {
  const r = await api(sandbox.restUrl, 'PUT', `/applications/${sandbox.applicationId}/guilds/${guildId}/commands/${target}/permissions`, {
    bearer: sandbox.issueBearerToken([SCOPE]),
    body: { permissions },
  });
  expect(r.status).toBe(200);
}

async function gatehouse(...args: string[]): Promise<{ code: number; lines: string[]; errors: string[] }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(...l.split('\n')), err: (l) => errors.push(...l.split('\n')) };
  const code = await main([...args, '--url', sandbox.adminUrl], io);
  return { code, lines, errors };
}

describe('gatehouse commands access', () => {
  it('default_member_permissions decides without settings; a user setting allows; a channel false denies anyway', async () => {
    const denied = await gatehouse('commands', 'access', 'ban', '--guild', guildId, '--user', plain, '--channel', channelId);
    expect(denied.errors).toEqual([]);
    expect(denied.code).toBe(1);
    expect(denied.lines[0]).toBe("denied: /ban's default_member_permissions needs BanMembers in this channel");
    expect(denied.lines[1]).toBe(`  command /ban (${commandId}, guild command), default_member_permissions "4"`);
    expect(denied.lines.at(-1)).toContain(sandbox.adminUrl);

    await setPermissions(commandId, [{ id: plain, type: 2, permission: true }]);
    const allowed = await gatehouse('commands', 'access', commandId, '--guild', guildId, '--user', plain, '--channel', channelId);
    expect(allowed.code).toBe(0);
    expect(allowed.lines[0]).toBe(`allowed: /ban's setting for user ${plain} is true`);

    await setPermissions(commandId, [{ id: plain, type: 2, permission: true }, { id: channelId, type: 3, permission: false }]);
    const channelDenied = await gatehouse('commands', 'access', 'ban', '--guild', guildId, '--user', plain, '--channel', channelId);
    expect(channelDenied.code).toBe(1);
    expect(channelDenied.lines[0]).toBe(`denied: /ban's setting for channel ${channelId} is false`);
    // Without --channel only All Channels counts: the user setting decides.
    expect((await gatehouse('commands', 'access', 'ban', '--guild', guildId, '--user', plain)).code).toBe(0);
    await setPermissions(commandId, []);
  });

  it('the owner is an administrator; what it cannot tell exits 2 saying why', async () => {
    const owner = (await api(sandbox.restUrl, 'GET', `/guilds/${guildId}`, { token: sandbox.botToken })).body.owner_id as string;
    const r = await gatehouse('commands', 'access', 'ban', '--guild', guildId, '--user', owner, '--channel', channelId);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe('allowed: the guild owner can use every command');
    const unknown = await gatehouse('commands', 'access', 'nope', '--guild', guildId, '--user', plain);
    expect(unknown.code).toBe(2);
    expect(unknown.errors[0]).toBe(`gatehouse commands access: cannot tell: no command named nope in guild ${guildId} or global`);
    const stranger = await gatehouse('commands', 'access', 'ban', '--guild', guildId, '--user', '300000000000000077');
    expect(stranger.code).toBe(2);
    expect(stranger.errors[0]).toMatch(/cannot tell: user 300000000000000077 is not a member/);
    expect((await gatehouse('commands', 'access', 'ban', '--user', plain)).code).toBe(2);
  });
});

describe('ctx.canUseCommand through the Runtime', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    ({ runtime } = await startBot(sandbox, ['test/fixtures/plugins/world-events'], { overrides: { intents: ['GUILDS', 'GUILD_MEMBERS', 'GUILD_MESSAGES', 'GUILD_MESSAGE_TYPING', 'GUILD_MESSAGE_REACTIONS', 'GUILD_MESSAGE_POLLS', 'GUILD_MODERATION'] } }));
  });
  afterAll(async () => {
    await runtime?.stop({ graceMs: 500 });
  });

  it('loads the guild settings from REST once, then follows the permissions update events', async () => {
    const ctx = runtime.plugins.loaded[0]!.context;
    const first = await ctx.canUseCommand(guildId, plain, channelId, 'ban');
    expect(first).toMatchObject({ allowed: false, reason: { kind: 'default_member_permissions', value: '4' } });
    expect((await runtime.cache.getCommandPermissions(guildId))?.loaded).toBe(true);
    // The sandbox's journal of the REST requests it answered.
    const reads = async (): Promise<number> => {
      const { requests } = (await (await fetch(`${sandbox.adminUrl}/requests?after=0`)).json()) as { requests: Array<{ method: string; path: string }> };
      return requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/guilds/${guildId}/commands/permissions`)).length;
    };
    const before = await reads();
    expect(before).toBeGreaterThanOrEqual(1);
    await setPermissions(commandId, [{ id: plain, type: 2, permission: true }]);
    // The event reaches the cache: the answer changes without another REST read.
    const deadline = Date.now() + 5_000;
    let now = await ctx.canUseCommand(guildId, plain, channelId, 'ban');
    while (now?.allowed !== true && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      now = await ctx.canUseCommand(guildId, plain, channelId, 'ban');
    }
    expect(now).toMatchObject({ allowed: true, reason: { kind: 'overwrite', level: 'command', target: 'user', id: plain } });
    expect(await reads()).toBe(before);
    await setPermissions(commandId, []);
  });
});
