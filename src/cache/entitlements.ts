import type { EntitlementView } from './types.js';

/**
 * Whether an entitlement grants its SKU at `at` (ms since the epoch).
 *
 * Protocol §S3: a subscription entitlement is ongoing while `ends_at` is null and ended once it is set and
 * passed; a cancellation changes nothing here (the entitlement stays ongoing until the service sets
 * `ends_at`). So: not deleted, started (`starts_at` null or <= at), not ended (`ends_at` null or > at).
 *
 * Consumed entitlements are NOT active: consuming is how an app records that it has delivered a
 * one-time consumable purchase, after which that entitlement must not grant the item again. They stay
 * listed by entitlementsOf().
 */
export function isEntitlementActive(e: EntitlementView, at: number): boolean {
  if (e.deleted || e.consumed) return false;
  if (e.startsAt !== null && e.startsAt > at) return false;
  return e.endsAt === null || e.endsAt > at;
}

export function toMillis(at: Date | number | undefined): number {
  if (at === undefined) return Date.now();
  return typeof at === 'number' ? at : at.getTime();
}
