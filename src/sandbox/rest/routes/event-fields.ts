/**
 * The body of a scheduled event create or modify (discord-api-docs "Guild Scheduled Event": JSON params, field
 * requirements by entity type, status transitions), checked into the fields it sets. Entity types: 1 stage
 * instance and 2 voice need a `channel_id` (a stage channel, type 13, or a voice channel, type 2, of the guild)
 * and carry no metadata; 3 external needs `entity_metadata.location` (1-100) and `scheduled_end_time`, and no
 * channel. Cover images and recurrence rules are not modelled (the unmodelled marker answers them).
 */
import { SandboxApiError, Errors, unmodelled } from '../../errors.js';
import type { ScheduledEventRecord } from '../../state/assets-model.js';
import type { GuildRecord } from '../../state/model.js';
import type { RestContext } from '../types.js';
import { isSnowflake } from '../params.js';
import { FormErrors, type Json } from './guild-access.js';

export type EventFields = Partial<Pick<ScheduledEventRecord, 'name' | 'description' | 'start' | 'end' | 'entityType' | 'channelId' | 'location' | 'status' | 'privacyLevel'>>;

const REQUIRED = 'This field is required';
const CHANNEL_TYPE = new Map([
  [1, 13],
  [2, 2],
]);

/** An ISO 8601 time at `field` (null passes through when `nullable`). */
function timeField(form: FormErrors, body: Json, field: string, nullable: boolean): string | null | undefined {
  const v = body[field];
  if (v === undefined || (v === null && nullable)) return v as null | undefined;
  const at = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(at)) {
    form.add([field], 'DATE_TYPE_CONVERT', 'Could not parse the value as a date.');
    return undefined;
  }
  return new Date(at).toISOString().replace('Z', '+00:00');
}

function choice(form: FormErrors, body: Json, field: string, allowed: readonly number[]): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !allowed.includes(v)) {
    form.add([field], 'BASE_TYPE_CHOICES', `Value must be one of {${allowed.join(', ')}}.`);
    return undefined;
  }
  return v;
}

/** The plain fields: name, description, times, privacy, entity type, status, channel id, location. */
export function readEventFields(ctx: RestContext, body: Json, create: boolean): { form: FormErrors; fields: EventFields } {
  if (body.image !== undefined && body.image !== null) throw unmodelled(ctx.method, ctx.path, 'scheduled event cover images');
  if (body.recurrence_rule !== undefined && body.recurrence_rule !== null) throw unmodelled(ctx.method, ctx.path, 'recurring scheduled events');
  const form = new FormErrors();
  const fields: EventFields = {};
  if (create) for (const f of ['name', 'privacy_level', 'scheduled_start_time', 'entity_type']) if (body[f] === undefined || body[f] === null) form.add([f], 'BASE_TYPE_REQUIRED', REQUIRED);
  const name = form.string(body, 'name', 1, 100);
  if (typeof name === 'string') fields.name = name;
  if (body.description === null) fields.description = null;
  else if (body.description !== undefined) {
    const d = form.string(body, 'description', 1, 1000);
    if (typeof d === 'string') fields.description = d;
  }
  const start = timeField(form, body, 'scheduled_start_time', false);
  if (typeof start === 'string') fields.start = start;
  const end = timeField(form, body, 'scheduled_end_time', true);
  if (end !== undefined) fields.end = end;
  const privacy = choice(form, body, 'privacy_level', [2]);
  if (privacy !== undefined) fields.privacyLevel = privacy;
  const type = choice(form, body, 'entity_type', [1, 2, 3]);
  if (type !== undefined) fields.entityType = type;
  const status = create ? undefined : choice(form, body, 'status', [1, 2, 3, 4]);
  if (status !== undefined) fields.status = status;
  readPlace(form, body, fields);
  return { form, fields };
}

/** `channel_id` and `entity_metadata.location`, as given (their requirements are checked against the result). */
function readPlace(form: FormErrors, body: Json, fields: EventFields): void {
  const ch = body.channel_id;
  if (ch === null) fields.channelId = null;
  else if (ch !== undefined) {
    if (typeof ch === 'string' && isSnowflake(ch)) fields.channelId = ch;
    else form.add(['channel_id'], 'NUMBER_TYPE_COERCE', `Value "${String(ch)}" is not snowflake.`);
  }
  const meta = body.entity_metadata;
  if (meta === null) fields.location = null;
  else if (typeof meta === 'object' && meta !== undefined && !Array.isArray(meta)) {
    const loc = (meta as Json).location;
    if (typeof loc === 'string' && [...loc].length >= 1 && [...loc].length <= 100) fields.location = loc;
    else if (loc !== undefined && loc !== null) form.add(['entity_metadata', 'location'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
}

/**
 * The requirements of the event as it would be after the change (`ev`): the channel of a stage or voice event
 * (10003 when not the guild's, 50024 when of the wrong type), the location and end of an external one, the end
 * after the start, and a start in the future when it changes.
 */
export function checkEventShape(form: FormErrors, guild: GuildRecord, ev: ScheduledEventRecord, fields: EventFields): void {
  const external = ev.entityType === 3;
  if (external) {
    if (ev.channelId !== null) form.add(['channel_id'], 'GUILD_SCHEDULED_EVENT_EXTERNAL_CHANNEL', 'External events cannot have a channel.');
    if (ev.location === null || ev.location === '') form.add(['entity_metadata', 'location'], 'BASE_TYPE_REQUIRED', REQUIRED);
    if (ev.end === null) form.add(['scheduled_end_time'], 'BASE_TYPE_REQUIRED', REQUIRED);
  } else if (ev.channelId === null) form.add(['channel_id'], 'BASE_TYPE_REQUIRED', REQUIRED);
  if (fields.start !== undefined && Date.parse(fields.start) <= Date.now()) form.add(['scheduled_start_time'], 'GUILD_SCHEDULED_EVENT_SCHEDULE_PAST', 'Cannot schedule event in the past.');
  if (ev.end !== null && Date.parse(ev.end) <= Date.parse(ev.start)) form.add(['scheduled_end_time'], 'GUILD_SCHEDULED_EVENT_END_BEFORE_START', 'Cannot schedule event to end before starting.');
  form.throwIfAny();
  if (!external) {
    const channel = guild.channels.find((c) => c.id === ev.channelId);
    if (!channel) throw Errors.unknownChannel();
    if (channel.type !== CHANNEL_TYPE.get(ev.entityType)) throw Errors.wrongChannelType();
  }
}

/** Status changes the service allows: scheduled to active or canceled, active to completed; finished ones none. */
export function checkTransition(ev: ScheduledEventRecord, next: number | undefined): void {
  if (ev.status === 3 || ev.status === 4) throw new SandboxApiError(400, 180000, 'Cannot update a finished event');
  if (next === undefined || next === ev.status) return;
  const ok = (ev.status === 1 && (next === 2 || next === 4)) || (ev.status === 2 && next === 3);
  if (!ok) {
    const form = new FormErrors();
    form.add(['status'], 'GUILD_SCHEDULED_EVENT_INVALID_STATUS_TRANSITION', 'Invalid status transition.');
    form.throwIfAny();
  }
}
