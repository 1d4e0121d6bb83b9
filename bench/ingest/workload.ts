/**
 * The ingest benchmark's workload: every gateway message a bot receives on one connection, serialized once
 * as the service sends it, and the state a correct client must end up with.
 *
 * Stream: HELLO, then READY (every guild unavailable), one GUILD_CREATE per guild carrying its roles,
 * channels and every member, then the live events: a seeded mix of GUILD_MEMBER_UPDATE (full member
 * objects, as the service sends them; every one changes the nick, so every library reports it),
 * GUILD_MEMBER_ADD, GUILD_MEMBER_REMOVE, ENTITLEMENT_CREATE, ENTITLEMENT_UPDATE (sets ends_at) and
 * INTERACTION_CREATE (a slash command the subject answers through REST).
 *
 * The first `quietPerGuild` members of each guild never change: interactions come from them, so the
 * member an INTERACTION_CREATE carries is exactly what the cache already holds. The first
 * `sharedPerGuild` of them are users shared between guilds.
 */
import { Prng, seedOf } from '../lib/prng.js';

const DISCORD_EPOCH = 1_420_070_400_000n;

export interface IngestWorkloadOptions {
  guilds: number;
  membersPerGuild: number;
  rolesPerGuild: number;
  /** Channels per guild: a category per five, text and voice channels in them, with permission overwrites. */
  channelsPerGuild: number;
  /** Active threads per guild (GUILD_CREATE's `threads`). */
  threadsPerGuild: number;
  events: number;
  /** Members per guild that are never updated or removed (interaction authors). */
  quietPerGuild: number;
  /** Of the quiet members, this many per guild are users drawn from a pool shared by all guilds. */
  sharedPerGuild: number;
  sharedUsers: number;
  /** Members sampled per guild for the final-state check. */
  samplePerGuild: number;
  seed: number;
  /**
   * Percent of live events that are INTERACTION_CREATE (1 to 100; the other kinds keep their proportions).
   * Unset: EVENT_MIX's 1%. Raised to weigh the REST answer path (100: every event is a command to answer).
   */
  interactionPercent?: number;
}

export const DEFAULT_INGEST_WORKLOAD: IngestWorkloadOptions = {
  guilds: 200,
  membersPerGuild: 1000,
  rolesPerGuild: 20,
  channelsPerGuild: 6,
  threadsPerGuild: 2,
  events: 100_000,
  quietPerGuild: 50,
  sharedPerGuild: 20,
  sharedUsers: 2000,
  samplePerGuild: 8,
  seed: 0x1e57,
};

export const QUICK_INGEST_WORKLOAD: Partial<IngestWorkloadOptions> = {
  guilds: 20,
  membersPerGuild: 500,
  events: 10_000,
  sharedUsers: 200,
};

/** Share of each live event kind, in percent (sums to 100). */
export const EVENT_MIX = {
  GUILD_MEMBER_UPDATE: 56,
  GUILD_MEMBER_ADD: 15,
  GUILD_MEMBER_REMOVE: 15,
  ENTITLEMENT_CREATE: 7,
  ENTITLEMENT_UPDATE: 6,
  INTERACTION_CREATE: 1,
} as const;
export type LiveEvent = keyof typeof EVENT_MIX;
export const LIVE_EVENTS = Object.keys(EVENT_MIX) as LiveEvent[];

/** EVENT_MIX with INTERACTION_CREATE at `percent` and the other kinds scaled to the rest (shares may be fractional). */
export function eventMix(percent: number | undefined): Record<LiveEvent, number> {
  if (percent === undefined) return { ...EVENT_MIX };
  if (!(percent >= 1 && percent <= 100)) throw new Error(`interaction percent must be 1 to 100, not ${percent}`);
  const others = 100 - EVENT_MIX.INTERACTION_CREATE;
  const mix = {} as Record<LiveEvent, number>;
  for (const e of LIVE_EVENTS) mix[e] = e === 'INTERACTION_CREATE' ? percent : (EVENT_MIX[e] * (100 - percent)) / others;
  return mix;
}

/** The slash command every interaction invokes; subjects answer it with one callback. */
export const BENCH_COMMAND = { type: 1, name: 'ping', description: 'Answers pong (ingest benchmark)' } as const;
export const APPLICATION_ID = '1100000000000000001';
export const BOT_USER_ID = '1100000000000000002';
const SKUS = ['1100000000000000101', '1100000000000000102', '1100000000000000103'];

