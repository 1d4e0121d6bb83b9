import type {
  RESTGetAPIGuildStickerResult,
  RESTGetAPIGuildStickersResult,
  RESTGetAPIStickerResult,
  RESTPatchAPIGuildStickerJSONBody,
  RESTPatchAPIGuildStickerResult,
  RESTPostAPIGuildStickerResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestFile, RestRequester } from '../types.js';
import type { ReasonOptions } from './options.js';

/** Stickers: any sticker by id, and a guild's own (CREATE/MANAGE_GUILD_EXPRESSIONS). */

const GUILD_STICKERS = '/guilds/{guild_id}/stickers';
const GUILD_STICKER = '/guilds/{guild_id}/stickers/{sticker_id}';

/** A standard or guild sticker. */
export function getSticker(
  rest: RestRequester,
  stickerId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIStickerResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: '/stickers/{sticker_id}',
    params: { sticker_id: stickerId },
  });
}

export function listGuildStickers(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildStickersResult> {
  return rest.request({ ...options, method: 'GET', route: GUILD_STICKERS, params: { guild_id: guildId } });
}

export function getGuildSticker(
  rest: RestRequester,
  guildId: string,
  stickerId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIGuildStickerResult> {
  return rest.request({
    ...options,
    method: 'GET',
    route: GUILD_STICKER,
    params: { guild_id: guildId, sticker_id: stickerId },
  });
}

export interface NewGuildSticker {
  /** 2-30 characters. */
  name: string;
  /** Autocomplete/suggestion tags, up to 200 characters. */
  tags: string;
  /** Empty or 2-100 characters. */
  description?: string;
  /** PNG, APNG, GIF or Lottie JSON, at most 512 KiB. */
  file: RestFile;
}

/** Upload a sticker: the one endpoint whose multipart body is plain fields plus a part named `file`. */
export function createGuildSticker(
  rest: RestRequester,
  guildId: string,
  sticker: NewGuildSticker,
  options: ReasonOptions = {},
): Promise<RESTPostAPIGuildStickerResult> {
  return rest.request({
    ...options,
    method: 'POST',
    route: GUILD_STICKERS,
    params: { guild_id: guildId },
    form: { name: sticker.name, tags: sticker.tags, description: sticker.description ?? '' },
    files: [{ ...sticker.file, key: 'file' }],
  });
}

export function editGuildSticker(
  rest: RestRequester,
  guildId: string,
  stickerId: string,
  patch: RESTPatchAPIGuildStickerJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIGuildStickerResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: GUILD_STICKER,
    params: { guild_id: guildId, sticker_id: stickerId },
    body: patch,
  });
}

export async function deleteGuildSticker(
  rest: RestRequester,
  guildId: string,
  stickerId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({
    ...options,
    method: 'DELETE',
    route: GUILD_STICKER,
    params: { guild_id: guildId, sticker_id: stickerId },
  });
}
