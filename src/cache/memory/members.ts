/**
 * Every cached member of every guild in one column table indexed by slot: a few dozen bytes a member
 * instead of an object graph. The key is (guild slot, user slot); each guild threads its members on a
 * doubly linked list through `next`/`prev`, so a guild's members can be walked and removed without a
 * per-guild container.
 *
 * Roles are a bit set of the guild's role numbers (GuildRecord.roleSlot) when every number is below 31,
 * the common case; otherwise the set is kept on the side as a string of char codes.
 * Nicknames live in a string arena. Guild avatar, banner and timeout are rare and kept on the side.
 */
import type { MemberPayload } from '../reducer.js';
import { FreeList, grown, nextCapacity } from './columns.js';
import type { GuildRecord } from './guilds.js';
import { PairIndex } from './pair-index.js';
import { StringArena } from './string-arena.js';
import { isSnowflake, timestampOrNaN } from '../wire.js';

const LIVE = 1;
const PENDING = 2;
/** The member has an entry in the avatars / banners / overflowRoles side map. */
const SIDE_AVATAR = 4;
const SIDE_BANNER = 8;
const SIDE_ROLES = 16;
/** The nickname is in the arena at nickAt/nickLength... */
const HAS_NICK = 32;
/** ...or, over 127 code units, in `longNicks`. */
const LONG_NICK = 64;
const SIDE_TIMEOUT = 128;
const OVERFLOW = -1;
const BITSET_SLOTS = 31;
/** Flags column: the service's member flags fit 16 bits; anything else (hostile or future) is kept on the side. */
const FLAGS_SIDE = 0xffff;
/**
 * Join time as whole seconds since 1970 (Uint32, to 2106) and the milliseconds (Uint16): 6 bytes instead
 * of a Float64's 8, exact to the millisecond the cache keeps. The ms column's sentinels mark no time, or a
 * time outside that range (kept on the side).
 */
const JOINED_NONE = 0xffff;
const JOINED_SIDE = 0xfffe;

export class MemberTable {
  /** Guild slot and user slot of each member; read by the index. */
  keyA = new Int32Array(0);
  keyB = new Int32Array(0);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  private roleBits = new Int32Array(0);
  private flags = new Uint16Array(0);
  private state = new Uint8Array(0);
  /** The guild's baseline epoch when the member was last written (GuildRecord.epoch, mod 256). */
  private epoch = new Uint8Array(0);
  private joinedSec = new Uint32Array(0);
  private joinedMs = new Uint16Array(0);
  private nickAt = new Uint32Array(0);
  private nickLength = new Uint8Array(0);
  private readonly arena = new StringArena((move) => {
    for (let slot = 0; slot < this.end; slot++) {
      if ((this.state[slot]! & (LIVE | HAS_NICK)) === (LIVE | HAS_NICK)) {
        this.nickAt[slot] = move(this.nickAt[slot]!, StringArena.bytesOf(this.nickLength[slot]!));
      }
    }
  });
  private readonly longNicks = new Map<number, string>();
  private readonly wideFlags = new Map<number, number>();
  private readonly oddJoined = new Map<number, number>();
  private readonly timeouts = new Map<number, number>();
  private readonly avatars = new Map<number, string>();
  private readonly banners = new Map<number, string>();
  private readonly overflowRoles = new Map<number, string>();
  private readonly free = new FreeList();
  private index = new PairIndex(this);
  private capacity = 0;
  private end = 0;
  private live = 0;

  get size(): number {
    return this.live;
  }

  find(guildSlot: number, userSlot: number): number {
    return this.index.find(guildSlot, userSlot);
  }

  userOf(slot: number): number {
    return this.keyB[slot]!;
  }

  nextOf(slot: number): number {
    return this.next[slot]!;
  }

