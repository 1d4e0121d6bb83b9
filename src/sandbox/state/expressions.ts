/**
 * Custom emojis and stickers: a guild's, kept on its record (made on first use), and the application's own
 * (discord-api-docs "Emoji" Application-Owned Emoji: up to 2000, usable by the app anywhere). Changes go out as
 * GUILD_EMOJIS_UPDATE / GUILD_STICKERS_UPDATE with the guild's whole list (protocol §11.15).
 */
import type { EmojiRecord, StickerRecord } from './assets-model.js';
import { emojiObject, stickerObject } from './assets-serialize.js';
import type { GuildRecord } from './model.js';
import type { SandboxStore } from './store.js';

const appEmojisOf = new WeakMap<SandboxStore, Map<string, EmojiRecord>>();

export function guildEmojis(guild: GuildRecord): Map<string, EmojiRecord> {
  return (guild.emojis ??= new Map());
}

export function guildStickers(guild: GuildRecord): Map<string, StickerRecord> {
  return (guild.stickers ??= new Map());
}

export function applicationEmojis(store: SandboxStore): Map<string, EmojiRecord> {
  let map = appEmojisOf.get(store);
  if (map === undefined) appEmojisOf.set(store, (map = new Map()));
  return map;
}

/** A custom emoji the bot may use in a guild (null: a DM): that guild's own or one of the application's. */
export function usableEmoji(store: SandboxStore, guild: GuildRecord | null, id: string): EmojiRecord | undefined {
  return (guild === null ? undefined : guild.emojis?.get(id)) ?? applicationEmojis(store).get(id);
}

/** A guild sticker by id alone (GET /stickers/{id}); the sandbox has no standard sticker packs. */
export function findSticker(store: SandboxStore, id: string): StickerRecord | undefined {
  for (const guild of store.guilds) {
    const s = guild.stickers?.get(id);
    if (s !== undefined) return s;
  }
  return undefined;
}

export function emitEmojis(store: SandboxStore, guild: GuildRecord): void {
  guild.payloadCache.clear();
  const emojis = [...guildEmojis(guild).values()].map((e) => emojiObject(e));
  store.emit(guild.id, 'GUILD_EMOJIS_UPDATE', JSON.stringify({ guild_id: guild.id, emojis }));
}

export function emitStickers(store: SandboxStore, guild: GuildRecord): void {
  guild.payloadCache.clear();
  const stickers = [...guildStickers(guild).values()].map((s) => stickerObject(s));
  store.emit(guild.id, 'GUILD_STICKERS_UPDATE', JSON.stringify({ guild_id: guild.id, stickers }));
}
