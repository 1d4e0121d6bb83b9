/**
 * The sandbox's own verbs for channels, threads, overwrites and roles (issue 29): what a test or the admin API
 * uses to set a scene, without the bot's permission checks. Each goes through state/channels.ts, so the gateway
 * sees the same CHANNEL_* / THREAD_* / GUILD_ROLE_UPDATE events as for a REST change. Bad input throws
 * SandboxError (the admin API's 4xx).
 */
import { SandboxError } from '../errors.js';
import { addThreadMember, channelJson, CREATABLE_TYPES, createChannel, createThread, deleteChannel, deleteOverwrite, removeThreadMember, setOverwrite, updateChannel, type ChannelPatch } from './channels.js';
import type { ChannelRecord, GuildRecord } from './model.js';
import type { OverwriteRecord } from './permissions.js';
import { roleObject } from './serialize.js';
import type { SandboxStore } from './store.js';
import type { MessageRecord } from './messages.js';
import { setVotes } from './polls.js';
import { addReaction, parseEmoji, removeReaction } from './reactions.js';
import type { ChannelInput, ChannelUpdate, OverwriteInput, RoleUpdate, ThreadInputVerb } from '../contract.js';

export type { ChannelInput, ChannelUpdate, OverwriteInput, RoleUpdate, ThreadInputVerb };

function bits(v: string | bigint | undefined, what: string): bigint {
  if (v === undefined) return 0n;
  if (typeof v === 'bigint') return v;
  if (!/^\d{1,20}$/.test(v)) throw new SandboxError('INVALID', `${what} must be a permission bit set as decimal digits`);
  return BigInt(v);
}

export function overwriteRecord(o: OverwriteInput): OverwriteRecord {
  if (o.type !== 0 && o.type !== 1) throw new SandboxError('INVALID', 'an overwrite type is 0 (role) or 1 (member)');
  return { id: o.id, type: o.type, allow: bits(o.allow, 'allow'), deny: bits(o.deny, 'deny') };
}

export class ChannelVerbs {
  constructor(private readonly store: SandboxStore) {}

  private find(channelId: string): { guild: GuildRecord; channel: ChannelRecord } {
    const found = this.store.guildChannel(channelId);
    if (!found) throw new SandboxError('UNKNOWN_CHANNEL', `unknown guild channel or thread ${channelId}`);
    return found;
  }

  createChannel(guildId: string, input: ChannelInput): Record<string, unknown> {
    const guild = this.store.requireGuild(guildId);
    const type = input.type ?? 0;
    if (!CREATABLE_TYPES.has(type)) throw new SandboxError('INVALID', `channel type must be one of ${[...CREATABLE_TYPES].join(', ')}`);
    if (input.parentId && !guild.channels.some((c) => c.id === input.parentId && c.type === 4)) throw new SandboxError('INVALID', 'parentId must be a category of the guild');
    const c = createChannel(this.store, guild, {
      type,
      name: input.name,
      parentId: input.parentId ?? null,
      topic: input.topic ?? null,
      nsfw: input.nsfw ?? false,
      overwrites: (input.overwrites ?? []).map(overwriteRecord),
      ...(input.position !== undefined ? { position: input.position } : {}),
    });
    return channelJson(guild, c);
  }

  updateChannel(channelId: string, update: ChannelUpdate): Record<string, unknown> {
    const { guild, channel } = this.find(channelId);
    const patch: ChannelPatch = {};
    for (const key of ['name', 'parentId', 'topic', 'nsfw', 'position', 'archived', 'locked'] as const) {
      if (update[key] !== undefined) (patch as Record<string, unknown>)[key] = update[key];
    }
    if ((patch.archived !== undefined || patch.locked !== undefined) && channel.thread === undefined) throw new SandboxError('INVALID', 'archived and locked apply to threads');
    return channelJson(guild, updateChannel(this.store, guild, channel, patch));
  }

  deleteChannel(channelId: string): void {
    const { guild, channel } = this.find(channelId);
    deleteChannel(this.store, guild, channel);
  }

  setOverwrite(channelId: string, o: OverwriteInput): void {
    const { guild, channel } = this.find(channelId);
    if (channel.thread !== undefined) throw new SandboxError('INVALID', 'threads use their parent channel\'s overwrites');
    setOverwrite(this.store, guild, channel, overwriteRecord(o));
  }

