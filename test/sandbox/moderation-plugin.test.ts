/**
 * Acceptance (issue 30): the moderation example plugin (plugins/moderation.ts) works against the sandbox, driven
 * through the test kit: /timeout times the member out, gives the timeout role and posts an embed to the log
 * channel; the sandbox's state and records show each step as the service would keep it.
 */
import { afterEach, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { testKit } from '../../src/testing/index.js';

const kit = testKit(afterEach);
const SEED = { guilds: 1, membersPerGuild: 10 };

/** The seeded ids the plugin's configuration names: the same seed gives the same ids. */
async function seededIds(): Promise<{ logChannelId: string; timeoutRoleId: string }> {
  const probe = await createSandbox({ seed: SEED });
  try {
    const g = probe.state.guildIds[0]!;
    return { logChannelId: probe.state.channelIds(g)[1]!, timeoutRoleId: probe.state.roleIds(g)[1]! };
  } finally {
    await probe.close();
  }
}

it('/timeout: the member is timed out and wears the role, the log channel gets an embed as the service builds it', async () => {
  const ids = await seededIds();
  const bot = await kit.startBot({ plugins: ['plugins/moderation.ts'], config: { plugins: { config: { moderation: ids } } }, sandbox: { seed: SEED } });
  const sb = bot.sandbox;
  const g = bot.guild.id;
  const roles = sb.state.roleIds(g);
  expect(roles[1]).toBe(ids.timeoutRoleId);
  const target = sb.state.memberIds(g).filter((id) => id !== sb.applicationId)[5]!;

  // Without MODERATE_MEMBERS the service refuses, and the moderator is told so.
  const refused = await bot.invoke('timeout', { options: { member: target, minutes: 10, reason: 'spam' } });
  expect(refused.content).toMatch(/I lack the permission/);

  // The seeded Moderator role has MODERATE_MEMBERS and MANAGE_ROLES.
  sb.state.updateMember(g, sb.applicationId, { roles: [roles.at(-1)!, roles.at(-3)!] });
  const reply = await bot.invoke('timeout', { options: { member: target, minutes: 10, reason: 'spam' } });
  expect(reply.content).not.toMatch(/could not/);
  const member = (await (await fetch(`${sb.restUrl}/guilds/${g}/members/${target}`, { headers: { authorization: `Bot ${sb.botToken}` } })).json()) as {
    roles: string[];
    communication_disabled_until: string | null;
  };
  expect(member.roles).toContain(ids.timeoutRoleId);
  expect(Date.parse(member.communication_disabled_until!) - Date.now()).toBeGreaterThan(9 * 60_000);
  const logged = sb.messages({ channelId: ids.logChannelId });
  expect(logged).toHaveLength(1);
  expect((logged[0]!.message.embeds as Array<Record<string, unknown>>)[0]).toMatchObject({ type: 'rich' });
});
