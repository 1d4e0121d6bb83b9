/**
 * Wire JSON of the sandbox's records. Hot payloads (members, GUILD_CREATE) are built as strings from cached
 * pieces so that the gateway can send a million members without re-serializing objects.
 */
import type { ChannelRecord, EntitlementRecord, GuildRecord, MemberRecord, RoleRecord, SkuRecord, ThreadState, UserRecord } from './model.js';
import type { OverwriteRecord } from './permissions.js';
import { emojiObject, stickerObject } from './assets-serialize.js';

export function userObject(u: UserRecord): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: u.id,
    username: u.username,
    global_name: u.globalName,
    discriminator: '0',
    avatar: u.avatar ?? null,
    public_flags: 0,
    flags: 0,
    banner: u.banner ?? null,
    accent_color: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
  };
  if (u.bot) o.bot = true;
  return o;
}

/** Everything of a user object after `global_name` (the sandbox's users have no avatars, banners, ...). */
export const USER_JSON_TAIL =
  ',"discriminator":"0","avatar":null,"public_flags":0,"flags":0,"banner":null,"accent_color":null,' +
  '"avatar_decoration_data":null,"collectibles":null,"primary_guild":null';

/** The user object's JSON, built directly (it is on every member of every chunk). */
export function userJson(u: UserRecord): string {
  if (u.json !== undefined) return u.json;
  if ((u.avatar ?? null) !== null || (u.banner ?? null) !== null) return (u.json = JSON.stringify(userObject(u)));
  const json =
    `{"id":"${u.id}","username":${JSON.stringify(u.username)},"global_name":${u.globalName === null ? 'null' : JSON.stringify(u.globalName)}` +
    `${USER_JSON_TAIL}${u.bot ? ',"bot":true' : ''}}`;
  u.json = json;
  return json;
}

const DAY_MS = 86_400_000;
let isoDay = -1;
let isoDayPrefix = '';

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * ISO 8601 of an epoch ms, as the service writes timestamps. Much cheaper than Date#toISOString for runs of
 * timestamps on the same day (a member list), which is what serialization formats.
 */
export function isoTime(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDay = day;
    isoDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  return `${isoDayPrefix}${pad(h, 2)}:${pad(m, 2)}:${pad(sec, 2)}.${pad(rest - sec * 1000, 3)}000+00:00`;
}

/** Member object without `user` (as in resolved.members), plus `permissions` where given. */
export function partialMemberObject(m: MemberRecord): Record<string, unknown> {
  return {
    nick: m.nick,
    avatar: null,
    banner: null,
    roles: m.roles,
    joined_at: isoTime(m.joinedAt),
    premium_since: null,
    pending: false,
    flags: m.flags,
    communication_disabled_until: timeoutOf(m),
  };
}

/** A member's communication_disabled_until as the service writes it (null when none was set). */
function timeoutOf(m: MemberRecord): string | null {
  const until = m.communicationDisabledUntil;
  return until === undefined || until === null ? null : new Date(until).toISOString().replace('Z', '+00:00');
}

export function memberObject(m: MemberRecord, u: UserRecord): Record<string, unknown> {
  return { user: userObject(u), ...partialMemberObject(m), deaf: m.deaf === true, mute: m.mute === true };
}

/** Member JSON around its user's JSON, built from the compact record (cheap enough not to cache a million). */
export function memberJson(m: MemberRecord, userJsonText: string): string {
  const roles = m.roles.length === 0 ? '[]' : `["${m.roles.join('","')}"]`;
  return (
    `{"user":${userJsonText},"nick":${m.nick === null ? 'null' : JSON.stringify(m.nick)},"avatar":null,"banner":null,` +
    `"roles":${roles},"joined_at":"${isoTime(m.joinedAt)}","premium_since":null,"deaf":${m.deaf === true},` +
    `"mute":${m.mute === true},"pending":false,"flags":${m.flags},"communication_disabled_until":${JSON.stringify(timeoutOf(m))}}`
  );
}

/** `{"guild_id":"..", ...member}` without re-serializing the member. */
export function memberJsonWithGuild(guildId: string, memberJsonText: string): string {
  return `{"guild_id":"${guildId}",${memberJsonText.slice(1)}`;
}

export function roleObject(r: RoleRecord): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: r.id,
    name: r.name,
    description: null,
    color: r.color,
    colors: { primary_color: r.color, secondary_color: null, tertiary_color: null },
    hoist: r.hoist,
    icon: null,
    unicode_emoji: null,
    position: r.position,
    permissions: r.permissions.toString(),
    managed: r.managed,
    mentionable: r.mentionable,
    flags: 0,
  };
  if (r.botId !== undefined) o.tags = { bot_id: r.botId };
  return o;
}

