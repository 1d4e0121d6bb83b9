/**
 * The deterministic seed: guilds, roles, channels, users, members, SKUs and entitlements from a PRNG seed.
 *
 * Everything is a pure function of (seed options, index), so members are generated lazily per guild (a
 * 1,000 x 1,000 fixture costs nothing until a payload needs a guild's members) and a run is reproducible.
 * Ids are snowflakes with fixed timestamps and a worker field per kind, so kinds never collide.
 */
import { DISCORD_EPOCH_MS, isSnowflake } from '../api/snowflake.js';
import type { ResolvedSeed } from './options.js';
import type { ChannelRecord, EntitlementRecord, GuildRecord, MemberRecord, RoleRecord, SkuRecord, UserRecord } from './state/model.js';
import { USER_JSON_TAIL } from './state/serialize.js';
import { BOT_ROLE_PERMISSIONS, EVERYONE_DEFAULT, MODERATOR_PERMISSIONS, P } from './state/permissions.js';

/** Fixture ids are dated from here (2021-01-01). */
const FIXTURE_MS = Date.UTC(2021, 0, 1);
const DAY_MS = 86_400_000;

const WORKER = { app: 1, guild: 2, role: 3, channel: 4, user: 5, sku: 6, entitlement: 7, subscription: 8 } as const;

/** Users shared by every guild (the owner and a few regulars), so caches see the same user in many guilds. */
const SHARED_USERS = 10;
/** Fixture user ids are dated from here, 4096 per millisecond. */
const USER_BASE_MS = FIXTURE_MS - 400 * DAY_MS;

const LOCALES = ['en-US', 'en-US', 'en-GB', 'de', 'fr', 'es-ES', 'ja', 'pt-BR', 'ko', 'nl'];
const ADJECTIVES = ['brave', 'calm', 'eager', 'fancy', 'gentle', 'happy', 'jolly', 'kind', 'lively', 'proud', 'quiet', 'rapid', 'silly', 'witty', 'zesty'];
const CAPITALIZED = ADJECTIVES.map((a) => `${a[0]!.toUpperCase()}${a.slice(1)}`);
const NOUNS = ['otter', 'falcon', 'badger', 'lynx', 'heron', 'panda', 'walrus', 'gecko', 'raven', 'koala', 'marten', 'bison', 'moose', 'quokka', 'yak'];

export function fixedSnowflake(ms: number, worker: number, increment: number): string {
  return ((BigInt(ms - DISCORD_EPOCH_MS) << 22n) | (BigInt(worker & 0x1f) << 17n) | BigInt(increment & 0xfff)).toString();
}

/** mulberry32: tiny, fast, good enough for fixtures. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function mix(seed: number, salt: number, index: number): number {
  let h = (seed ^ Math.imul(salt, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

function pick<T>(rng: () => number, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)]!;
}

export interface FixtureGuild {
  guild: GuildRecord;
  /** The bot's managed role in this guild. */
  botRoleId: string;
  adminRoleId: string;
  moderatorRoleId: string;
}

export class Fixture {
  readonly applicationId: string;
  readonly appName = 'Sandbox App';

  constructor(
    readonly options: ResolvedSeed,
    applicationId: string | null,
  ) {
    this.applicationId = applicationId ?? fixedSnowflake(FIXTURE_MS - 500 * DAY_MS, WORKER.app, 0);
  }

  botUser(): UserRecord {
    return { id: this.applicationId, username: 'sandbox-bot', globalName: 'Sandbox Bot', bot: true, locale: 'en-US' };
  }

  /** Fixture user by global index (0 owns every guild). */
  user(index: number): UserRecord {
    const rng = prng(mix(this.options.seed, 11, index));
    const adjective = pick(rng, ADJECTIVES);
    const noun = pick(rng, NOUNS);
    const username = index === 0 ? 'owner' : `${adjective}_${noun}${index}`;
    return {
      id: this.userId(index),
      username,
      globalName: rng() < 0.7 ? `${adjective[0]!.toUpperCase()}${adjective.slice(1)} ${noun}` : null,
      bot: false,
      locale: index === 0 ? 'en-US' : pick(rng, LOCALES),
    };
  }

