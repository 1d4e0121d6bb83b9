import type {
  RESTGetAPISKUsResult,
  RESTGetAPISKUSubscriptionResult,
  RESTGetAPISKUSubscriptionsQuery,
  RESTGetAPISKUSubscriptionsResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';

export function listSkus(rest: RestRequester, applicationId: string, options: CallOptions = {}): Promise<RESTGetAPISKUsResult> {
  return rest.request({ ...options, method: 'GET', route: '/applications/{application_id}/skus', params: { application_id: applicationId } });
}

/** Subscriptions of a SKU; `user_id` is required unless the token is a user's OAuth token. */
export function listSkuSubscriptions(
  rest: RestRequester,
  skuId: string,
  query: RESTGetAPISKUSubscriptionsQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPISKUSubscriptionsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/skus/{sku_id}/subscriptions',
    params: { sku_id: skuId },
    query: { before: query.before, after: query.after, limit: query.limit, user_id: query.user_id },
  });
}

export function getSkuSubscription(
  rest: RestRequester,
  skuId: string,
  subscriptionId: string,
  options: CallOptions & { userId?: string } = {},
): Promise<RESTGetAPISKUSubscriptionResult> {
  const { userId, ...call } = options;
  return rest.request({
    ...call,
    method: 'GET',
    route: '/skus/{sku_id}/subscriptions/{subscription_id}',
    params: { sku_id: skuId, subscription_id: subscriptionId },
    query: { user_id: userId },
  });
}