export function channelObject(c: ChannelRecord, guildId: string): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: c.id,
    type: c.type,
    guild_id: guildId,
    name: c.name,
    position: c.position,
    parent_id: c.parentId,
    permission_overwrites: (c.overwrites ?? []).map(overwriteObject),
    nsfw: c.nsfw,
    flags: 0,
  };
  if (c.thread !== undefined) return threadObject(c, c.thread, o);
  if (c.type === 0 || c.type === 5) {
    o.topic = c.topic;
    o.last_message_id = null;
    o.rate_limit_per_user = c.rateLimitPerUser ?? 0;
  } else if (c.type === 2 || c.type === 13) {
    o.bitrate = c.bitrate ?? 64_000;
    o.user_limit = c.userLimit ?? 0;
    o.rtc_region = null;
    o.rate_limit_per_user = c.rateLimitPerUser ?? 0;
  }
  return o;
}

export function overwriteObject(o: OverwriteRecord): Record<string, unknown> {
  return { id: o.id, type: o.type, allow: o.allow.toString(), deny: o.deny.toString() };
}

/** A thread channel: no position or overwrites of its own; its metadata, counts and owner. */
function threadObject(c: ChannelRecord, t: ThreadState, base: Record<string, unknown>): Record<string, unknown> {
  const { id, type, guild_id, name, parent_id } = base;
  return {
    id,
    type,
    guild_id,
    name,
    parent_id,
    owner_id: t.ownerId,
    last_message_id: null,
    rate_limit_per_user: c.rateLimitPerUser ?? 0,
    flags: 0,
    message_count: t.messageCount,
    member_count: Math.min(t.members.size, 50),
    total_message_sent: t.totalMessageSent,
    thread_metadata: {
      archived: t.archived,
      auto_archive_duration: t.autoArchiveDuration,
      archive_timestamp: new Date(t.archiveTimestamp).toISOString(),
      locked: t.locked,
      ...(c.type === 12 ? { invitable: t.invitable } : {}),
      create_timestamp: new Date(t.createTimestamp).toISOString(),
    },
  };
}

/** The guild object (protocol §12.4) without GUILD_CREATE extras. */
export function guildObject(g: GuildRecord): Record<string, unknown> {
  const firstText = g.channels.find((c) => c.type === 0);
  return {
    id: g.id,
    name: g.name,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: g.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 1,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: g.roles.map(roleObject),
    emojis: [...(g.emojis?.values() ?? [])].map((e) => emojiObject(e)),
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: firstText?.id ?? null,
    system_channel_flags: 0,
    rules_channel_id: null,
    max_presences: null,
    max_members: 500_000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: g.premiumTier,
    premium_subscription_count: 0,
    preferred_locale: g.preferredLocale,
    public_updates_channel_id: null,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    nsfw_level: 0,
    stickers: [...(g.stickers?.values() ?? [])].map((st) => stickerObject(st)),
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    incidents_data: null,
    // Still sent by the service, and required by its published description: voice regions moved to channels
    // (the guild's own reads "deprecated"), and the guild-level NSFW flag gave way to nsfw_level.
    home_header: null,
    region: 'deprecated',
    nsfw: false,
    // What PATCH /guilds/{id} changed, over the defaults above.
    ...(g.settings !== undefined ? Object.fromEntries(g.settings) : {}),
  };
}

export function skuObject(s: SkuRecord, applicationId: string): Record<string, unknown> {
  return { id: s.id, type: s.type, dependent_sku_id: null, application_id: applicationId, manifest_labels: null, access_type: 1, name: s.name, features: [], release_date: null, premium: false, slug: s.slug, flags: s.flags, show_age_gate: false };
}

/** An entitlement; a guild's has no `user_id` (optional in the API docs and discord-api-types, never null). */
export function entitlementObject(e: EntitlementRecord, applicationId: string): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: e.id,
    sku_id: e.skuId,
    application_id: applicationId,
    ...(e.userId !== null ? { user_id: e.userId } : {}),
    guild_id: e.guildId,
    type: e.type,
    deleted: e.deleted,
    starts_at: e.startsAt,
    ends_at: e.endsAt,
    consumed: e.consumed,
    promotion_id: null,
    gift_code_flags: 0,
  };
  if (e.subscriptionId !== null) o.subscription_id = e.subscriptionId;
  return o;
}

/**
 * `d` of MESSAGE_CREATE / MESSAGE_UPDATE for a bot's message: in a guild with `guild_id` and the bot's partial
 * `member` (`bot`, its member record there).
 */
export function messageDispatchJson(guild: GuildRecord | null, bot: MemberRecord | undefined, message: Record<string, unknown>): string {
  if (guild === null) return JSON.stringify(message);
  const extra: Record<string, unknown> = { guild_id: guild.id };
  if (bot) extra.member = partialMemberObject(bot);
  return JSON.stringify({ ...message, ...extra });
}