  /** The JSON of user(index), without building the record (member lists serialize a lot of users). */
  userJson(index: number, id: string): string {
    const rng = prng(mix(this.options.seed, 11, index));
    const a = Math.floor(rng() * ADJECTIVES.length);
    const noun = NOUNS[Math.floor(rng() * NOUNS.length)]!;
    const username = index === 0 ? 'owner' : `${ADJECTIVES[a]!}_${noun}${index}`;
    // Fixture names are [a-z0-9_ ] only: nothing to escape.
    const global = rng() < 0.7 ? `"${CAPITALIZED[a]!} ${noun}"` : 'null';
    return `{"id":"${id}","username":"${username}","global_name":${global}${USER_JSON_TAIL}}`;
  }

  userId(index: number): string {
    return fixedSnowflake(USER_BASE_MS + Math.floor(index / 4096), WORKER.user, index % 4096);
  }

  /** How many fixture users exist (shared regulars plus each guild's own members). */
  get userCount(): number {
    const m = this.options.membersPerGuild;
    const shared = Math.min(SHARED_USERS, m);
    return shared + this.options.guilds * (m - shared);
  }

  /** The fixture index of a user id, or -1 when the id is not a fixture user. */
  userIndexOf(id: string): number {
    if (!isSnowflake(id)) return -1;
    const v = BigInt(id);
    if (Number((v >> 17n) & 0x1fn) !== WORKER.user) return -1;
    const block = Number(v >> 22n) + DISCORD_EPOCH_MS - USER_BASE_MS;
    const index = block * 4096 + Number(v & 0xfffn);
    return block >= 0 && index < this.userCount && Number((v >> 12n) & 0x1fn) === 0 ? index : -1;
  }

  /** Global user index of a guild's i-th seeded (non-bot) member. */
  memberUserIndex(guildIndex: number, i: number): number {
    const shared = Math.min(SHARED_USERS, this.options.membersPerGuild);
    return i < shared ? i : shared + guildIndex * (this.options.membersPerGuild - shared) + (i - shared);
  }

  /** Whether fixture user `userIndex` is one of guild `guildIndex`'s seeded members (inverse of memberUserIndex). */
  isSeededMember(userIndex: number, guildIndex: number): boolean {
    const m = this.options.membersPerGuild;
    const shared = Math.min(SHARED_USERS, m);
    if (userIndex < 0 || userIndex >= this.userCount) return false;
    if (userIndex < shared) return true;
    return Math.floor((userIndex - shared) / (m - shared)) === guildIndex;
  }

  guild(index: number): FixtureGuild {
    const rng = prng(mix(this.options.seed, 23, index));
    const ms = FIXTURE_MS + index * 1000 + Math.floor(rng() * 1000);
    const id = fixedSnowflake(ms, WORKER.guild, 0);
    const roleId = (n: number): string => fixedSnowflake(ms, WORKER.role, n);

    const roles: RoleRecord[] = [
      { id, name: '@everyone', color: 0, hoist: false, position: 0, permissions: EVERYONE_DEFAULT, managed: false, mentionable: false },
    ];
    const extra = Math.max(0, this.options.rolesPerGuild - 4);
    for (let r = 0; r < extra; r++) {
      roles.push({
        id: roleId(10 + r),
        name: `${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}s`,
        color: Math.floor(rng() * 0xffffff),
        hoist: rng() < 0.3,
        position: roles.length,
        permissions: 0n,
        managed: false,
        mentionable: rng() < 0.5,
      });
    }
    const moderatorRoleId = roleId(1);
    const adminRoleId = roleId(2);
    const botRoleId = roleId(3);
    roles.push(
      { id: moderatorRoleId, name: 'Moderator', color: 0x3498db, hoist: true, position: roles.length, permissions: MODERATOR_PERMISSIONS, managed: false, mentionable: true },
      { id: adminRoleId, name: 'Admin', color: 0xe74c3c, hoist: true, position: roles.length + 1, permissions: P.ADMINISTRATOR, managed: false, mentionable: false },
      { id: botRoleId, name: 'Sandbox Bot', color: 0, hoist: false, position: roles.length + 2, permissions: BOT_ROLE_PERMISSIONS, managed: true, mentionable: false, botId: this.applicationId },
    );

    const channels: ChannelRecord[] = [];
    for (let c = 0; c < this.options.channelsPerGuild; c++) {
      const voice = c > 0 && c === this.options.channelsPerGuild - 1;
      channels.push({
        id: fixedSnowflake(ms, WORKER.channel, c),
        type: voice ? 2 : 0,
        name: c === 0 ? 'general' : voice ? 'Voice' : `${pick(rng, NOUNS)}-talk`,
        position: c,
        parentId: null,
        topic: voice ? null : c === 0 ? 'Say hello' : null,
        nsfw: false,
      });
    }

    const members = this.options.membersPerGuild;
    const guild: GuildRecord = {
      id,
      index,
      name: `${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)} club ${index}`,
      ownerId: members > 0 ? this.userId(0) : this.applicationId,
      preferredLocale: index === 0 ? 'en-US' : pick(rng, LOCALES),
      joinedAt: new Date(ms + DAY_MS).toISOString(),
      premiumTier: 0,
      roles,
      channels,
      members: null,
      seededMemberCount: members + 1,
      payloadCache: new Map(),
    };
    return { guild, botRoleId, adminRoleId, moderatorRoleId };
  }

