/**
 * Threads (discord-api-docs "Channel" resource): start one from a message (public; its id is the message's;
 * 160004 when the message has one) or without (private by default; public with `type` 11), join / leave, add /
 * remove a member, read the members, and list the guild's active threads and a channel's archived ones (public,
 * private, and the private ones the bot joined). Permissions: CREATE_PUBLIC_THREADS / CREATE_PRIVATE_THREADS to
 * start, SEND_MESSAGES_IN_THREADS to add someone, MANAGE_THREADS to remove someone or read private archives;
 * an archived thread refuses member changes (50083).
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import { addThreadMember, channelJson, createThread, removeThreadMember, threadMemberObject } from '../../state/channels.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import { memberObject } from '../../state/serialize.js';
import { compareSnowflakes, queryParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import type { SandboxStore } from '../../state/store.js';
import { archiveDuration } from './channel-body.js';
import { FormErrors, guildChannelOf, guildOf, objectBody, requireChannelPermission, type Json } from './guild-access.js';
import { memberOf } from './members.js';
import { queryBool } from './commands.js';

const archivedThread = (): SandboxApiError => new SandboxApiError(400, 50083, 'Thread is archived');
const threadExists = (): SandboxApiError => new SandboxApiError(400, 160004, 'A thread has already been created for this message');
/** Text and announcement channels hold threads (forums and media channels start theirs with a message body). */
const THREAD_PARENTS: ReadonlySet<number> = new Set([0, 5]);

/** Thread-member objects of the bot for a list of threads (the lists' `members`). */
function ownMemberships(store: SandboxStore, threads: ChannelRecord[]): Json[] {
  const botId = store.applicationId;
  return threads.filter((t) => t.thread!.members.has(botId)).map((t) => threadMemberObject(t, botId, t.thread!.members.get(botId)!));
}

function activeThreads(store: SandboxStore, ctx: RestContext): Json {
  const guild = guildOf(store, ctx);
  const threads = (guild.threads ?? []).filter((t) => !t.thread!.archived);
  // The whole list at once; the description (built from the service) has `has_more` on this answer too.
  return { threads: threads.map((t) => channelJson(guild, t)), members: ownMemberships(store, threads), has_more: false };
}

function archivedThreads(store: SandboxStore, ctx: RestContext, which: 'public' | 'private' | 'joined'): Json {
  const botId = store.applicationId;
  const { guild, channel } = guildChannelOf(store, ctx);
  requireChannelPermission(store, guild, channel, which === 'private' ? P.READ_MESSAGE_HISTORY | P.MANAGE_THREADS : P.READ_MESSAGE_HISTORY);
  const q = queryParams(ctx, { limit: { min: 2, max: 100, fallback: 50 } }, []);
  const before = ctx.query.get('before');
  const beforeMs = before === null ? Number.POSITIVE_INFINITY : Date.parse(before);
  let threads = (guild.threads ?? []).filter((t) => t.parentId === channel.id && t.thread!.archived && t.thread!.archiveTimestamp < beforeMs);
  threads = threads.filter((t) => (which === 'public' ? t.type !== 12 : t.type === 12 && (which === 'private' || t.thread!.members.has(botId))));
  threads.sort((a, b) => b.thread!.archiveTimestamp - a.thread!.archiveTimestamp);
  const limit = q.ints.get('limit')!;
  const page = threads.slice(0, limit);
  return { threads: page.map((t) => channelJson(guild, t)), members: ownMemberships(store, page), has_more: threads.length > limit };
}

