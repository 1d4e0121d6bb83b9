/**
 * Every cached user in columns indexed by slot. A user is held by reference count: one per cached
 * membership, plus one for the bot itself; the record goes with the last reference. Identity (the
 * id split in two numbers) is always kept, the profile only when users are cached: names in a string
 * arena, the avatar hash as 16 bytes, the discriminator as a number.
 */
import type { APIUser } from 'discord-api-types/v10';
import type { UserView } from '../types.js';
import { FreeList, grown, nextCapacity } from './columns.js';
import { PairIndex } from './pair-index.js';
import { StringArena } from './string-arena.js';
import { HASH_NONE, HASH_OTHER, idHalves, joinSnowflake, packHash, sameHash, splitSnowflake, unpackHash, type IdHalves } from '../wire.js';

const REFS_SIDE = 0xffff;

const BOT = 1;
const SYSTEM = 2;
const PROFILE = 4;
/** Avatar kind in bits 3-4. */
const AVATAR_SHIFT = 3;
const AVATAR_MASK = 3 << AVATAR_SHIFT;
const HAS_GLOBAL_NAME = 32;
const HAS_TAG = 64;
/** The strings did not fit the arena (over 127 code units) and are in `odd`. */
const ODD_STRINGS = 128;

/** Discriminator column: 0 is "0", 1-9999 the 4-digit tag, ODD a string kept on the side. */
const DISCRIMINATOR_ODD = 0xffff;

/** The discriminator column's value for a user's `discriminator` (DISCRIMINATOR_ODD: kept as a string). */
function discriminatorOf(d: unknown): number {
  if (typeof d !== 'string' || d === '0') return 0;
  const n = d.length === 4 ? Number(d) : NaN;
  return n >= 1 && n <= 9999 && Number.isInteger(n) ? n : DISCRIMINATOR_ODD;
}

interface OddFields {
  avatar?: string;
  discriminator?: string;
  username?: string;
  globalName?: string | null;
  tag?: string | null;
}

export class UserTable {
  /** Id halves (see splitSnowflake); read by the index. */
  keyA = new Float64Array(0);
  keyB = new Uint32Array(0);
  /** References; at REFS_SIDE the count beyond it is in `moreRefs` (only a user in 65,535 cached guilds). */
  private refs = new Uint16Array(0);
  private readonly moreRefs = new Map<number, number>();
  private bits = new Uint8Array(0);
  private discriminator = new Uint16Array(0);
  private avatar = new Uint8Array(0);
  /** username, global name and guild tag, back to back in the arena at strings[slot]. */
  private strings = new Uint32Array(0);
  private usernameLength = new Uint8Array(0);
  private globalNameLength = new Uint8Array(0);
  private tagLength = new Uint8Array(0);
  private readonly arena = new StringArena((move) => {
    for (let slot = 0; slot < this.end; slot++) {
      if ((this.bits[slot]! & (PROFILE | ODD_STRINGS)) === PROFILE) this.strings[slot] = move(this.strings[slot]!, this.stringBytes(slot));
    }
  });
  private readonly odd = new Map<number, OddFields>();
  private readonly free = new FreeList();
  private index = new PairIndex(this);
  private capacity = 0;
  private end = 0;
  private live = 0;
  /** The id find() and acquire() look up. */
  private readonly wantedId = idHalves();

  constructor(private readonly profiles: boolean) {}

  get size(): number {
    return this.live;
  }

  /** Slot of a cached user, or -1. */
  find(id: string): number {
    const wanted = this.wantedId;
    if (!splitSnowflake(id, wanted)) return -1;
    return this.index.find(wanted.hi, wanted.lo);
  }

  /** Slot of a cached user by the halves of its id (see splitSnowflake), or -1. */
  findKey(hi: number, lo: number): number {
    return this.index.find(hi, lo);
  }

  /** Slot of the user, created if needed, with one more reference. -1 when the id is not a snowflake. */
  acquire(id: string): number {
    const wanted = this.wantedId;
    if (!splitSnowflake(id, wanted)) return -1;
    return this.acquireKey(wanted.hi, wanted.lo);
  }