  /** A new member of `guild` with every field empty, linked at the head of the guild's list. */
  insert(guild: GuildRecord, userSlot: number): number {
    const slot = this.allocate();
    this.keyA[slot] = guild.slot;
    this.keyB[slot] = userSlot;
    this.roleBits[slot] = 0;
    this.flags[slot] = 0;
    this.state[slot] = LIVE;
    this.joinedMs[slot] = JOINED_NONE;
    this.prev[slot] = -1;
    this.next[slot] = guild.memberHead;
    if (guild.memberHead >= 0) this.prev[guild.memberHead] = slot;
    guild.memberHead = slot;
    guild.cachedMembers++;
    guild.sorted = null;
    this.index.insert(guild.slot, userSlot, slot);
    this.live++;
    return slot;
  }

  /** Unlink and free a member; returns its user slot (for the caller to release). */
  remove(guild: GuildRecord, slot: number): number {
    const userSlot = this.keyB[slot]!;
    this.index.remove(guild.slot, userSlot, slot);
    const next = this.next[slot]!;
    const prev = this.prev[slot]!;
    if (prev >= 0) this.next[prev] = next;
    else guild.memberHead = next;
    if (next >= 0) this.prev[next] = prev;
    guild.cachedMembers--;
    guild.sorted = null;
    this.setNick(slot, null);
    const state = this.state[slot]!;
    if ((state & SIDE_AVATAR) !== 0) this.avatars.delete(slot);
    if ((state & SIDE_BANNER) !== 0) this.banners.delete(slot);
    if ((state & SIDE_ROLES) !== 0) this.overflowRoles.delete(slot);
    if ((state & SIDE_TIMEOUT) !== 0) this.timeouts.delete(slot);
    if (this.flags[slot] === FLAGS_SIDE) this.wideFlags.delete(slot);
    if (this.joinedMs[slot] === JOINED_SIDE) this.oddJoined.delete(slot);
    this.state[slot] = 0;
    this.keyA[slot] = -1;
    this.keyB[slot] = -1;
    this.free.push(slot);
    this.live--;
    return userSlot;
  }

  /** Copy a member payload's fields; with `partial`, fields absent from it are left as they are. */
  write(slot: number, guild: GuildRecord, m: MemberPayload, partial: boolean): void {
    this.epoch[slot] = guild.epoch;
    if (!partial || m.nick !== undefined) this.setNick(slot, typeof m.nick === 'string' ? m.nick : null);
    if (!partial || m.roles !== undefined) this.writeRoles(slot, guild, m.roles);
    if (!partial || m.joined_at !== undefined) this.setJoined(slot, timestampOrNaN(m.joined_at));
    if (!partial || m.communication_disabled_until !== undefined) {
      this.setTimeout(slot, timestampOrNaN(m.communication_disabled_until));
    }
    if (!partial || m.flags !== undefined) this.setFlags(slot, typeof m.flags === 'number' ? m.flags | 0 : 0);
    if (!partial || m.pending !== undefined) {
      this.state[slot] = m.pending === true ? this.state[slot]! | PENDING : this.state[slot]! & ~PENDING;
    }
    if (!partial || m.avatar !== undefined) this.setSide(this.avatars, SIDE_AVATAR, slot, m.avatar);
    if (!partial || m.banner !== undefined) this.setSide(this.banners, SIDE_BANNER, slot, m.banner);
  }

  private setNick(slot: number, nick: string | null): void {
    const state = this.state[slot]!;
    const size = nick === null ? 0 : StringArena.sizeOf(nick);
    if ((state & HAS_NICK) !== 0) {
      const old = StringArena.bytesOf(this.nickLength[slot]!);
      if (nick !== null && size >= 0 && size <= old) {
        // In place; the rest of the old space is waste.
        if (size < old) this.arena.release(old - size);
        this.nickLength[slot] = this.arena.write(this.nickAt[slot]!, nick, size);
        return;
      }
      this.arena.release(old);
    } else if ((state & LONG_NICK) !== 0) {
      this.longNicks.delete(slot);
    }
    let next = state & ~(HAS_NICK | LONG_NICK);
    if (nick !== null) {
      if (size >= 0) {
        // Clear HAS_NICK first: a compaction inside reserve() must not move the space released above.
        this.state[slot] = next;
        const at = this.arena.reserve(size);
        this.nickAt[slot] = at;
        this.nickLength[slot] = this.arena.write(at, nick, size);
        next |= HAS_NICK;
      } else {
        this.longNicks.set(slot, nick);
        next |= LONG_NICK;
      }
    }
    this.state[slot] = next;
  }

