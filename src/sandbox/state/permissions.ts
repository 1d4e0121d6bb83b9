/** Permission bits the sandbox reasons about (protocol §12.5) and the effective-permission rule it applies. */

export const P = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  BAN_MEMBERS: 1n << 2n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_AUDIT_LOG: 1n << 7n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  SEND_TTS_MESSAGES: 1n << 12n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  USE_EXTERNAL_EMOJIS: 1n << 18n,
  CONNECT: 1n << 20n,
  SPEAK: 1n << 21n,
  MUTE_MEMBERS: 1n << 22n,
  DEAFEN_MEMBERS: 1n << 23n,
  MOVE_MEMBERS: 1n << 24n,
  CHANGE_NICKNAME: 1n << 26n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
  MANAGE_WEBHOOKS: 1n << 29n,
  USE_APPLICATION_COMMANDS: 1n << 31n,
  MANAGE_THREADS: 1n << 34n,
  CREATE_PUBLIC_THREADS: 1n << 35n,
  CREATE_PRIVATE_THREADS: 1n << 36n,
  SEND_MESSAGES_IN_THREADS: 1n << 38n,
  USE_EMBEDDED_ACTIVITIES: 1n << 39n,
  MODERATE_MEMBERS: 1n << 40n,
  SEND_POLLS: 1n << 49n,
  USE_EXTERNAL_APPS: 1n << 50n,
  PIN_MESSAGES: 1n << 51n,
  BYPASS_SLOWMODE: 1n << 52n,
} as const;

/**
 * Every defined bit up to BYPASS_SLOWMODE (1 << 52); ADMINISTRATOR resolves to this. Bit 47 is not defined
 * (protocol §12.5 goes from SEND_VOICE_MESSAGES 1 << 46 to SET_VOICE_CHANNEL_STATUS 1 << 48).
 */
export const ALL_PERMISSIONS = ((1n << 53n) - 1n) & ~(1n << 47n);

/** What @everyone gets in a fresh guild (a usual default set). */
export const EVERYONE_DEFAULT =
  P.CREATE_INSTANT_INVITE |
  P.ADD_REACTIONS |
  P.VIEW_CHANNEL |
  P.SEND_MESSAGES |
  P.EMBED_LINKS |
  P.ATTACH_FILES |
  P.READ_MESSAGE_HISTORY |
  P.MENTION_EVERYONE |
  P.USE_EXTERNAL_EMOJIS |
  P.CONNECT |
  P.SPEAK |
  P.CHANGE_NICKNAME |
  P.USE_APPLICATION_COMMANDS |
  P.SEND_MESSAGES_IN_THREADS |
  P.USE_EMBEDDED_ACTIVITIES |
  P.USE_EXTERNAL_APPS;

export const MODERATOR_PERMISSIONS =
  P.KICK_MEMBERS | P.BAN_MEMBERS | P.MANAGE_GUILD | P.MANAGE_ROLES | P.MANAGE_NICKNAMES | P.MODERATE_MEMBERS | P.VIEW_AUDIT_LOG;

/** The bot's managed role: what a typical invite link asks for. */
export const BOT_ROLE_PERMISSIONS =
  P.VIEW_CHANNEL | P.SEND_MESSAGES | P.EMBED_LINKS | P.ATTACH_FILES | P.READ_MESSAGE_HISTORY | P.ADD_REACTIONS | P.USE_EXTERNAL_EMOJIS;

/** app_permissions in the bot's DM (protocol §14.1: DMs include ATTACH_FILES|EMBED_LINKS|MENTION_EVERYONE|USE_EXTERNAL_EMOJIS). */
export const BOT_DM_APP_PERMISSIONS =
  P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ADD_REACTIONS | P.READ_MESSAGE_HISTORY | P.ATTACH_FILES | P.EMBED_LINKS | P.MENTION_EVERYONE | P.USE_EXTERNAL_EMOJIS;

/**
 * Guild-level permissions of a member: @everyone | their roles, everything for ADMINISTRATOR or the owner.
 * Seeded channels carry no overwrites, so this is also the channel-level value.
 */
export function basePermissions(
  everyone: bigint,
  memberRolePermissions: Iterable<bigint>,
  isOwner: boolean,
): bigint {
  if (isOwner) return ALL_PERMISSIONS;
  let perms = everyone;
  for (const p of memberRolePermissions) perms |= p;
  return (perms & P.ADMINISTRATOR) !== 0n ? ALL_PERMISSIONS : perms;
}

/** One permission overwrite of a channel: type 0 role (the guild id is @everyone), 1 member. */
export interface OverwriteRecord {
  id: string;
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

/** What a member is, for the channel-level computation. */
export interface MemberSubject {
  guildId: string;
  userId: string;
  roleIds: readonly string[];
  /** Guild-level permissions (basePermissions). */
  base: bigint;
  /** communication_disabled_until still in the future. */
  timedOut: boolean;
}

/** Sending-related bits that go when SEND_MESSAGES is denied (discord-api-docs "Permissions", implicit permissions). */
const SEND_DEPENDENT = P.MENTION_EVERYONE | P.SEND_TTS_MESSAGES | P.ATTACH_FILES | P.EMBED_LINKS;

/**
 * Channel-level permissions in the service's order (discord-api-docs "Permissions": @everyone overwrite, then
 * the member's roles' overwrites together, then the member's own), with the implicit denials: no VIEW_CHANNEL
 * takes everything, no SEND_MESSAGES takes the bits that only sending uses. A timed-out member keeps only
 * VIEW_CHANNEL and READ_MESSAGE_HISTORY; ADMINISTRATOR (or the owner, whose base is everything) skips it all.
 */
export function channelPermissions(subject: MemberSubject, overwrites: readonly OverwriteRecord[]): bigint {
  if ((subject.base & P.ADMINISTRATOR) !== 0n) return ALL_PERMISSIONS;
  let perms = subject.base;
  const everyone = overwrites.find((o) => o.type === 0 && o.id === subject.guildId);
  if (everyone) perms = (perms & ~everyone.deny) | everyone.allow;
  let allow = 0n;
  let deny = 0n;
  for (const o of overwrites) {
    if (o.type === 0 && o.id !== subject.guildId && subject.roleIds.includes(o.id)) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  perms = (perms & ~deny) | allow;
  const own = overwrites.find((o) => o.type === 1 && o.id === subject.userId);
  if (own) perms = (perms & ~own.deny) | own.allow;
  if (subject.timedOut) perms &= P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY;
  if ((perms & P.VIEW_CHANNEL) === 0n) return 0n;
  if ((perms & P.SEND_MESSAGES) === 0n) perms &= ~SEND_DEPENDENT;
  return perms;
}
