/**
 * Guild stickers (discord-api-docs "Sticker" resource): list, get, create (a multipart upload: `file`, `name`,
 * `tags`, `description`), modify, delete, and GET /stickers/{id} for any sticker the sandbox knows (it has no
 * standard sticker packs). Creating needs CREATE_GUILD_EXPRESSIONS; changing one the bot made needs that or
 * MANAGE_GUILD_EXPRESSIONS, anyone else's MANAGE_GUILD_EXPRESSIONS. Names are 2-30 characters, tags 1-200,
 * descriptions empty or 2-100; the file is a PNG, APNG or GIF of at most 512 KiB (Lottie needs a verified or
 * partnered guild, which the sandbox's are not). A guild holds 5 stickers, more with its boost tier (15, 30, 60).
 * Every change sends GUILD_STICKERS_UPDATE with the guild's whole list.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError } from '../../errors.js';
import type { StickerRecord } from '../../state/assets-model.js';
import { stickerObject } from '../../state/assets-serialize.js';
import { emitStickers, findSticker, guildStickers } from '../../state/expressions.js';
import type { GuildRecord } from '../../state/model.js';
import { userObject } from '../../state/serialize.js';
import { snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { CREATE_GUILD_EXPRESSIONS, holdsAny, MANAGE_GUILD_EXPRESSIONS, requireOwnOrManage } from './asset-access.js';
import { FormErrors, guildOf, objectBody, requireGuildPermission, type Json } from './guild-access.js';

const MAX_FILE_BYTES = 512 * 1024;
const SLOTS = [5, 15, 30, 60] as const;
/** Sticker format types by upload content type (1 PNG, 2 APNG, 4 GIF); Lottie (3) is refused, see above. */
const FORMATS = new Map([
  ['image/png', 1],
  ['image/apng', 2],
  ['image/gif', 4],
]);

const unknownSticker = (): SandboxApiError => new SandboxApiError(404, 10060, 'Unknown Sticker');
const invalidAsset = (): SandboxApiError => new SandboxApiError(400, 50046, 'Invalid Asset');

/** name, tags, description of a create (all of them) or a modify (any of them). */
function stickerFields(form: FormErrors, body: Json, create: boolean): Partial<Pick<StickerRecord, 'name' | 'tags' | 'description'>> {
  const out: ReturnType<typeof stickerFields> = {};
  for (const field of ['name', 'tags'] as const) {
    if (body[field] === undefined || body[field] === null) {
      if (create) form.add([field], 'BASE_TYPE_REQUIRED', 'This field is required');
      continue;
    }
    const v = field === 'name' ? form.string(body, 'name', 2, 30) : form.string(body, 'tags', 1, 200);
    if (typeof v === 'string') out[field] = v;
  }
  const d = body.description;
  if (d === '' || d === null) out.description = d;
  else if (d !== undefined) {
    const v = form.string(body, 'description', 2, 100);
    if (typeof v === 'string') out.description = v;
  }
  return out;
}

export function stickerRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const stickerOf = (ctx: RestContext): { guild: GuildRecord; sticker: StickerRecord } => {
    const guild = guildOf(store, ctx, { stickerId: 'sticker_id' });
    const sticker = guildStickers(guild).get(ctx.params.stickerId!);
    if (!sticker) throw unknownSticker();
    return { guild, sticker };
  };
  const shown = (guild: GuildRecord, s: StickerRecord): Json =>
    stickerObject(s, holdsAny(store, guild, CREATE_GUILD_EXPRESSIONS | MANAGE_GUILD_EXPRESSIONS) ? userObject(store.botUser) : undefined);

  const create = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, CREATE_GUILD_EXPRESSIONS);
    const body = ctx.body.kind === 'multipart' ? Object.fromEntries(ctx.body.fields ?? []) : objectBody(ctx);
    const file = ctx.body.kind === 'multipart' ? ctx.body.files.find((f) => f.field === 'file') : undefined;
    const form = new FormErrors();
    const fields = stickerFields(form, body, true);
    if (file === undefined) form.add(['file'], 'BASE_TYPE_REQUIRED', 'This field is required');
    else if (file.size > MAX_FILE_BYTES) form.add(['file'], 'BINARY_TYPE_MAX_SIZE', 'File cannot be larger than 512.0 kb.');
    form.throwIfAny();
    const formatType = FORMATS.get(file!.contentType.split(';')[0]!.trim().toLowerCase());
    if (formatType === undefined) throw invalidAsset();
    const slots = SLOTS[Math.min(Math.max(guild.premiumTier, 0), 3)]!;
    if (guildStickers(guild).size >= slots) throw new SandboxApiError(400, 30039, `Maximum number of stickers reached (${slots})`);
    const sticker: StickerRecord = { id: store.ids.next(), guildId: guild.id, name: fields.name!, tags: fields.tags!, description: fields.description ?? '', formatType, userId: store.applicationId };
    guildStickers(guild).set(sticker.id, sticker);
    emitStickers(store, guild);
    return stickerObject(sticker, userObject(store.botUser));
  };

  const modify = (ctx: RestContext): Json => {
    const { guild, sticker } = stickerOf(ctx);
    requireOwnOrManage(store, guild, sticker.userId, CREATE_GUILD_EXPRESSIONS, MANAGE_GUILD_EXPRESSIONS);
    const form = new FormErrors();
    const fields = stickerFields(form, objectBody(ctx), false);
    form.throwIfAny();
    Object.assign(sticker, fields);
    emitStickers(store, guild);
    return shown(guild, sticker);
  };

  const remove = (ctx: RestContext): void => {
    const { guild, sticker } = stickerOf(ctx);
    requireOwnOrManage(store, guild, sticker.userId, CREATE_GUILD_EXPRESSIONS, MANAGE_GUILD_EXPRESSIONS);
    guildStickers(guild).delete(sticker.id);
    emitStickers(store, guild);
  };

  const g = { major: 'guildId', auth: 'bot' } as const;
  const base = '/guilds/:guildId/stickers';
  return [
    { ...g, method: 'GET', path: base, bucket: 'stickers.read', handler: (ctx) => {
      const guild = guildOf(store, ctx);
      return { status: 200, body: [...guildStickers(guild).values()].map((s) => shown(guild, s)) };
    } },
    { ...g, method: 'POST', path: base, bucket: 'stickers.edit', handler: (ctx) => ({ status: 201, body: create(ctx) }) },
    { ...g, method: 'GET', path: `${base}/:stickerId`, bucket: 'stickers.read', handler: (ctx) => {
      const { guild, sticker } = stickerOf(ctx);
      return { status: 200, body: shown(guild, sticker) };
    } },
    { ...g, method: 'PATCH', path: `${base}/:stickerId`, bucket: 'stickers.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...g, method: 'DELETE', path: `${base}/:stickerId`, bucket: 'stickers.edit', handler: (ctx) => (remove(ctx), { status: 204 }) },
    { auth: 'bot', method: 'GET', path: '/stickers/:stickerId', bucket: 'stickers.read', handler: (ctx) => {
      snowflakeParams(ctx, { stickerId: 'sticker_id' });
      const sticker = findSticker(store, ctx.params.stickerId!);
      if (!sticker) throw unknownSticker();
      return { status: 200, body: stickerObject(sticker) };
    } },
  ];
}
