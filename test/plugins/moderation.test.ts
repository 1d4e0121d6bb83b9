/**
 * The moderation example (plugins/moderation.ts) through the test kit, against the sandbox (issue 30's
 * acceptance): /timeout times a member out, gives them the timeout role and posts an embed to the log channel;
 * /untimeout undoes both and logs it; a refusal of the service reaches the moderator as it is. What the sandbox
 * recorded is read back: the member's timeout and roles (the bot's cache, fed by GUILD_MEMBER_UPDATE) and the
 * log channel's messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIEmbed } from 'discord-api-types/v10';
import { startBot, startSandbox, type TestBot, type TestMember } from '../../src/testing/index.js';

const PLUGIN = 'plugins/moderation.ts';
/** One guild, so that the ids a probe sandbox shows are the bot's sandbox's too (the seed is deterministic). */
const SANDBOX = { seed: { guilds: 1, membersPerGuild: 4, rolesPerGuild: 5, channelsPerGuild: 3 } };

let bot: TestBot;
let logChannelId: string;
let timeoutRoleId: string;

/** The channel and role ids of the seeded guild, read from a sandbox of the same seed before the bot starts. */
async function seededIds(): Promise<{ logChannelId: string; timeoutRoleId: string }> {
  const probe = await startSandbox({ sandbox: SANDBOX });
  try {
    const guild = probe.guild;
    // A role of the seed that is none of the named ones: below the bot's own role, so the bot may give it.
    const role = guild.roles.find((r) => !['@everyone', 'Admin', 'Moderator', 'Sandbox Bot'].includes(r.name));
    if (role === undefined) throw new Error(`no plain role in the seed: ${guild.roles.map((r) => r.name).join(', ')}`);
    return { logChannelId: guild.channelIds[1]!, timeoutRoleId: role.id };
  } finally {
    await probe.close();
  }
}

async function logEmbeds(): Promise<APIEmbed[]> {
  return bot.messages({ channel: logChannelId }).flatMap((m) => m.message.embeds ?? []);
}

beforeAll(async () => {
  ({ logChannelId, timeoutRoleId } = await seededIds());
  bot = await startBot({
    plugins: [PLUGIN],
    sandbox: SANDBOX,
    config: { plugins: { config: { moderation: { logChannelId, timeoutRoleId } } } },
  });
  expect(bot.guild.channelIds).toContain(logChannelId);
  // The bot's invite role lacks MODERATE_MEMBERS and MANAGE_ROLES; the Moderator role has both.
  const me = await bot.member(bot.applicationId);
  await bot.updateMember(me, { roles: [...me.roles, 'Moderator'] });
}, 60_000);

afterAll(async () => {
  await bot?.close();
});

describe('the moderation example', () => {
  let ada: TestMember;

  it('times a member out, gives the timeout role and logs an embed', async () => {
    ada = await bot.join({ username: 'ada' });
    const before = Date.now();
    const reply = await bot.invoke('timeout', { options: { member: ada, minutes: 10, reason: 'spam' } });
    expect(reply.content).toBe(`Timed out <@${ada.id}> for 10 minutes.`);
    expect(reply.ephemeral).toBe(true);

    const member = await bot.runtime.cache.getMember(bot.guild.id, ada.id);
    expect(member?.roles).toContain(timeoutRoleId);
    const until = member?.communicationDisabledUntil ?? 0;
    expect(until).toBeGreaterThanOrEqual(before + 10 * 60_000 - 1_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 10 * 60_000 + 1_000);

    const embeds = await logEmbeds();
    expect(embeds).toHaveLength(1);
    expect(embeds[0]).toMatchObject({
      title: 'Member timed out',
      color: 0xe67e22,
      fields: [
        { name: 'Member', value: `<@${ada.id}>`, inline: true },
        { name: 'Moderator', value: `<@${bot.owner.id}>`, inline: true },
        { name: 'Duration', value: expect.stringMatching(/^10 minutes \(until <t:\d+:f>\)$/) },
        { name: 'Reason', value: 'spam' },
      ],
    });
  });

  it('ends the timeout, takes the role back and logs it', async () => {
    const reply = await bot.invoke('untimeout', { options: { member: ada } });
    expect(reply.content).toBe(`Ended the timeout of <@${ada.id}>.`);
    const member = await bot.runtime.cache.getMember(bot.guild.id, ada.id);
    expect(member?.roles).not.toContain(timeoutRoleId);
    expect(member?.communicationDisabledUntil ?? null).toBeNull();
    const embeds = await logEmbeds();
    expect(embeds.map((e) => e.title)).toEqual(['Member timed out', 'Timeout ended']);
    expect(embeds[1]?.fields?.find((f) => f.name === 'Reason')?.value).toBe('No reason given');
  });

  it('tells the moderator what the service refused, and logs nothing', async () => {
    // The guild's owner cannot be timed out by anyone (the service answers 50013).
    const reply = await bot.invoke('timeout', { options: { member: bot.owner, minutes: 5 } });
    expect(reply.content).toBe(`I could not time <@${bot.owner.id}> out: I lack the permission, or their highest role is not below mine.`);
    expect(await logEmbeds()).toHaveLength(2);
  });
});