export interface ExpectedMember {
  guildId: string;
  userId: string;
  nick: string | null;
  /** Sorted role ids (without @everyone). */
  roles: string[];
}

export interface ExpectedEntitlement {
  id: string;
  userId: string;
  skuId: string;
  /** ms since the epoch, or null while ongoing. */
  endsAt: number | null;
}

/** What a subject must hold after the whole stream, and what it must have seen. */
export interface ExpectedState {
  guilds: number;
  members: number;
  /** Cached members per guild id, in guild order. */
  membersPerGuild: Array<[string, number]>;
  sample: ExpectedMember[];
  /** Members known to be gone (removed): a subject must not hold them. */
  removedSample: Array<{ guildId: string; userId: string }>;
  entitlements: ExpectedEntitlement[];
  /** Live events by type. */
  events: Record<LiveEvent, number>;
  /** GUILD_MEMBER_* events (what the counting plugin counts). */
  memberEvents: number;
  /** Channels and active threads of every guild's GUILD_CREATE. */
  channels: number;
  threads: number;
}

/** One serialized message and where it may be followed by an inserted heartbeat ACK (see frames.ts). */
export interface WorkloadMessages {
  hello: string;
  /** READY and every GUILD_CREATE. */
  startup: string[];
  events: string[];
  expected: ExpectedState;
}

function snowflake(ms: number, low: number): string {
  return (((BigInt(ms) - DISCORD_EPOCH) << 22n) | BigInt(low & 0x3fffff)).toString();
}

function iso(ms: number): string {
  // The service's format: microseconds and an explicit offset.
  return `${new Date(ms).toISOString().slice(0, 23)}000+00:00`;
}

const BASE_MS = Date.UTC(2024, 5, 1);
const TAGS = ['GG', 'ZEN', 'LOFI', 'CATS', 'DEV', 'ART'];
const PUBLIC_FLAGS = [0, 0, 0, 0, 0, 0, 64, 128, 256, 4194304];

export class IngestWorkload {
  readonly options: IngestWorkloadOptions;
  private seq = 0;

  constructor(options: Partial<IngestWorkloadOptions> = {}) {
    this.options = { ...DEFAULT_INGEST_WORKLOAD, ...options };
    const o = this.options;
    if (o.sharedPerGuild > o.quietPerGuild) throw new Error('sharedPerGuild must not exceed quietPerGuild');
    if (o.sharedPerGuild > o.sharedUsers) throw new Error('sharedPerGuild must not exceed sharedUsers');
    if (o.quietPerGuild >= o.membersPerGuild) throw new Error('quietPerGuild must be below membersPerGuild');
  }

