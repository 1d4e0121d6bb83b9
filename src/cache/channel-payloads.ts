/**
 * Channel, thread and voice-state payloads as the cache reads them (protocol §11.16): shape checks that
 * name the field path of a problem, and the fields both backends keep, parsed once (ids checked, overwrite bit sets
 * as BigInt, timestamps as ms).
 *
 * A channel whose permission overwrites cannot be read is refused whole: storing it without them would compute
 * permissions that grant what an unread deny took away.
 */
import { isThreadType, OVERWRITE_MEMBER, OVERWRITE_ROLE } from '../api/permissions.js';
import { kindOf } from './shared.js';
import type { PermissionOverwriteView, ThreadMetadataView } from './types.js';
import { isSnowflake, timestampOrNaN, nanToNull } from './wire.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A channel or thread as both backends store it. */
export interface ChannelFields {
  readonly id: string;
  readonly type: number;
  readonly name: string | null;
  readonly parentId: string | null;
  readonly position: number;
  readonly nsfw: boolean;
  readonly rateLimitPerUser: number;
  readonly overwrites: readonly PermissionOverwriteView[];
  readonly thread: ThreadMetadataView | null;
}

export interface VoiceStateFields {
  readonly userId: string;
  readonly channelId: string | null;
  readonly sessionId: string;
  readonly deaf: boolean;
  readonly mute: boolean;
  readonly selfDeaf: boolean;
  readonly selfMute: boolean;
  readonly selfStream: boolean;
  readonly selfVideo: boolean;
  readonly suppress: boolean;
  readonly requestToSpeakTimestamp: number | null;
}

const BITS = /^\d{1,20}$/;
const U64 = (1n << 64n) - 1n;

function snowflakeProblem(path: string, v: unknown): string {
  return `${path}: expected a snowflake string, got ${kindOf(v)}`;
}

function bitsProblem(path: string, v: unknown): string | null {
  if (typeof v === 'string' && BITS.test(v) && BigInt(v) <= U64) return null;
  return `${path}: expected a permission bit set (a decimal string), got ${typeof v === 'string' ? 'a string that is not one' : kindOf(v)}`;
}

function overwriteProblem(o: unknown, i: number): string | null {
  const at = `permission_overwrites[${i}]`;
  if (!isObj(o)) return `${at}: expected an overwrite object, got ${kindOf(o)}`;
  if (!isSnowflake(o.id)) return snowflakeProblem(`${at}.id`, o.id);
  if (o.type !== OVERWRITE_ROLE && o.type !== OVERWRITE_MEMBER) return `${at}.type: expected 0 (role) or 1 (member), got ${typeof o.type === 'number' ? String(o.type) : kindOf(o.type)}`;
  return bitsProblem(`${at}.allow`, o.allow) ?? bitsProblem(`${at}.deny`, o.deny);
}

/**
 * Why a channel object cannot be cached, or null. Paths are relative to the channel (the caller prefixes them
 * only on failure). `guildId` is not checked here (list entries of a GUILD_CREATE carry none).
 */
export function channelProblem(c: unknown): string | null {
  if (!isObj(c)) return `: expected a channel object, got ${kindOf(c)}`;
  if (!isSnowflake(c.id)) return snowflakeProblem('id', c.id);
  if (typeof c.type !== 'number' || !Number.isInteger(c.type) || c.type < 0 || c.type > 255) return `type: expected a channel type (an integer), got ${kindOf(c.type)}`;
  if (c.parent_id !== undefined && c.parent_id !== null && !isSnowflake(c.parent_id)) return snowflakeProblem('parent_id', c.parent_id);
  if (c.name !== undefined && c.name !== null && typeof c.name !== 'string') return `name: expected a string, got ${kindOf(c.name)}`;
  const list = c.permission_overwrites;
  if (list !== undefined && list !== null) {
    if (!Array.isArray(list)) return `permission_overwrites: expected an array, got ${kindOf(list)}`;
    for (let i = 0; i < list.length; i++) {
      const problem = overwriteProblem(list[i], i);
      if (problem !== null) return problem;
    }
  }
  const meta = c.thread_metadata;
  if (meta !== undefined && meta !== null && !isObj(meta)) return `thread_metadata: expected an object, got ${kindOf(meta)}`;
  if (c.owner_id !== undefined && c.owner_id !== null && !isSnowflake(c.owner_id)) return snowflakeProblem('owner_id', c.owner_id);
  return null;
}

/** The fields kept of a channel that channelProblem found nothing wrong with. */
export function channelFields(c: Obj): ChannelFields {
  const type = c.type as number;
  const overwrites: PermissionOverwriteView[] = [];
  const list = c.permission_overwrites;
  if (Array.isArray(list)) {
    for (const o of list as Obj[]) {
      overwrites.push({ id: o.id as string, type: o.type as number, allow: BigInt(o.allow as string), deny: BigInt(o.deny as string) });
    }
  }
  let thread: ThreadMetadataView | null = null;
  if (isThreadType(type)) {
    const meta = isObj(c.thread_metadata) ? c.thread_metadata : {};
    const duration = meta.auto_archive_duration;
    thread = {
      archived: meta.archived === true,
      locked: meta.locked === true,
      ownerId: typeof c.owner_id === 'string' ? c.owner_id : null,
      archiveTimestamp: nanToNull(timestampOrNaN(meta.archive_timestamp)),
      autoArchiveDuration: typeof duration === 'number' && Number.isInteger(duration) && duration >= 0 && duration <= 0xffff ? duration : null,
    };
  }
  const position = c.position;
  const rate = c.rate_limit_per_user;
  return {
    id: c.id as string,
    type,
    name: typeof c.name === 'string' ? c.name : null,
    parentId: typeof c.parent_id === 'string' ? c.parent_id : null,
    position: typeof position === 'number' && Number.isInteger(position) && Math.abs(position) <= 0x7fffffff ? position : 0,
    nsfw: c.nsfw === true,
    rateLimitPerUser: typeof rate === 'number' && Number.isInteger(rate) && rate >= 0 && rate <= 0xffff ? rate : 0,
    overwrites,
    thread,
  };
}

/** Why a voice state cannot be cached, or null (`guild_id` is the caller's: list entries carry none). */
export function voiceStateProblem(v: unknown): string | null {
  if (!isObj(v)) return `: expected a voice state object, got ${kindOf(v)}`;
  if (!isSnowflake(v.user_id)) return snowflakeProblem('user_id', v.user_id);
  if (v.channel_id !== null && v.channel_id !== undefined && !isSnowflake(v.channel_id)) return snowflakeProblem('channel_id', v.channel_id);
  if (typeof v.session_id !== 'string') return `session_id: expected a string, got ${kindOf(v.session_id)}`;
  return null;
}

export function voiceStateFields(v: Obj): VoiceStateFields {
  return {
    userId: v.user_id as string,
    channelId: typeof v.channel_id === 'string' ? v.channel_id : null,
    sessionId: v.session_id as string,
    deaf: v.deaf === true,
    mute: v.mute === true,
    selfDeaf: v.self_deaf === true,
    selfMute: v.self_mute === true,
    selfStream: v.self_stream === true,
    selfVideo: v.self_video === true,
    suppress: v.suppress === true,
    requestToSpeakTimestamp: nanToNull(timestampOrNaN(v.request_to_speak_timestamp)),
  };
}

/** Channel views order: position, then id (numerically). */
export function compareChannels(a: { position: number; id: string }, b: { position: number; id: string }): number {
  return a.position - b.position || compareIds(a.id, b.id);
}

export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
