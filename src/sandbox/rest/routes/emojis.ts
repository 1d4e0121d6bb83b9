/**
 * Custom emojis (discord-api-docs "Emoji" resource): a guild's (list, get, create, modify, delete) and the
 * application's own (the same under /applications/{id}/emojis, listed as `{items: [...]}`). Creating in a guild
 * needs CREATE_GUILD_EXPRESSIONS; modifying or deleting one the bot made needs that or MANAGE_GUILD_EXPRESSIONS,
 * anyone else's MANAGE_GUILD_EXPRESSIONS. Names are 2-32 letters, digits or underscores; images are image data of
 * at most 256 KiB. A guild holds 50 static and 50 animated emojis, more with its boost tier (100, 150, 250);
 * an application 2000 (protocol §8 "Application emojis"), each name once. Guild changes send GUILD_EMOJIS_UPDATE.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import type { EmojiRecord } from '../../state/assets-model.js';
import { emojiObject } from '../../state/assets-serialize.js';
import { applicationEmojis, emitEmojis, guildEmojis } from '../../state/expressions.js';
import type { GuildRecord } from '../../state/model.js';
import { userObject } from '../../state/serialize.js';
import { snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { CREATE_GUILD_EXPRESSIONS, holdsAny, imageField, MANAGE_GUILD_EXPRESSIONS, requireOwnOrManage } from './asset-access.js';
import { FormErrors, guildOf, objectBody, requireGuildPermission, roleOf, type Json } from './guild-access.js';

const MAX_IMAGE_BYTES = 256 * 1024;
const MAX_APPLICATION_EMOJIS = 2000;
/** Static (and, separately, animated) emoji slots by boost tier. */
const GUILD_SLOTS = [50, 100, 150, 250] as const;
const NAME = /^[A-Za-z0-9_]+$/;

const unknownEmoji = (): SandboxApiError => new SandboxApiError(404, 10014, 'Unknown Emoji');

/** The name at `name` (required on create): 2-32 characters of letters, digits and underscores. */
function nameField(form: FormErrors, body: Json, required: boolean): string | undefined {
  if (body.name === undefined || body.name === null) {
    if (required) form.add(['name'], 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  const name = form.string(body, 'name', 2, 32);
  if (typeof name !== 'string') return undefined;
  if (!NAME.test(name)) {
    form.add(['name'], 'STRING_TYPE_REGEX', 'String value did not match validation regex.');
    return undefined;
  }
  return name;
}

/** `roles`: role ids of the guild (null or absent: everyone). */
function rolesField(form: FormErrors, body: Json, guild: GuildRecord): string[] | undefined {
  const v = body.roles;
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((id) => typeof id !== 'string')) {
    form.add(['roles'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    return undefined;
  }
  return [...new Set(v as string[])].map((id) => roleOf(guild, id).id);
}

export function emojiRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const bot = (): Json => userObject(store.botUser);

  const guildEmojiOf = (ctx: RestContext): { guild: GuildRecord; emoji: EmojiRecord } => {
    const guild = guildOf(store, ctx, { emojiId: 'emoji_id' });
    const emoji = guildEmojis(guild).get(ctx.params.emojiId!);
    if (!emoji) throw unknownEmoji();
    return { guild, emoji };
  };

  /** The uploader is shown to a bot that may manage the guild's expressions (or made it and may create them). */
  const shown = (guild: GuildRecord, e: EmojiRecord, list: boolean): Json => {
    const manage = holdsAny(store, guild, MANAGE_GUILD_EXPRESSIONS);
    const create = holdsAny(store, guild, CREATE_GUILD_EXPRESSIONS);
    const withUser = manage || (create && (list || e.userId === store.applicationId));
    return emojiObject(e, withUser ? bot() : undefined);
  };

  const createInGuild = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, CREATE_GUILD_EXPRESSIONS);
    const body = objectBody(ctx);
    const form = new FormErrors();
    const name = nameField(form, body, true);
    const image = imageField(form, body, 'image', MAX_IMAGE_BYTES);
    const roles = rolesField(form, body, guild);
    form.throwIfAny();
    const animated = image!.type === 'gif';
    const slots = GUILD_SLOTS[Math.min(Math.max(guild.premiumTier, 0), 3)]!;
    const same = [...guildEmojis(guild).values()].filter((e) => e.animated === animated).length;
    if (same >= slots) throw animated ? new SandboxApiError(400, 30018, `Maximum number of animated emojis reached (${slots})`) : new SandboxApiError(400, 30008, `Maximum number of emojis reached (${slots})`);
    const emoji: EmojiRecord = { id: store.ids.next(), name: name!, roles: roles ?? [], animated, userId: store.applicationId };
    guildEmojis(guild).set(emoji.id, emoji);
    emitEmojis(store, guild);
    return emojiObject(emoji, bot());
  };

  const modifyInGuild = (ctx: RestContext): Json => {
    const { guild, emoji } = guildEmojiOf(ctx);
    requireOwnOrManage(store, guild, emoji.userId, CREATE_GUILD_EXPRESSIONS, MANAGE_GUILD_EXPRESSIONS);
    const body = objectBody(ctx);
    const form = new FormErrors();
    const name = nameField(form, body, false);
    const roles = rolesField(form, body, guild);
    form.throwIfAny();
    if (name !== undefined) emoji.name = name;
    if (roles !== undefined) emoji.roles = roles;
    emitEmojis(store, guild);
    return shown(guild, emoji, false);
  };

  const removeFromGuild = (ctx: RestContext): void => {
    const { guild, emoji } = guildEmojiOf(ctx);
    requireOwnOrManage(store, guild, emoji.userId, CREATE_GUILD_EXPRESSIONS, MANAGE_GUILD_EXPRESSIONS);
    guildEmojis(guild).delete(emoji.id);
    emitEmojis(store, guild);
  };

  const g = { major: 'guildId', auth: 'bot' } as const;
  const base = '/guilds/:guildId/emojis';
  return [
    { ...g, method: 'GET', path: base, bucket: 'emojis.read', handler: (ctx) => {
      const guild = guildOf(store, ctx);
      return { status: 200, body: [...guildEmojis(guild).values()].map((e) => shown(guild, e, true)) };
    } },
    { ...g, method: 'POST', path: base, bucket: 'emojis.edit', handler: (ctx) => ({ status: 201, body: createInGuild(ctx) }) },
    { ...g, method: 'GET', path: `${base}/:emojiId`, bucket: 'emojis.read', handler: (ctx) => {
      const { guild, emoji } = guildEmojiOf(ctx);
      return { status: 200, body: shown(guild, emoji, false) };
    } },
    { ...g, method: 'PATCH', path: `${base}/:emojiId`, bucket: 'emojis.edit', handler: (ctx) => ({ status: 200, body: modifyInGuild(ctx) }) },
    { ...g, method: 'DELETE', path: `${base}/:emojiId`, bucket: 'emojis.edit', handler: (ctx) => (removeFromGuild(ctx), { status: 204 }) },
    ...applicationEmojiRoutes(core),
  ];
}

