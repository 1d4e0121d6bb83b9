/**
 * Bodies of the channel writes (discord-api-docs "Create Guild Channel", "Modify Channel", "Edit Channel
 * Permissions"), checked field by field into a ChannelPatch; problems are one 50035 with every field's error.
 */
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import type { ChannelPatch } from '../../state/channels.js';
import type { OverwriteRecord } from '../../state/permissions.js';
import { FormErrors, type Json } from './guild-access.js';

/** Auto-archive durations a thread may have, in minutes. */
export const ARCHIVE_DURATIONS: ReadonlySet<number> = new Set([60, 1440, 4320, 10080]);
const MAX_RATE_LIMIT = 21_600;

/** One overwrite of a body: `{id, type 0|1, allow?, deny?}` (bit sets as strings of digits). */
export function overwriteOf(form: FormErrors, entry: unknown, at: Array<string | number>): OverwriteRecord | undefined {
  const e = (typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? entry : null) as Json | null;
  if (e === null) {
    form.add(at, 'MODEL_TYPE_CONVERT', 'Expected an object/dictionary.');
    return undefined;
  }
  if (typeof e.id !== 'string' || !/^\d{1,20}$/.test(e.id)) form.add([...at, 'id'], 'NUMBER_TYPE_COERCE', `Value "${String(e.id)}" is not snowflake.`);
  if (e.type !== 0 && e.type !== 1 && e.type !== '0' && e.type !== '1') form.add([...at, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {0, 1}.');
  const bits = (field: 'allow' | 'deny'): bigint => {
    const v = e[field];
    if (v === undefined || v === null) return 0n;
    if ((typeof v === 'string' && /^\d{1,20}$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return BigInt(v);
    form.add([...at, field], 'NUMBER_TYPE_COERCE', `Value "${String(v)}" is not int.`);
    return 0n;
  };
  const allow = bits('allow');
  const deny = bits('deny');
  if (typeof e.id !== 'string' || (e.type !== 0 && e.type !== 1 && e.type !== '0' && e.type !== '1')) return undefined;
  return { id: e.id, type: Number(e.type) as 0 | 1, allow, deny };
}

/** `parent_id`: null or a category of the guild. */
function parentOf(form: FormErrors, guild: GuildRecord, value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const parent = typeof value === 'string' ? guild.channels.find((c) => c.id === value) : undefined;
  if (parent === undefined || parent.type !== 4) {
    // The service's wording for a parent that is not a category of the guild is not known.
    form.add(['parent_id'], 'CHANNEL_PARENT_INVALID', 'The parent must be a category of this guild.');
    return undefined;
  }
  return parent.id;
}

/** Checked fields of a create or modify body; `channel` is the channel modified (undefined on create). */
export function channelPatchOf(body: Json, guild: GuildRecord, channel: ChannelRecord | undefined): ChannelPatch {
  const form = new FormErrors();
  const patch: ChannelPatch = {};
  const name = form.string(body, 'name', 1, 100);
  if (typeof name === 'string') patch.name = name;
  else if (channel === undefined && name === undefined && body.name === undefined) form.add(['name'], 'BASE_TYPE_REQUIRED', 'This field is required');
  const thread = channel?.thread !== undefined;
  if (!thread) {
    const topic = form.string(body, 'topic', 0, 1024);
    if (topic !== undefined) patch.topic = topic;
    const position = form.int(body, 'position', 0, 2 ** 31 - 1);
    if (position !== undefined) patch.position = position;
    const parentId = parentOf(form, guild, body.parent_id);
    if (parentId !== undefined) patch.parentId = parentId;
    const nsfw = form.bool(body, 'nsfw');
    if (nsfw !== undefined) patch.nsfw = nsfw;
    const bitrate = form.int(body, 'bitrate', 8000, 384_000);
    if (bitrate !== undefined) patch.bitrate = bitrate;
    const userLimit = form.int(body, 'user_limit', 0, 99);
    if (userLimit !== undefined) patch.userLimit = userLimit;
    if (body.permission_overwrites !== undefined && body.permission_overwrites !== null) {
      if (!Array.isArray(body.permission_overwrites)) form.add(['permission_overwrites'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
      else patch.overwrites = body.permission_overwrites.map((e: unknown, i) => overwriteOf(form, e, ['permission_overwrites', i])).filter((o): o is OverwriteRecord => o !== undefined);
    }
  } else {
    const archived = form.bool(body, 'archived');
    if (archived !== undefined) patch.archived = archived;
    const locked = form.bool(body, 'locked');
    if (locked !== undefined) patch.locked = locked;
    const invitable = form.bool(body, 'invitable');
    if (invitable !== undefined) patch.invitable = invitable;
    const duration = archiveDuration(form, body);
    if (duration !== undefined) patch.autoArchiveDuration = duration;
  }
  const rate = form.int(body, 'rate_limit_per_user', 0, MAX_RATE_LIMIT);
  if (rate !== undefined) patch.rateLimitPerUser = rate;
  form.throwIfAny();
  return patch;
}

/** `auto_archive_duration`: one of 60, 1440, 4320, 10080. */
export function archiveDuration(form: FormErrors, body: Json): number | undefined {
  const v = body.auto_archive_duration;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !ARCHIVE_DURATIONS.has(v)) {
    form.add(['auto_archive_duration'], 'BASE_TYPE_CHOICES', 'Value must be one of {60, 1440, 4320, 10080}.');
    return undefined;
  }
  return v;
}
