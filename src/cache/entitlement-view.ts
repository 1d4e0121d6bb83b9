import type { APIEntitlement } from 'discord-api-types/v10';
import type { EntitlementView } from './types.js';
import { isSnowflake, nanToNull, timestampOrNaN } from './wire.js';

/** The compact, frozen record of an entitlement payload (also what readers get back). */
export function entitlementView(e: APIEntitlement): EntitlementView {
  return Object.freeze({
    id: e.id,
    skuId: e.sku_id,
    applicationId: isSnowflake(e.application_id) ? e.application_id : null,
    userId: isSnowflake(e.user_id) ? e.user_id : null,
    guildId: isSnowflake(e.guild_id) ? e.guild_id : null,
    type: typeof e.type === 'number' ? e.type : 0,
    startsAt: nanToNull(timestampOrNaN(e.starts_at)),
    endsAt: nanToNull(timestampOrNaN(e.ends_at)),
    deleted: e.deleted === true,
    consumed: e.consumed === true,
  });
}
