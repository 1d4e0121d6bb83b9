/**
 * What the expression and event routes share: the permission bits they name (protocol §12.5), the "own or
 * manage" rule for editing an emoji, sticker or event (discord-api-docs "Emoji" Modify Guild Emoji: for ones the
 * bot created, either CREATE_GUILD_EXPRESSIONS or MANAGE_GUILD_EXPRESSIONS; for others MANAGE_GUILD_EXPRESSIONS),
 * and the image data URI check of emoji uploads (discord-api-docs "Reference" Image Data).
 */
import { Errors } from '../../errors.js';
import type { GuildRecord } from '../../state/model.js';
import type { SandboxStore } from '../../state/store.js';
import type { FormErrors, Json } from './guild-access.js';

export const MANAGE_GUILD_EXPRESSIONS = 1n << 30n;
export const CREATE_GUILD_EXPRESSIONS = 1n << 43n;
export const MANAGE_EVENTS = 1n << 33n;
export const CREATE_EVENTS = 1n << 44n;

/** Whether the bot holds any of `bits` in the guild. */
export function holdsAny(store: SandboxStore, guild: GuildRecord, bits: bigint): boolean {
  return (store.permissionsOf(guild, store.applicationId) & bits) !== 0n;
}

/** Editing or deleting something `creatorId` made: its maker needs `create` or `manage`, anyone else `manage`. */
export function requireOwnOrManage(store: SandboxStore, guild: GuildRecord, creatorId: string, create: bigint, manage: bigint): void {
  const need = creatorId === store.applicationId ? create | manage : manage;
  if (!holdsAny(store, guild, need)) throw Errors.missingPermissions();
}

/** Image data: `data:image/<type>;base64,<data>`; the types the service takes for emojis. */
const DATA_URI = /^data:image\/(png|jpeg|jpg|gif|webp|avif);base64,([A-Za-z0-9+/]*={0,2})$/;

export interface ImageData {
  type: string;
  bytes: number;
}

/**
 * The image data at `field` (required), at most `maxBytes` once decoded: 50035 IMAGE_INVALID when it is not image
 * data, BINARY_TYPE_MAX_SIZE when it is too large (discord-api-docs "Emoji": 256 KiB for emojis).
 */
export function imageField(form: FormErrors, body: Json, field: string, maxBytes: number): ImageData | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    form.add([field], 'BASE_TYPE_REQUIRED', 'This field is required');
    return undefined;
  }
  const m = typeof v === 'string' ? DATA_URI.exec(v) : null;
  if (m === null || m[2]!.length === 0) {
    form.add([field], 'IMAGE_INVALID', 'Invalid image data');
    return undefined;
  }
  const data = m[2]!;
  const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (bytes > maxBytes) {
    form.add([field], 'BINARY_TYPE_MAX_SIZE', `File cannot be larger than ${(maxBytes / 1024).toFixed(1)} kb.`);
    return undefined;
  }
  return { type: m[1]!, bytes };
}
