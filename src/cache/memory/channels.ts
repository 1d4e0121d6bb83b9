/**
 * Every cached channel and thread of every guild in one column table indexed by slot, like the members: the id
 * split in two numbers (and a hash index over them), the guild's slot and links of its list (channels and
 * threads each have one, headed in the GuildRecord), type, position, slowmode, flags, the parent id, the name in
 * a string arena and the permission overwrites in a byte arena (25 bytes each: id, allow, deny as 64-bit
 * numbers, then the type). A thread's owner, archive time and auto-archive duration are kept on the side.
 */
import type { ChannelFields } from '../channel-payloads.js';
import type { ChannelView, PermissionOverwriteView, ThreadMetadataView } from '../types.js';
import { idHalves, joinSnowflake, splitSnowflake } from '../wire.js';
import { FreeList, grown, nextCapacity } from './columns.js';
import type { GuildRecord } from './guilds.js';
import { PairIndex } from './pair-index.js';
import { StringArena } from './string-arena.js';

const LIVE = 1;
const NSFW = 2;
const ARCHIVED = 4;
const LOCKED = 8;
const HAS_PARENT = 16;
const HAS_NAME = 32;
/** The name is over the arena's 127 code units: in `longNames`. */
const LONG_NAME = 64;
const THREAD = 128;

/** Bytes per overwrite in the overwrite arena. */
const OVERWRITE_BYTES = 25;
/** Overwrites per channel beyond this are kept on the side (the service allows far fewer). */
const MAX_PACKED_OVERWRITES = 0xfffe;
const OVERWRITES_SIDE = 0xffff;

interface ThreadSide {
  ownerId: string | null;
  archiveTimestamp: number | null;
  autoArchiveDuration: number | null;
}

export class ChannelTable {
  /** Id halves (see splitSnowflake); read by the index. */
  keyA = new Float64Array(0);
  keyB = new Uint32Array(0);
  private guild = new Int32Array(0);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  private type = new Uint8Array(0);
  private bits = new Uint8Array(0);
  private position = new Int32Array(0);
  private rate = new Uint16Array(0);
  private parentA = new Float64Array(0);
  private parentB = new Uint32Array(0);
  private nameAt = new Uint32Array(0);
  private nameLength = new Uint8Array(0);
  private overwriteAt = new Uint32Array(0);
  private overwriteCount = new Uint16Array(0);
  private readonly names = new StringArena((move) => {
    for (let slot = 0; slot < this.end; slot++) {
      if ((this.bits[slot]! & (LIVE | HAS_NAME)) === (LIVE | HAS_NAME)) this.nameAt[slot] = move(this.nameAt[slot]!, StringArena.bytesOf(this.nameLength[slot]!));
    }
  });
  private readonly overwrites = new StringArena((move) => {
    for (let slot = 0; slot < this.end; slot++) {
      const n = this.overwriteCount[slot]!;
      if ((this.bits[slot]! & LIVE) !== 0 && n > 0 && n !== OVERWRITES_SIDE) this.overwriteAt[slot] = move(this.overwriteAt[slot]!, n * OVERWRITE_BYTES);
    }
  });
  private readonly longNames = new Map<number, string>();
  /** The id find() looks up. */
  private readonly wantedId = idHalves();
  /** The id of the channel upsert() stores, and of its parent. */
  private readonly storedId = idHalves();
  private readonly storedParentId = idHalves();
  private readonly manyOverwrites = new Map<number, readonly PermissionOverwriteView[]>();
  private readonly threads = new Map<number, ThreadSide>();
  private readonly free = new FreeList();
  private index = new PairIndex(this);
  private capacity = 0;
  private end = 0;
  private live = 0;
  private liveThreads = 0;

  /** Channels (threads not included). */
  get channelCount(): number {
    return this.live - this.liveThreads;
  }
  get threadCount(): number {
    return this.liveThreads;
  }

  /** Slot of a cached channel, or -1. */
  find(id: string): number {
    const wanted = this.wantedId;
    if (!splitSnowflake(id, wanted)) return -1;
    return this.index.find(wanted.hi, wanted.lo);
  }

  guildOf(slot: number): number {
    return this.guild[slot]!;
  }

  nextOf(slot: number): number {
    return this.next[slot]!;
  }

  isThread(slot: number): boolean {
    return (this.bits[slot]! & THREAD) !== 0;
  }

  isArchived(slot: number): boolean {
    return (this.bits[slot]! & ARCHIVED) !== 0;
  }

  idOf(slot: number): string {
    return joinSnowflake(this.keyA[slot]!, this.keyB[slot]!);
  }

  /** Whether the channel's parent is the one whose halves are in (hi, lo). */
  hasParent(slot: number, hi: number, lo: number): boolean {
    return (this.bits[slot]! & HAS_PARENT) !== 0 && this.parentA[slot] === hi && this.parentB[slot] === lo;
  }

