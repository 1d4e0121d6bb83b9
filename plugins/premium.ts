/**
 * Example: a command gated by an entitlement. The SKU comes from `plugins.config.premium.skuId`, or else the
 * application's first subscription SKU. Entitlement events keep the cache current, and the check asks it.
 */
import { SKUType } from 'discord-api-types/v10';
import { definePlugin, type PluginContext } from 'gatehouse';
import { listSkus } from 'gatehouse/rest';

let skuId: string | undefined;

async function findSku(ctx: PluginContext): Promise<string | undefined> {
  if (typeof ctx.config.skuId === 'string') return ctx.config.skuId;
  const skus = await listSkus(ctx.rest, ctx.applicationId);
  // A subscription SKU when there is one; else any SKU.
  return (skus.find((s) => s.type === SKUType.Subscription) ?? skus[0])?.id;
}

export default definePlugin({
  name: 'premium',
  async setup(ctx) {
    skuId = await findSku(ctx);
    if (skuId === undefined) ctx.log.warn('the application has no SKU; /perks will tell everyone so');
  },
  commands: [
    {
      name: 'perks',
      description: 'Premium perks for supporters',
      async run(ctx) {
        if (skuId === undefined) {
          await ctx.reply({ content: 'This bot sells nothing yet.', ephemeral: true });
          return;
        }
        const entitled =
          (await ctx.cache.hasEntitlement({ userId: ctx.user.id, skuId })) ||
          (ctx.guildId !== undefined && (await ctx.cache.hasEntitlement({ guildId: ctx.guildId, skuId })));
        await ctx.reply(
          entitled
            ? { content: `Thank you for supporting us, ${ctx.user.username}! Your perks are active.` }
            : { content: 'This command is for supporters: subscribe to unlock it.', ephemeral: true },
        );
      },
    },
  ],
  on: {
    entitlementCreate(entitlement, ctx) {
      ctx.log.info({ entitlementId: entitlement.id, skuId: entitlement.sku_id }, 'entitlement granted');
    },
    entitlementUpdate(entitlement, ctx) {
      ctx.log.info({ entitlementId: entitlement.id, endsAt: entitlement.ends_at }, 'entitlement ended');
    },
  },
});
