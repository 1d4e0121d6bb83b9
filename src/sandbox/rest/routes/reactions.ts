/**
 * Reactions (discord-api-docs "Message" resource): add and remove the bot's own, remove a user's, one emoji's or
 * all (MANAGE_MESSAGES), and list who reacted (`after`, `limit` 1-100, default 25). Adding needs
 * READ_MESSAGE_HISTORY, and ADD_REACTIONS when nobody has reacted with that emoji yet. A custom `name:id` emoji
 * must be one the bot can use there (the guild's own or the application's, state/expressions.ts), or already be
 * on the message; any other is unknown (10014), as one the bot cannot use is on the service.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError } from '../../errors.js';
import { P } from '../../state/permissions.js';
import { addReaction, clearReactions, parseEmoji, reactionsOf, reactors, removeReaction, emojiKey, type ReactionEmoji } from '../../state/reactions.js';
import { userObject } from '../../state/serialize.js';
import { usableEmoji } from '../../state/expressions.js';
import type { MessageRecord } from '../../state/messages.js';
import type { SandboxStore } from '../../state/store.js';
import { compareSnowflakes, queryParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { messageAt, requirePerms } from './message-access.js';
import { memberOf } from './members.js';

const unknownEmoji = (): SandboxApiError => new SandboxApiError(400, 10014, 'Unknown Emoji');

function emojiOf(store: SandboxStore, ctx: RestContext, record: MessageRecord): ReactionEmoji {
  const emoji = parseEmoji(ctx.params.emoji!);
  if (emoji === null) throw unknownEmoji();
  if (emoji.id === null || reactionsOf(record).has(emojiKey(emoji))) return emoji;
  const custom = usableEmoji(store, record.guildId === null ? null : (store.guild(record.guildId) ?? null), emoji.id);
  if (custom === undefined) throw unknownEmoji();
  return custom.animated ? { id: custom.id, name: custom.name, animated: true } : { id: custom.id, name: custom.name };
}

export function reactionRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const botId = store.applicationId;

  const addOwn = (ctx: RestContext): void => {
    const { place, record } = messageAt(store, ctx);
    const emoji = emojiOf(store, ctx, record);
    const fresh = !reactionsOf(record).has(emojiKey(emoji));
    requirePerms(place, P.READ_MESSAGE_HISTORY | (fresh ? P.ADD_REACTIONS : 0n));
    addReaction(store, record, botId, emoji);
  };

  const removeOne = (ctx: RestContext, own: boolean): void => {
    const { place, record } = messageAt(store, ctx);
    const emoji = emojiOf(store, ctx, record);
    if (!own) {
      requirePerms(place, P.MANAGE_MESSAGES);
      if (place.guild) memberOf(store, place.guild, ctx.params.userId!);
    }
    removeReaction(store, record, own ? botId : ctx.params.userId!, emoji);
  };

  const clear = (ctx: RestContext, oneEmoji: boolean): void => {
    const { place, record } = messageAt(store, ctx);
    const emoji = oneEmoji ? emojiOf(store, ctx, record) : undefined;
    requirePerms(place, P.MANAGE_MESSAGES);
    clearReactions(store, record, emoji);
  };

  const list = (ctx: RestContext): unknown[] => {
    const { place, record } = messageAt(store, ctx);
    requirePerms(place, P.READ_MESSAGE_HISTORY);
    const emoji = emojiOf(store, ctx, record);
    const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 25 }, type: { min: 0, max: 1, fallback: 0 } }, ['after']);
    // Super reactions (type 1) are not modelled: nobody has any.
    if (q.ints.get('type') === 1) return [];
    const after = q.snowflakes.get('after') ?? '0';
    const ids = reactors(record, emoji).filter((id) => compareSnowflakes(id, after) > 0).sort(compareSnowflakes).slice(0, q.ints.get('limit')!);
    return ids.map((id) => userObject(store.user(id)!));
  };

  const base = '/channels/:channelId/messages/:messageId/reactions';
  const r = { major: 'channelId', auth: 'bot' } as const;
  return [
    { ...r, method: 'PUT', path: `${base}/:emoji/@me`, bucket: 'reactions', handler: (ctx) => (addOwn(ctx), { status: 204 }) },
    { ...r, method: 'DELETE', path: `${base}/:emoji/@me`, bucket: 'reactions', handler: (ctx) => (removeOne(ctx, true), { status: 204 }) },
    { ...r, method: 'DELETE', path: `${base}/:emoji/:userId`, bucket: 'reactions', handler: (ctx) => (removeOne(ctx, false), { status: 204 }) },
    { ...r, method: 'GET', path: `${base}/:emoji`, bucket: 'reactions.read', handler: (ctx) => ({ status: 200, body: list(ctx) }) },
    { ...r, method: 'DELETE', path: `${base}/:emoji`, bucket: 'reactions', handler: (ctx) => (clear(ctx, true), { status: 204 }) },
    { ...r, method: 'DELETE', path: base, bucket: 'reactions', handler: (ctx) => (clear(ctx, false), { status: 204 }) },
  ];
}
