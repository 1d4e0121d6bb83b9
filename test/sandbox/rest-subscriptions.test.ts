/**
 * SKU subscriptions through gatehouse's REST client against the sandbox, read from its subscription
 * entitlements: the seeded subscriber's subscription, its status as the entitlement ends, `user_id` required with
 * the bot token, a bearer token reading its own user's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, RestClient, bearerAuth, getSkuSubscription, listSkuSubscriptions } from '../../src/rest/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

const sandboxes: Sandbox[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function refusal(p: Promise<unknown>): Promise<[number, number | null, string[]]> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  return [e.status, e.code, e.fieldErrors.map((f) => f.path)];
}

describe('SKU subscriptions', () => {
  it("lists and gets a user's subscription of a SKU, its status following the entitlement", async () => {
    const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 4 }, rest: { buckets: { skus: { limit: 50, windowMs: 1_000 } } } });
    sandboxes.push(sb);
    const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
    rests.push(rest);
    const sku = sb.state.skuIds[1]!;
    const subscriber = sb.state.memberIds(sb.state.guildIds[0]!).filter((id) => id !== sb.applicationId)[2]!;
    const [sub] = await listSkuSubscriptions(rest, sku, { user_id: subscriber });
    expect(sub).toMatchObject({ user_id: subscriber, sku_ids: [sku], renewal_sku_ids: null, status: 0, canceled_at: null });
    expect(Date.parse(sub!.current_period_start)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(sub!.current_period_end)).toBeGreaterThan(Date.now());
    expect(await getSkuSubscription(rest, sku, sub!.id)).toEqual(sub);
    // Ending at a date ahead: ENDING; at a date passed: INACTIVE.
    const entitlement = sub!.entitlement_ids[0]!;
    sb.state.endEntitlement(entitlement, new Date(Date.now() + 86_400_000));
    expect((await getSkuSubscription(rest, sku, sub!.id)).status).toBe(1);
    sb.state.endEntitlement(entitlement, new Date(Date.now() - 1_000));
    expect((await getSkuSubscription(rest, sku, sub!.id)).status).toBe(2);
    // A new subscription entitlement is a new subscription of that user.
    const other = sb.state.memberIds(sb.state.guildIds[0]!).filter((id) => id !== sb.applicationId)[3]!;
    sb.state.grantEntitlement({ skuId: sku, userId: other, subscription: true });
    const mine = await listSkuSubscriptions(rest, sku, {}, { auth: bearerAuth(sb.issueBearerToken(['identify'], other)) });
    expect(mine.map((s) => [s.user_id, s.status])).toEqual([[other, 0]]);
    expect(await refusal(getSkuSubscription(rest, sku, sub!.id, { auth: bearerAuth(sb.issueBearerToken(['identify'], other)) }))).toEqual([404, 0, []]);
    expect(await refusal(listSkuSubscriptions(rest, sku))).toEqual([400, 50035, ['user_id']]);
    expect(await refusal(listSkuSubscriptions(rest, '100000000000000001', { user_id: other }))).toEqual([404, 10027, []]);
    expect(await refusal(getSkuSubscription(rest, sku, '100000000000000001'))).toEqual([404, 0, []]);
  });
});