  guildId(g: number): string {
    return snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000, seedOf(g, 1));
  }

  private roleId(g: number, r: number): string {
    // Role 0 is @everyone, whose id is the guild id.
    if (r === 0) return this.guildId(g);
    return snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000 + r * 3_600_000, seedOf(g, 100 + r));
  }

  /** User index of member slot i of guild g (slots past membersPerGuild are later joins). */
  private userIndex(g: number, i: number): number {
    const o = this.options;
    if (i < o.sharedPerGuild) return (g * 7 + i) % o.sharedUsers;
    return o.sharedUsers + g * 1_000_000 + i;
  }

  private userId(u: number): string {
    return snowflake(Date.UTC(2016, 0, 1) + (u % 1_000_000) * 7919 + Math.floor(u / 1_000_000) * 13, seedOf(u, 7));
  }

  private user(u: number, version: number): Record<string, unknown> {
    const r = new Prng(seedOf(u, 11));
    const username = r.word(4, 14);
    const globalName = r.chance(0.7) ? `${username[0]!.toUpperCase()}${r.word(3, 10)}` : null;
    let avatar: string | null = r.chance(0.75) ? `${r.chance(0.1) ? 'a_' : ''}${r.hex(32)}` : null;
    // A user's avatar changes with some member updates (the service then sends both in one event).
    if (version > 0 && version % 5 === 4) avatar = new Prng(seedOf(u, version)).hex(32);
    const bot = r.chance(0.02);
    const tagged = r.chance(0.1);
    const primaryGuild = tagged
      ? { identity_guild_id: snowflake(Date.UTC(2019, 0, 1), r.int(50)), identity_enabled: true, tag: r.pick(TAGS), badge: r.hex(32) }
      : null;
    const flags = r.pick(PUBLIC_FLAGS);
    const user: Record<string, unknown> = {
      id: this.userId(u),
      username,
      avatar,
      discriminator: bot ? String(1000 + r.int(9000)) : '0',
      public_flags: flags,
      flags,
      banner: null,
      accent_color: null,
      global_name: globalName,
      avatar_decoration_data: null,
      collectibles: null,
      display_name_styles: null,
      banner_color: null,
      clan: primaryGuild,
      primary_guild: primaryGuild,
    };
    if (bot) user.bot = true;
    return user;
  }

  /** Nick and roles of member slot i of guild g at a version: every version has its own nick. */
  private memberState(g: number, i: number, version: number): { nick: string | null; roles: string[] } {
    const base = new Prng(seedOf(g * 1_000_003 + i, 21 + version * 977));
    const roles: string[] = [];
    const count = base.int(6);
    for (let k = 0; k < count; k++) {
      const id = this.roleId(g, 1 + base.int(this.options.rolesPerGuild - 1));
      if (!roles.includes(id)) roles.push(id);
    }
    const word = base.word(3, 12);
    const nick = version === 0 ? (base.chance(0.3) ? word : null) : `${word}${version}`;
    return { nick, roles };
  }

  private member(g: number, i: number, version: number): Record<string, unknown> {
    const fixed = new Prng(seedOf(g * 1_000_003 + i, 5));
    const { nick, roles } = this.memberState(g, i, version);
    const u = this.userIndex(g, i);
    return {
      avatar: fixed.chance(0.03) ? fixed.hex(32) : null,
      banner: null,
      communication_disabled_until: null,
      deaf: false,
      flags: fixed.chance(0.1) ? 2 : 0,
      joined_at: iso(BASE_MS - fixed.int(3 * 365 * 86_400_000)),
      mute: false,
      nick,
      pending: false,
      premium_since: fixed.chance(0.02) ? iso(BASE_MS - fixed.int(365 * 86_400_000)) : null,
      roles,
      // Shared users never change: another guild's update must not rewrite them behind its back.
      user: this.user(u, i < this.options.sharedPerGuild ? 0 : version),
      avatar_decoration_data: null,
      collectibles: null,
    };
  }

  private role(g: number, r: number): Record<string, unknown> {
    const p = new Prng(seedOf(g, 500 + r));
    const color = r === 0 ? 0 : p.int(0xffffff);
    return {
      id: this.roleId(g, r),
      name: r === 0 ? '@everyone' : p.word(3, 14),
      description: null,
      color,
      colors: { primary_color: color, secondary_color: null, tertiary_color: null },
      hoist: r > 0 && p.chance(0.3),
      icon: null,
      unicode_emoji: null,
      position: r,
      permissions: r === 0 ? '2248473465835073' : String(BigInt(p.int(0x7fffffff)) << BigInt(p.int(20))),
      managed: false,
      mentionable: p.chance(0.2),
      flags: 0,
    };
  }

  private message(t: string, d: unknown): string {
    return JSON.stringify({ t, s: ++this.seq, op: 0, d });
  }

  private ready(): string {
    const guilds = [];
    for (let g = 0; g < this.options.guilds; g++) guilds.push({ id: this.guildId(g), unavailable: true });
    return this.message('READY', {
      v: 10,
      user_settings: {},
      user: {
        id: BOT_USER_ID,
        username: 'ingest-bench',
        avatar: null,
        discriminator: '0',
        global_name: null,
        bot: true,
        verified: true,
        mfa_enabled: true,
        flags: 0,
        email: null,
      },
      guilds,
      session_id: 'f3d8c2a1b0e94d7c8a6b5e4f3d2c1b0a',
      resume_gateway_url: 'ws://127.0.0.1:9/resume-not-offered',
      shard: [0, 1],
      application: { id: APPLICATION_ID, flags: 8953856 },
      _trace: ['["gateway-bench",{"micros":0}]'],
    });
  }

  private channelCounts(): { channels: number; threads: number } {
    let channels = 0;
    let threads = 0;
    for (let g = 0; g < this.options.guilds; g++) {
      const c = this.channels(g);
      channels += c.channels.length;
      threads += c.threads.length;
    }
    return { channels, threads };
  }

  /**
   * A guild's channels as the service sends them: every fifth a category (the next four in it), the others text
   * channels (a voice channel now and then), each with 0-3 permission overwrites (@everyone, roles, a member) of the
   * kinds real guilds have; and its active threads, in text channels.
   */
  private channels(g: number): { channels: Record<string, unknown>[]; threads: Record<string, unknown>[] } {
    const o = this.options;
    const p = new Prng(seedOf(g, 31));
    const base = Date.UTC(2017, 0, 1) + g * 259_200_000 + 1000;
    const channels: Record<string, unknown>[] = [];
    let category: string | null = null;
    const texts: string[] = [];
    for (let c = 0; c < o.channelsPerGuild; c++) {
      const id = snowflake(base, 1 + c);
      const isCategory = c % 5 === 0 && o.channelsPerGuild > 1;
      const type = isCategory ? 4 : p.chance(0.2) ? 2 : 0;
      const overwrites: Record<string, unknown>[] = [];
      const count = p.int(4);
      for (let k = 0; k < count; k++) {
        const target = k === 0 ? { id: this.guildId(g), type: 0 } : p.chance(0.8) ? { id: this.roleId(g, 1 + p.int(o.rolesPerGuild - 1)), type: 0 } : { id: this.userId(this.userIndex(g, p.int(o.quietPerGuild))), type: 1 };
        if (overwrites.some((x) => x.id === target.id)) continue;
        overwrites.push({ ...target, allow: String(p.chance(0.5) ? 1024 | 2048 | 65536 : 0), deny: String(p.chance(0.5) ? 1024 : 0x800n | (1n << 51n)) });
      }
      channels.push({
        id,
        type,
        name: isCategory ? p.word(4, 12).toUpperCase() : p.word(4, 16),
        position: c,
        parent_id: isCategory ? null : category,
        ...(type === 0 ? { topic: p.chance(0.5) ? p.word(8, 40) : null, last_message_id: null, rate_limit_per_user: p.chance(0.2) ? 10 : 0 } : {}),
        ...(type === 2 ? { bitrate: 64000, user_limit: 0, rtc_region: null } : {}),
        nsfw: false,
        permission_overwrites: overwrites,
        flags: 0,
      });
      if (isCategory) category = id;
      if (type === 0) texts.push(id);
    }
    const threads: Record<string, unknown>[] = [];
    for (let t = 0; t < o.threadsPerGuild && texts.length > 0; t++) {
      threads.push({
        id: snowflake(base + 1, 1 + t),
        type: 11,
        guild_id: this.guildId(g),
        parent_id: texts[t % texts.length],
        owner_id: this.userId(this.userIndex(g, t % o.quietPerGuild)),
        name: p.word(6, 30),
        last_message_id: null,
        message_count: p.int(200),
        member_count: 1 + p.int(20),
        rate_limit_per_user: 0,
        flags: 0,
        total_message_sent: 0,
        thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: iso(BASE_MS), locked: false, create_timestamp: iso(BASE_MS) },
      });
    }
    return { channels, threads };
  }

  private guildCreate(g: number): string {
    const o = this.options;
    const p = new Prng(seedOf(g, 3));
    const roles = [];
    for (let r = 0; r < o.rolesPerGuild; r++) roles.push(this.role(g, r));
    const members = [];
    for (let i = 0; i < o.membersPerGuild; i++) members.push(this.member(g, i, 0));
    const { channels, threads } = this.channels(g);
    return this.message('GUILD_CREATE', {
      id: this.guildId(g),
      name: p.word(4, 16),
      icon: p.hex(32),
      description: null,
      splash: null,
      discovery_splash: null,
      features: ['COMMUNITY'],
      banner: null,
      owner_id: this.userId(this.userIndex(g, o.quietPerGuild)),
      application_id: null,
      afk_channel_id: null,
      afk_timeout: 300,
      system_channel_id: channels[0]?.id ?? null,
      system_channel_flags: 0,
      widget_enabled: false,
      verification_level: 1,
      roles,
      default_message_notifications: 1,
      mfa_level: 0,
      explicit_content_filter: 2,
      max_presences: null,
      max_members: 500000,
      vanity_url_code: null,
      premium_tier: 1,
      premium_subscription_count: 3,
      preferred_locale: 'en-US',
      rules_channel_id: null,
      public_updates_channel_id: null,
      nsfw_level: 0,
      emojis: [],
      stickers: [],
      joined_at: iso(Date.UTC(2023, 0, 1) + g * 60_000),
      large: true,
      unavailable: false,
      member_count: o.membersPerGuild,
      voice_states: [],
      members,
      channels,
      threads,
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    });
  }

  /** Build every message and the expected end state. Deterministic for the same options. */
  build(): WorkloadMessages {
    const o = this.options;
    this.seq = 0;
    const hello = JSON.stringify({ t: null, s: null, op: 10, d: { heartbeat_interval: 41250, _trace: ['["gateway-bench",{"micros":0}]'] } });
    const startup = [this.ready()];
    for (let g = 0; g < o.guilds; g++) startup.push(this.guildCreate(g));

    // Live state: per guild, the member slots present and mutable (not quiet), and each slot's version.
    const mutable: number[][] = [];
    const versions: Array<Map<number, number>> = [];
    const nextSlot: number[] = [];
    for (let g = 0; g < o.guilds; g++) {
      const list: number[] = [];
      for (let i = o.quietPerGuild; i < o.membersPerGuild; i++) list.push(i);
      mutable.push(list);
      versions.push(new Map());
      nextSlot.push(o.membersPerGuild);
    }
    const removed: Array<{ guildId: string; userId: string }> = [];
    const entitlements: ExpectedEntitlement[] = [];
    const openEntitlements: number[] = [];
    const counts = Object.fromEntries(LIVE_EVENTS.map((e) => [e, 0])) as Record<LiveEvent, number>;
    const thresholds: Array<[number, LiveEvent]> = [];
    const mix = eventMix(o.interactionPercent);
    let acc = 0;
    for (const e of LIVE_EVENTS) thresholds.push([(acc += mix[e]), e]);
    // Rounding of fractional shares must not leave a roll past the last threshold.
    thresholds[thresholds.length - 1]![0] = 100;

    const rng = new Prng(o.seed);
    const events: string[] = [];
    for (let n = 0; n < o.events; n++) {
      const roll = rng.int(100);
      let kind = thresholds.find(([limit]) => roll < limit)![1];
      const g = rng.int(o.guilds);
      const guildId = this.guildId(g);
      const list = mutable[g]!;
      if ((kind === 'GUILD_MEMBER_UPDATE' || kind === 'GUILD_MEMBER_REMOVE') && list.length === 0) kind = 'GUILD_MEMBER_ADD';
      if (kind === 'ENTITLEMENT_UPDATE' && openEntitlements.length === 0) kind = 'ENTITLEMENT_CREATE';
      counts[kind]++;
      switch (kind) {
        case 'GUILD_MEMBER_UPDATE': {
          const slot = list[rng.int(list.length)]!;
          const version = (versions[g]!.get(slot) ?? 0) + 1;
          versions[g]!.set(slot, version);
          events.push(this.message(kind, { guild_id: guildId, ...this.member(g, slot, version) }));
          break;
        }
        case 'GUILD_MEMBER_ADD': {
          const slot = nextSlot[g]!++;
          list.push(slot);
          events.push(this.message(kind, { guild_id: guildId, ...this.member(g, slot, 0) }));
          break;
        }
        case 'GUILD_MEMBER_REMOVE': {
          const at = rng.int(list.length);
          const slot = list[at]!;
          list[at] = list[list.length - 1]!;
          list.pop();
          const version = versions[g]!.get(slot) ?? 0;
          versions[g]!.delete(slot);
          const user = this.user(this.userIndex(g, slot), version);
          if (removed.length < o.guilds * o.samplePerGuild) removed.push({ guildId, userId: user.id as string });
          events.push(this.message(kind, { guild_id: guildId, user }));
          break;
        }
        case 'ENTITLEMENT_CREATE': {
          const index = entitlements.length;
          const userId = this.userId(this.userIndex(g, rng.int(o.quietPerGuild)));
          const e: ExpectedEntitlement = {
            id: snowflake(Date.UTC(2024, 6, 1) + index * 1000, seedOf(index, 31)),
            userId,
            skuId: SKUS[index % SKUS.length]!,
            endsAt: null,
          };
          entitlements.push(e);
          openEntitlements.push(index);
          events.push(this.message(kind, this.entitlement(e, index)));
          break;
        }
        case 'ENTITLEMENT_UPDATE': {
          const at = rng.int(openEntitlements.length);
          const index = openEntitlements[at]!;
          openEntitlements[at] = openEntitlements[openEntitlements.length - 1]!;
          openEntitlements.pop();
          const e = entitlements[index]!;
          e.endsAt = BASE_MS + 30 * 86_400_000 + index * 1000;
          events.push(this.message(kind, this.entitlement(e, index)));
          break;
        }
        case 'INTERACTION_CREATE': {
          const slot = rng.int(o.quietPerGuild);
          events.push(this.message(kind, this.interaction(g, slot, n)));
          break;
        }
      }
    }

    // Where the removed ones are concerned, a later GUILD_MEMBER_ADD never reuses a user: slots only grow.
    const membersPerGuild: Array<[string, number]> = [];
    const sample: ExpectedMember[] = [];
    let members = 0;
    for (let g = 0; g < o.guilds; g++) {
      const count = o.quietPerGuild + mutable[g]!.length;
      membersPerGuild.push([this.guildId(g), count]);
      members += count;
      // Sample: two quiet members, then mutable ones spread over the list (updated ones among them).
      const picks = new Set<number>([0, o.quietPerGuild - 1]);
      const list = [...mutable[g]!].sort((a, b) => (versions[g]!.get(b) ?? 0) - (versions[g]!.get(a) ?? 0));
      for (let k = 0; picks.size < o.samplePerGuild && k < list.length; k += Math.max(1, Math.floor(list.length / o.samplePerGuild))) {
        picks.add(list[k]!);
      }
      for (const slot of picks) {
        const version = versions[g]!.get(slot) ?? 0;
        const state = this.memberState(g, slot, version);
        sample.push({
          guildId: this.guildId(g),
          userId: this.userId(this.userIndex(g, slot)),
          nick: state.nick,
          roles: [...state.roles].sort(),
        });
      }
    }
    return {
      hello,
      startup,
      events,
      expected: {
        guilds: o.guilds,
        members,
        membersPerGuild,
        sample,
        removedSample: removed,
        entitlements,
        events: counts,
        memberEvents: counts.GUILD_MEMBER_ADD + counts.GUILD_MEMBER_UPDATE + counts.GUILD_MEMBER_REMOVE,
        ...this.channelCounts(),
      },
    };
  }

  private entitlement(e: ExpectedEntitlement, index: number): Record<string, unknown> {
    return {
      id: e.id,
      sku_id: e.skuId,
      application_id: APPLICATION_ID,
      user_id: e.userId,
      promotion_id: null,
      type: 8,
      deleted: false,
      gift_code_flags: 0,
      consumed: false,
      starts_at: iso(BASE_MS + index * 1000),
      ends_at: e.endsAt === null ? null : iso(e.endsAt),
      subscription_id: snowflake(Date.UTC(2024, 6, 1) + index * 1000, seedOf(index, 32)),
    };
  }

  private interaction(g: number, slot: number, n: number): Record<string, unknown> {
    const member = this.member(g, slot, 0);
    const guildId = this.guildId(g);
    const channelId = snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000 + 1000, 1);
    return {
      version: 1,
      type: 2,
      token: `aW50ZXJhY3Rpb246${n.toString(36).padStart(8, '0')}${'x'.repeat(140)}`,
      member: { ...member, permissions: '2248473465835073' },
      locale: 'en-US',
      id: snowflake(Date.UTC(2024, 7, 1) + n, seedOf(n, 41)),
      guild_locale: 'en-US',
      guild_id: guildId,
      guild: { id: guildId, locale: 'en-US', features: ['COMMUNITY'] },
      entitlements: [],
      entitlement_sku_ids: [],
      data: { type: 1, name: BENCH_COMMAND.name, id: '1100000000000000201' },
      context: 0,
      channel_id: channelId,
      channel: { id: channelId, type: 0, name: 'channel-0', guild_id: guildId, flags: 0, position: 0, permissions: '2248473465835073' },
      authorizing_integration_owners: { '0': guildId },
      application_id: APPLICATION_ID,
      app_permissions: '2248473465835073',
      attachment_size_limit: 10485760,
    };
  }
}