export function threadRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const botId = store.applicationId;

  /** A thread of the route (50024 for a channel that is not one). */
  const threadOf = (ctx: RestContext, extra: Record<string, string> = {}): { guild: GuildRecord; channel: ChannelRecord } => {
    const found = guildChannelOf(store, ctx, extra);
    if (found.channel.thread === undefined) throw Errors.wrongChannelType();
    return found;
  };

  const start = (ctx: RestContext, fromMessage: boolean): Json => {
    const { guild, channel: parent } = guildChannelOf(store, ctx, fromMessage ? { messageId: 'message_id' } : {});
    if (!THREAD_PARENTS.has(parent.type)) throw Errors.wrongChannelType();
    const body = objectBody(ctx);
    const form = new FormErrors();
    const name = form.string(body, 'name', 1, 100);
    if (body.name === undefined || body.name === null) form.add(['name'], 'BASE_TYPE_REQUIRED', 'This field is required');
    const duration = archiveDuration(form, body) ?? 4320;
    const rate = form.int(body, 'rate_limit_per_user', 0, 21_600) ?? 0;
    const invitable = form.bool(body, 'invitable') ?? true;
    let type = fromMessage ? (parent.type === 5 ? 10 : 11) : 12;
    if (!fromMessage && body.type !== undefined && body.type !== null) {
      if (body.type === 11 || body.type === 12 || (body.type === 10 && parent.type === 5)) type = body.type;
      else form.add(['type'], 'BASE_TYPE_CHOICES', 'Value must be one of {10, 11, 12}.');
    }
    form.throwIfAny();
    requireChannelPermission(store, guild, parent, type === 12 ? P.CREATE_PRIVATE_THREADS : P.CREATE_PUBLIC_THREADS);
    let id: string | undefined;
    if (fromMessage) {
      const message = store.messages.get(parent.id, ctx.params.messageId!);
      if (!message) throw Errors.unknownMessage();
      if ((guild.threads ?? []).some((t) => t.id === message.id)) throw threadExists();
      id = message.id;
    }
    const thread = createThread(store, guild, { ...(id !== undefined ? { id } : {}), parent, name: name as string, type, ownerId: botId, autoArchiveDuration: duration, invitable, rateLimitPerUser: rate });
    if (id !== undefined) {
      // The starter message now points at its thread (HAS_THREAD, discord-api-docs "Message Flags").
      const record = store.messages.get(parent.id, id)!;
      store.messages.edit(record, { ...record.message, flags: ((record.message.flags as number | undefined) ?? 0) | (1 << 5), thread: channelJson(guild, thread) });
      record.editedAt = null;
      record.edits--;
    }
    return channelJson(guild, thread);
  };

  const setMember = (ctx: RestContext, add: boolean, self: boolean): void => {
    const { guild, channel } = threadOf(ctx, self ? {} : { userId: 'user_id' });
    const userId = self ? botId : ctx.params.userId!;
    if (!self) memberOf(store, guild, userId);
    if (channel.thread!.archived) throw archivedThread();
    if (self) requireChannelPermission(store, guild, channel, 0n);
    else if (add) requireChannelPermission(store, guild, channel, P.SEND_MESSAGES_IN_THREADS);
    else if (channel.thread!.ownerId !== botId || channel.type !== 12) requireChannelPermission(store, guild, channel, P.MANAGE_THREADS);
    if (add) addThreadMember(store, guild, channel, userId);
    else removeThreadMember(store, guild, channel, userId);
  };

  const memberJson = (guild: GuildRecord, channel: ChannelRecord, userId: string, withMember: boolean): Json => {
    const out = threadMemberObject(channel, userId, channel.thread!.members.get(userId)!);
    const m = store.members(guild).get(userId);
    if (withMember && m) out.member = memberObject(m, store.userOf(m));
    return out;
  };

  const listMembers = (ctx: RestContext): Json[] => {
    const { guild, channel } = threadOf(ctx);
    requireChannelPermission(store, guild, channel, 0n);
    const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 100 } }, ['after']);
    const after = q.snowflakes.get('after') ?? '0';
    const withMember = queryBool(ctx.query.get('with_member'));
    const ids = [...channel.thread!.members.keys()].filter((id) => compareSnowflakes(id, after) > 0).sort(compareSnowflakes);
    return ids.slice(0, q.ints.get('limit')!).map((id) => memberJson(guild, channel, id, withMember));
  };

  const getMember = (ctx: RestContext): Json => {
    const { guild, channel } = threadOf(ctx, { userId: 'user_id' });
    requireChannelPermission(store, guild, channel, 0n);
    if (!channel.thread!.members.has(ctx.params.userId!)) throw Errors.unknownMember();
    return memberJson(guild, channel, ctx.params.userId!, queryBool(ctx.query.get('with_member')));
  };

  const byChannel = { major: 'channelId', auth: 'bot' } as const;
  const noContent = (fn: (ctx: RestContext) => void) => (ctx: RestContext) => (fn(ctx), { status: 204 });
  return [
    { ...byChannel, method: 'POST', path: '/channels/:channelId/threads', bucket: 'threads.create', handler: (ctx) => ({ status: 201, body: start(ctx, false) }) },
    { ...byChannel, method: 'POST', path: '/channels/:channelId/messages/:messageId/threads', bucket: 'threads.create', handler: (ctx) => ({ status: 201, body: start(ctx, true) }) },
    { ...byChannel, method: 'PUT', path: '/channels/:channelId/thread-members/@me', bucket: 'threads.members', handler: noContent((ctx) => setMember(ctx, true, true)) },
    { ...byChannel, method: 'DELETE', path: '/channels/:channelId/thread-members/@me', bucket: 'threads.members', handler: noContent((ctx) => setMember(ctx, false, true)) },
    { ...byChannel, method: 'PUT', path: '/channels/:channelId/thread-members/:userId', bucket: 'threads.members', handler: noContent((ctx) => setMember(ctx, true, false)) },
    { ...byChannel, method: 'DELETE', path: '/channels/:channelId/thread-members/:userId', bucket: 'threads.members', handler: noContent((ctx) => setMember(ctx, false, false)) },
    { ...byChannel, method: 'GET', path: '/channels/:channelId/thread-members', bucket: 'threads.read', handler: (ctx) => ({ status: 200, body: listMembers(ctx) }) },
    { ...byChannel, method: 'GET', path: '/channels/:channelId/thread-members/:userId', bucket: 'threads.read', handler: (ctx) => ({ status: 200, body: getMember(ctx) }) },
    { ...byChannel, method: 'GET', path: '/channels/:channelId/threads/archived/public', bucket: 'threads.read', handler: (ctx) => ({ status: 200, body: archivedThreads(store, ctx, 'public') }) },
    { ...byChannel, method: 'GET', path: '/channels/:channelId/threads/archived/private', bucket: 'threads.read', handler: (ctx) => ({ status: 200, body: archivedThreads(store, ctx, 'private') }) },
    { ...byChannel, method: 'GET', path: '/channels/:channelId/users/@me/threads/archived/private', bucket: 'threads.read', handler: (ctx) => ({ status: 200, body: archivedThreads(store, ctx, 'joined') }) },
    { major: 'guildId', auth: 'bot', method: 'GET', path: '/guilds/:guildId/threads/active', bucket: 'threads.read', handler: (ctx) => ({ status: 200, body: activeThreads(store, ctx) }) },
  ];
}

