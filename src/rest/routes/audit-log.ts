import type { RESTGetAPIAuditLogQuery, RESTGetAPIAuditLogResult } from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery } from './options.js';

/** Filters of the audit log; `target_id` is in the published description, not yet in discord-api-types. */
export interface AuditLogQuery extends RESTGetAPIAuditLogQuery {
  /** Entries about this target (user, role, channel, ...). */
  target_id?: string;
}

/** Audit log entries, newest first (VIEW_AUDIT_LOG); page with before/after (limit 1-100, default 50). */
export async function getAuditLog(
  rest: RestRequester,
  guildId: string,
  query: AuditLogQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIAuditLogResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/audit-logs',
    params: { guild_id: guildId },
    query: pickQuery(query, ['user_id', 'target_id', 'action_type', 'before', 'after', 'limit']),
  });
}
