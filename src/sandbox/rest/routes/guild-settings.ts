/**
 * PATCH /guilds/{guild_id} (discord-api-docs "Modify Guild"): the bot needs MANAGE_GUILD. The fields of the
 * published description's GuildPatchRequestPartial are checked (types, the documented choices and lengths,
 * channels of the guild of the right type) and applied only when all are valid; the answer is the guild, and
 * GUILD_UPDATE (intent GUILDS) carries it. Image fields take image data as everywhere (a hash is kept).
 */
import type { SandboxCore } from '../../core.js';
import { emptyErrorTree } from '../../errors.js';
import { LOCALES } from '../../locales.js';
import type { GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import { guildObject } from '../../state/serialize.js';
import type { RestContext, RouteDef } from '../types.js';
import { FormErrors, guildOf, objectBody, requireGuildPermission, type Json } from './guild-access.js';
import { imageHash } from './identity.js';

const AFK_TIMEOUTS = [60, 300, 900, 1800, 3600];
/** Features a guild's managers may switch themselves (discord-api-docs "Mutable Guild Features"). */
const MUTABLE_FEATURES = new Set(['COMMUNITY', 'DISCOVERABLE', 'INVITES_DISABLED', 'RAID_ALERTS_DISABLED']);
const CHANNEL_FIELDS: ReadonlyArray<readonly [field: string, types: readonly number[]]> = [
  ['afk_channel_id', [2]],
  ['system_channel_id', [0]],
  ['rules_channel_id', [0]],
  ['public_updates_channel_id', [0]],
  ['safety_alerts_channel_id', [0]],
];

/** `field` as one of `choices` (null passes through, meaning "back to the default"). */
function choice(form: FormErrors, body: Json, field: string, choices: readonly number[]): number | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== 'number' || !choices.includes(v)) {
    form.add([field], 'BASE_TYPE_CHOICES', `Value must be one of (${choices.join(', ')}).`);
    return undefined;
  }
  return v;
}

/** A channel of the guild, of one of `types`; null clears. */
function channelField(form: FormErrors, guild: GuildRecord, body: Json, field: string, types: readonly number[]): string | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v as null | undefined;
  const channel = typeof v === 'string' ? guild.channels.find((c) => c.id === v) : undefined;
  // Code coined by the sandbox (the service's for a wrong channel here is not public); the message says why.
  if (channel === undefined || !types.includes(channel.type)) form.add([field], 'CHANNEL_INVALID', `Not a ${types.includes(2) ? 'voice' : 'text'} channel of this guild.`);
  else return channel.id;
  return undefined;
}

function features(form: FormErrors, body: Json): string[] | undefined {
  const v = body.features;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((f) => typeof f === 'string')) {
    form.add(['features'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    return undefined;
  }
  // Features a guild cannot switch itself are ignored, as the service keeps them to itself.
  return [...new Set(v.filter((f) => MUTABLE_FEATURES.has(f)))];
}

/** Image fields: data URIs become hashes (icon also sets icon_hash). */
function images(form: FormErrors, body: Json, out: Map<string, unknown>): void {
  const tree = emptyErrorTree();
  for (const field of ['icon', 'splash', 'discovery_splash', 'banner', 'home_header']) {
    const hash = imageHash(tree, field, body[field]);
    if (hash === undefined) continue;
    out.set(field, hash);
    if (field === 'icon') out.set('icon_hash', hash);
  }
  for (const field of Object.keys(tree)) if (field !== '_errors') form.add([field], 'IMAGE_INVALID', 'Invalid image data');
}

/** Every field checked; the changes to apply, keyed as the guild object writes them. */
function guildChanges(guild: GuildRecord, body: Json): Map<string, unknown> {
  const form = new FormErrors();
  const out = new Map<string, unknown>();
  const name = form.string(body, 'name', 2, 100);
  if (typeof name === 'string') out.set('name', name);
  const description = form.string(body, 'description', 0, 120);
  if (description !== undefined) out.set('description', description);
  for (const [field, choices, fallback] of [
    ['verification_level', [0, 1, 2, 3, 4], 1],
    ['default_message_notifications', [0, 1], 0],
    ['explicit_content_filter', [0, 1, 2], 0],
    ['afk_timeout', AFK_TIMEOUTS, 300],
  ] as const) {
    const v = choice(form, body, field, choices);
    if (v !== undefined) out.set(field, v ?? fallback);
  }
  const locale = body.preferred_locale;
  if (locale !== undefined && locale !== null) {
    if (typeof locale !== 'string' || !(LOCALES as readonly string[]).includes(locale)) form.add(['preferred_locale'], 'BASE_TYPE_CHOICES', `Value must be one of (${LOCALES.join(', ')}).`);
    else out.set('preferred_locale', locale);
  }
  for (const [field, types] of CHANNEL_FIELDS) {
    const id = channelField(form, guild, body, field, types);
    if (id !== undefined) out.set(field, id);
  }
  const flags = form.int(body, 'system_channel_flags', 0, 0xff);
  if (flags !== undefined) out.set('system_channel_flags', flags);
  const bar = form.bool(body, 'premium_progress_bar_enabled');
  if (bar !== undefined) out.set('premium_progress_bar_enabled', bar);
  const f = features(form, body);
  if (f !== undefined) out.set('features', f);
  if (body.region !== undefined && body.region !== null && typeof body.region !== 'string') form.add(['region'], 'STRING_TYPE_CONVERT', 'Could not interpret the value as string.');
  images(form, body, out);
  form.throwIfAny();
  return out;
}

export function guildSettingsRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const edit = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.MANAGE_GUILD);
    const changes = guildChanges(guild, objectBody(ctx));
    const name = changes.get('name');
    if (typeof name === 'string') guild.name = name;
    const locale = changes.get('preferred_locale');
    if (typeof locale === 'string') guild.preferredLocale = locale;
    changes.delete('name');
    changes.delete('preferred_locale');
    guild.settings ??= new Map();
    for (const [k, v] of changes) guild.settings.set(k, v);
    guild.payloadCache.clear();
    const body = guildObject(guild);
    store.emit(guild.id, 'GUILD_UPDATE', JSON.stringify(body));
    return body;
  };

  return [{ method: 'PATCH', path: '/guilds/:guildId', bucket: 'guilds.edit', major: 'guildId', auth: 'bot', handler: (ctx) => ({ status: 200, body: edit(ctx) }) }];
}
