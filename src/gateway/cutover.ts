/**
 * The cutover of a live reshard (S -> S' shards), on the receiving side: every event that happens while
 * both shard sets are connected arrives twice, once on the old set and once on the new one. This decides,
 * per event, which copy is delivered (to the cache, the interaction router and plugins) so that each event
 * is delivered once.
 *
 * - Warming: the old set delivers as before, and the key of every event it delivers is recorded under the
 *   NEW shard that receives that event (`delivered`, kept by the coordination: in memory, or in Redis for a
 *   fleet). The new set's events are held back (buffered); its READY and the GUILD_CREATEs that load its
 *   guilds are the new sessions' start-up, not events, and are not delivered (the cache already holds those
 *   guilds from the old set).
 * - Cutover: the old set stops delivering (its later events are dropped).
 * - Switch (per new shard): its buffer is replayed, every event whose key the old set delivered is skipped
 *   once (a multiset: an event that really happened twice is delivered twice); then it delivers live, still
 *   skipping what the old set delivered, for `dedupeWindowMs` (a new shard lagging behind the old one
 *   receives those events after the switch).
 *
 * Per guild both streams carry the same events in the same order, the old one from before the new session
 * started, so "skip what the old set delivered" leaves exactly the events after the old set's last one.
 * The key is the event's type and its data as the service sent it (the same for both sessions).
 */
import { createHash } from 'node:crypto';
import { isSnowflake, shardForGuild } from '../api/snowflake.js';

/** Per-session events: never delivered from the new set, never recorded from the old one. */
const SESSION_EVENTS = new Set(['READY', 'RESUMED']);
/** Events of the guild itself, whose guild id is `d.id`. */
const GUILD_EVENTS = new Set(['GUILD_CREATE', 'GUILD_UPDATE', 'GUILD_DELETE']);
/** A new shard whose buffer grows past this gives up the reshard (something is badly wrong). */
export const MAX_BUFFERED_PER_SHARD = 200_000;

/** Which shard of `total` receives an event: its guild's, or shard 0 for events without a guild. */
export function receivingShard(t: string, d: unknown, total: number): number {
  if (total <= 1 || typeof d !== 'object' || d === null) return 0;
  const o = d as { id?: unknown; guild_id?: unknown };
  const guildId = GUILD_EVENTS.has(t) ? o.id : o.guild_id;
  return isSnowflake(guildId) ? shardForGuild(guildId, total) : 0;
}

/** The same event carries the same key on both sets. */
export function eventKey(t: string, d: unknown): string {
  return createHash('sha1').update(t).update('\u0000').update(JSON.stringify(d) ?? '').digest('base64url').slice(0, 22);
}

export type DeliverHook = (shardId: number, t: string, d: unknown, s: number) => void;

interface Buffered {
  t: string;
  d: unknown;
  s: number;
}

interface NewShard {
  phase: 'buffering' | 'live';
  buffer: Buffered[];
  /** Guilds READY listed whose first GUILD_CREATE has not come yet (null before READY). */
  loading: Set<string> | null;
  /** The start-up GUILD_CREATEs, by guild: delivered at the switch only for guilds the cache lacks. */
  initial: Map<string, Buffered>;
  warm: boolean;
  /** Keys the old set delivered that this shard has not skipped yet (after its switch). */
  pending: Map<string, number> | null;
}

export interface CutoverOptions {
  /** Old and new shard totals. */
  from: number;
  to: number;
  /** Deliver an event (to the cache, router and plugins): the runtime's own path. */
  deliver: DeliverHook;
  /** The old set delivered an event that new shard `newShard` receives too. */
  recordDelivered: (newShard: number, key: string) => void;
  /** A new shard is READY and has loaded its guilds. */
  onWarm: (newShard: number) => void;
  /** A new shard's buffer overflowed: the reshard must be given up. */
  onOverflow: (newShard: number) => void;
}

export class Cutover {
  private oldStopped = false;
  /** Set by the first switch: a new shard first seen after it (taken over from another process) is live at once. */
  private switched = false;
  private readonly shards = new Map<number, NewShard>();

  constructor(private readonly options: CutoverOptions) {}

  /** A dispatch of the old set. */
  fromOld(shardId: number, t: string, d: unknown, s: number): void {
    if (this.oldStopped) return;
    // Keyed before delivery: nothing downstream may change what the key is computed from.
    if (!SESSION_EVENTS.has(t)) this.options.recordDelivered(receivingShard(t, d, this.options.to), eventKey(t, d));
    this.options.deliver(shardId, t, d, s);
  }

