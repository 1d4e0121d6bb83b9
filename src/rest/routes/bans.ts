import type {
  RESTGetAPIGuildBanResult,
  RESTGetAPIGuildBansQuery,
  RESTGetAPIGuildBansResult,
  RESTPostAPIGuildBulkBanJSONBody,
  RESTPostAPIGuildBulkBanResult,
  RESTPutAPIGuildBanJSONBody,
} from 'discord-api-types/v10';
import { RequestRefusedError } from '../errors.js';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonOptions } from './options.js';

/** Bans (BAN_MEMBERS). */

const BAN = '/guilds/{guild_id}/bans/{user_id}';
const BULK_BAN = '/guilds/{guild_id}/bulk-ban';

/** Users per bulk ban. */
export const MAX_BULK_BAN = 200;
/** The longest span of messages a ban can delete: 7 days, in seconds. */
export const MAX_BAN_DELETE_SECONDS = 604_800;

/** Bans in user-id order; page with before/after (limit 1-1000). */
export async function listBans(
  rest: RestRequester,
  guildId: string,
  query: RESTGetAPIGuildBansQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildBansResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/bans',
    params: { guild_id: guildId },
    query: pickQuery(query, ['limit', 'before', 'after']),
  });
}

export function getBan(
  rest: RestRequester,
  guildId: string,
  userId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildBanResult> {
  return rest.request({ ...options, method: 'GET', route: BAN, params: { guild_id: guildId, user_id: userId } });
}

/** Ban a user (a member or not); `delete_message_seconds` (0-604800) also deletes their recent messages. */
export async function banMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  ban: RESTPutAPIGuildBanJSONBody = {},
  options: ReasonOptions = {},
): Promise<void> {
  const seconds = ban.delete_message_seconds;
  if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_BAN_DELETE_SECONDS)) {
    throw new RequestRefusedError(
      'PUT',
      BAN,
      'invalid-input',
      `delete_message_seconds must be an integer 0-${MAX_BAN_DELETE_SECONDS}; got ${seconds}`,
    );
  }
  await rest.request({
    ...options,
    method: 'PUT',
    route: BAN,
    params: { guild_id: guildId, user_id: userId },
    body: ban,
  });
}

export async function unbanMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'DELETE', route: BAN, params: { guild_id: guildId, user_id: userId } });
}

/**
 * Ban up to 200 users at once (BAN_MEMBERS and MANAGE_GUILD). Resolves with who was banned and who was not;
 * the service answers 500000 when none could be.
 */
export function bulkBan(
  rest: RestRequester,
  guildId: string,
  ban: RESTPostAPIGuildBulkBanJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIGuildBulkBanResult> {
  const count = ban.user_ids.length;
  if (count === 0 || count > MAX_BULK_BAN) {
    return Promise.reject(
      new RequestRefusedError('POST', BULK_BAN, 'invalid-input', `${count} users; a bulk ban takes 1-${MAX_BULK_BAN}`),
    );
  }
  // Banning the banned again bans nobody new: safe to retry.
  return rest.request({
    ...options,
    method: 'POST',
    route: BULK_BAN,
    params: { guild_id: guildId },
    body: ban,
    idempotent: true,
  });
}