  /** Materialize a guild's members, the bot first. Users are not created: they derive from `userIndex`. */
  members(fg: FixtureGuild): Map<string, MemberRecord> {
    const { guild } = fg;
    const out = new Map<string, MemberRecord>();
    out.set(this.applicationId, this.botMember(fg));
    const rng = prng(mix(this.options.seed, 37, guild.index));
    const extraRoles = guild.roles.filter((r) => r.id !== guild.id && !r.managed && r.permissions === 0n);
    const base = Date.parse(guild.joinedAt) - 30 * DAY_MS;
    const noRoles: string[] = [];
    for (let i = 0; i < this.options.membersPerGuild; i++) {
      const userIndex = this.memberUserIndex(guild.index, i);
      const id = this.userId(userIndex);
      let roles = noRoles;
      if (i === 0) roles = [fg.adminRoleId];
      else if (i === 1) roles = [fg.moderatorRoleId];
      else if (extraRoles.length > 0 && rng() < 0.2) roles = [pick(rng, extraRoles).id];
      out.set(id, {
        userId: id,
        userIndex,
        nick: i > 1 && rng() < 0.1 ? `${pick(rng, NOUNS)} ${i}` : null,
        roles,
        joinedAt: base + i * 60_000,
        flags: 0,
      });
    }
    return out;
  }

  botMember(fg: FixtureGuild): MemberRecord {
    return { userId: this.applicationId, userIndex: -1, nick: null, roles: [fg.botRoleId], joinedAt: Date.parse(fg.guild.joinedAt), flags: 0 };
  }

  skus(): SkuRecord[] {
    const out: SkuRecord[] = [];
    for (let i = 0; i < this.options.skus; i++) {
      const id = fixedSnowflake(FIXTURE_MS - 300 * DAY_MS + i, WORKER.sku, 0);
      if (i === 0) out.push({ id, type: 2, name: 'Lifetime Supporter', slug: 'lifetime-supporter', flags: 1 << 2 });
      else if (i === 1) out.push({ id, type: 5, name: 'Premium', slug: 'premium', flags: (1 << 2) | (1 << 8) });
      else out.push({ id, type: 3, name: `Coin pack ${i - 1}`, slug: `coin-pack-${i - 1}`, flags: 1 << 2 });
    }
    return out;
  }

  /** Seeded entitlements: user 1 bought the durable SKU; user 2 subscribes to the subscription SKU. */
  entitlements(skus: SkuRecord[]): EntitlementRecord[] {
    const out: EntitlementRecord[] = [];
    const members = this.options.membersPerGuild;
    const starts = new Date(FIXTURE_MS + 10 * DAY_MS).toISOString();
    if (skus[0] && members >= 2) {
      out.push({
        id: fixedSnowflake(FIXTURE_MS + 10 * DAY_MS, WORKER.entitlement, 0),
        skuId: skus[0].id, userId: this.userId(1), guildId: null, type: 1, deleted: false, consumed: false,
        startsAt: starts, endsAt: null, test: false, subscriptionId: null,
      });
    }
    if (skus[1] && members >= 3) {
      out.push({
        id: fixedSnowflake(FIXTURE_MS + 10 * DAY_MS, WORKER.entitlement, 1),
        skuId: skus[1].id, userId: this.userId(2), guildId: null, type: 1, deleted: false, consumed: false,
        startsAt: starts, endsAt: null, test: false,
        subscriptionId: fixedSnowflake(FIXTURE_MS + 10 * DAY_MS, WORKER.subscription, 0),
      });
    }
    return out;
  }
}
