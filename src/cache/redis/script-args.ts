/**
 * The flags and modes the cache's Lua scripts (scripts.ts) read by position, named where the arguments are
 * built: a call site says `MemberMode.partial`, not `'p'`. Each script's header lists its ARGV.
 */

/** A yes/no argument: the scripts test `== '1'`. */
export function flag(on: boolean): '1' | '0' {
  return on ? '1' : '0';
}

/** The mode of one MEMBERS record. */
export const MemberMode = Object.freeze({
  /** The whole member: fields absent from the payload are deleted. */
  whole: 'f',
  /** A partial member (GUILD_MEMBER_UPDATE): fields absent from the payload stay. */
  partial: 'p',
  remove: 'r',
} as const);

/**
 * A partial member written by a process that applied the complete member list whose sync has `token`: a
 * member the open sync has not seen was left out of the list, so what is stored for it is dropped first.
 */
export function partialAfterListMode(token: string): string {
  return `P${token}`;
}

/** The mode of GUILD_PUT. */
export const GuildMode = Object.freeze({
  /** Listed unavailable (READY, an outage). */
  unavailable: 'u',
  /** GUILD_CREATE: its member_count may be a baseline. */
  create: 'c',
  /** GUILD_UPDATE. */
  update: 'p',
} as const);

/** What CHANNEL_PUT / CHANNELS_REPLACE store: also the suffix of the guild's hash of that kind. */
export const ChannelKind = Object.freeze({ channel: 'c', thread: 'th' } as const);
export type ChannelKind = (typeof ChannelKind)[keyof typeof ChannelKind];

/** GUILD_PUT's sentinels for "nothing": no member_count, no member-sync token. */
export const NO_MEMBER_COUNT = '';
export const NO_SYNC_TOKEN = '';