  private setFlags(slot: number, flags: number): void {
    if (this.flags[slot] === FLAGS_SIDE) this.wideFlags.delete(slot);
    if (flags >= 0 && flags < FLAGS_SIDE) {
      this.flags[slot] = flags;
    } else {
      this.flags[slot] = FLAGS_SIDE;
      this.wideFlags.set(slot, flags);
    }
  }

  private setJoined(slot: number, ms: number): void {
    if (this.joinedMs[slot] === JOINED_SIDE) this.oddJoined.delete(slot);
    if (ms !== ms) {
      this.joinedMs[slot] = JOINED_NONE;
      return;
    }
    const sec = Math.floor(ms / 1000);
    if (sec >= 0 && sec <= 0xffffffff) {
      this.joinedSec[slot] = sec;
      this.joinedMs[slot] = ms - sec * 1000;
    } else {
      this.joinedMs[slot] = JOINED_SIDE;
      this.oddJoined.set(slot, ms);
    }
  }

  private setTimeout(slot: number, until: number): void {
    const state = this.state[slot]!;
    if (until === until) {
      this.timeouts.set(slot, until);
      this.state[slot] = state | SIDE_TIMEOUT;
    } else if ((state & SIDE_TIMEOUT) !== 0) {
      this.timeouts.delete(slot);
      this.state[slot] = state & ~SIDE_TIMEOUT;
    }
  }

  private setSide(side: Map<number, string>, bit: number, slot: number, value: unknown): void {
    const state = this.state[slot]!;
    if (typeof value === 'string') {
      side.set(slot, value);
      this.state[slot] = state | bit;
    } else if ((state & bit) !== 0) {
      side.delete(slot);
      this.state[slot] = state & ~bit;
    }
  }

  private writeRoles(slot: number, guild: GuildRecord, roles: unknown): void {
    let bits = 0;
    let overflow: number[] | null = null;
    if (Array.isArray(roles)) {
      for (let i = 0; i < roles.length; i++) {
        const id: unknown = roles[i];
        if (typeof id !== 'string') continue;
        let n = guild.knownRoleSlot(id);
        if (n < 0) {
          // @everyone is implied, never numbered; anything else new gets a number once it checks out.
          if (id === guild.id || !isSnowflake(id)) continue;
          n = guild.roleSlot(id);
        }
        if (n < BITSET_SLOTS) bits |= 1 << n;
        else (overflow ??= []).push(n);
      }
    }
    const state = this.state[slot]!;
    if (overflow === null) {
      this.roleBits[slot] = bits;
      if ((state & SIDE_ROLES) !== 0) {
        this.overflowRoles.delete(slot);
        this.state[slot] = state & ~SIDE_ROLES;
      }
      return;
    }
    for (let n = 0; n < BITSET_SLOTS; n++) if ((bits & (1 << n)) !== 0) overflow.push(n);
    this.roleBits[slot] = OVERFLOW;
    this.overflowRoles.set(slot, String.fromCharCode(...new Set(overflow)));
    this.state[slot] = state | SIDE_ROLES;
  }

  /** Role ids of a member: those of its role numbers the guild currently has. */
  roles(slot: number, guild: GuildRecord): string[] {
    const out: string[] = [];
    const bits = this.roleBits[slot]!;
    if (bits === OVERFLOW) {
      const set = this.overflowRoles.get(slot) ?? '';
      for (let i = 0; i < set.length; i++) {
        const id = guild.currentRoleAt(set.charCodeAt(i));
        if (id !== undefined) out.push(id);
      }
      return out;
    }
    for (let n = 0; bits >>> n !== 0 && n < BITSET_SLOTS; n++) {
      if ((bits & (1 << n)) !== 0) {
        const id = guild.currentRoleAt(n);
        if (id !== undefined) out.push(id);
      }
    }
    return out;
  }

