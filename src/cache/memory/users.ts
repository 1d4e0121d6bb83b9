/**
 * Every cached user in columns indexed by slot. A user is held by reference count: one per cached
 * membership, plus one for the bot itself; the record goes with the last reference. Identity (the
 * id split in two numbers) is always kept, the profile only when users are cached.
 */
import type { APIUser } from 'discord-api-types/v10';
import type { UserView } from '../types.js';
import { FreeList, grown, nextCapacity } from './columns.js';
import { PairIndex } from './pair-index.js';
import { HASH_NONE, HASH_OTHER, joinSnowflake, packHash, scratchId, splitSnowflake, unpackHash } from '../wire.js';

const BOT = 1;
const SYSTEM = 2;
const PROFILE = 4;
/** Avatar kind in bits 3-4. */
const AVATAR_SHIFT = 3;
const AVATAR_MASK = 3 << AVATAR_SHIFT;

/** Discriminator column: 0 is "0", 1-9999 the 4-digit tag, ODD a string kept on the side. */
const DISCRIMINATOR_ODD = 0xffff;

/** Guild tags repeat across many users: share one string per tag (bounded, then stored as sent). */
const TAG_INTERN_LIMIT = 8192;

interface OddFields {
  avatar?: string;
  discriminator?: string;
}

export class UserTable {
  /** Id halves (see splitSnowflake); read by the index. */
  keyA = new Float64Array(0);
  keyB = new Uint32Array(0);
  private refs = new Uint32Array(0);
  private bits = new Uint8Array(0);
  private discriminator = new Uint16Array(0);
  private avatar = new Uint8Array(0);
  private username: string[] = [];
  private globalName: (string | null)[] = [];
  private tag: (string | null)[] = [];
  private readonly odd = new Map<number, OddFields>();
  private readonly tags = new Map<string, string>();
  private readonly free = new FreeList();
  private index = new PairIndex(this);
  private capacity = 0;
  private end = 0;
  private live = 0;

  constructor(private readonly profiles: boolean) {}

  get size(): number {
    return this.live;
  }

  /** Slot of a cached user, or -1. */
  find(id: string): number {
    if (!splitSnowflake(id)) return -1;
    return this.index.find(scratchId.hi, scratchId.lo);
  }

  /** Slot of a cached user by the halves of its id (see splitSnowflake), or -1. */
  findKey(hi: number, lo: number): number {
    return this.index.find(hi, lo);
  }

  /** Slot of the user, created if needed, with one more reference. -1 when the id is not a snowflake. */
  acquire(id: string): number {
    if (!splitSnowflake(id)) return -1;
    return this.acquireKey(scratchId.hi, scratchId.lo);
  }

  acquireKey(hi: number, lo: number): number {
    let slot = this.index.find(hi, lo);
    if (slot < 0) {
      slot = this.allocate();
      this.keyA[slot] = hi;
      this.keyB[slot] = lo;
      this.bits[slot] = 0;
      this.index.insert(hi, lo, slot);
      this.live++;
    }
    this.refs[slot]!++;
    return slot;
  }

