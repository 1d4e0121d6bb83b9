/**
 * Issue 31 acceptance: the entitlement gate. An unsubscribed user gets a premium button (component button style 6
 * with the SKU, not the deprecated callback type 10); after the entitlement is granted the same command runs; once
 * it ends it is refused again. Whose entitlement counts follows the SKU (the sandbox's subscription SKU is a user
 * subscription), or the rule's `owner`.
 */
import { describe, expect, it } from 'vitest';
import { defineCommand, definePlugin, type PreconditionDenial } from '../../../src/index.js';
import { useTestBot } from '../../helpers/test-bot.js';

/** The one button of the one row, without the numeric `id` the service gives each component. */
function premiumButton(rows: unknown): Record<string, unknown> {
  const list = rows as Array<{ type: number; components: Array<Record<string, unknown>> }>;
  expect(list).toHaveLength(1);
  expect(list[0]!.type).toBe(1);
  expect(list[0]!.components).toHaveLength(1);
  const { id: _id, ...button } = list[0]!.components[0]!;
  return button;
}

describe('entitlement preconditions', () => {
  const ran: string[] = [];
  const denials: PreconditionDenial[] = [];
  // The SKU ids are the sandbox's: filled in once it runs (the rules are read at every check).
  const premium = { sku: '' };
  const serverPack = { sku: '', owner: 'guild' as const };
  const plugin = definePlugin({
    name: 'shop',
    preconditionTexts: { fr: { entitlement: 'Réservé aux abonnés.' } },
    on: { preconditionDenied: (d) => void denials.push(d) },
    commands: [
      defineCommand({
        name: 'perks',
        description: 'subscribers only',
        preconditions: { entitlement: premium },
        async run(ctx) {
          ran.push(`perks ${ctx.user.username}`);
          await ctx.reply('your perks');
        },
      }),
      defineCommand({
        name: 'server-perks',
        description: 'servers that bought the pack',
        preconditions: { entitlement: serverPack },
        async run(ctx) {
          ran.push('server-perks');
          await ctx.reply('server perks');
        },
      }),
    ],
  });
  const bot = useTestBot({ plugins: [plugin] }, (started) => {
    premium.sku = started.skuIds[1]!;
    serverPack.sku = started.skuIds[0]!;
  });

  it('unsubscribed: a premium button; granted: runs; ended: refused again', async () => {
    const eve = await bot().join({ username: 'eve' });
    const refused = await bot().invoke('perks', { user: eve });
    expect(refused.type).toBe(4);
    expect(refused.ephemeral).toBe(true);
    expect(refused.content).toBe('This needs a premium subscription.');
    expect(premiumButton(refused.components)).toEqual({ type: 2, style: 6, sku_id: premium.sku });
    expect((await bot().invoke('perks', { user: eve, locale: 'fr' })).content).toBe('Réservé aux abonnés.');
    expect(ran).toEqual([]);
    expect(denials.at(-1)).toMatchObject({ precondition: 'entitlement', skuId: premium.sku, userId: eve.id, target: '/perks' });

    const granted = await bot().grantEntitlement({ user: eve, sku: premium.sku, subscription: true });
    expect((await bot().invoke('perks', { user: eve })).content).toBe('your perks');
    expect(ran).toEqual(['perks eve']);
    // Eve's subscription is hers alone.
    const fay = await bot().join({ username: 'fay' });
    expect((await bot().invoke('perks', { user: fay })).content).toBe('This needs a premium subscription.');

    await granted.end();
    const again = await bot().invoke('perks', { user: eve });
    expect(again.content).toBe('This needs a premium subscription.');
    expect(premiumButton(again.components)).toEqual({ type: 2, style: 6, sku_id: premium.sku });
    expect(ran).toEqual(['perks eve']);
  });

  it("a guild-owned rule counts the guild's entitlement, for every member", async () => {
    const gus = await bot().join({ username: 'gus' });
    expect((await bot().invoke('server-perks', { user: gus })).content).toBe('This needs a premium subscription.');
    expect((await bot().invoke('server-perks', { user: gus, guild: null })).content).toBe('This needs a premium subscription.');
    await bot().grantEntitlement({ guild: bot().guild, sku: serverPack.sku });
    expect((await bot().invoke('server-perks', { user: gus })).content).toBe('server perks');
    expect((await bot().invoke('server-perks')).content).toBe('server perks');
  });
});