  /** Take role numbers `gone` out of every member of the guild (their roles were deleted), in one walk. */
  dropRoles(guild: GuildRecord, gone: readonly number[]): void {
    if (gone.length === 0) return;
    let mask = 0;
    let wide = '';
    for (const n of gone) {
      if (n < BITSET_SLOTS) mask |= 1 << n;
      wide += String.fromCharCode(n);
    }
    for (let slot = guild.memberHead; slot >= 0; slot = this.next[slot]!) {
      const bits = this.roleBits[slot]!;
      if (bits !== OVERFLOW) {
        this.roleBits[slot] = bits & ~mask;
        continue;
      }
      const set = this.overflowRoles.get(slot) ?? '';
      let rest = '';
      for (let i = 0; i < set.length; i++) if (!wide.includes(set[i]!)) rest += set[i]!;
      if (rest.length === set.length) continue;
      let fits = true;
      let packed = 0;
      for (let i = 0; i < rest.length; i++) {
        const c = rest.charCodeAt(i);
        if (c >= BITSET_SLOTS) fits = false;
        else packed |= 1 << c;
      }
      if (fits) {
        this.roleBits[slot] = packed;
        this.overflowRoles.delete(slot);
        this.state[slot] = this.state[slot]! & ~SIDE_ROLES;
      } else {
        this.overflowRoles.set(slot, rest);
      }
    }
  }

  nickOf(slot: number): string | null {
    const state = this.state[slot]!;
    if ((state & HAS_NICK) !== 0) return this.arena.read(this.nickAt[slot]!, this.nickLength[slot]!);
    return (state & LONG_NICK) !== 0 ? (this.longNicks.get(slot) ?? null) : null;
  }
  joinedOf(slot: number): number {
    const ms = this.joinedMs[slot]!;
    if (ms < JOINED_SIDE) return this.joinedSec[slot]! * 1000 + ms;
    return ms === JOINED_NONE ? NaN : this.oddJoined.get(slot)!;
  }
  timeoutOf(slot: number): number {
    return (this.state[slot]! & SIDE_TIMEOUT) !== 0 ? this.timeouts.get(slot)! : NaN;
  }
  flagsOf(slot: number): number {
    const flags = this.flags[slot]!;
    return flags === FLAGS_SIDE ? this.wideFlags.get(slot)! : flags;
  }
  /** Whether the member was written since the guild's last baseline (see MemoryCache.transition). */
  currentOf(slot: number, guild: GuildRecord): boolean {
    return this.epoch[slot] === guild.epoch;
  }
  pendingOf(slot: number): boolean {
    return (this.state[slot]! & PENDING) !== 0;
  }
  avatarOf(slot: number): string | null {
    return this.avatars.get(slot) ?? null;
  }
  bannerOf(slot: number): string | null {
    return this.banners.get(slot) ?? null;
  }

  private allocate(): number {
    const reused = this.free.pop();
    if (reused >= 0) return reused;
    const slot = this.end++;
    if (slot >= this.capacity) this.grow(slot + 1);
    return slot;
  }

  private grow(needed: number): void {
    const cap = nextCapacity(this.capacity, needed);
    this.keyA = grown(this.keyA, cap, -1);
    this.keyB = grown(this.keyB, cap, -1);
    this.next = grown(this.next, cap);
    this.prev = grown(this.prev, cap);
    this.roleBits = grown(this.roleBits, cap);
    this.flags = grown(this.flags, cap);
    this.state = grown(this.state, cap);
    this.epoch = grown(this.epoch, cap);
    this.joinedSec = grown(this.joinedSec, cap);
    this.joinedMs = grown(this.joinedMs, cap);
    this.nickAt = grown(this.nickAt, cap);
    this.nickLength = grown(this.nickLength, cap);
    this.capacity = cap;
  }
}