  /** Drop one reference; the user goes with the last one. */
  release(slot: number): void {
    if (--this.refs[slot]! > 0) return;
    this.index.remove(this.keyA[slot]!, this.keyB[slot]!, slot);
    this.username[slot] = '';
    this.globalName[slot] = null;
    this.tag[slot] = null;
    this.bits[slot] = 0;
    if (this.odd.size > 0) this.odd.delete(slot);
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

  /** Whether the user's id is greater than the one in scratchId. */
  isAfterScratch(slot: number): boolean {
    const hi = this.keyA[slot]!;
    return hi > scratchId.hi || (hi === scratchId.hi && this.keyB[slot]! > scratchId.lo);
  }

  /** Store the profile fields of a full user object (a partial one, without username, is ignored). */
  write(slot: number, user: APIUser): void {
    if (!this.profiles || typeof user.username !== 'string') return;
    this.username[slot] = user.username;
    this.globalName[slot] = typeof user.global_name === 'string' ? user.global_name : null;
    const primary = user.primary_guild;
    const tag = typeof primary === 'object' && primary !== null && typeof primary.tag === 'string' ? primary.tag : null;
    this.tag[slot] = tag === null ? null : this.intern(tag);

    let odd: OddFields | undefined;
    const kind = packHash(user.avatar, this.avatar, slot * 16);
    if (kind === HASH_OTHER) (odd ??= {}).avatar = user.avatar as string;
    let disc = 0;
    const d = user.discriminator;
    if (typeof d === 'string' && d !== '0') {
      const n = d.length === 4 ? Number(d) : NaN;
      if (n >= 1 && n <= 9999 && Number.isInteger(n)) disc = n;
      else {
        disc = DISCRIMINATOR_ODD;
        (odd ??= {}).discriminator = d;
      }
    }
    this.discriminator[slot] = disc;
    if (odd) this.odd.set(slot, odd);
    else if (this.odd.size > 0) this.odd.delete(slot);
    this.bits[slot] = PROFILE | (user.bot === true ? BOT : 0) | (user.system === true ? SYSTEM : 0) | (kind << AVATAR_SHIFT);
  }

  view(slot: number): UserView | null {
    const bits = this.bits[slot]!;
    if ((bits & PROFILE) === 0) return null;
    const kind = (bits & AVATAR_MASK) >> AVATAR_SHIFT;
    const odd = kind === HASH_OTHER || this.discriminator[slot] === DISCRIMINATOR_ODD ? this.odd.get(slot) : undefined;
    const disc = this.discriminator[slot]!;
    return {
      id: this.idOf(slot),
      username: this.username[slot]!,
      globalName: this.globalName[slot] ?? null,
      avatar: kind === HASH_NONE ? null : kind === HASH_OTHER ? (odd?.avatar ?? null) : unpackHash(this.avatar, slot * 16, kind),
      discriminator: disc === 0 ? '0' : disc === DISCRIMINATOR_ODD ? (odd?.discriminator ?? '0') : String(disc).padStart(4, '0'),
      bot: (bits & BOT) !== 0,
      system: (bits & SYSTEM) !== 0,
      primaryGuildTag: this.tag[slot] ?? null,
    };
  }

  clear(): void {
    this.keyA = new Float64Array(0);
    this.keyB = new Uint32Array(0);
    this.refs = new Uint32Array(0);
    this.bits = new Uint8Array(0);
    this.discriminator = new Uint16Array(0);
    this.avatar = new Uint8Array(0);
    this.username = [];
    this.globalName = [];
    this.tag = [];
    this.odd.clear();
    this.tags.clear();
    this.free.clear();
    this.capacity = 0;
    this.end = 0;
    this.live = 0;
    this.index = new PairIndex(this);
  }

  private intern(tag: string): string {
    const known = this.tags.get(tag);
    if (known !== undefined) return known;
    if (this.tags.size < TAG_INTERN_LIMIT) this.tags.set(tag, tag);
    return tag;
  }

  private allocate(): number {
    const reused = this.free.pop();
    if (reused >= 0) return reused;
    const slot = this.end++;
    if (slot >= this.capacity) this.grow(slot + 1);
    this.username.push('');
    this.globalName.push(null);
    this.tag.push(null);
    return slot;
  }

  private grow(needed: number): void {
    const cap = nextCapacity(this.capacity, needed);
    this.keyA = grown(this.keyA, cap);
    this.keyB = grown(this.keyB, cap);
    this.refs = grown(this.refs, cap);
    this.bits = grown(this.bits, cap);
    this.discriminator = grown(this.discriminator, cap);
    if (this.profiles) this.avatar = grown(this.avatar, cap * 16);
    this.capacity = cap;
  }
}
