/**
 * Guild scheduled events (discord-api-docs "Guild Scheduled Event" resource): list (`with_user_count`), create,
 * get, modify (status transitions included), delete, and the users subscribed to one (`limit` 1-100, `before` /
 * `after` by user id, ascending, `with_member`). Permissions follow "Guild Scheduled Event Permissions
 * Requirements": CREATE_EVENTS to create (in the event's channel for stage and voice events, with MANAGE_CHANNELS,
 * MUTE_MEMBERS and MOVE_MEMBERS for stage, VIEW_CHANNEL and CONNECT for voice); to modify or delete, CREATE_EVENTS
 * or MANAGE_EVENTS for the bot's own events, MANAGE_EVENTS for others'; stage and voice events in channels the
 * bot cannot see are not listed (50001 when asked for). At most 100 scheduled or active events (30038).
 * Dispatches GUILD_SCHEDULED_EVENT_CREATE / _UPDATE / _DELETE with the event (GUILD_SCHEDULED_EVENTS intent).
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import type { ScheduledEventRecord } from '../../state/assets-model.js';
import { scheduledEventObject } from '../../state/assets-serialize.js';
import type { GuildRecord } from '../../state/model.js';
import { eventsOf } from '../../state/scheduled-events.js';
import { P } from '../../state/permissions.js';
import { memberObject, userObject } from '../../state/serialize.js';
import type { SandboxStore } from '../../state/store.js';
import { compareSnowflakes, queryParams, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { CREATE_EVENTS, MANAGE_EVENTS } from './asset-access.js';
import { queryBool } from './commands.js';
import { checkEventShape, checkTransition, readEventFields } from './event-fields.js';
import { guildOf, objectBody, type Json } from './guild-access.js';

const MAX_OPEN_EVENTS = 100;
/** What the bot needs in the event's channel besides the event bits, by entity type (external: nothing). */
const CHANNEL_NEEDS = new Map([
  [1, P.MANAGE_CHANNELS | P.MUTE_MEMBERS | P.MOVE_MEMBERS],
  [2, P.VIEW_CHANNEL | P.CONNECT],
]);

const unknownEvent = (): SandboxApiError => new SandboxApiError(404, 10070, 'Unknown Guild Scheduled Event');

/** The bot's permissions where the event happens: its channel's for stage and voice, the guild's for external. */
function permsAt(store: SandboxStore, guild: GuildRecord, ev: Pick<ScheduledEventRecord, 'entityType' | 'channelId'>): bigint {
  const channel = ev.channelId === null ? undefined : guild.channels.find((c) => c.id === ev.channelId);
  return channel === undefined ? store.permissionsOf(guild, store.applicationId) : store.channelPermissionsOf(guild, channel, store.applicationId);
}

/** `eventBits`: any one of them is enough (own events take CREATE_EVENTS or MANAGE_EVENTS). */
function requireEventPerms(store: SandboxStore, guild: GuildRecord, ev: ScheduledEventRecord, eventBits: bigint): void {
  const perms = permsAt(store, guild, ev);
  const channelNeed = CHANNEL_NEEDS.get(ev.entityType) ?? 0n;
  if ((perms & eventBits) === 0n || (perms & channelNeed) !== channelNeed) throw Errors.missingPermissions();
}

function visible(store: SandboxStore, guild: GuildRecord, ev: ScheduledEventRecord): boolean {
  return ev.entityType === 3 || (permsAt(store, guild, ev) & P.VIEW_CHANNEL) !== 0n;
}

function emitEvent(store: SandboxStore, guild: GuildRecord, t: string, ev: ScheduledEventRecord): void {
  guild.payloadCache.clear();
  const creator = store.user(ev.creatorId);
  store.emit(guild.id, t, JSON.stringify(scheduledEventObject(ev, creator === undefined ? undefined : userObject(creator))));
}

