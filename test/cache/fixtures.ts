/** Gateway payloads for cache tests, in the shapes of reference §11-13. */

export const GUILD_A = '200000000000000001';
export const GUILD_B = '200000000000000002';
export const BOT_ID = '100000000000000001';
export const OWNER_ID = '300000000000000001';
export const ROLE_MOD = '400000000000000001';
export const ROLE_VIP = '400000000000000002';
export const ROLE_NEW = '400000000000000003';
export const SKU = '500000000000000001';
export const OTHER_SKU = '500000000000000002';
export const APP_ID = '600000000000000001';

/** Distinct user ids of different lengths, so numeric and string order differ. */
export const USER_1 = '81384788765712384';
export const USER_2 = '300000000000000002';
export const USER_3 = '1000000000000000003';
export const AVATAR = '8342729096ea3675442027381ff50dfe';

export function user(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    username: `user_${id.slice(-4)}`,
    discriminator: '0',
    global_name: `User ${id.slice(-4)}`,
    avatar: AVATAR,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
    ...extra,
  };
}

export function member(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    user: user(id),
    nick: null,
    avatar: null,
    banner: null,
    roles: [],
    joined_at: '2021-03-13T19:19:14.040000+00:00',
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
    ...extra,
  };
}

export function role(id: string, position: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `role-${position}`,
    color: 0x3498db,
    colors: { primary_color: 0x3498db, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: '1071698660929',
    managed: false,
    mentionable: false,
    flags: 0,
    ...extra,
  };
}

export function guildCreate(id: string, members: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `guild ${id.slice(-2)}`,
    icon: null,
    owner_id: OWNER_ID,
    roles: [
      role(id, 0, { name: '@everyone', permissions: '2248473465835073' }),
      role(ROLE_MOD, 2, { name: 'mod', permissions: '8' }),
      role(ROLE_VIP, 1, { name: 'vip', colors: { primary_color: 1, secondary_color: 2, tertiary_color: 3 } }),
    ],
    features: [],
    joined_at: '2023-01-01T00:00:00.000000+00:00',
    large: false,
    unavailable: false,
    member_count: members.length,
    members,
    channels: [],
    threads: [],
    presences: [],
    voice_states: [],
    ...extra,
  };
}

export function ready(guildIds: string[]): Record<string, unknown> {
  return {
    v: 10,
    user: user(BOT_ID, { bot: true, username: 'gatehouse-bot' }),
    guilds: guildIds.map((id) => ({ id, unavailable: true })),
    session_id: 'abc',
    resume_gateway_url: 'wss://gateway.example',
    application: { id: APP_ID, flags: 0 },
  };
}

export function entitlement(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    sku_id: SKU,
    application_id: APP_ID,
    user_id: USER_1,
    type: 8,
    deleted: false,
    starts_at: '2024-10-01T00:00:00.000000+00:00',
    ends_at: null,
    ...extra,
  };
}

export const ms = (iso: string): number => Date.parse(iso);

/** The n-th guild id (n >= 0) whose events go to `shard` of `count` shards ((id >> 22) % count). */
export function guildOnShard(shard: number, count: number, n: number): string {
  const k = 50_000_000_000n + BigInt(n * count + shard);
  return ((k << 22n) + BigInt(n + 1)).toString();
}

/** READY of one shard (`shard: [id, count]`), as the service sends it to a sharded session. */
export function readyOnShard(guildIds: string[], shard: number, count: number): Record<string, unknown> {
  return { ...ready(guildIds), shard: [shard, count] };
}

/** An INTERACTION_CREATE (slash command in a guild) listing the invoking user's entitlements. */
export function interaction(guildId: string, userId: string, entitlements: Record<string, unknown>[]): Record<string, unknown> {
  return {
    id: '900000000000000001',
    application_id: APP_ID,
    type: 2,
    guild_id: guildId,
    channel_id: '900000000000000002',
    member: { ...member(userId), permissions: '0' },
    token: 'token',
    version: 1,
    app_permissions: '0',
    locale: 'en-US',
    entitlements,
    authorizing_integration_owners: { '0': guildId },
    data: { id: '900000000000000003', name: 'perks', type: 1 },
  };
}