  /** acquire() by id halves; `knownAbsent` skips the lookup when the caller has just done it. */
  acquireKey(hi: number, lo: number, knownAbsent = false): number {
    let slot = knownAbsent ? -1 : this.index.find(hi, lo);
    if (slot < 0) {
      slot = this.allocate();
      this.keyA[slot] = hi;
      this.keyB[slot] = lo;
      this.bits[slot] = 0;
      this.index.insert(hi, lo, slot);
      this.live++;
    }
    if (this.refs[slot] !== REFS_SIDE) this.refs[slot]!++;
    else this.moreRefs.set(slot, (this.moreRefs.get(slot) ?? 0) + 1);
    return slot;
  }

  /** Drop one reference; the user goes with the last one. */
  release(slot: number): void {
    if (this.refs[slot] === REFS_SIDE && this.moreRefs.size > 0) {
      const more = this.moreRefs.get(slot) ?? 0;
      if (more > 0) {
        if (more === 1) this.moreRefs.delete(slot);
        else this.moreRefs.set(slot, more - 1);
        return;
      }
    }
    if (--this.refs[slot]! > 0) return;
    this.index.remove(this.keyA[slot]!, this.keyB[slot]!, slot);
    const bits = this.bits[slot]!;
    if ((bits & (PROFILE | ODD_STRINGS)) === PROFILE) this.arena.release(this.stringBytes(slot));
    if (this.odd.size > 0) this.odd.delete(slot);
    this.bits[slot] = 0;
    this.free.push(slot);
    this.live--;
  }

  idOf(slot: number): string {
    return joinSnowflake(this.keyA[slot]!, this.keyB[slot]!);
  }

  /** Ordering of two users by id. */
  compare(a: number, b: number): number {
    return this.keyA[a]! - this.keyA[b]! || this.keyB[a]! - this.keyB[b]!;
  }

  /** Whether the user's id is greater than `id`. */
  isAfter(slot: number, id: Readonly<IdHalves>): boolean {
    const hi = this.keyA[slot]!;
    return hi > id.hi || (hi === id.hi && this.keyB[slot]! > id.lo);
  }

  /** Store the profile fields of a full user object (a partial one, without username, is ignored). */
  write(slot: number, user: APIUser): void {
    if (!this.profiles || typeof user.username !== 'string') return;
    const username = user.username;
    const globalName = typeof user.global_name === 'string' ? user.global_name : null;
    const primary = user.primary_guild;
    const tag = typeof primary === 'object' && primary !== null && typeof primary.tag === 'string' ? primary.tag : null;

    const oldBits = this.bits[slot]!;
    // Most member events carry the user exactly as cached: compare in place rather than pack it again.
    if ((oldBits & (PROFILE | ODD_STRINGS)) === PROFILE && this.holds(slot, oldBits, user, username, globalName, tag)) return;
    const oldBytes = (oldBits & (PROFILE | ODD_STRINGS)) === PROFILE ? this.stringBytes(slot) : 0;
    let odd: OddFields | undefined;
    let bits = PROFILE | (user.bot === true ? BOT : 0) | (user.system === true ? SYSTEM : 0);
    if (globalName !== null) bits |= HAS_GLOBAL_NAME;
    if (tag !== null) bits |= HAS_TAG;

    const su = StringArena.sizeOf(username);
    const sg = globalName === null ? 0 : StringArena.sizeOf(globalName);
    const st = tag === null ? 0 : StringArena.sizeOf(tag);
    if (su < 0 || sg < 0 || st < 0) {
      if (oldBytes > 0) this.arena.release(oldBytes);
      odd = { username, globalName, tag };
      bits |= ODD_STRINGS;
    } else {
      const total = su + sg + st;
      let at: number;
      if (oldBytes > 0 && total <= oldBytes) {
        at = this.strings[slot]!;
        if (total < oldBytes) this.arena.release(oldBytes - total);
      } else {
        at = this.arena.reserve(total);
        if (oldBytes > 0) this.arena.release(oldBytes);
      }
      const arena = this.arena;
      this.strings[slot] = at;
      this.usernameLength[slot] = arena.write(at, username, su);
      if (globalName !== null) this.globalNameLength[slot] = arena.write(at + su, globalName, sg);
      if (tag !== null) this.tagLength[slot] = arena.write(at + su + sg, tag, st);
    }

    const kind = packHash(user.avatar, this.avatar, slot * 16);
    if (kind === HASH_OTHER) (odd ??= {}).avatar = user.avatar as string;
    const disc = discriminatorOf(user.discriminator);
    if (disc === DISCRIMINATOR_ODD) (odd ??= {}).discriminator = user.discriminator;
    this.discriminator[slot] = disc;
    if (odd) this.odd.set(slot, odd);
    else if (this.odd.size > 0) this.odd.delete(slot);
    this.bits[slot] = bits | (kind << AVATAR_SHIFT);
  }

