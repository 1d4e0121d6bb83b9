/**
 * Issue 31 acceptance: permission preconditions. A table of cases (a member's missing permission, the bot's
 * missing permission, an administrator, a channel overwrite denying) each answered ephemerally with the missing
 * permission's name, the handler not run; the cache's permission calculator decides (the overwrite reaches it as
 * the CHANNEL_UPDATE the bot's gateway session receives).
 */
import { describe, expect, it } from 'vitest';
import { PermissionFlagsBits, type APIChannel } from 'discord-api-types/v10';
import { defineCommand, definePlugin } from '../../../src/index.js';
import type { TestMember } from '../../../src/testing/index.js';
import { useTestBot } from '../../helpers/test-bot.js';
import { until } from '../helpers.js';

describe('permission preconditions', () => {
  const ran: string[] = [];
  const plugin = definePlugin({
    name: 'perms',
    preconditions: { permissions: { member: ['SendMessages'] } },
    commands: [
      defineCommand({
        name: 'purge',
        description: 'member needs Manage Messages',
        preconditions: { permissions: { member: ['ManageMessages'] } },
        async run(ctx) {
          ran.push(`purge ${ctx.user.username}`);
          await ctx.reply('purged');
        },
      }),
      defineCommand({
        name: 'ban',
        description: 'the bot needs Ban Members',
        preconditions: { permissions: { bot: ['BanMembers'] } },
        async run(ctx) {
          ran.push(`ban ${ctx.user.username}`);
          await ctx.reply('banned');
        },
      }),
      defineCommand({
        name: 'say',
        description: 'the plugin default: Send Messages',
        async run(ctx) {
          ran.push(`say ${ctx.user.username}`);
          await ctx.reply('said');
        },
      }),
    ],
  });
  let plain: TestMember;
  let admin: TestMember;
  let quiet: string;

  const bot = useTestBot({ plugins: [plugin] }, async (started) => {
    plain = await started.join({ username: 'plain' });
    admin = await started.join({ username: 'boss', roles: ['Admin'] });
    // A channel whose @everyone overwrite denies Send Messages, as the bot's cache learns it (CHANNEL_UPDATE).
    const channels = await Promise.all(
      started.guild.channelIds.map((id) => started.runtime.rest.request<APIChannel>({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: id } })),
    );
    const text = channels.find((c) => c.type === 0 && c.id !== started.guild.channelId)!;
    quiet = text.id;
    const deny = { id: started.guild.id, type: 0, allow: '0', deny: String(PermissionFlagsBits.SendMessages) };
    started.sandbox.faults.dispatch(0, 'CHANNEL_UPDATE', { ...text, guild_id: started.guild.id, permission_overwrites: [deny] });
    await until(async () => ((await started.runtime.parts.cache!.getChannel(quiet))?.permissionOverwrites.length ?? 0) === 1, 'the overwrite in the cache');
  });

  const cases: Array<{ name: string; command: string; who: () => TestMember; channel?: () => string; answer: string | null }> = [
    { name: 'a member without the permission', command: 'purge', who: () => plain, answer: 'You need these permissions here: ManageMessages.' },
    { name: 'the bot without the permission', command: 'ban', who: () => admin, answer: 'I need these permissions here: BanMembers.' },
    { name: 'an administrator has every permission', command: 'purge', who: () => admin, answer: null },
    { name: 'a channel overwrite denying it', command: 'say', who: () => plain, channel: () => quiet, answer: 'You need these permissions here: SendMessages.' },
    { name: 'the same member where no overwrite denies it', command: 'say', who: () => plain, answer: null },
    { name: 'an administrator past the overwrite', command: 'say', who: () => admin, channel: () => quiet, answer: null },
  ];

  for (const c of cases) {
    it(`${c.name}: ${c.answer ?? 'runs'}`, async () => {
      ran.length = 0;
      const who = c.who();
      const reply = await bot().invoke(c.command, { user: who, ...(c.channel !== undefined ? { channel: c.channel() } : {}) });
      if (c.answer === null) {
        expect(ran).toEqual([`${c.command} ${who.username}`]);
        return;
      }
      expect(reply.content).toBe(c.answer);
      expect(reply.ephemeral).toBe(true);
      expect(ran).toEqual([]);
    });
  }
});

describe('permission preconditions when the cache lacks the channel', () => {
  const ran: string[] = [];
  const plugin = definePlugin({
    name: 'perms-fallback',
    commands: [
      defineCommand({ name: 'purge', description: 'member needs Manage Messages', preconditions: { permissions: { member: ['ManageMessages'] } }, async run(ctx) { ran.push(`purge ${ctx.user.username}`); await ctx.reply('purged'); } }),
      defineCommand({ name: 'ban', description: 'the bot needs Ban Members', preconditions: { permissions: { bot: ['BanMembers'] } }, async run(ctx) { ran.push('ban'); await ctx.reply('banned'); } }),
    ],
  });
  // No channels in the cache: the interaction's own member.permissions and app_permissions decide.
  const bot = useTestBot({ plugins: [plugin], config: { cache: { channels: false } } });

  it('reads the member and the bot from the interaction', async () => {
    expect(await bot().runtime.parts.cache!.getChannel(bot().guild.channelId)).toBeUndefined();
    const plain = await bot().join({ username: 'plain' });
    const admin = await bot().join({ username: 'boss', roles: ['Admin'] });
    const denied = await bot().invoke('purge', { user: plain });
    expect(denied.content).toBe('You need these permissions here: ManageMessages.');
    expect(denied.ephemeral).toBe(true);
    expect((await bot().invoke('ban', { user: admin })).content).toBe('I need these permissions here: BanMembers.');
    expect((await bot().invoke('purge', { user: admin })).content).toBe('purged');
    expect(ran).toEqual(['purge boss']);
  });
});
