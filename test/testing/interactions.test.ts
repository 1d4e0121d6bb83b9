/**
 * The test kit acting as users on a real bot (Runtime + plugins) over real sockets: invoke with options and
 * subcommands, autocomplete, click, select, submit a modal, and reading what the bot answered (initial response,
 * edits, follow-ups, ephemeral flag, modals, channel posts), as several users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../src/index.js';
import { KitTimeoutError, Reply, startBot, type TestBot } from '../../src/testing/index.js';

const SHOP = 'test/testing/fixtures/shop.ts';

describe('a bot driven by the test kit', () => {
  let bot: TestBot;

  beforeAll(async () => {
    bot = await startBot({ plugins: [SHOP], config: { plugins: { config: { shop: { currency: 'CHF' } } } }, sandbox: { seed: { guilds: 2, membersPerGuild: 6 } } });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('invokes a subcommand of a group with options, as the owner by default', async () => {
    const reply = await bot.invoke('cart items add', { options: { item: 'apple', count: 3 } });
    expect(reply).toBeInstanceOf(Reply);
    expect(reply.type).toBe(4);
    expect(reply.content).toBe('owner added 3 x apple');
    expect(reply.ephemeral).toBe(false);
    expect(reply.message?.interaction_metadata?.user.id).toBe(bot.owner.id);
    // The same command through the subcommand option, with a user option given as a member of the kit.
    const alice = await bot.join({ username: 'alice' });
    const gift = await bot.invoke('cart', { subcommand: ['items', 'add'], options: { item: 'cherry', for: alice }, user: alice });
    expect(gift.content).toBe('alice added 1 x cherry for alice');
  });

  it('refuses what the client refuses, at once, with the sandbox\'s error', async () => {
    await expect(bot.invoke('cart items add', { options: { item: 'apple', count: 500 } })).rejects.toThrow(/count/);
    await expect(bot.invoke('nope')).rejects.toThrow(/nope/);
  });

  it('autocompletes the focused option with partial input', async () => {
    const reply = await bot.autocomplete('cart items add', 'item', { options: { item: 'ap' } });
    expect(reply.type).toBe(8);
    expect(reply.choices).toEqual([
      { name: 'apple', value: 'apple' },
      { name: 'apricot', value: 'apricot' },
    ]);
    expect(reply.message).toBeNull();
  });

  it('reads an ephemeral answer, clicks its button (an update) and picks in its select menu', async () => {
    const cart = await bot.invoke('cart items show');
    expect(cart.ephemeral).toBe(true);
    expect(cart.content).toBe('Your cart');

    const sizes = await cart.select('size', ['s', 'l']);
    expect(sizes.interactionType).toBe(3);
    expect(sizes.content).toBe('sizes s+l');

    const paid = await cart.click('checkout');
    expect(paid.type).toBe(7);
    expect(paid.content).toBe('Paid by owner');
    // The click updated the message it sits on: the first reply sees the edit too.
    expect(cart.content).toBe('Paid by owner');
    expect(cart.edits.map((m) => m.content)).toEqual(['Paid by owner']);
    expect(cart.components).toEqual([]);
    await expect(cart.click('checkout')).rejects.toThrow(/custom_id 'checkout'.*none/);
  });

  it('opens a modal from a button and submits it', async () => {
    const cart = await bot.invoke('cart items show');
    const opened = await cart.click('note');
    expect(opened.type).toBe(9);
    expect(opened.modal?.custom_id).toBe('note-form');
    expect(opened.modal?.title).toBe('A note for the seller');
    expect(opened.message).toBeNull();

    const noted = await opened.submitModal({ text: 'ring twice' });
    expect(noted.interactionType).toBe(5);
    expect(noted.content).toBe('Noted: "ring twice"');
    expect(noted.ephemeral).toBe(true);
    await expect(bot.submitModal(cart, { text: 'x' })).rejects.toThrow(/not answered with a modal/);
  });

  it('waits past a deferral and reads every edit and follow-up, ephemeral flags included', async () => {
    const prices = await bot.invoke('price');
    expect(prices.type).toBe(5);
    expect(prices.deferred).toBe(true);
    expect(prices.loading).toBe(false);
    // Settled past the loading message: the first edit is there (maybe the second too).
    expect(prices.edits[0]?.content).toBe('Prices in CHF: apple 1');
    const second = await prices.waitForEdit(1);
    expect(second.content).toBe('Prices in CHF: apple 1, banana 2');
    const first = await prices.waitForFollowup(0);
    const coupon = await prices.waitForFollowup(1);
    expect(first.content).toBe('Prices change daily');
    expect(coupon.content).toBe('Psst: a coupon for you');
    expect(((coupon.flags ?? 0) & 64) !== 0).toBe(true);
    expect(((first.flags ?? 0) & 64) !== 0).toBe(false);
    expect(prices.content).toBe('Prices in CHF: apple 1, banana 2');
    expect(prices.followups).toHaveLength(2);
  });

  it('reads what the bot posts to a channel and clicks a button on that message', async () => {
    const channel = bot.guild.channelIds[1]!;
    const reply = await bot.invoke('announce', { options: { channel } });
    expect(reply.content).toBe(`Announced in <#${channel}>`);
    const panel = await bot.waitForMessage((m) => m.message.content === 'Sale today!', { channel });
    expect(panel.channelId).toBe(channel);
    expect(bot.messages({ channel }).map((m) => m.message.content)).toContain('Sale today!');

    const bob = await bot.join({ username: 'bob' });
    const opened = await bot.click(panel, 'open-sale', { user: bob });
    expect(opened.content).toBe('bob opened the sale');
    expect(opened.ephemeral).toBe(true);
  });

  it('invokes user commands by their name (spaces and case kept) and in the bot DM', async () => {
    const carol = await bot.join({ username: 'carol' });
    const wish = await bot.invoke('Add to wishlist', { target: carol });
    expect(wish.record.payload.data).toMatchObject({ type: 2, name: 'Add to wishlist', target_id: carol.id });
    expect(wish.content).toBe(`${carol.id} has an empty wishlist`);
    const dm = await bot.invoke('cart items add', { guild: null, options: { item: 'apple' } });
    expect(dm.record.payload).toMatchObject({ context: 1 });
    expect(dm.record.payload.guild_id).toBeUndefined();
    expect(dm.content).toBe('owner added 1 x apple');
  });

  it('acts as members of other guilds and with roles by name', async () => {
    const other = await bot.guildInfo(bot.guildIds[1]!);
    const mod = await bot.join({ username: 'dora', guild: other, roles: ['Moderator'] });
    expect(mod.roles).toEqual([await bot.roleId('Moderator', other)]);
    const reply = await bot.invoke('cart items add', { guild: other, user: mod, options: { item: 'banana' } });
    expect(reply.content).toBe('dora added 1 x banana');
    expect(reply.record.payload.guild_id).toBe(other.id);
    const again = await bot.join({ user: mod, guild: bot.guild });
    expect(again).toMatchObject({ id: mod.id, username: 'dora', guildId: bot.guild.id });
  });
});

describe('waits that time out', () => {
  it('name what was awaited and what the bot did meanwhile', async () => {
    let release = (): void => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const slow = definePlugin({
      name: 'slow',
      commands: [
        {
          name: 'slow',
          description: 'Answers when the test says so',
          async run(ctx) {
            await hold;
            await ctx.reply('late');
          },
        },
      ],
    });
    // No automatic deferral within the wait: the bot sends nothing at all.
    const bot = await startBot({ plugins: [slow], deferAfterMs: 60_000 });
    try {
      const error = await bot.invoke('slow', { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KitTimeoutError);
      expect((error as KitTimeoutError).what).toMatch(/^the bot's answer to \/slow \(interaction \d+\)$/);
      expect((error as Error).message).toContain('timed out after 300 ms');
      expect((error as Error).message).toContain('no response callback was recorded');
      const message = await bot.waitForMessage(() => true, { timeoutMs: 200, what: 'a greeting' }).catch((e: unknown) => e);
      expect((message as Error).message).toMatch(/waiting for a greeting\n {2}the app posted no message there/);
    } finally {
      release();
      await bot.close();
    }
  });
});