  /**
   * Store a channel of `guild` (its kind, channel or thread, from its type). A channel cached under another guild
   * moves to this one. Returns its slot.
   */
  upsert(guild: GuildRecord, c: ChannelFields, thread: boolean, guildOf: (slot: number) => GuildRecord | undefined): number {
    const stored = this.storedId;
    splitSnowflake(c.id, stored);
    const hi = stored.hi;
    const lo = stored.lo;
    let slot = this.index.find(hi, lo);
    if (slot >= 0 && (this.guild[slot] !== guild.slot || this.isThread(slot) !== thread)) {
      const owner = guildOf(this.guild[slot]!);
      if (owner !== undefined) this.remove(owner, slot);
      slot = -1;
    }
    if (slot < 0) slot = this.insert(guild, hi, lo, thread);
    this.write(slot, c);
    return slot;
  }

  /** Unlink and free a channel. */
  remove(guild: GuildRecord, slot: number): void {
    const thread = this.isThread(slot);
    this.index.remove(this.keyA[slot]!, this.keyB[slot]!, slot);
    const next = this.next[slot]!;
    const prev = this.prev[slot]!;
    if (prev >= 0) this.next[prev] = next;
    else if (thread) guild.threadHead = next;
    else guild.channelHead = next;
    if (next >= 0) this.prev[next] = prev;
    if (thread) {
      guild.threads--;
      this.liveThreads--;
      this.threads.delete(slot);
    } else {
      guild.channels--;
    }
    this.setName(slot, null);
    this.setOverwrites(slot, []);
    this.bits[slot] = 0;
    this.keyA[slot] = -1;
    this.keyB[slot] = 0;
    this.free.push(slot);
    this.live--;
  }

  view(slot: number, guildId: string): ChannelView {
    const bits = this.bits[slot]!;
    let thread: ThreadMetadataView | null = null;
    if ((bits & THREAD) !== 0) {
      const side = this.threads.get(slot);
      thread = {
        archived: (bits & ARCHIVED) !== 0,
        locked: (bits & LOCKED) !== 0,
        ownerId: side?.ownerId ?? null,
        archiveTimestamp: side?.archiveTimestamp ?? null,
        autoArchiveDuration: side?.autoArchiveDuration ?? null,
      };
    }
    return {
      id: this.idOf(slot),
      guildId,
      type: this.type[slot]!,
      name: this.nameOf(slot),
      parentId: (bits & HAS_PARENT) !== 0 ? joinSnowflake(this.parentA[slot]!, this.parentB[slot]!) : null,
      position: this.position[slot]!,
      permissionOverwrites: this.overwritesOf(slot),
      nsfw: (bits & NSFW) !== 0,
      rateLimitPerUser: this.rate[slot]!,
      thread,
    };
  }

  /** The parent's id (for a thread: the channel whose overwrites apply), or null. */
  parentOf(slot: number): string | null {
    return (this.bits[slot]! & HAS_PARENT) !== 0 ? joinSnowflake(this.parentA[slot]!, this.parentB[slot]!) : null;
  }

  overwritesOf(slot: number): PermissionOverwriteView[] {
    const n = this.overwriteCount[slot]!;
    if (n === OVERWRITES_SIDE) return [...(this.manyOverwrites.get(slot) ?? [])];
    const out: PermissionOverwriteView[] = [];
    const bytes = this.overwrites.bytes;
    let at = this.overwriteAt[slot]!;
    for (let i = 0; i < n; i++, at += OVERWRITE_BYTES) {
      out.push({ id: readU64(bytes, at).toString(), type: bytes[at + 24]!, allow: readU64(bytes, at + 8), deny: readU64(bytes, at + 16) });
    }
    return out;
  }

  private nameOf(slot: number): string | null {
    const bits = this.bits[slot]!;
    if ((bits & HAS_NAME) !== 0) return this.names.read(this.nameAt[slot]!, this.nameLength[slot]!);
    return (bits & LONG_NAME) !== 0 ? (this.longNames.get(slot) ?? null) : null;
  }

  private insert(guild: GuildRecord, hi: number, lo: number, thread: boolean): number {
    const slot = this.allocate();
    this.keyA[slot] = hi;
    this.keyB[slot] = lo;
    this.guild[slot] = guild.slot;
    this.bits[slot] = LIVE | (thread ? THREAD : 0);
    this.overwriteCount[slot] = 0;
    this.prev[slot] = -1;
    const head = thread ? guild.threadHead : guild.channelHead;
    this.next[slot] = head;
    if (head >= 0) this.prev[head] = slot;
    if (thread) {
      guild.threadHead = slot;
      guild.threads++;
      this.liveThreads++;
    } else {
      guild.channelHead = slot;
      guild.channels++;
    }
    this.index.insert(hi, lo, slot);
    this.live++;
    return slot;
  }

