/**
 * The cache benchmark's workload: real gateway dispatch payloads (the shapes of reference §11-12), made
 * deterministically so that every subject receives the same events in the same order.
 *
 * Phases: READY (every guild unavailable) -> one GUILD_CREATE per guild carrying its roles, channels and
 * members -> per guild a shuffled mix of GUILD_MEMBER_UPDATE (full member objects, as the service sends
 * them), GUILD_MEMBER_ADD, GUILD_MEMBER_REMOVE, GUILD_UPDATE and GUILD_ROLE_UPDATE.
 *
 * Nothing is retained between batches except one small version counter per member (allocated up front,
 * so a heap baseline taken after `new CacheWorkload()` does not count it against the subject).
 */
import { Prng, seedOf } from '../lib/prng.js';

const DISCORD_EPOCH = 1_420_070_400_000n;

export interface CacheWorkloadOptions {
  guilds: number;
  membersPerGuild: number;
  rolesPerGuild: number;
  channelsPerGuild: number;
  updatesPerGuild: number;
  addsPerGuild: number;
  removesPerGuild: number;
  /** Users that are members of several guilds are drawn from a pool of this size... */
  sharedUsers: number;
  /** ...and this many members of each guild come from that pool. */
  sharedPerGuild: number;
  seed: number;
}

export const DEFAULT_CACHE_WORKLOAD: CacheWorkloadOptions = {
  guilds: 200,
  membersPerGuild: 1000,
  rolesPerGuild: 30,
  channelsPerGuild: 6,
  updatesPerGuild: 600,
  addsPerGuild: 100,
  removesPerGuild: 100,
  sharedUsers: 5000,
  sharedPerGuild: 100,
  seed: 0x6a7e,
};

/** A gateway dispatch as it leaves JSON.parse. */
export interface DispatchPacket {
  op: 0;
  s: number;
  t: string;
  d: Record<string, unknown>;
}

export type Phase = 'ready' | 'guild_create' | 'member_events';

export interface Batch {
  phase: Phase;
  packets: DispatchPacket[];
  /** The same packets as one JSON text (a JSON array), for measuring JSON.parse on its own. */
  json: string;
}

export interface ExpectedCounts {
  guilds: number;
  members: number;
  /** Distinct users among the cached members (users of removed members may or may not stay cached). */
  memberUsers: number;
  roles: number;
  events: number;
  /** Members carried by GUILD_CREATE payloads. */
  membersInGuildCreate: number;
}

function snowflake(ms: number, low: number): string {
  return ((BigInt(ms) - DISCORD_EPOCH) << 22n | BigInt(low & 0x3fffff)).toString();
}

function iso(ms: number): string {
  // The service's format: microseconds and an explicit offset.
  return `${new Date(ms).toISOString().slice(0, 23)}000+00:00`;
}

const GUILD_FEATURES = ['COMMUNITY', 'NEWS', 'INVITE_SPLASH', 'ANIMATED_ICON', 'ROLE_ICONS', 'WELCOME_SCREEN_ENABLED'];
const TAGS = ['GG', 'ZEN', 'LOFI', 'CATS', 'DEV', 'ART', 'FPS', 'MMO'];
const FLAG_CHOICES = [0, 0, 0, 0, 0, 0, 2, 2, 10, 1];
const PUBLIC_FLAGS = [0, 0, 0, 0, 0, 0, 64, 128, 256, 4194304];
const BASE_MS = Date.UTC(2024, 5, 1);

/**
 * Round-trip through JSON so that subjects receive what JSON.parse makes of a frame (flat strings, fresh
 * objects), not the generator's concatenated strings.
 */
function batch(phase: Phase, made: DispatchPacket[]): Batch {
  const json = JSON.stringify(made);
  return { phase, packets: JSON.parse(json) as DispatchPacket[], json };
}

export class CacheWorkload {
  readonly options: CacheWorkloadOptions;
  /** Member version per (guild, member index); bumped by every update. */
  private readonly versions: Uint16Array;
  private readonly stride: number;
  private seq = 0;

