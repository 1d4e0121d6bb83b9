/**
 * A guild's scheduled events (kept on its record, made on first use) and who is interested in each. Members mark
 * themselves interested in the client; the sandbox does it through `state.setEventInterest`, with the dispatch
 * the service sends (discord-api-docs "Gateway Events": GUILD_SCHEDULED_EVENT_USER_ADD / _REMOVE,
 * `{guild_scheduled_event_id, user_id, guild_id}`).
 */
import { SandboxError } from '../errors.js';
import type { ScheduledEventRecord } from './assets-model.js';
import type { GuildRecord } from './model.js';
import type { SandboxStore } from './store.js';

export function eventsOf(guild: GuildRecord): Map<string, ScheduledEventRecord> {
  return (guild.scheduledEvents ??= new Map());
}

export function setEventInterest(store: SandboxStore, guildId: string, eventId: string, userId: string, interested: boolean): void {
  const guild = store.requireGuild(guildId);
  const ev = eventsOf(guild).get(eventId);
  if (ev === undefined) throw new SandboxError('INVALID', `no scheduled event ${eventId} in guild ${guildId}`);
  if (!store.isMember(guild, userId)) throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} is not a member of guild ${guildId}`);
  if (interested === ev.users.has(userId)) return;
  if (interested) ev.users.add(userId);
  else ev.users.delete(userId);
  const d = JSON.stringify({ guild_scheduled_event_id: ev.id, user_id: userId, guild_id: guild.id });
  store.emit(guild.id, interested ? 'GUILD_SCHEDULED_EVENT_USER_ADD' : 'GUILD_SCHEDULED_EVENT_USER_REMOVE', d, userId);
}
