/**
 * Guild channels, threads and permission overwrites as state changes: each change updates the guild's records and
 * dispatches what the service sends (CHANNEL_CREATE / UPDATE / DELETE with `guild_id`; THREAD_CREATE with
 * `newly_created`, THREAD_UPDATE, THREAD_DELETE as `{id, guild_id, parent_id, type}`, THREAD_MEMBER_UPDATE for
 * the bot's own membership and THREAD_MEMBERS_UPDATE for everyone's). The REST routes check permissions and
 * bodies before calling these; the admin API calls them directly (issue 29's sandbox verbs).
 */
import { stageInstanceObject } from './assets-serialize.js';
import { SandboxError } from '../errors.js';
import type { ChannelRecord, GuildRecord, ThreadState } from './model.js';
import type { OverwriteRecord } from './permissions.js';
import { channelObject } from './serialize.js';
import type { SandboxStore } from './store.js';

export type Json = Record<string, unknown>;

/** Thread channel types: announcement thread, public, private. */
export const THREAD_TYPES: ReadonlySet<number> = new Set([10, 11, 12]);
/** Channel types a guild channel may be created as: text, voice, category, announcement, stage, forum, media. */
export const CREATABLE_TYPES: ReadonlySet<number> = new Set([0, 2, 4, 5, 13, 15, 16]);
export const MAX_GUILD_CHANNELS = 500;

/** What may change on a channel (REST PATCH and the admin API). */
export interface ChannelPatch {
  name?: string;
  position?: number;
  parentId?: string | null;
  topic?: string | null;
  nsfw?: boolean;
  rateLimitPerUser?: number;
  bitrate?: number;
  userLimit?: number;
  overwrites?: OverwriteRecord[];
  archived?: boolean;
  locked?: boolean;
  autoArchiveDuration?: number;
  invitable?: boolean;
}

export function channelJson(guild: GuildRecord, c: ChannelRecord): Json {
  return channelObject(c, guild.id);
}

function emitChannel(store: SandboxStore, guild: GuildRecord, t: string, c: ChannelRecord, extra: Json = {}): void {
  store.emit(guild.id, t, JSON.stringify({ ...channelJson(guild, c), ...extra }));
}

/** A new guild channel (CHANNEL_CREATE). `input` is already checked. */
export function createChannel(store: SandboxStore, guild: GuildRecord, input: Omit<ChannelRecord, 'id' | 'position'> & { position?: number }): ChannelRecord {
  if (guild.channels.length >= MAX_GUILD_CHANNELS) throw new SandboxError('CONFLICT', `guild ${guild.id} has ${MAX_GUILD_CHANNELS} channels`);
  const position = input.position ?? guild.channels.filter((c) => c.type === input.type).reduce((m, c) => Math.max(m, c.position + 1), 0);
  const channel: ChannelRecord = { ...input, id: store.ids.next(), position };
  guild.channels.push(channel);
  store.channelsChanged(guild);
  emitChannel(store, guild, 'CHANNEL_CREATE', channel);
  return channel;
}

/** Apply a checked patch to a channel or thread; CHANNEL_UPDATE or THREAD_UPDATE. */
export function updateChannel(store: SandboxStore, guild: GuildRecord, c: ChannelRecord, patch: ChannelPatch): ChannelRecord {
  if (patch.name !== undefined) c.name = patch.name;
  if (patch.position !== undefined) c.position = patch.position;
  if (patch.parentId !== undefined) c.parentId = patch.parentId;
  if (patch.topic !== undefined) c.topic = patch.topic;
  if (patch.nsfw !== undefined) c.nsfw = patch.nsfw;
  if (patch.rateLimitPerUser !== undefined) c.rateLimitPerUser = patch.rateLimitPerUser;
  if (patch.bitrate !== undefined) c.bitrate = patch.bitrate;
  if (patch.userLimit !== undefined) c.userLimit = patch.userLimit;
  if (patch.overwrites !== undefined) c.overwrites = patch.overwrites;
  const t = c.thread;
  if (t !== undefined) {
    if (patch.archived !== undefined && patch.archived !== t.archived) {
      t.archived = patch.archived;
      t.archiveTimestamp = Date.now();
    }
    if (patch.locked !== undefined) t.locked = patch.locked;
    if (patch.autoArchiveDuration !== undefined) t.autoArchiveDuration = patch.autoArchiveDuration;
    if (patch.invitable !== undefined) t.invitable = patch.invitable;
  }
  guild.payloadCache.clear();
  emitChannel(store, guild, t !== undefined ? 'THREAD_UPDATE' : 'CHANNEL_UPDATE', c);
  return c;
}

