/**
 * Channel messages and DM channels: what the bot sends with POST /channels/{id}/messages (in guild channels and
 * in DMs it opened with POST /users/@me/channels), edits and deletes. Each change emits the service's dispatch
 * (MESSAGE_CREATE / MESSAGE_UPDATE / MESSAGE_DELETE) through the store's sink, and lands in a record that the
 * admin API, the CLI and `sandbox.messages()` read back, deleted messages included.
 *
 * Bounded: at most `maxRecords` records are kept (oldest dropped first, whatever their channel), so a bot that
 * sends forever cannot grow the sandbox without limit.
 */
import type { SnowflakeGenerator } from '../../api/snowflake.js';

export type Json = Record<string, unknown>;

/** A DM channel between the bot and one user (type 1). */
export interface DmChannelRecord {
  id: string;
  recipientId: string;
  lastMessageId: string | null;
}

/** One message the bot sent, as it is now, with its history. */
export interface MessageRecord {
  id: string;
  channelId: string;
  /** null in DMs. */
  guildId: string | null;
  /** The DM's other user; null in guild channels. */
  recipientId: string | null;
  /** The message object as the REST API returns it (after the last edit). */
  message: Json;
  createdAt: number;
  editedAt: number | null;
  deletedAt: number | null;
  edits: number;
}

export const DEFAULT_MAX_MESSAGE_RECORDS = 10_000;

/** A copy of a record for readers outside the store (admin API, `sandbox.messages()`): they cannot change state. */
export function messageSnapshot(r: MessageRecord): MessageRecord {
  return { ...r, message: structuredClone(r.message) };
}

export class MessageStore {
  private readonly dmByRecipient = new Map<string, DmChannelRecord>();
  private readonly dmById = new Map<string, DmChannelRecord>();
  /** Every record by message id, in creation order (Map keeps insertion order: oldest first). */
  private readonly records = new Map<string, MessageRecord>();
  /** Live (not deleted) message ids per channel, oldest first. */
  private readonly byChannel = new Map<string, Set<string>>();

  constructor(
    private readonly ids: SnowflakeGenerator,
    private readonly maxRecords = DEFAULT_MAX_MESSAGE_RECORDS,
  ) {}

  // ---- DM channels --------------------------------------------------------------------------------------

  /** The DM channel with a user, opened on first use (the service returns the existing one afterwards). */
  openDm(recipientId: string): { channel: DmChannelRecord; created: boolean } {
    const existing = this.dmByRecipient.get(recipientId);
    if (existing !== undefined) return { channel: existing, created: false };
    const channel: DmChannelRecord = { id: this.ids.next(), recipientId, lastMessageId: null };
    this.dmByRecipient.set(recipientId, channel);
    this.dmById.set(channel.id, channel);
    return { channel, created: true };
  }

  dm(channelId: string): DmChannelRecord | undefined {
    return this.dmById.get(channelId);
  }

  // ---- messages -----------------------------------------------------------------------------------------

  add(record: Omit<MessageRecord, 'editedAt' | 'deletedAt' | 'edits'>): MessageRecord {
    const full: MessageRecord = { ...record, editedAt: null, deletedAt: null, edits: 0 };
    this.records.set(full.id, full);
    let live = this.byChannel.get(full.channelId);
    if (live === undefined) this.byChannel.set(full.channelId, (live = new Set()));
    live.add(full.id);
    const dm = this.dmById.get(full.channelId);
    if (dm !== undefined) dm.lastMessageId = full.id;
    this.evict();
    return full;
  }

  /** A live message of a channel. */
  get(channelId: string, messageId: string): MessageRecord | undefined {
    const r = this.records.get(messageId);
    return r !== undefined && r.channelId === channelId && r.deletedAt === null ? r : undefined;
  }

  /** A message by id alone, deleted ones included (callers check `deletedAt` and the channel). */
  find(messageId: string): MessageRecord | undefined {
    return this.records.get(messageId);
  }

  edit(record: MessageRecord, message: Json): void {
    record.message = message;
    record.editedAt = Date.now();
    record.edits++;
  }

  delete(record: MessageRecord): void {
    record.deletedAt = Date.now();
    this.byChannel.get(record.channelId)?.delete(record.id);
  }

  /** Live messages of a channel, newest first (the order GET /channels/{id}/messages answers in). */
  live(channelId: string): MessageRecord[] {
    const ids = this.byChannel.get(channelId);
    if (ids === undefined) return [];
    const out: MessageRecord[] = [];
    for (const id of ids) out.push(this.records.get(id)!);
    return out.reverse();
  }

  /** The last live message id of a channel (a channel's `last_message_id`). */
  lastMessageId(channelId: string): string | null {
    const ids = this.byChannel.get(channelId);
    if (ids === undefined || ids.size === 0) return null;
    let last: string | null = null;
    for (const id of ids) last = id;
    return last;
  }

  /** Every record (deleted ones too), oldest first, optionally of one channel or guild. */
  all(filter: { channelId?: string; guildId?: string } = {}): MessageRecord[] {
    const out: MessageRecord[] = [];
    for (const r of this.records.values()) {
      if (filter.channelId !== undefined && r.channelId !== filter.channelId) continue;
      if (filter.guildId !== undefined && r.guildId !== filter.guildId) continue;
      out.push(r);
    }
    return out;
  }

  private evict(): void {
    while (this.records.size > this.maxRecords) {
      const oldest = this.records.keys().next().value as string;
      const r = this.records.get(oldest)!;
      this.records.delete(oldest);
      this.byChannel.get(r.channelId)?.delete(oldest);
    }
  }
}