export function scheduledEventRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const shown = (ev: ScheduledEventRecord, ctx: RestContext): Json => {
    const creator = store.user(ev.creatorId);
    return scheduledEventObject(ev, creator === undefined ? undefined : userObject(creator), queryBool(ctx.query.get('with_user_count')) ? ev.users.size : undefined);
  };
  const eventOf = (ctx: RestContext): { guild: GuildRecord; ev: ScheduledEventRecord } => {
    const guild = guildOf(store, ctx, { eventId: 'guild_scheduled_event_id' });
    const ev = eventsOf(guild).get(ctx.params.eventId!);
    if (!ev) throw unknownEvent();
    if (!visible(store, guild, ev)) throw Errors.missingAccess();
    return { guild, ev };
  };

  const create = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    const { form, fields } = readEventFields(ctx, objectBody(ctx), true);
    form.throwIfAny();
    const ev: ScheduledEventRecord = {
      id: store.ids.next(), guildId: guild.id, entityType: fields.entityType!, channelId: fields.channelId ?? null, creatorId: store.applicationId,
      name: fields.name!, description: fields.description ?? null, start: fields.start!, end: fields.end ?? null, status: 1,
      privacyLevel: fields.privacyLevel!, location: fields.entityType === 3 ? (fields.location ?? null) : null, users: new Set(),
    };
    checkEventShape(form, guild, ev, fields);
    requireEventPerms(store, guild, ev, CREATE_EVENTS);
    const open = [...eventsOf(guild).values()].filter((e) => e.status <= 2).length;
    if (open >= MAX_OPEN_EVENTS) throw new SandboxApiError(400, 30038, `Maximum number of uncompleted guild scheduled events reached (${MAX_OPEN_EVENTS})`);
    eventsOf(guild).set(ev.id, ev);
    emitEvent(store, guild, 'GUILD_SCHEDULED_EVENT_CREATE', ev);
    return shown(ev, ctx);
  };

  const modify = (ctx: RestContext): Json => {
    const { guild, ev } = eventOf(ctx);
    const own = ev.creatorId === store.applicationId ? CREATE_EVENTS | MANAGE_EVENTS : MANAGE_EVENTS;
    requireEventPerms(store, guild, ev, own);
    const { form, fields } = readEventFields(ctx, objectBody(ctx), false);
    form.throwIfAny();
    checkTransition(ev, fields.status);
    const next: ScheduledEventRecord = { ...ev, ...fields };
    // Metadata is discarded for events that are not external (discord-api-docs "Modify Guild Scheduled Event").
    if (next.entityType !== 3) next.location = null;
    checkEventShape(form, guild, next, fields);
    requireEventPerms(store, guild, next, own);
    Object.assign(ev, next);
    emitEvent(store, guild, 'GUILD_SCHEDULED_EVENT_UPDATE', ev);
    return shown(ev, ctx);
  };

  const remove = (ctx: RestContext): void => {
    const { guild, ev } = eventOf(ctx);
    requireEventPerms(store, guild, ev, ev.creatorId === store.applicationId ? CREATE_EVENTS | MANAGE_EVENTS : MANAGE_EVENTS);
    eventsOf(guild).delete(ev.id);
    emitEvent(store, guild, 'GUILD_SCHEDULED_EVENT_DELETE', ev);
  };

  /** Subscribers in ascending user id; `before` wins over `after` and takes the ones just below it. */
  const users = (ctx: RestContext, ev: ScheduledEventRecord, guild: GuildRecord, exceptionId: string | null): Json[] => {
    const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 100 } }, ['before', 'after']);
    const limit = q.ints.get('limit')!;
    const before = q.snowflakes.get('before');
    const after = q.snowflakes.get('after');
    // Users of one occurrence (an exception of a recurring event): the sandbox has no recurring events, so none.
    let ids = exceptionId !== null ? [] : [...ev.users].sort(compareSnowflakes);
    if (before !== undefined) ids = ids.filter((id) => compareSnowflakes(id, before) < 0).slice(-limit);
    else ids = ids.filter((id) => after === undefined || compareSnowflakes(id, after) > 0).slice(0, limit);
    const withMember = queryBool(ctx.query.get('with_member'));
    return ids.map((id) => {
      const user = store.user(id)!;
      const o: Json = { guild_scheduled_event_id: ev.id, user_id: id, user: userObject(user), response: 1 };
      const member = withMember ? store.member(guild.id, id) : undefined;
      if (member !== undefined) o.member = memberObject(member, user);
      return o;
    });
  };

  const g = { major: 'guildId', auth: 'bot' } as const;
  const base = '/guilds/:guildId/scheduled-events';
  return [
    { ...g, method: 'GET', path: base, bucket: 'events.read', handler: (ctx) => {
      const guild = guildOf(store, ctx);
      return { status: 200, body: [...eventsOf(guild).values()].filter((ev) => visible(store, guild, ev)).map((ev) => shown(ev, ctx)) };
    } },
    { ...g, method: 'POST', path: base, bucket: 'events.edit', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    { ...g, method: 'GET', path: `${base}/:eventId`, bucket: 'events.read', handler: (ctx) => ({ status: 200, body: shown(eventOf(ctx).ev, ctx) }) },
    { ...g, method: 'PATCH', path: `${base}/:eventId`, bucket: 'events.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...g, method: 'DELETE', path: `${base}/:eventId`, bucket: 'events.edit', handler: (ctx) => (remove(ctx), { status: 204 }) },
    { ...g, method: 'GET', path: `${base}/:eventId/users`, bucket: 'events.read', handler: (ctx) => {
      const { guild, ev } = eventOf(ctx);
      return { status: 200, body: users(ctx, ev, guild, null) };
    } },
    { ...g, method: 'GET', path: `${base}/:eventId/:exceptionId/users`, bucket: 'events.read', handler: (ctx) => {
      const { guild, ev } = eventOf(ctx);
      snowflakeParams(ctx, { exceptionId: 'guild_scheduled_event_exception_id' });
      return { status: 200, body: users(ctx, ev, guild, ctx.params.exceptionId!) };
    } },
  ];
}
