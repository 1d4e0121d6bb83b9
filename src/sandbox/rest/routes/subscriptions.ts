/**
 * SKU subscriptions (discord-api-docs "Subscription" resource), read from the store's subscription
 * entitlements: every entitlement with a `subscription_id` and a user is one subscription of its SKU, with that
 * entitlement as its only one. Status: ACTIVE (0) while the entitlement has no end, ENDING (1) while an end is
 * set ahead, INACTIVE (2) once it has ended or was deleted (protocol §S3: ends_at is set when a subscription
 * ends). Periods are monthly from the entitlement's start (the sandbox's SKUs renew monthly). The sandbox records
 * no cancellation time, so `canceled_at` is null. Guild-owned subscription entitlements name no purchaser and
 * are left out (`user_id` is required in a subscription).
 *
 * GET /skus/{id}/subscriptions needs `user_id` with a bot token (a bearer token reads its own user's);
 * `before` / `after` / `limit` (1-100, default 50) page by subscription id.
 */
import type { SandboxCore } from '../../core.js';
import { Errors, formError } from '../../errors.js';
import type { EntitlementRecord } from '../../state/model.js';
import { compareSnowflakes, queryParams, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import type { Json } from './guild-access.js';

/** The monthly period of a subscription that contains `at` (or the last one, for an ended subscription). */
function periodOf(startsAt: string, at: number): { start: string; end: string } {
  const start = new Date(startsAt);
  let from = new Date(start);
  let months = 0;
  // Bounded: at most one step per month since the start.
  for (;;) {
    const next = new Date(start);
    next.setUTCMonth(start.getUTCMonth() + months + 1);
    if (next.getTime() > at || months > 12 * 100) return { start: from.toISOString(), end: next.toISOString() };
    from = next;
    months++;
  }
}

function subscriptionObject(e: EntitlementRecord, now: number): Json {
  const ended = e.deleted || (e.endsAt !== null && Date.parse(e.endsAt) <= now);
  const status = ended ? 2 : e.endsAt !== null ? 1 : 0;
  const period = periodOf(e.startsAt ?? new Date(now).toISOString(), ended && e.endsAt !== null ? Date.parse(e.endsAt) - 1 : now);
  return {
    id: e.subscriptionId,
    user_id: e.userId,
    sku_ids: [e.skuId],
    entitlement_ids: [e.id],
    renewal_sku_ids: null,
    current_period_start: period.start,
    current_period_end: period.end,
    status,
    canceled_at: null,
  };
}

export function subscriptionRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const ofSku = (ctx: RestContext): EntitlementRecord[] => {
    const sku = store.sku(ctx.params.skuId!);
    if (sku === undefined) throw Errors.unknownSku();
    const out: EntitlementRecord[] = [];
    for (const e of store.entitlements.values()) if (e.skuId === sku.id && e.subscriptionId !== null && e.userId !== null) out.push(e);
    return out.sort((a, b) => compareSnowflakes(a.subscriptionId!, b.subscriptionId!));
  };

  /** The user whose subscriptions are read: the bearer's own, or `user_id` (required with a bot token). */
  const userOf = (ctx: RestContext, userId: string | undefined): string => {
    if (ctx.auth.kind === 'bearer') return ctx.auth.token.userId;
    if (userId === undefined) throw formError(['user_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
    return userId;
  };

  const list = (ctx: RestContext): Json[] => {
    snowflakeParams(ctx, { skuId: 'sku_id' });
    const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 50 } }, ['before', 'after', 'user_id']);
    const userId = userOf(ctx, q.snowflakes.get('user_id'));
    const before = q.snowflakes.get('before');
    const after = q.snowflakes.get('after');
    const limit = q.ints.get('limit')!;
    const mine = ofSku(ctx).filter((e) => e.userId === userId && (before === undefined || compareSnowflakes(e.subscriptionId!, before) < 0) && (after === undefined || compareSnowflakes(e.subscriptionId!, after) > 0));
    const page = before !== undefined && after === undefined ? mine.slice(-limit) : mine.slice(0, limit);
    const now = Date.now();
    return page.map((e) => subscriptionObject(e, now));
  };

  const one = (ctx: RestContext): Json => {
    snowflakeParams(ctx, { skuId: 'sku_id', subscriptionId: 'subscription_id' });
    const found = ofSku(ctx).find((e) => e.subscriptionId === ctx.params.subscriptionId);
    // A bearer token reads only its own user's; the service's code for an unknown subscription is not
    // documented, so the plain 404 of the service.
    if (found === undefined || (ctx.auth.kind === 'bearer' && found.userId !== ctx.auth.token.userId)) throw Errors.notFound();
    return subscriptionObject(found, Date.now());
  };

  return [
    { method: 'GET', path: '/skus/:skuId/subscriptions', bucket: 'skus', auth: 'bot-or-bearer', handler: (ctx) => ({ status: 200, body: list(ctx) }) },
    { method: 'GET', path: '/skus/:skuId/subscriptions/:subscriptionId', bucket: 'skus', auth: 'bot-or-bearer', handler: (ctx) => ({ status: 200, body: one(ctx) }) },
  ];
}