  /** A dispatch of the new set. */
  fromNew(shardId: number, t: string, d: unknown, s: number): void {
    const shard = this.shard(shardId);
    if (shard.phase !== 'live' && SESSION_EVENTS.has(t)) {
      if (t === 'READY') this.onReady(shardId, shard, d);
      return;
    }
    if (shard.phase === 'live') {
      if (shard.pending !== null && shard.pending.size > 0 && this.consume(shard.pending, eventKey(t, d))) return;
      this.options.deliver(shardId, t, d, s);
      return;
    }
    if (t === 'GUILD_CREATE' && shard.loading !== null) {
      const id = (d as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && shard.loading.delete(id)) {
        shard.initial.set(id, { t, d, s });
        if (shard.loading.size === 0) this.markWarm(shardId, shard);
        return;
      }
    }
    if (shard.buffer.length >= MAX_BUFFERED_PER_SHARD) {
      this.options.onOverflow(shardId);
      return;
    }
    shard.buffer.push({ t, d, s });
  }

  /**
   * A new shard whose guilds have not all loaded in time (some stay unavailable) counts as warm anyway once
   * it is READY; returns whether it is warm now.
   */
  forceWarm(newShard: number): boolean {
    const shard = this.shards.get(newShard);
    if (shard === undefined || shard.loading === null) return false;
    this.markWarm(newShard, shard);
    return true;
  }

  /** From now on the old set's events are dropped. */
  stopOld(): void {
    this.oldStopped = true;
  }

  /** Guild ids whose start-up GUILD_CREATE a new shard holds (the runtime checks which the cache lacks). */
  initialGuilds(newShard: number): string[] {
    return [...(this.shards.get(newShard)?.initial.keys() ?? [])];
  }

  /**
   * Switch one new shard: deliver the start-up GUILD_CREATEs of `unknownGuilds` (guilds the cache lacks: their
   * old shard never delivered them), replay the buffer skipping what the old set delivered (`ledger`), then
   * deliver live. Returns how many buffered events were skipped and delivered.
   */
  switch(newShard: number, ledger: readonly string[], unknownGuilds: ReadonlySet<string>): { skipped: number; delivered: number } {
    this.switched = true;
    const shard = this.shard(newShard);
    const pending = new Map<string, number>();
    for (const key of ledger) pending.set(key, (pending.get(key) ?? 0) + 1);
    for (const [id, event] of shard.initial) if (unknownGuilds.has(id)) this.options.deliver(newShard, event.t, event.d, event.s);
    shard.initial.clear();
    let skipped = 0;
    let delivered = 0;
    for (const event of shard.buffer) {
      if (this.consume(pending, eventKey(event.t, event.d))) skipped++;
      else {
        delivered++;
        this.options.deliver(newShard, event.t, event.d, event.s);
      }
    }
    shard.buffer = [];
    shard.pending = pending;
    shard.phase = 'live';
    return { skipped, delivered };
  }

  /** The dedupe window is over: the new set delivers everything. */
  endDedupe(): void {
    for (const shard of this.shards.values()) shard.pending = null;
  }

  /** Keys recorded from the old set that no new shard has matched yet (what may come late). */
  unmatched(): number {
    let n = 0;
    for (const shard of this.shards.values()) for (const count of shard.pending?.values() ?? []) n += count;
    return n;
  }

  private consume(pending: Map<string, number>, key: string): boolean {
    const count = pending.get(key);
    if (count === undefined) return false;
    if (count <= 1) pending.delete(key);
    else pending.set(key, count - 1);
    return true;
  }

  private shard(id: number): NewShard {
    let shard = this.shards.get(id);
    if (shard === undefined) {
      shard = { phase: this.switched ? 'live' : 'buffering', buffer: [], loading: null, initial: new Map(), warm: false, pending: null };
      this.shards.set(id, shard);
    }
    return shard;
  }

  private onReady(shardId: number, shard: NewShard, d: unknown): void {
    const guilds = (d as { guilds?: unknown } | null)?.guilds;
    const loading = new Set<string>();
    if (Array.isArray(guilds)) for (const g of guilds) if (typeof (g as { id?: unknown })?.id === 'string') loading.add((g as { id: string }).id);
    shard.loading = loading;
    if (loading.size === 0) this.markWarm(shardId, shard);
  }

  private markWarm(shardId: number, shard: NewShard): void {
    if (shard.warm) return;
    shard.warm = true;
    this.options.onWarm(shardId);
  }
}
