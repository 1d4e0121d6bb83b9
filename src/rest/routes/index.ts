/**
 * One function per endpoint, grouped by resource. Each takes the client (anything with `request`) first,
 * so a request goes through the client's buckets, global limit, retries and typed errors like any other.
 */
export * from './applications.js';
export * from './audit-log.js';
export * from './auto-moderation.js';
export * from './bans.js';
export * from './channels.js';
export * from './commands.js';
export * from './emojis.js';
export * from './entitlements.js';
export * from './gateway.js';
export * from './guilds.js';
export * from './interactions.js';
export * from './invites.js';
export * from './lobbies.js';
export * from './members.js';
export * from './messages.js';
export * from './oauth2.js';
export * from './permissions.js';
export * from './pins.js';
export * from './polls.js';
export * from './reactions.js';
export * from './roles.js';
export * from './scheduled-events.js';
export * from './skus.js';
export * from './stage-instances.js';
export * from './stickers.js';
export * from './threads.js';
export * from './users.js';
export * from './voice.js';
export * from './webhooks.js';
export type { FileOptions, ReasonFileOptions, ReasonOptions } from './options.js';