  constructor(options: Partial<CacheWorkloadOptions> = {}) {
    this.options = { ...DEFAULT_CACHE_WORKLOAD, ...options };
    const o = this.options;
    if (o.sharedPerGuild > o.sharedUsers) throw new Error('sharedPerGuild must not exceed sharedUsers');
    if (o.removesPerGuild > o.membersPerGuild - o.sharedPerGuild) throw new Error('too many removes');
    this.stride = o.membersPerGuild + o.addsPerGuild;
    this.versions = new Uint16Array(o.guilds * this.stride);
  }

  expected(): ExpectedCounts {
    const o = this.options;
    const perGuildUnique = o.membersPerGuild + o.addsPerGuild - o.removesPerGuild - o.sharedPerGuild;
    const sharedSeen = new Set<number>();
    for (let g = 0; g < o.guilds; g++) {
      for (let i = 0; i < o.sharedPerGuild; i++) sharedSeen.add(this.userIndex(g, i));
    }
    return {
      guilds: o.guilds,
      members: o.guilds * (o.membersPerGuild + o.addsPerGuild - o.removesPerGuild),
      memberUsers: o.guilds * perGuildUnique + sharedSeen.size,
      roles: o.guilds * o.rolesPerGuild,
      events: 1 + o.guilds * (1 + o.updatesPerGuild + o.addsPerGuild + o.removesPerGuild + 2),
      membersInGuildCreate: o.guilds * o.membersPerGuild,
    };
  }

  /** Every batch of the workload, in order. Each batch is built when asked for and owned by the caller. */
  *batches(): Generator<Batch> {
    const o = this.options;
    yield batch('ready', [this.ready()]);
    for (let g = 0; g < o.guilds; g++) yield batch('guild_create', [this.guildCreate(g)]);
    for (let g = 0; g < o.guilds; g++) yield batch('member_events', this.memberEvents(g));
  }

  private packet(t: string, d: Record<string, unknown>): DispatchPacket {
    return { op: 0, s: ++this.seq, t, d };
  }

