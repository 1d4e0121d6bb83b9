import type {
  RESTGetAPIGuildScheduledEventQuery,
  RESTGetAPIGuildScheduledEventResult,
  RESTGetAPIGuildScheduledEventsQuery,
  RESTGetAPIGuildScheduledEventsResult,
  RESTGetAPIGuildScheduledEventUsersQuery,
  RESTGetAPIGuildScheduledEventUsersResult,
  RESTPatchAPIGuildScheduledEventJSONBody,
  RESTPatchAPIGuildScheduledEventResult,
  RESTPostAPIGuildScheduledEventJSONBody,
  RESTPostAPIGuildScheduledEventResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import { pickQuery, type ReasonOptions } from './options.js';

/** Guild scheduled events (CREATE_EVENTS / MANAGE_EVENTS) and who is interested in them. */

const EVENTS = '/guilds/{guild_id}/scheduled-events';
const EVENT = '/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}';

export async function listScheduledEvents(
  rest: RestRequester,
  guildId: string,
  query: RESTGetAPIGuildScheduledEventsQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildScheduledEventsResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: EVENTS,
    params: { guild_id: guildId },
    query: pickQuery(query, ['with_user_count']),
  });
}

export function createScheduledEvent(
  rest: RestRequester,
  guildId: string,
  event: RESTPostAPIGuildScheduledEventJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIGuildScheduledEventResult> {
  return rest.request({ ...options, method: 'POST', route: EVENTS, params: { guild_id: guildId }, body: event });
}

export async function getScheduledEvent(
  rest: RestRequester,
  guildId: string,
  eventId: string,
  query: RESTGetAPIGuildScheduledEventQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildScheduledEventResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: EVENT,
    params: { guild_id: guildId, guild_scheduled_event_id: eventId },
    query: pickQuery(query, ['with_user_count']),
  });
}

/** Edit an event; `status` starts (2), completes (3) or cancels (4) it. */
export function editScheduledEvent(
  rest: RestRequester,
  guildId: string,
  eventId: string,
  patch: RESTPatchAPIGuildScheduledEventJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildScheduledEventResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: EVENT,
    params: { guild_id: guildId, guild_scheduled_event_id: eventId },
    body: patch,
  });
}

export async function deleteScheduledEvent(
  rest: RestRequester,
  guildId: string,
  eventId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: EVENT,
    params: { guild_id: guildId, guild_scheduled_event_id: eventId },
  });
}

const USER_KEYS = ['limit', 'with_member', 'before', 'after'] as const;

/** Users subscribed to an event; page with before/after (limit 1-100). */
export async function listScheduledEventUsers(
  rest: RestRequester,
  guildId: string,
  eventId: string,
  query: RESTGetAPIGuildScheduledEventUsersQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildScheduledEventUsersResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}/users',
    params: { guild_id: guildId, guild_scheduled_event_id: eventId },
    query: pickQuery(query, USER_KEYS),
  });
}

/** Users subscribed to one occurrence (an exception id) of a recurring event. */
export async function listScheduledEventExceptionUsers(
  rest: RestRequester,
  guildId: string,
  eventId: string,
  exceptionId: string,
  query: RESTGetAPIGuildScheduledEventUsersQuery = {},
  options: CallOptions = {},
): Promise<RESTGetAPIGuildScheduledEventUsersResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}/{guild_scheduled_event_exception_id}/users',
    params: { guild_id: guildId, guild_scheduled_event_id: eventId, guild_scheduled_event_exception_id: exceptionId },
    query: pickQuery(query, USER_KEYS),
  });
}
