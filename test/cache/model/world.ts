/**
 * The truth behind the model-based test: a small world of guilds (on two shards), roles, members and
 * entitlements that steps change, and the gateway sessions that deliver (or miss, or repeat) the events those
 * changes make. Steps are plain data generated from a seed, each valid on its own (a step that does not apply
 * to the world as it is does nothing), so that a failing list can be shrunk by removing steps.
 */

export const SHARDS = 2;
export const GUILD_COUNT = 6;
export const USER_COUNT = 12;
export const ENTITLEMENT_COUNT = 8;
export const BOT_ID = '100000000000000042';
export const APP_ID = '600000000000000001';
export const SKUS = ['500000000000000001', '500000000000000002'] as const;
/** "now" for entitlement checks: ended entitlements end before it. */
export const NOW = Date.parse('2030-01-01T00:00:00Z');

export function guildIdOf(i: number): string {
  const shard = i % SHARDS;
  const n = Math.floor(i / SHARDS);
  return (((50_000_000_000n + BigInt(n * SHARDS + shard)) << 22n) + BigInt(i + 1)).toString();
}
export function userIdOf(i: number): string {
  return `3000000000000000${String(i).padStart(2, '0')}`;
}
export function entitlementIdOf(i: number): string {
  return `70000000000000000${i}`;
}
export function roleIdOf(n: number): string {
  return `4000000000000${String(n).padStart(5, '0')}`;
}
/** Channel `c` (0-7) of guild `g`; threads are numbered from 8 (so a thread id is never a channel id). */
export function channelIdOf(g: number, c: number): string {
  return `80000000000000${String(g).padStart(2, '0')}${String(c).padStart(2, '0')}`;
}
export const CHANNELS_PER_GUILD = 6;
export const THREADS_PER_GUILD = 6;
export function threadIdOf(g: number, t: number): string {
  return channelIdOf(g, 8 + t);
}

/** Permission bits the model's roles and overwrites use (view, send, embed, manage messages, pin, bypass slowmode). */
export const BITS = [1n << 10n, 1n << 11n, 1n << 14n, 1n << 13n, 1n << 51n, 1n << 52n] as const;
export function bitsOf(n: number): bigint {
  let v = 0n;
  for (let i = 0; i < BITS.length; i++) if (((n >> i) & 1) === 1) v |= BITS[i]!;
  return v;
}