  guildId(g: number): string {
    return snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000, seedOf(g, 1));
  }

  private roleId(g: number, r: number): string {
    // Role 0 is @everyone, whose id is the guild id.
    if (r === 0) return this.guildId(g);
    return snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000 + r * 3_600_000, seedOf(g, 100 + r));
  }

  private userIndex(g: number, i: number): number {
    const o = this.options;
    if (i < o.sharedPerGuild) return (g * 13 + i) % o.sharedUsers;
    return o.sharedUsers + g * this.stride + i;
  }

  private userId(u: number): string {
    return snowflake(Date.UTC(2016, 0, 1) + u * 7919, seedOf(u, 7));
  }

  private ready(): DispatchPacket {
    const o = this.options;
    const guilds = [];
    for (let g = 0; g < o.guilds; g++) guilds.push({ id: this.guildId(g), unavailable: true });
    return this.packet('READY', {
      v: 10,
      user: { ...this.user(1_000_000_000, 0), bot: true, verified: true, mfa_enabled: true, flags: 0, email: null },
      guilds,
      session_id: 'f3d8c2a1b0e94d7c8a6b5e4f3d2c1b0a',
      resume_gateway_url: 'wss://gateway-us-east1-b.discord.gg',
      shard: [0, 1],
      application: { id: snowflake(Date.UTC(2020, 0, 1), 1), flags: 8953856 },
      _trace: ['["gateway-prd-us-east1-b-abcd",{"micros":31337}]'],
    });
  }

  private user(u: number, version: number): Record<string, unknown> {
    const r = new Prng(seedOf(u, 11));
    const username = r.word(4, 14);
    const hasGlobal = r.chance(0.7);
    const globalName = hasGlobal ? `${username[0]!.toUpperCase()}${r.word(3, 10)}` : null;
    let avatar: string | null = r.chance(0.75) ? `${r.chance(0.1) ? 'a_' : ''}${r.hex(32)}` : null;
    // A unique user's avatar changes with some member updates (GUILD_MEMBER_UPDATE also fires then).
    if (version > 0 && version % 5 === 4) avatar = new Prng(seedOf(u, version)).hex(32);
    const bot = r.chance(0.02);
    const decorated = r.chance(0.05);
    const tagged = r.chance(0.1);
    const primaryGuild = tagged
      ? { identity_guild_id: snowflake(Date.UTC(2019, 0, 1), r.int(50)), identity_enabled: true, tag: r.pick(TAGS), badge: r.hex(32) }
      : null;
    const flags = r.pick(PUBLIC_FLAGS);
    const user: Record<string, unknown> = {
      id: this.userId(u),
      username,
      avatar,
      discriminator: bot || r.chance(0.05) ? String(1000 + r.int(9000)) : '0',
      public_flags: flags,
      flags,
      banner: null,
      accent_color: null,
      global_name: globalName,
      avatar_decoration_data: decorated ? { asset: `a_${r.hex(32)}`, sku_id: snowflake(Date.UTC(2023, 9, 1), r.int(100)), expires_at: null } : null,
      collectibles: null,
      display_name_styles: null,
      banner_color: null,
      clan: primaryGuild,
      primary_guild: primaryGuild,
    };
    if (bot) user.bot = true;
    return user;
  }

  /** The member object for index i of guild g at the given version (the shape GUILD_CREATE carries). */
  private member(g: number, i: number, version: number): Record<string, unknown> {
    const o = this.options;
    const u = this.userIndex(g, i);
    const base = new Prng(seedOf(g * 1_000_003 + i, 21));
    const roles: string[] = [];
    const roleCount = base.int(6);
    for (let k = 0; k < roleCount; k++) {
      const id = this.roleId(g, 1 + base.int(o.rolesPerGuild - 1));
      if (!roles.includes(id)) roles.push(id);
    }
    let nick: string | null = base.chance(0.3) ? base.word(3, 16) : null;
    const joinedMs = BASE_MS - base.int(3 * 365 * 86_400_000);
    const avatar = base.chance(0.03) ? base.hex(32) : null;
    const banner = base.chance(0.01) ? base.hex(32) : null;
    let flags = base.pick(FLAG_CHOICES);
    const premiumSince = base.chance(0.02) ? iso(BASE_MS - base.int(365 * 86_400_000)) : null;
    let timeout: string | null = null;
    if (version > 0) {
      const v = new Prng(seedOf(g * 1_000_003 + i, 1000 + version));
      const kind = v.int(10);
      if (kind < 4) nick = v.chance(0.2) ? null : v.word(3, 16);
      else if (kind < 8) {
        const id = this.roleId(g, 1 + v.int(o.rolesPerGuild - 1));
        const at = roles.indexOf(id);
        if (at >= 0) roles.splice(at, 1);
        else roles.push(id);
      } else if (kind === 8) timeout = iso(BASE_MS + 86_400_000 + v.int(86_400_000));
      else flags |= 2;
    }
    return {
      avatar,
      banner,
      communication_disabled_until: timeout,
      deaf: false,
      flags,
      joined_at: iso(joinedMs),
      mute: false,
      nick,
      pending: false,
      premium_since: premiumSince,
      roles,
      user: this.user(u, u >= o.sharedUsers ? version : 0),
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
      ...(r > 0 && r % 10 === 0 ? { tags: { bot_id: this.userId(1_000_000_000 + r) } } : {}),
    };
  }

  private guildBody(g: number, nameVersion = 0): Record<string, unknown> {
    const p = new Prng(seedOf(g, 3));
    const roles = [];
    for (let r = 0; r < this.options.rolesPerGuild; r++) roles.push(this.role(g, r));
    return {
      id: this.guildId(g),
      name: `${p.word(4, 16)}${nameVersion ? ` v${nameVersion}` : ''}`,
      icon: p.hex(32),
      description: null,
      home_header: null,
      splash: null,
      discovery_splash: null,
      features: GUILD_FEATURES.slice(0, p.int(GUILD_FEATURES.length)),
      banner: null,
      owner_id: this.userId(this.userIndex(g, this.options.sharedPerGuild)),
      application_id: null,
      region: 'us-east',
      afk_channel_id: null,
      afk_timeout: 300,
      system_channel_id: snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000 + 1000, 1),
      system_channel_flags: 0,
      widget_enabled: false,
      widget_channel_id: null,
      verification_level: 1,
      roles,
      default_message_notifications: 1,
      mfa_level: 0,
      explicit_content_filter: 2,
      max_presences: null,
      max_members: 500000,
      max_stage_video_channel_users: 50,
      max_video_channel_users: 25,
      vanity_url_code: null,
      premium_tier: 1,
      premium_subscription_count: 3,
      preferred_locale: 'en-US',
      rules_channel_id: null,
      safety_alerts_channel_id: null,
      public_updates_channel_id: null,
      hub_type: null,
      premium_progress_bar_enabled: false,
      latest_onboarding_question_id: null,
      nsfw: false,
      nsfw_level: 0,
      emojis: [],
      stickers: [],
      incidents_data: null,
      inventory_settings: null,
      embed_enabled: false,
      embed_channel_id: null,
    };
  }

  private guildCreate(g: number): DispatchPacket {
    const o = this.options;
    const members = [];
    for (let i = 0; i < o.membersPerGuild; i++) members.push(this.member(g, i, 0));
    const channels = [];
    for (let c = 0; c < o.channelsPerGuild; c++) {
      channels.push({
        id: snowflake(Date.UTC(2017, 0, 1) + g * 259_200_000 + 1000, 1 + c),
        type: 0,
        name: `channel-${c}`,
        position: c,
        parent_id: null,
        topic: null,
        nsfw: false,
        last_message_id: null,
        rate_limit_per_user: 0,
        permission_overwrites: [],
        flags: 0,
      });
    }
    return this.packet('GUILD_CREATE', {
      ...this.guildBody(g),
      joined_at: iso(Date.UTC(2023, 0, 1) + g * 60_000),
      large: true,
      lazy: true,
      unavailable: false,
      member_count: o.membersPerGuild,
      voice_states: [],
      members,
      channels,
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      application_command_counts: {},
    });
  }

  private memberEvents(g: number): DispatchPacket[] {
    const o = this.options;
    const guildId = this.guildId(g);
    const kinds: number[] = [];
    for (let k = 0; k < o.updatesPerGuild; k++) kinds.push(0);
    for (let k = 0; k < o.addsPerGuild; k++) kinds.push(1);
    for (let k = 0; k < o.removesPerGuild; k++) kinds.push(2);
    kinds.push(3, 4);
    const p = new Prng(seedOf(g, 9));
    for (let k = kinds.length - 1; k > 0; k--) {
      const j = p.int(k + 1);
      [kinds[k], kinds[j]] = [kinds[j]!, kinds[k]!];
    }
    const stableMembers = o.membersPerGuild - o.removesPerGuild;
    let nextAdd = o.membersPerGuild;
    let nextRemove = stableMembers;
    const out: DispatchPacket[] = [];
    for (const kind of kinds) {
      if (kind === 0) {
        const i = p.int(stableMembers);
        const slot = g * this.stride + i;
        const version = ++this.versions[slot]!;
        out.push(this.packet('GUILD_MEMBER_UPDATE', { guild_id: guildId, ...this.member(g, i, version) }));
      } else if (kind === 1) {
        out.push(this.packet('GUILD_MEMBER_ADD', { guild_id: guildId, ...this.member(g, nextAdd++, 0) }));
      } else if (kind === 2) {
        const user = this.user(this.userIndex(g, nextRemove), this.versions[g * this.stride + nextRemove]!);
        nextRemove++;
        out.push(this.packet('GUILD_MEMBER_REMOVE', { guild_id: guildId, user }));
      } else if (kind === 3) {
        out.push(this.packet('GUILD_UPDATE', this.guildBody(g, 1)));
      } else {
        const role = this.role(g, 1);
        role.name = `${String(role.name)}-renamed`;
        out.push(this.packet('GUILD_ROLE_UPDATE', { guild_id: guildId, role }));
      }
    }
    return out;
  }
}
