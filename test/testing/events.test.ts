/**
 * The test kit making events happen to a real bot: members join, change and leave, entitlements are granted and
 * end, a guild manager edits command permissions. Each action settles once the bot's runtime has handled the
 * dispatch, so the plugins' handlers have run (synchronously at least) and the cache holds the change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIEntitlement, GatewayApplicationCommandPermissionsUpdateDispatchData } from 'discord-api-types/v10';
import { definePlugin } from '../../src/index.js';
import { commandPermission, startBot, type TestBot } from '../../src/testing/index.js';

const SHOP = 'test/testing/fixtures/shop.ts';

describe('events made by the test kit', () => {
  const seen: string[] = [];
  const entitlements: APIEntitlement[] = [];
  const permissions: GatewayApplicationCommandPermissionsUpdateDispatchData[] = [];
  // Handlers record synchronously: when an action settles, its handler has run.
  const recorder = definePlugin({
    name: 'recorder',
    on: {
      guildMemberAdd: (m) => void seen.push(`add ${m.user.username}`),
      guildMemberUpdate: (m) => void seen.push(`update ${m.user.username} ${m.nick ?? '-'}`),
      guildMemberRemove: (e) => void seen.push(`remove ${e.user.username}`),
      entitlementCreate: (e) => void entitlements.push(e),
      entitlementUpdate: (e) => void entitlements.push(e),
      commandPermissionsUpdate: (p) => void permissions.push(p),
    },
  });
  let bot: TestBot;

  beforeAll(async () => {
    bot = await startBot({ plugins: [recorder, SHOP] });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a member joins, changes and leaves; the handlers ran and the cache follows', async () => {
    const ada = await bot.join({ username: 'ada', nick: 'Ada L.' });
    expect(seen).toContain('add ada');
    expect((await bot.runtime.cache.getMember(bot.guild.id, ada.id))?.nick).toBe('Ada L.');
    // The shop plugin answers by posting to the guild's first channel, after a REST call of its own.
    await bot.waitForMessage((m) => m.message.content === 'welcome ada', { channel: bot.guild.channelId });

    const moderator = await bot.roleId('Moderator');
    const updated = await bot.updateMember(ada, { roles: ['Moderator'], nick: 'Countess' });
    expect(updated.roles).toEqual([moderator]);
    expect(updated.nick).toBe('Countess');
    expect(seen).toContain('update ada Countess');
    expect((await bot.runtime.cache.getMember(bot.guild.id, ada.id))?.roles).toEqual([moderator]);
    await bot.waitForMessage((m) => m.message.content === 'roles of ada: 1');

    await bot.leave(ada);
    expect(seen).toContain('remove ada');
    expect(await bot.runtime.cache.getMember(bot.guild.id, ada.id)).toBeUndefined();
    await bot.waitForMessage((m) => m.message.content === 'goodbye ada');
    await expect(bot.invoke('cart items show', { user: ada })).rejects.toThrow(/not a member/);

    // Without a name the sandbox names the newcomer; the kit reports the name it got.
    const anonymous = await bot.join();
    expect(anonymous.username).toMatch(/^newcomer\d+$/);
    expect(seen).toContain(`add ${anonymous.username}`);
  });

  it('an entitlement is granted to a user, then its subscription ends', async () => {
    const ben = await bot.join({ username: 'ben' });
    const [durable, subscription] = bot.skuIds;
    const granted = await bot.grantEntitlement({ user: ben, sku: subscription!, subscription: true });
    expect(entitlements.at(-1)).toMatchObject({ id: granted.id, sku_id: subscription, user_id: ben.id, ends_at: null });
    expect(await bot.runtime.cache.hasEntitlement({ userId: ben.id, skuId: subscription! })).toBe(true);

    const endsAt = new Date(Date.now() - 1_000);
    await granted.end({ endsAt });
    expect(entitlements.at(-1)).toMatchObject({ id: granted.id, ends_at: endsAt.toISOString() });
    expect(await bot.runtime.cache.hasEntitlement({ userId: ben.id, skuId: subscription! })).toBe(false);

    // A guild's entitlement, by default the first (durable) SKU.
    const forGuild = await bot.grantEntitlement({ guild: bot.guild });
    expect(forGuild.skuId).toBe(durable);
    expect(entitlements.at(-1)).toMatchObject({ id: forGuild.id, guild_id: bot.guild.id });
    await expect(bot.grantEntitlement({})).rejects.toThrow(/exactly one owner/);
  });

  it('a guild manager edits command permissions; the client then refuses the command to members', async () => {
    const cleo = await bot.join({ username: 'cleo' });
    const before = await bot.invoke('cart items add', { user: cleo, options: { item: 'apple' } });
    expect(before.content).toBe('cleo added 1 x apple');

    const result = await bot.setCommandPermissions('cart', [commandPermission.everyone(bot.guild, false)]);
    const cart = bot.commands().find((c) => c.name === 'cart')!;
    expect(result).toMatchObject({ id: cart.id, guild_id: bot.guild.id, permissions: [{ id: bot.guild.id, type: 1, permission: false }] });
    expect(permissions.at(-1)).toMatchObject({ id: cart.id, guild_id: bot.guild.id });
    await expect(bot.invoke('cart items add', { user: cleo, options: { item: 'apple' } })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(new RegExp(`user ${cleo.id} may not use 'cart'`)),
    });
    // The owner is an administrator: every command stays usable.
    expect((await bot.invoke('cart items add', { options: { item: 'apple' } })).content).toBe('owner added 1 x apple');

    // A user entry lets cleo in again; an application-wide entry is the application's id.
    await bot.setCommandPermissions('cart', [commandPermission.everyone(bot.guild, false), commandPermission.user(cleo, true)]);
    expect((await bot.invoke('cart items add', { user: cleo, options: { item: 'banana' } })).content).toBe('cleo added 1 x banana');
    await bot.setCommandPermissions(null, [commandPermission.allChannels(bot.guild, true)]);
    expect(permissions.at(-1)).toMatchObject({ id: bot.applicationId, permissions: [{ id: String(BigInt(bot.guild.id) - 1n), type: 3, permission: true }] });

    // Edits by someone without Manage Guild are refused by the API, and nothing is awaited.
    await expect(bot.setCommandPermissions('cart', [], { by: cleo })).rejects.toThrow(/PUT .*permissions answered 403/);
    await expect(bot.setCommandPermissions('nope', [])).rejects.toThrow(/no command named "nope"/);
  });
});

describe('an event the bot cannot receive', () => {
  it('fails the wait, saying which intent the configuration leaves out', async () => {
    const bot = await startBot({ plugins: [], config: { intents: ['GUILDS'] }, timeoutMs: 500 });
    try {
      const error = await bot.join({ username: 'ghost' }).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/waiting for the bot to handle GUILD_MEMBER_ADD of user \d+ in guild \d+/);
      expect((error as Error).message).toContain('GUILD_MEMBER_ADD needs the GUILD_MEMBERS intent');
    } finally {
      await bot.close();
    }
  });
});