  deleteOverwrite(channelId: string, id: string): void {
    const { guild, channel } = this.find(channelId);
    if (!deleteOverwrite(this.store, guild, channel, id)) throw new SandboxError('INVALID', `channel ${channelId} has no overwrite for ${id}`);
  }

  createThread(channelId: string, input: ThreadInputVerb): Record<string, unknown> {
    const { guild, channel } = this.find(channelId);
    if (channel.type !== 0 && channel.type !== 5) throw new SandboxError('INVALID', 'threads start in text or announcement channels');
    const type = input.type ?? (channel.type === 5 ? 10 : 11);
    if (![10, 11, 12].includes(type)) throw new SandboxError('INVALID', 'thread type must be 10, 11 or 12');
    const ownerId = input.ownerId ?? guild.ownerId;
    if (!this.store.isMember(guild, ownerId)) throw new SandboxError('UNKNOWN_MEMBER', `user ${ownerId} is not a member of guild ${guild.id}`);
    const t = createThread(this.store, guild, { parent: channel, name: input.name, type, ownerId, autoArchiveDuration: 4320, invitable: true, rateLimitPerUser: 0 });
    return channelJson(guild, t);
  }

  setThreadMember(threadId: string, userId: string, member: boolean): void {
    const { guild, channel } = this.find(threadId);
    if (channel.thread === undefined) throw new SandboxError('INVALID', `${threadId} is not a thread`);
    if (member && !this.store.isMember(guild, userId)) throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} is not a member of guild ${guild.id}`);
    if (member) addThreadMember(this.store, guild, channel, userId);
    else removeThreadMember(this.store, guild, channel, userId);
  }

  private message(channelId: string, messageId: string): MessageRecord {
    const record = this.store.messages.get(channelId, messageId);
    if (!record) throw new SandboxError('INVALID', `no live message ${messageId} of the bot in channel ${channelId}`);
    return record;
  }

  /** Whether the user may act in the message's place: a member of its guild, or the DM's recipient. */
  private requireParticipant(record: MessageRecord, userId: string): void {
    const ok = record.guildId !== null ? this.store.member(record.guildId, userId) !== undefined : record.recipientId === userId || userId === this.store.applicationId;
    if (!ok) throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} cannot see channel ${record.channelId}`);
  }

  react(channelId: string, messageId: string, userId: string, emoji: string, on = true): void {
    const record = this.message(channelId, messageId);
    this.requireParticipant(record, userId);
    const e = parseEmoji(emoji);
    const guild = record.guildId === null ? undefined : this.store.guild(record.guildId);
    const custom = e?.id == null ? undefined : guild?.emojis?.get(e.id);
    if (e === null || (e.id !== null && custom === undefined)) throw new SandboxError('INVALID', "a reaction is a unicode emoji or a custom emoji of the message's guild");
    if (custom !== undefined) Object.assign(e, { name: custom.name }, custom.animated ? { animated: true } : {});
    if (on) addReaction(this.store, record, userId, e);
    else removeReaction(this.store, record, userId, e);
  }

  vote(channelId: string, messageId: string, userId: string, answerIds: number[]): void {
    const record = this.message(channelId, messageId);
    this.requireParticipant(record, userId);
    const refusal = setVotes(this.store, record, userId, answerIds);
    if (refusal !== null) throw new SandboxError('INVALID', refusal);
  }

  /** Change a role (the bot's own managed role included, to give the bot permissions): GUILD_ROLE_UPDATE. */
  updateRole(guildId: string, roleId: string, update: RoleUpdate): Record<string, unknown> {
    const guild = this.store.requireGuild(guildId);
    const role = guild.roles.find((r) => r.id === roleId);
    if (!role) throw new SandboxError('UNKNOWN_ROLE', `unknown role ${roleId} of guild ${guildId}`);
    if (update.name !== undefined) role.name = update.name;
    if (update.permissions !== undefined) role.permissions = bits(update.permissions, 'permissions');
    if (update.position !== undefined) role.position = update.position;
    guild.payloadCache.clear();
    this.store.emit(guild.id, 'GUILD_ROLE_UPDATE', JSON.stringify({ guild_id: guild.id, role: roleObject(role) }));
    return roleObject(role);
  }
}
