import type {
  RESTGetAPIGuildMemberResult,
  RESTGetAPIGuildMembersQuery,
  RESTGetAPIGuildMembersResult,
  RESTGetAPIGuildMembersSearchQuery,
  RESTGetAPIGuildMembersSearchResult,
  RESTPatchAPICurrentGuildMemberJSONBody,
  RESTPatchAPICurrentGuildMemberResult,
  RESTPatchAPIGuildMemberJSONBody,
  RESTPatchAPIGuildMemberResult,
  RESTPutAPIGuildMemberJSONBody,
  RESTPutAPIGuildMemberResult,
} from 'discord-api-types/v10';
import { registerSecret } from '../../util/redact.js';
import { RequestRefusedError } from '../errors.js';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonOptions } from './options.js';

/** Guild members: list, search, read, add (OAuth2), edit (nick, roles, voice, timeout), kick, roles. */

const MEMBERS = '/guilds/{guild_id}/members';
const MEMBER = '/guilds/{guild_id}/members/{user_id}';
const MEMBER_ROLE = '/guilds/{guild_id}/members/{user_id}/roles/{role_id}';

/** The longest timeout the service accepts: 28 days. */
export const MAX_TIMEOUT_MS = 28 * 24 * 60 * 60 * 1000;

/** Members in user-id order; page with `after` (limit 1-1000). Needs the GUILD_MEMBERS intent enabled. */
export async function listMembers(
  rest: RestRequester,
  guildId: string,
  query: RESTGetAPIGuildMembersQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildMembersResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: MEMBERS,
    params: { guild_id: guildId },
    query: pickQuery(query, ['limit', 'after']),
  });
}

/** Members whose username or nickname starts with `query` (limit 1-1000, default 1). */
export async function searchMembers(
  rest: RestRequester,
  guildId: string,
  query: RESTGetAPIGuildMembersSearchQuery,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildMembersSearchResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/members/search',
    params: { guild_id: guildId },
    query: pickQuery(query, ['query', 'limit']),
  });
}

export function getMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildMemberResult> {
  return rest.request({ ...options, method: 'GET', route: MEMBER, params: { guild_id: guildId, user_id: userId } });
}

/**
 * Add a user to the guild with their OAuth2 access token (scope `guilds.join`; the bot must be in the
 * guild with CREATE_INSTANT_INVITE). Resolves with the member (201), or undefined when the user was already
 * a member (204). The access token is registered with the log redactor before it is sent.
 */
export function addMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  member: RESTPutAPIGuildMemberJSONBody,
  options: CallOptions = {},
): Promise<RESTPutAPIGuildMemberResult> {
  registerSecret(member.access_token, { transient: true });
  return rest.request({
    ...options,
    method: 'PUT',
    route: MEMBER,
    params: { guild_id: guildId, user_id: userId },
    body: member,
  });
}

/**
 * Edit a member: nick, roles (the whole list), mute/deaf, move (`channel_id`, null disconnects), timeout
 * (`communication_disabled_until`), flags. The service may answer 204 instead of the member.
 */
export function editMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  patch: RESTPatchAPIGuildMemberJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildMemberResult | undefined> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: MEMBER,
    params: { guild_id: guildId, user_id: userId },
    body: patch,
  });
}

/**
 * Time a member out until a moment (at most 28 days ahead; MODERATE_MEMBERS), or end a timeout with null.
 * `until` is a Date, an ISO8601 timestamp, or a duration in milliseconds from now.
 */
export function timeoutMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  until: Date | string | number | null,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildMemberResult | undefined> {
  const refuse = (why: string): Promise<never> =>
    Promise.reject(new RequestRefusedError('PATCH', MEMBER, 'invalid-input', why));
  let timestamp: string | null = null;
  if (typeof until === 'number') {
    if (!(until > 0 && until <= MAX_TIMEOUT_MS)) return refuse(`a timeout lasts 1 ms to 28 days; got ${until} ms`);
    timestamp = new Date(Date.now() + until).toISOString();
  } else if (until !== null) {
    const at = new Date(until);
    if (Number.isNaN(at.getTime())) return refuse(`timeout end ${JSON.stringify(String(until))} is not a date`);
    timestamp = at.toISOString();
  }
  return editMember(rest, guildId, userId, { communication_disabled_until: timestamp }, options);
}

/** Edit the bot's own member: nick, and the avatar, banner and bio it shows in this guild. */
export function editCurrentMember(
  rest: RestRequester,
  guildId: string,
  patch: RESTPatchAPICurrentGuildMemberJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPICurrentGuildMemberResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: '/guilds/{guild_id}/members/@me',
    params: { guild_id: guildId },
    body: patch,
  });
}

/** Remove a member from the guild (KICK_MEMBERS); they can join again. */
export async function kickMember(
  rest: RestRequester,
  guildId: string,
  userId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'DELETE', route: MEMBER, params: { guild_id: guildId, user_id: userId } });
}

/** Give a member a role (MANAGE_ROLES; the role must be below the bot's highest). */
export async function addMemberRole(
  rest: RestRequester,
  guildId: string,
  userId: string,
  roleId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'PUT',
    route: MEMBER_ROLE,
    params: { guild_id: guildId, user_id: userId, role_id: roleId },
  });
}

export async function removeMemberRole(
  rest: RestRequester,
  guildId: string,
  userId: string,
  roleId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: MEMBER_ROLE,
    params: { guild_id: guildId, user_id: userId, role_id: roleId },
  });
}