export type Step =
  | { k: 'join' | 'leave' | 'mupd'; g: number; u: number; n: number }
  | { k: 'rcreate'; g: number; r: number; n: number }
  | { k: 'rupdate' | 'rdelete'; g: number; n: number }
  | { k: 'gupdate' | 'botleave' | 'outage' | 'back'; g: number; n: number }
  | { k: 'botjoin'; g: number; n: number }
  | { k: 'ent'; e: number; u: number; n: number }
  | { k: 'entend' | 'entdel'; e: number }
  | { k: 'interact'; g: number; u: number }
  | { k: 'dup'; s: number; n: number }
  | { k: 'disconnect' | 'resume' | 'fresh'; s: number }
  | { k: 'restart'; n: number }
  | { k: 'sync'; g: number; u: number; n: number }
  | { k: 'seed'; e: number; u: number; n: number }
  | { k: 'ccreate' | 'cupdate' | 'cdelete' | 'overwrite' | 'tcreate' | 'tupdate' | 'tdelete' | 'tsync'; g: number; c: number; n: number };

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WEIGHTS: Array<[Step['k'], number]> = [
  ['join', 14],
  ['leave', 10],
  ['mupd', 12],
  ['rcreate', 3],
  ['rupdate', 3],
  ['rdelete', 3],
  ['gupdate', 3],
  ['botjoin', 3],
  ['botleave', 2],
  ['outage', 2],
  ['back', 3],
  ['ent', 4],
  ['entend', 2],
  ['entdel', 1],
  ['interact', 5],
  ['dup', 5],
  ['disconnect', 2],
  ['resume', 2],
  ['fresh', 2],
  ['restart', 1],
  ['sync', 3],
  ['seed', 2],
  ['ccreate', 3],
  ['cupdate', 3],
  ['cdelete', 2],
  ['overwrite', 5],
  ['tcreate', 3],
  ['tupdate', 3],
  ['tdelete', 2],
  ['tsync', 2],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((a, [, w]) => a + w, 0);

export function generateSteps(seed: number, count: number): Step[] {
  const rand = prng(seed);
  const int = (n: number): number => Math.floor(rand() * n);
  const steps: Step[] = [];
  let nextRole = 100;
  for (let i = 0; i < count; i++) {
    let pick = int(TOTAL_WEIGHT);
    let kind: Step['k'] = 'join';
    for (const [k, w] of WEIGHTS) {
      if (pick < w) {
        kind = k;
        break;
      }
      pick -= w;
    }
    const g = int(GUILD_COUNT);
    const u = int(USER_COUNT);
    const n = int(1 << 16);
    const s = int(SHARDS);
    const e = int(ENTITLEMENT_COUNT);
    switch (kind) {
      case 'join':
      case 'leave':
      case 'mupd':
      case 'sync':
        steps.push({ k: kind, g, u, n });
        break;
      case 'rcreate':
        steps.push({ k: kind, g, r: nextRole++, n });
        break;
      case 'rupdate':
      case 'rdelete':
      case 'gupdate':
      case 'botleave':
      case 'outage':
      case 'back':
      case 'botjoin':
        steps.push({ k: kind, g, n });
        break;
      case 'ent':
      case 'seed':
        steps.push({ k: kind, e, u, n });
        break;
      case 'entend':
      case 'entdel':
        steps.push({ k: kind, e });
        break;
      case 'interact':
        steps.push({ k: kind, g, u });
        break;
      case 'dup':
        steps.push({ k: kind, s, n: 1 + int(12) });
        break;
      case 'disconnect':
      case 'resume':
      case 'fresh':
        steps.push({ k: kind, s });
        break;
      case 'restart':
        steps.push({ k: kind, n });
        break;
      case 'ccreate':
      case 'cupdate':
      case 'cdelete':
      case 'overwrite':
        steps.push({ k: kind, g, c: int(CHANNELS_PER_GUILD), n });
        break;
      case 'tcreate':
      case 'tupdate':
      case 'tdelete':
      case 'tsync':
        steps.push({ k: kind, g, c: int(THREADS_PER_GUILD), n });
        break;
    }
  }
  return steps;
}

export interface TruthMember {
  roles: Set<string>;
  nick: string | null;
}

export interface TruthOverwrite {
  type: number;
  allow: bigint;
  deny: bigint;
}

export interface TruthChannel {
  /** 0 text, 4 category. */
  type: number;
  name: string;
  parentId: string | null;
  position: number;
  overwrites: Map<string, TruthOverwrite>;
}

export interface TruthThread {
  parentId: string;
  name: string;
  archived: boolean;
  locked: boolean;
}

export interface TruthGuild {
  readonly id: string;
  readonly index: number;
  readonly shard: number;
  name: string;
  botIn: boolean;
  available: boolean;
  roles: Map<string, { name: string; position: number; permissions: bigint }>;
  members: Map<string, TruthMember>;
  channels: Map<string, TruthChannel>;
  threads: Map<string, TruthThread>;
}

export interface TruthEntitlement {
  readonly id: string;
  skuId: string;
  userId: string;
  endsAt: string | null;
  deleted: boolean;
}

export type Dispatch = readonly [t: string, d: Record<string, unknown>];

export interface ShardSession {
  live: boolean;
  /** Dispatches delivered since the session's READY (a replay repeats a suffix of them). */
  log: Dispatch[];
  /** Dispatches made while the session was not live (a resume delivers them). */
  missed: Dispatch[];
}

type Obj = Record<string, unknown>;

export function userObject(id: string): Obj {
  return { id, username: id === BOT_ID ? 'bot' : `user_${id.slice(-2)}`, discriminator: '0', global_name: null, avatar: null, bot: id === BOT_ID };
}

export class World {
  readonly guilds: TruthGuild[] = [];
  readonly entitlements = new Map<string, TruthEntitlement>();
  readonly sessions: ShardSession[] = [];

  constructor() {
    const rand = prng(7);
    for (let i = 0; i < GUILD_COUNT; i++) {
      const id = guildIdOf(i);
      const g: TruthGuild = { id, index: i, shard: i % SHARDS, name: `guild ${i}`, botIn: i < 4, available: true, roles: new Map(), members: new Map(), channels: new Map(), threads: new Map() };
      for (let r = 0; r < 3; r++) g.roles.set(roleIdOf(i * 10 + r), { name: `role ${r}`, position: r + 1, permissions: bitsOf(Math.floor(rand() * 64)) });
      g.channels.set(channelIdOf(i, 0), { type: 4, name: 'category', parentId: null, position: 0, overwrites: new Map() });
      for (let c = 1; c < 3; c++) {
        const overwrites = new Map<string, TruthOverwrite>();
        if (rand() < 0.5) overwrites.set(id, { type: 0, allow: 0n, deny: bitsOf(Math.floor(rand() * 64)) });
        g.channels.set(channelIdOf(i, c), { type: 0, name: `channel ${c}`, parentId: channelIdOf(i, 0), position: c, overwrites });
      }
      g.threads.set(threadIdOf(i, 0), { parentId: channelIdOf(i, 1), name: 'thread 0', archived: false, locked: false });
      const roleIds = [...g.roles.keys()];
      for (let u = 0; u < USER_COUNT; u++) {
        if (rand() < 0.4) g.members.set(userIdOf(u), { roles: new Set(roleIds.filter(() => rand() < 0.4)), nick: rand() < 0.3 ? `nick ${u}` : null });
      }
      if (g.botIn) g.members.set(BOT_ID, { roles: new Set(), nick: null });
      this.guilds.push(g);
    }
    for (let s = 0; s < SHARDS; s++) this.sessions.push({ live: false, log: [], missed: [] });
  }

  activeEntitlements(userId: string): TruthEntitlement[] {
    return [...this.entitlements.values()].filter((e) => e.userId === userId && !e.deleted && (e.endsAt === null || Date.parse(e.endsAt) > NOW));
  }

  entitlementObject(e: TruthEntitlement): Obj {
    return {
      id: e.id,
      sku_id: e.skuId,
      application_id: APP_ID,
      user_id: e.userId,
      type: 8,
      deleted: e.deleted,
      starts_at: '2024-01-01T00:00:00.000000+00:00',
      ends_at: e.endsAt,
    };
  }

  rolesPayload(g: TruthGuild): Obj[] {
    const out: Obj[] = [{ id: g.id, name: '@everyone', position: 0, permissions: String(BITS[0]), color: 0 }];
    for (const [id, r] of g.roles) out.push({ id, name: r.name, position: r.position, permissions: String(r.permissions), color: 0 });
    return out;
  }

  channelObject(g: TruthGuild, id: string, withGuild: boolean): Obj {
    const c = g.channels.get(id)!;
    return {
      id,
      type: c.type,
      name: c.name,
      position: c.position,
      parent_id: c.parentId,
      nsfw: false,
      rate_limit_per_user: 0,
      permission_overwrites: [...c.overwrites].map(([target, o]) => ({ id: target, type: o.type, allow: String(o.allow), deny: String(o.deny) })),
      ...(withGuild ? { guild_id: g.id } : {}),
    };
  }

  threadObject(g: TruthGuild, id: string, withGuild: boolean): Obj {
    const t = g.threads.get(id)!;
    return {
      id,
      type: 11,
      name: t.name,
      parent_id: t.parentId,
      owner_id: userIdOf(1),
      thread_metadata: { archived: t.archived, locked: t.locked, auto_archive_duration: 1440, archive_timestamp: '2024-01-01T00:00:00.000000+00:00' },
      ...(withGuild ? { guild_id: g.id } : {}),
    };
  }

  memberObject(g: TruthGuild, userId: string): Obj {
    const m = g.members.get(userId)!;
    return { user: userObject(userId), roles: [...m.roles], nick: m.nick, joined_at: '2024-01-01T00:00:00.000000+00:00', pending: false, flags: 0 };
  }

  /** GUILD_CREATE with a member list that may be partial (`mask` picks members; the bot is always listed). */
  guildCreate(g: TruthGuild, mask: number): Obj {
    const ids = [...g.members.keys()];
    const listed = mask % 3 === 0 ? ids : ids.filter((u, i) => u === BOT_ID || ((mask >> (i % 16)) & 1) === 1);
    return {
      id: g.id,
      name: g.name,
      owner_id: userIdOf(0),
      unavailable: false,
      member_count: g.members.size,
      roles: this.rolesPayload(g),
      members: listed.map((u) => this.memberObject(g, u)),
      channels: [...g.channels.keys()].map((id) => this.channelObject(g, id, false)),
      // Active threads only (reference §11.4).
      threads: [...g.threads].filter(([, t]) => !t.archived).map(([id]) => this.threadObject(g, id, false)),
    };
  }

  ready(shard: number): Obj {
    return {
      v: 10,
      user: userObject(BOT_ID),
      guilds: this.guilds.filter((g) => g.shard === shard && g.botIn).map((g) => ({ id: g.id, unavailable: true })),
      session_id: `s${shard}`,
      resume_gateway_url: 'wss://gateway.example',
      shard: [shard, SHARDS],
      application: { id: APP_ID, flags: 0 },
    };
  }
}