/** The application's own emojis: names unique within it, the bot as uploader, no permission beyond being the app. */
function applicationEmojiRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const emojis = (): Map<string, EmojiRecord> => applicationEmojis(store);
  const shown = (e: EmojiRecord): Json => emojiObject(e, userObject(store.botUser));

  const ownApp = (ctx: RestContext, extra: Record<string, string> = {}): void => {
    snowflakeParams(ctx, { applicationId: 'application_id', ...extra });
    if (ctx.params.applicationId !== store.applicationId) throw Errors.notAuthorizedForApplication();
  };
  const emojiOf = (ctx: RestContext): EmojiRecord => {
    ownApp(ctx, { emojiId: 'emoji_id' });
    const e = emojis().get(ctx.params.emojiId!);
    if (!e) throw unknownEmoji();
    return e;
  };
  const nameTaken = (form: FormErrors, name: string | undefined, self?: EmojiRecord): void => {
    if (name !== undefined && [...emojis().values()].some((e) => e !== self && e.name === name)) {
      form.add(['name'], 'APPLICATION_EMOJI_NAME_ALREADY_TAKEN', 'Application emoji name already taken.');
    }
  };

  const create = (ctx: RestContext): Json => {
    ownApp(ctx);
    const body = objectBody(ctx);
    const form = new FormErrors();
    const name = nameField(form, body, true);
    const image = imageField(form, body, 'image', MAX_IMAGE_BYTES);
    nameTaken(form, name);
    form.throwIfAny();
    if (emojis().size >= MAX_APPLICATION_EMOJIS) throw new SandboxApiError(400, 30008, `Maximum number of emojis reached (${MAX_APPLICATION_EMOJIS})`);
    const emoji: EmojiRecord = { id: store.ids.next(), name: name!, roles: [], animated: image!.type === 'gif', userId: store.applicationId };
    emojis().set(emoji.id, emoji);
    return shown(emoji);
  };

  const modify = (ctx: RestContext): Json => {
    const emoji = emojiOf(ctx);
    const body = objectBody(ctx);
    const form = new FormErrors();
    const name = nameField(form, body, false);
    nameTaken(form, name, emoji);
    form.throwIfAny();
    if (name !== undefined) emoji.name = name;
    return shown(emoji);
  };

  const a = { auth: 'bot' } as const;
  const base = '/applications/:applicationId/emojis';
  return [
    { ...a, method: 'GET', path: base, bucket: 'emojis.read', handler: (ctx) => (ownApp(ctx), { status: 200, body: { items: [...emojis().values()].map(shown) } }) },
    { ...a, method: 'POST', path: base, bucket: 'emojis.edit', handler: (ctx) => ({ status: 201, body: create(ctx) }) },
    { ...a, method: 'GET', path: `${base}/:emojiId`, bucket: 'emojis.read', handler: (ctx) => ({ status: 200, body: shown(emojiOf(ctx)) }) },
    { ...a, method: 'PATCH', path: `${base}/:emojiId`, bucket: 'emojis.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...a, method: 'DELETE', path: `${base}/:emojiId`, bucket: 'emojis.edit', handler: (ctx) => (emojis().delete(emojiOf(ctx).id), { status: 204 }) },
  ];
}
