/**
 * Channel and guild permissions of a member, as the service computes them (protocol §12.6, docs/cache.md
 * "Permissions and command access"): BigInt bit sets, so every bit up to 63 is exact (PIN_MESSAGES 1 << 51
 * and BYPASS_SLOWMODE 1 << 52 are past what a JavaScript number holds exactly).
 *
 * 1. The guild owner has every permission. Otherwise the base is the @everyone role's permissions OR those of the
 *    member's roles; ADMINISTRATOR in it gives every permission and no overwrite applies.
 * 2. In a channel, overwrites apply in this order: the @everyone overwrite (deny, then allow), the member's role
 *    overwrites together (all their denies, then all their allows), the member's own overwrite (deny, then allow).
 *    A thread has no overwrites of its own: its parent channel's apply.
 * 3. Implicit denials: without VIEW_CHANNEL a member has no permission in the channel at all; without the bit
 *    that lets them send there (SEND_MESSAGES; in a thread SEND_MESSAGES_IN_THREADS, which is what sending in a
 *    thread takes) MENTION_EVERYONE, SEND_TTS_MESSAGES, ATTACH_FILES and EMBED_LINKS are denied too.
 * 4. A timed-out member (communication_disabled_until in the future) keeps only VIEW_CHANNEL and
 *    READ_MESSAGE_HISTORY; the owner and administrators are exempt.
 */
import { PermissionFlagsBits } from 'discord-api-types/v10';

export { PermissionFlagsBits };

/** Every permission the wire types define (what the owner and administrators have). */
export const ALL_PERMISSIONS: bigint = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/** The bits sending messages brings with it: denied implicitly when the member cannot send (see module comment). */
export const SEND_DEPENDENT_PERMISSIONS: bigint =
  PermissionFlagsBits.MentionEveryone | PermissionFlagsBits.SendTTSMessages | PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks;

/** What a timed-out member keeps. */
export const TIMED_OUT_PERMISSIONS: bigint = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;

const U64 = (1n << 64n) - 1n;

/** Overwrite target types (the channel object's permission_overwrites[].type). */
export const OVERWRITE_ROLE = 0;
export const OVERWRITE_MEMBER = 1;

export interface PermissionOverwrite {
  /** A role id (the guild id for @everyone) or a user id. */
  readonly id: string;
  /** 0 role, 1 member. */
  readonly type: number;
  readonly allow: bigint;
  readonly deny: bigint;
}

export interface PermissionSubject {
  readonly guildId: string;
  /** Null when not known: nobody counts as the owner then. */
  readonly ownerId: string | null;
  readonly userId: string;
  /** The @everyone role's permissions (the role whose id is the guild id). */
  readonly everyone: bigint;
  /** Permissions of the member's roles (without @everyone), of roles the guild has. */
  readonly rolePermissions: readonly bigint[];
  /** Role ids of the member (without @everyone), matched against role overwrites. */
  readonly roleIds: readonly string[];
  /** End of the member's timeout in ms since the epoch; null when not timed out. */
  readonly timedOutUntil: number | null;
  /** The moment to judge the timeout at, in ms (default now). */
  readonly now?: number;
}

export interface PermissionChannel {
  /** The overwrites that apply: the channel's own, or for a thread its parent's. */
  readonly overwrites: readonly PermissionOverwrite[];
  /** A thread (sending there takes SEND_MESSAGES_IN_THREADS). */
  readonly thread: boolean;
}

/** A permission bit set from its wire form (a decimal string), held to 64 bits; 0n when unreadable. */
export function parsePermissions(v: unknown): bigint {
  if (typeof v === 'bigint') return v & U64;
  if (typeof v !== 'string' || v.length === 0 || v.length > 20 || !/^\d+$/.test(v)) return 0n;
  return BigInt(v) & U64;
}

/** Permissions in a channel (see the module comment), or guild-level ones without a channel. */
export function computePermissions(subject: PermissionSubject, channel?: PermissionChannel): bigint {
  if (subject.ownerId !== null && subject.ownerId === subject.userId) return ALL_PERMISSIONS;
  let permissions = subject.everyone;
  for (const p of subject.rolePermissions) permissions |= p;
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  permissions &= U64;
  if (channel !== undefined) {
    const overwrites = channel.overwrites;
    for (const o of overwrites) {
      if (o.type === OVERWRITE_ROLE && o.id === subject.guildId) permissions = (permissions & ~o.deny) | o.allow;
    }
    let allow = 0n;
    let deny = 0n;
    for (const o of overwrites) {
      if (o.type === OVERWRITE_ROLE && o.id !== subject.guildId && subject.roleIds.includes(o.id)) {
        allow |= o.allow;
        deny |= o.deny;
      }
    }
    permissions = (permissions & ~deny) | allow;
    for (const o of overwrites) {
      if (o.type === OVERWRITE_MEMBER && o.id === subject.userId) permissions = (permissions & ~o.deny) | o.allow;
    }
    permissions &= U64;
    if ((permissions & PermissionFlagsBits.ViewChannel) === 0n) return 0n;
    const send = channel.thread ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages;
    if ((permissions & send) === 0n) permissions &= ~SEND_DEPENDENT_PERMISSIONS;
  }
  return timedOut(subject) ? permissions & TIMED_OUT_PERMISSIONS : permissions;
}

function timedOut(subject: PermissionSubject): boolean {
  const until = subject.timedOutUntil;
  return until !== null && until > (subject.now ?? Date.now());
}

/** Channel types that are threads (ANNOUNCEMENT_THREAD 10, PUBLIC_THREAD 11, PRIVATE_THREAD 12). */
export function isThreadType(type: number): boolean {
  return type === 10 || type === 11 || type === 12;
}

/** Names of the permission bits set in `bits` (PermissionFlagsBits keys; unknown bits as `1<<n`), for messages. */
export function permissionNames(bits: bigint): string[] {
  const out: string[] = [];
  for (let n = 0n; n < 64n; n++) {
    const bit = 1n << n;
    if ((bits & bit) === 0n) continue;
    out.push(NAME_OF_BIT.get(bit) ?? `1<<${n}`);
  }
  return out;
}

/** The first (current) name of each bit; the package keeps older names as aliases after it. */
const NAME_OF_BIT: ReadonlyMap<bigint, string> = (() => {
  const names = new Map<bigint, string>();
  for (const [name, bit] of Object.entries(PermissionFlagsBits)) if (!names.has(bit) || name === 'ManageGuildExpressions') names.set(bit, name);
  return names;
})();