/** Delete a channel (its threads go with it, a category's children lose their parent) or a thread. */
export function deleteChannel(store: SandboxStore, guild: GuildRecord, c: ChannelRecord): void {
  if (c.thread !== undefined) {
    guild.threads = (guild.threads ?? []).filter((x) => x !== c);
    store.channelsChanged(guild);
    store.emit(guild.id, 'THREAD_DELETE', JSON.stringify({ id: c.id, guild_id: guild.id, parent_id: c.parentId, type: c.type }));
    return;
  }
  guild.channels = guild.channels.filter((x) => x !== c);
  guild.threads = (guild.threads ?? []).filter((x) => x.parentId !== c.id);
  store.channelsChanged(guild);
  emitChannel(store, guild, 'CHANNEL_DELETE', c);
  // A stage channel's live stage instance ends with it.
  const stage = guild.stageInstances?.get(c.id);
  if (stage !== undefined && guild.stageInstances!.delete(c.id)) store.emit(guild.id, 'STAGE_INSTANCE_DELETE', JSON.stringify(stageInstanceObject(stage)));
  for (const child of guild.channels.filter((x) => x.parentId === c.id)) updateChannel(store, guild, child, { parentId: null });
}

/** Add or replace one overwrite (CHANNEL_UPDATE). */
export function setOverwrite(store: SandboxStore, guild: GuildRecord, c: ChannelRecord, o: OverwriteRecord): void {
  const rest = (c.overwrites ?? []).filter((x) => x.id !== o.id);
  updateChannel(store, guild, c, { overwrites: [...rest, o] });
}

/** Remove one overwrite (CHANNEL_UPDATE); false when the channel had none for that id. */
export function deleteOverwrite(store: SandboxStore, guild: GuildRecord, c: ChannelRecord, id: string): boolean {
  const list = c.overwrites ?? [];
  if (!list.some((x) => x.id === id)) return false;
  updateChannel(store, guild, c, { overwrites: list.filter((x) => x.id !== id) });
  return true;
}

export interface ThreadInput {
  /** The thread's id: the starter message's id for a thread from a message, else a fresh one. */
  id?: string;
  parent: ChannelRecord;
  name: string;
  type: number;
  ownerId: string;
  autoArchiveDuration: number;
  invitable: boolean;
  rateLimitPerUser: number;
}

/** A new thread, its owner its first member (THREAD_CREATE with newly_created, then the owner's membership). */
export function createThread(store: SandboxStore, guild: GuildRecord, input: ThreadInput): ChannelRecord {
  const now = Date.now();
  const thread: ThreadState = {
    ownerId: input.ownerId,
    archived: false,
    locked: false,
    autoArchiveDuration: input.autoArchiveDuration,
    archiveTimestamp: now,
    invitable: input.invitable,
    createTimestamp: now,
    members: new Map(),
    messageCount: 0,
    totalMessageSent: 0,
  };
  const channel: ChannelRecord = {
    id: input.id ?? store.ids.next(),
    type: input.type,
    name: input.name,
    position: 0,
    parentId: input.parent.id,
    topic: null,
    nsfw: input.parent.nsfw,
    rateLimitPerUser: input.rateLimitPerUser,
    thread,
  };
  (guild.threads ??= []).push(channel);
  store.channelsChanged(guild);
  emitChannel(store, guild, 'THREAD_CREATE', channel, { newly_created: true });
  addThreadMember(store, guild, channel, input.ownerId);
  return channel;
}

export function threadMemberObject(c: ChannelRecord, userId: string, joinedAt: number): Json {
  return { id: c.id, user_id: userId, join_timestamp: new Date(joinedAt).toISOString(), flags: 0 };
}

/** A user joins a thread (false when already in it): THREAD_MEMBER_UPDATE for the bot, THREAD_MEMBERS_UPDATE. */
export function addThreadMember(store: SandboxStore, guild: GuildRecord, c: ChannelRecord, userId: string): boolean {
  const t = c.thread!;
  if (t.members.has(userId)) return false;
  const at = Date.now();
  t.members.set(userId, at);
  const member = threadMemberObject(c, userId, at);
  if (userId === store.applicationId) store.emit(guild.id, 'THREAD_MEMBER_UPDATE', JSON.stringify({ ...member, guild_id: guild.id }));
  store.emit(guild.id, 'THREAD_MEMBERS_UPDATE', JSON.stringify({ id: c.id, guild_id: guild.id, member_count: Math.min(t.members.size, 50), added_members: [member] }), userId);
  return true;
}

/** A user leaves a thread (false when not in it): THREAD_MEMBERS_UPDATE with `removed_member_ids`. */
export function removeThreadMember(store: SandboxStore, guild: GuildRecord, c: ChannelRecord, userId: string): boolean {
  const t = c.thread!;
  if (!t.members.delete(userId)) return false;
  store.emit(guild.id, 'THREAD_MEMBERS_UPDATE', JSON.stringify({ id: c.id, guild_id: guild.id, member_count: Math.min(t.members.size, 50), removed_member_ids: [userId] }), userId);
  return true;
}