  /** Whether the arena-stored profile at `slot` equals these fields (nothing on the side to compare). */
  private holds(slot: number, bits: number, user: APIUser, username: string, globalName: string | null, tag: string | null): boolean {
    const flags = (user.bot === true ? BOT : 0) | (user.system === true ? SYSTEM : 0) | (globalName !== null ? HAS_GLOBAL_NAME : 0) | (tag !== null ? HAS_TAG : 0);
    if ((bits & (BOT | SYSTEM | HAS_GLOBAL_NAME | HAS_TAG)) !== flags) return false;
    const kind = (bits & AVATAR_MASK) >> AVATAR_SHIFT;
    if (kind === HASH_OTHER || !sameHash(user.avatar, this.avatar, slot * 16, kind)) return false;
    if (discriminatorOf(user.discriminator) !== this.discriminator[slot]) return false;
    const arena = this.arena;
    let at = this.strings[slot]!;
    const ul = this.usernameLength[slot]!;
    if (!arena.equals(at, ul, username)) return false;
    at += StringArena.bytesOf(ul);
    if (globalName !== null) {
      const gl = this.globalNameLength[slot]!;
      if (!arena.equals(at, gl, globalName)) return false;
      at += StringArena.bytesOf(gl);
    }
    return tag === null || arena.equals(at, this.tagLength[slot]!, tag);
  }

  view(slot: number): UserView | null {
    const bits = this.bits[slot]!;
    if ((bits & PROFILE) === 0) return null;
    const kind = (bits & AVATAR_MASK) >> AVATAR_SHIFT;
    const disc = this.discriminator[slot]!;
    const odd = (bits & ODD_STRINGS) !== 0 || kind === HASH_OTHER || disc === DISCRIMINATOR_ODD ? this.odd.get(slot) : undefined;
    let username: string;
    let globalName: string | null = null;
    let tag: string | null = null;
    if ((bits & ODD_STRINGS) !== 0) {
      username = odd?.username ?? '';
      globalName = odd?.globalName ?? null;
      tag = odd?.tag ?? null;
    } else {
      const arena = this.arena;
      let at = this.strings[slot]!;
      const ul = this.usernameLength[slot]!;
      username = arena.read(at, ul);
      at += StringArena.bytesOf(ul);
      if ((bits & HAS_GLOBAL_NAME) !== 0) {
        const gl = this.globalNameLength[slot]!;
        globalName = arena.read(at, gl);
        at += StringArena.bytesOf(gl);
      }
      if ((bits & HAS_TAG) !== 0) tag = arena.read(at, this.tagLength[slot]!);
    }
    return {
      id: this.idOf(slot),
      username,
      globalName,
      avatar: kind === HASH_NONE ? null : kind === HASH_OTHER ? (odd?.avatar ?? null) : unpackHash(this.avatar, slot * 16, kind),
      discriminator: disc === 0 ? '0' : disc === DISCRIMINATOR_ODD ? (odd?.discriminator ?? '0') : String(disc).padStart(4, '0'),
      bot: (bits & BOT) !== 0,
      system: (bits & SYSTEM) !== 0,
      primaryGuildTag: tag,
    };
  }

  /** Arena bytes of a user's strings (only for users whose strings are in the arena). */
  private stringBytes(slot: number): number {
    const bits = this.bits[slot]!;
    let n = StringArena.bytesOf(this.usernameLength[slot]!);
    if ((bits & HAS_GLOBAL_NAME) !== 0) n += StringArena.bytesOf(this.globalNameLength[slot]!);
    if ((bits & HAS_TAG) !== 0) n += StringArena.bytesOf(this.tagLength[slot]!);
    return n;
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
    this.keyA = grown(this.keyA, cap);
    this.keyB = grown(this.keyB, cap);
    this.refs = grown(this.refs, cap);
    this.bits = grown(this.bits, cap);
    if (this.profiles) {
      this.discriminator = grown(this.discriminator, cap);
      this.avatar = grown(this.avatar, cap * 16);
      this.strings = grown(this.strings, cap);
      this.usernameLength = grown(this.usernameLength, cap);
      this.globalNameLength = grown(this.globalNameLength, cap);
      this.tagLength = grown(this.tagLength, cap);
    }
    this.capacity = cap;
  }
}
