/**
 * A deterministic gateway event stream for the decode benchmark: the mix a mid-sized bot sees (member and
 * presence churn, messages, interactions, the odd large GUILD_CREATE), serialized as the service sends it.
 */

/** mulberry32: same seed, same stream. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GatewayWorkload {
  /** Each message as JSON text, in stream order (seq 1..n). */
  messages: string[];
  /** Event name of each message. */
  types: string[];
  bytes: number;
}

export type WorkloadMix = 'steady' | 'startup';

/**
 * `steady`: live traffic (40% GUILD_MEMBER_ADD, 25% MESSAGE_CREATE, 20% PRESENCE_UPDATE, 15% INTERACTION_CREATE).
 * `startup`: GUILD_CREATE only (100 members, 20 channels, 10 roles each), what a shard reads after READY.
 */
export function gatewayWorkload(events: number, mix: WorkloadMix = 'steady', seed = 42): GatewayWorkload {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  let idCounter = 0n;
  const snowflake = () => String(((1_700_000_000_000n - 1_420_070_400_000n) << 22n) + BigInt(++idCounter * 4099n));
  const word = (min: number, max: number) => {
    const len = min + int(max - min + 1);
    let s = '';
    for (let i = 0; i < len; i++) s += 'abcdefghijklmnopqrstuvwxyz0123456789_'[i === 0 ? int(26) : int(37)];
    return s;
  };
  const guildIds = Array.from({ length: 20 }, snowflake);
  const user = () => ({
    id: snowflake(),
    username: word(3, 16),
    global_name: rand() < 0.6 ? word(3, 20) : null,
    avatar: rand() < 0.7 ? word(32, 32) : null,
    discriminator: '0',
    public_flags: int(4) === 0 ? 64 : 0,
    flags: 0,
    bot: rand() < 0.05,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    primary_guild: null,
    collectibles: null,
  });
  const member = (guildId: string | null) => ({
    ...(guildId ? { guild_id: guildId } : {}),
    user: user(),
    roles: Array.from({ length: int(4) }, snowflake),
    nick: rand() < 0.3 ? word(3, 20) : null,
    avatar: null,
    banner: null,
    joined_at: '2024-05-01T10:11:12.131415+00:00',
    premium_since: null,
    deaf: false,
    mute: false,
    pending: false,
    flags: 0,
    communication_disabled_until: null,
  });
  const text = (min: number, max: number) => Array.from({ length: min + int(max - min) }, () => word(2, 9)).join(' ');

  const messages: string[] = [];
  const types: string[] = [];
  let bytes = 0;
  for (let s = 1; s <= events; s++) {
    const roll = mix === 'startup' ? 1 : rand();
    const guildId = guildIds[int(guildIds.length)]!;
    let t: string;
    let d: unknown;
    if (roll < 0.4) {
      t = 'GUILD_MEMBER_ADD';
      d = member(guildId);
    } else if (roll < 0.65) {
      t = 'MESSAGE_CREATE';
      d = {
        type: 0,
        tts: false,
        timestamp: '2024-05-01T10:11:12.131415+00:00',
        pinned: false,
        nonce: snowflake(),
        mentions: [],
        mention_roles: [],
        mention_everyone: false,
        member: { roles: [snowflake()], joined_at: '2024-01-01T00:00:00+00:00', deaf: false, mute: false, flags: 0 },
        id: snowflake(),
        flags: 0,
        embeds: [],
        edited_timestamp: null,
        content: text(3, 40),
        components: [],
        channel_id: snowflake(),
        author: user(),
        attachments: [],
        guild_id: guildId,
      };
    } else if (roll < 0.85) {
      t = 'PRESENCE_UPDATE';
      d = {
        user: { id: snowflake() },
        status: ['online', 'idle', 'dnd'][int(3)],
        guild_id: guildId,
        client_status: { desktop: 'online' },
        activities: rand() < 0.5 ? [{ type: 0, name: word(4, 20), id: word(16, 16), created_at: 1714558272131 }] : [],
      };
    } else if (roll < 1) {
      t = 'INTERACTION_CREATE';
      d = {
        version: 1,
        type: 2,
        token: word(160, 200),
        member: { ...member(null), permissions: '2248473465835073' },
        locale: 'en-US',
        id: snowflake(),
        guild_locale: 'en-US',
        guild_id: guildId,
        entitlements: [],
        data: { type: 1, name: 'roll', id: snowflake(), options: [{ type: 4, name: 'sides', value: 20 }] },
        context: 0,
        channel_id: snowflake(),
        channel: { id: snowflake(), type: 0, name: word(4, 12), guild_id: guildId, flags: 0, position: 3 },
        authorizing_integration_owners: { '0': guildId },
        application_id: snowflake(),
        app_permissions: '2248473465835073',
        attachment_size_limit: 10485760,
      };
    } else {
      t = 'GUILD_CREATE';
      d = {
        id: guildId,
        name: word(5, 20),
        icon: word(32, 32),
        owner_id: snowflake(),
        member_count: 150,
        large: false,
        joined_at: '2024-05-01T10:11:12.131415+00:00',
        roles: Array.from({ length: 10 }, () => ({
          id: snowflake(),
          name: word(3, 15),
          color: int(0xffffff),
          hoist: false,
          position: int(10),
          permissions: '2248473465835073',
          managed: false,
          mentionable: false,
          flags: 0,
        })),
        channels: Array.from({ length: 20 }, (_, i) => ({
          id: snowflake(),
          type: i % 5 === 0 ? 2 : 0,
          name: word(4, 15),
          position: i,
          permission_overwrites: [],
          topic: rand() < 0.5 ? text(3, 15) : null,
          nsfw: false,
          parent_id: null,
        })),
        members: Array.from({ length: 100 }, () => member(null)),
        presences: [],
        voice_states: [],
        threads: [],
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
        emojis: [],
        stickers: [],
        features: ['COMMUNITY'],
        preferred_locale: 'en-US',
        premium_tier: 0,
      };
    }
    const message = JSON.stringify({ t, s, op: 0, d });
    messages.push(message);
    types.push(t);
    bytes += Buffer.byteLength(message);
  }
  return { messages, types, bytes };
}
