import type {
  RESTGetAPIEntitlementResult,
  RESTGetAPIEntitlementsQuery,
  RESTGetAPIEntitlementsResult,
  RESTPostAPIEntitlementJSONBody,
  RESTPostAPIEntitlementResult,
} from 'discord-api-types/v10';
import { bearerAuth, type CallOptions, type RestRequester } from '../types.js';

const LIST = '/applications/{application_id}/entitlements';
const ONE = '/applications/{application_id}/entitlements/{entitlement_id}';

export interface ListEntitlementsQuery extends Omit<RESTGetAPIEntitlementsQuery, 'sku_ids'> {
  /** Sent comma-delimited, as this endpoint requires (protocol §2.3). */
  sku_ids?: readonly string[] | string;
}

/** Active and expired entitlements of the app; paginate with before/after (limit 1-100). */
export function listEntitlements(
  rest: RestRequester,
  applicationId: string,
  query: ListEntitlementsQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIEntitlementsResult> {
  const { sku_ids, ...rest_ } = query;
  return rest.request({
    ...options,
    method: 'GET',
    route: LIST,
    params: { application_id: applicationId },
    query: {
      user_id: rest_.user_id,
      guild_id: rest_.guild_id,
      before: rest_.before,
      after: rest_.after,
      limit: rest_.limit,
      exclude_ended: rest_.exclude_ended,
      exclude_deleted: rest_.exclude_deleted,
      sku_ids: Array.isArray(sku_ids) ? sku_ids.join(',') : (sku_ids as string | undefined),
    },
  });
}

export function getEntitlement(
  rest: RestRequester,
  applicationId: string,
  entitlementId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIEntitlementResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: ONE,
    params: { application_id: applicationId, entitlement_id: entitlementId },
  });
}

/** Mark a consumable one-time purchase as consumed (204). Non-consumables answer code 40018. */
export async function consumeEntitlement(
  rest: RestRequester,
  applicationId: string,
  entitlementId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'POST',
    route: '/applications/{application_id}/entitlements/{entitlement_id}/consume',
    params: { application_id: applicationId, entitlement_id: entitlementId },
  });
}

/** A test entitlement: owner_type 1 = guild, 2 = user. */
export function createTestEntitlement(
  rest: RestRequester,
  applicationId: string,
  entitlement: RESTPostAPIEntitlementJSONBody,
  options: CallOptions = {},
): Promise<RESTPostAPIEntitlementResult> {
  return rest.request({ ...options, method: 'POST', route: LIST, params: { application_id: applicationId }, body: entitlement });
}

/** Delete a test entitlement (204). Others answer code 40019. */
export async function deleteTestEntitlement(
  rest: RestRequester,
  applicationId: string,
  entitlementId: string,
  options: CallOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: ONE,
    params: { application_id: applicationId, entitlement_id: entitlementId },
  });
}

/** Entitlements of the user behind an OAuth2 token (scope applications.entitlements). */
export function listCurrentUserEntitlements(
  rest: RestRequester,
  applicationId: string,
  bearerToken: string,
  query: { sku_ids?: readonly string[]; exclude_consumed?: boolean } = {},
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTGetAPIEntitlementsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/users/@me/applications/{application_id}/entitlements',
    params: { application_id: applicationId },
    query: { sku_ids: query.sku_ids?.join(','), exclude_consumed: query.exclude_consumed },
    auth: bearerAuth(bearerToken),
  });
}