  private write(slot: number, c: ChannelFields): void {
    this.type[slot] = c.type;
    this.position[slot] = c.position;
    this.rate[slot] = c.rateLimitPerUser;
    let bits = this.bits[slot]! & (LIVE | THREAD | HAS_NAME | LONG_NAME);
    if (c.nsfw) bits |= NSFW;
    const parent = this.storedParentId;
    if (c.parentId !== null && splitSnowflake(c.parentId, parent)) {
      bits |= HAS_PARENT;
      this.parentA[slot] = parent.hi;
      this.parentB[slot] = parent.lo;
    }
    const t = c.thread;
    if (t !== null) {
      if (t.archived) bits |= ARCHIVED;
      if (t.locked) bits |= LOCKED;
      if (t.ownerId !== null || t.archiveTimestamp !== null || t.autoArchiveDuration !== null) {
        this.threads.set(slot, { ownerId: t.ownerId, archiveTimestamp: t.archiveTimestamp, autoArchiveDuration: t.autoArchiveDuration });
      } else {
        this.threads.delete(slot);
      }
    }
    this.bits[slot] = bits;
    this.setName(slot, c.name);
    this.setOverwrites(slot, c.overwrites);
  }

  private setName(slot: number, name: string | null): void {
    const bits = this.bits[slot]!;
    if ((bits & HAS_NAME) !== 0) {
      const at = this.nameAt[slot]!;
      const length = this.nameLength[slot]!;
      if (name !== null && this.names.equals(at, length, name)) return;
      this.names.release(StringArena.bytesOf(length));
    } else if ((bits & LONG_NAME) !== 0) {
      this.longNames.delete(slot);
    }
    let next = bits & ~(HAS_NAME | LONG_NAME);
    if (name !== null) {
      const size = StringArena.sizeOf(name);
      if (size >= 0) {
        // Cleared first: a compaction inside reserve() must not move the space released above.
        this.bits[slot] = next;
        const at = this.names.reserve(size);
        this.nameAt[slot] = at;
        this.nameLength[slot] = this.names.write(at, name, size);
        next |= HAS_NAME;
      } else {
        this.longNames.set(slot, name);
        next |= LONG_NAME;
      }
    }
    this.bits[slot] = next;
  }

  private setOverwrites(slot: number, list: readonly PermissionOverwriteView[]): void {
    const old = this.overwriteCount[slot]!;
    if (old === OVERWRITES_SIDE) this.manyOverwrites.delete(slot);
    else if (old > 0) this.overwrites.release(old * OVERWRITE_BYTES);
    // Cleared first, as for names: a compaction must not move the space released above.
    this.overwriteCount[slot] = 0;
    const n = list.length;
    if (n === 0) return;
    if (n > MAX_PACKED_OVERWRITES) {
      this.manyOverwrites.set(slot, list.map((o) => ({ ...o })));
      this.overwriteCount[slot] = OVERWRITES_SIDE;
      return;
    }
    let at = this.overwrites.reserve(n * OVERWRITE_BYTES);
    this.overwriteAt[slot] = at;
    const bytes = this.overwrites.bytes;
    for (const o of list) {
      writeU64(bytes, at, BigInt(o.id));
      writeU64(bytes, at + 8, o.allow);
      writeU64(bytes, at + 16, o.deny);
      bytes[at + 24] = o.type;
      at += OVERWRITE_BYTES;
    }
    this.overwriteCount[slot] = n;
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
    this.keyB = grown(this.keyB, cap);
    this.guild = grown(this.guild, cap, -1);
    this.next = grown(this.next, cap);
    this.prev = grown(this.prev, cap);
    this.type = grown(this.type, cap);
    this.bits = grown(this.bits, cap);
    this.position = grown(this.position, cap);
    this.rate = grown(this.rate, cap);
    this.parentA = grown(this.parentA, cap);
    this.parentB = grown(this.parentB, cap);
    this.nameAt = grown(this.nameAt, cap);
    this.nameLength = grown(this.nameLength, cap);
    this.overwriteAt = grown(this.overwriteAt, cap);
    this.overwriteCount = grown(this.overwriteCount, cap);
    this.capacity = cap;
  }
}

/** A 64-bit unsigned number at `at`, little-endian. */
function readU64(bytes: Uint8Array, at: number): bigint {
  const lo = (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
  const hi = (bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

function writeU64(bytes: Uint8Array, at: number, v: bigint): void {
  const lo = Number(v & 0xffffffffn);
  const hi = Number((v >> 32n) & 0xffffffffn);
  bytes[at] = lo & 0xff;
  bytes[at + 1] = (lo >>> 8) & 0xff;
  bytes[at + 2] = (lo >>> 16) & 0xff;
  bytes[at + 3] = lo >>> 24;
  bytes[at + 4] = hi & 0xff;
  bytes[at + 5] = (hi >>> 8) & 0xff;
  bytes[at + 6] = (hi >>> 16) & 0xff;
  bytes[at + 7] = hi >>> 24;
}
