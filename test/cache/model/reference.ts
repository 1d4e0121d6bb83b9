/**
 * The reference model of the cache: the documented semantics (src/cache/reducer.ts, docs/cache.md "What the cache guarantees") written
 * the plainest way, with Maps and no layout, for the model-based test. It trusts the shapes the test's world
 * generates; the backends are compared with it after every step.
 */
import { shardOf } from '../../../src/cache/index.js';

export interface ModelRole {
  name: string;
  position: number;
  permissions: bigint;
}

export interface ModelOverwrite {
  id: string;
  type: number;
  allow: bigint;
  deny: bigint;
}

export interface ModelChannel {
  type: number;
  name: string | null;
  parentId: string | null;
  position: number;
  overwrites: ModelOverwrite[];
}

export interface ModelThread {
  parentId: string | null;
  name: string | null;
  archived: boolean;
  locked: boolean;
}

export interface ModelMember {
  /** Role ids as last written (the guild's current roles filter them on read). */
  roles: string[];
  nick: string | null;
  epoch: number;
}

export interface ModelGuild {
  name: string | null;
  unavailable: boolean;
  count: number | null;
  roles: Map<string, ModelRole>;
  members: Map<string, ModelMember>;
  transitions: Map<string, 0 | 1>;
  epoch: number;
  sync: { token: object; seen: Set<string> } | null;
  ownerId: string | null;
  channels: Map<string, ModelChannel>;
  threads: Map<string, ModelThread>;
}

export interface ModelEntitlement {
  skuId: string;
  userId: string;
  endsAt: number | null;
}

export interface ModelOptions {
  /** 0 = no cap. */
  cap: number;
  members: boolean;
  channels: boolean;
}

type Obj = Record<string, unknown>;

export class ModelCache {
  readonly guilds = new Map<string, ModelGuild>();
  readonly entitlements = new Map<string, ModelEntitlement>();
  private readonly stamps = new Map<string, number>();
  private clock = 0;
  private entitlementSync: { stamp: number; seen: Set<string> } | null = null;
  selfId: string | null = null;

  constructor(readonly options: ModelOptions) {}

  apply(t: string, d: Obj): void {
    switch (t) {
      case 'READY': {
        this.selfId = (d.user as Obj).id as string;
        const listed = (d.guilds as Obj[]).map((g) => g.id as string);
        for (const id of listed) this.guild(id).unavailable = true;
        const [shard, count] = (d.shard as [number, number] | undefined) ?? [0, 1];
        const keep = new Set(listed);
        for (const id of [...this.guilds.keys()]) if (!keep.has(id) && shardOf(id, count) === shard) this.guilds.delete(id);
        return;
      }
      case 'GUILD_CREATE': {
        const id = d.id as string;
        if (d.unavailable === true) {
          this.guild(id).unavailable = true;
          return;
        }
        const known = this.guilds.get(id);
        const baseline = known === undefined || known.unavailable;
        const g = this.guild(id);
        g.unavailable = false;
        g.name = d.name as string;
        g.ownerId = d.owner_id as string;
        if (this.options.channels) {
          if (Array.isArray(d.channels)) {
            const listed = new Map((d.channels as Obj[]).map((c) => [c.id as string, channelOf(c)]));
            for (const cid of g.channels.keys()) if (!listed.has(cid)) this.dropThreadsOf(g, cid);
            g.channels = listed;
          }
          if (Array.isArray(d.threads)) g.threads = new Map((d.threads as Obj[]).map((t) => [t.id as string, threadOf(t)]));
        }
        const members = d.members as Obj[];
        const complete = baseline && this.options.members && members.length === d.member_count;
        if (baseline) {
          g.count = d.member_count as number;
          g.transitions.clear();
          g.epoch++;
        }
        if (complete) g.sync = { token: {}, seen: new Set() };
        this.setRoles(g, id, d.roles as Obj[]);
        for (const m of members) this.upsertMember(g, m, false, false);
        if (complete) {
          const seen = g.sync!.seen;
          g.sync = null;
          for (const u of [...g.members.keys()]) if (!seen.has(u)) g.members.delete(u);
        }
        return;
      }
      case 'GUILD_UPDATE': {
        const g = this.guild(d.id as string);
        g.unavailable = false;
        g.name = d.name as string;
        g.ownerId = d.owner_id as string;
        this.setRoles(g, d.id as string, d.roles as Obj[]);
        return;
      }
      case 'GUILD_DELETE':
        if (d.unavailable === true) this.guild(d.id as string).unavailable = true;
        else this.guilds.delete(d.id as string);
        return;
      case 'GUILD_MEMBER_ADD':
      case 'GUILD_MEMBER_UPDATE': {
        const g = this.guilds.get(d.guild_id as string);
        if (g) this.upsertMember(g, d, t === 'GUILD_MEMBER_UPDATE', t === 'GUILD_MEMBER_ADD');
        return;
      }
      case 'GUILD_MEMBER_REMOVE': {
        const g = this.guilds.get(d.guild_id as string);
        if (!g) return;
        const u = (d.user as Obj).id as string;
        const m = this.options.members ? g.members.get(u) : undefined;
        this.transition(g, u, false, m !== undefined && m.epoch === g.epoch);
        g.members.delete(u);
        return;
      }
      case 'GUILD_MEMBERS_CHUNK': {
        const g = this.guilds.get(d.guild_id as string);
        if (g) for (const m of d.members as Obj[]) this.upsertMember(g, m, false, false);
        return;
      }
      case 'GUILD_ROLE_CREATE':
      case 'GUILD_ROLE_UPDATE': {
        const g = this.guilds.get(d.guild_id as string);
        const r = d.role as Obj;
        if (g) g.roles.set(r.id as string, { name: r.name as string, position: r.position as number, permissions: BigInt(r.permissions as string) });
        return;
      }
      case 'GUILD_ROLE_DELETE': {
        const g = this.guilds.get(d.guild_id as string);
        if (!g) return;
        g.roles.delete(d.role_id as string);
        // Numbers are released, so an id a member carries is forgotten with the role (memory backend).
        for (const m of g.members.values()) m.roles = m.roles.filter((r) => r !== d.role_id);
        return;
      }
      case 'CHANNEL_CREATE':
      case 'CHANNEL_UPDATE': {
        const g = this.options.channels ? this.guilds.get(d.guild_id as string) : undefined;
        if (g) g.channels.set(d.id as string, channelOf(d));
        return;
      }
      case 'CHANNEL_DELETE': {
        const g = this.options.channels ? this.guilds.get(d.guild_id as string) : undefined;
        if (!g) return;
        // Its threads go, also when the channel is not known (a replay may bring back one created before).
        g.channels.delete(d.id as string);
        this.dropThreadsOf(g, d.id as string);
        return;
      }
      case 'THREAD_CREATE':
      case 'THREAD_UPDATE': {
        const g = this.options.channels ? this.guilds.get(d.guild_id as string) : undefined;
        if (g) g.threads.set(d.id as string, threadOf(d));
        return;
      }
      case 'THREAD_DELETE': {
        const g = this.options.channels ? this.guilds.get(d.guild_id as string) : undefined;
        g?.threads.delete(d.id as string);
        return;
      }
      case 'THREAD_LIST_SYNC': {
        const g = this.options.channels ? this.guilds.get(d.guild_id as string) : undefined;
        if (!g) return;
        const parents = Array.isArray(d.channel_ids) ? new Set(d.channel_ids as string[]) : null;
        const listed = new Map((d.threads as Obj[]).map((t) => [t.id as string, threadOf(t)]));
        for (const [tid, t] of [...g.threads]) {
          if (!t.archived && !listed.has(tid) && (parents === null || (t.parentId !== null && parents.has(t.parentId)))) g.threads.delete(tid);
        }
        for (const [tid, t] of listed) g.threads.set(tid, t);
        return;
      }
      case 'ENTITLEMENT_CREATE':
      case 'ENTITLEMENT_UPDATE':
        this.storeEntitlement(d, false, true);
        return;
      case 'ENTITLEMENT_DELETE':
        this.entitlements.delete(d.id as string);
        this.stamps.set(d.id as string, ++this.clock);
        return;
      case 'INTERACTION_CREATE':
        for (const e of d.entitlements as Obj[]) this.storeEntitlement(e, true, true);
        return;
      default:
    }
  }

  beginMemberSync(guildId: string): { commit(count: number): void } {
    const g = this.guilds.get(guildId);
    const token = {};
    if (g) g.sync = { token, seen: new Set() };
    return {
      commit: (count) => {
        const now = this.guilds.get(guildId);
        if (!now || now.sync?.token !== token) return;
        const seen = now.sync.seen;
        now.sync = null;
        for (const u of [...now.members.keys()]) if (!seen.has(u)) now.members.delete(u);
        now.count = count;
      },
    };
  }

  beginEntitlementSync(): { add(list: Obj[]): void; commit(): void } {
    const sync = { stamp: ++this.clock, seen: new Set<string>() };
    this.entitlementSync = sync;
    return {
      add: (list) => {
        for (const e of list) {
          sync.seen.add(e.id as string);
          if ((this.stamps.get(e.id as string) ?? 0) < sync.stamp) this.storeEntitlement(e, false, false);
        }
      },
      commit: () => {
        if (this.entitlementSync !== sync) return;
        this.entitlementSync = null;
        for (const id of [...this.entitlements.keys()]) {
          if (!sync.seen.has(id) && (this.stamps.get(id) ?? 0) < sync.stamp) {
            this.entitlements.delete(id);
            this.stamps.delete(id);
          }
        }
      },
    };
  }

  /** A member's roles as readers see them: those the guild has. */
  visibleRoles(guildId: string, m: ModelMember): string[] {
    const g = this.guilds.get(guildId)!;
    return m.roles.filter((r) => g.roles.has(r)).sort();
  }

  users(): Set<string> {
    const out = new Set<string>();
    if (!this.options.members) return out;
    if (this.selfId !== null) out.add(this.selfId);
    for (const g of this.guilds.values()) for (const u of g.members.keys()) out.add(u);
    return out;
  }

  hasEntitlement(userId: string, skuId: string, at: number): boolean {
    for (const e of this.entitlements.values()) {
      if (e.userId === userId && e.skuId === skuId && (e.endsAt === null || e.endsAt > at)) return true;
    }
    return false;
  }

  private guild(id: string): ModelGuild {
    let g = this.guilds.get(id);
    if (!g) {
      g = { name: null, unavailable: true, count: null, roles: new Map(), members: new Map(), transitions: new Map(), epoch: 0, sync: null, ownerId: null, channels: new Map(), threads: new Map() };
      this.guilds.set(id, g);
    }
    return g;
  }

  /** A channel's threads go with it. */
  private dropThreadsOf(g: ModelGuild, channelId: string): void {
    for (const [tid, t] of [...g.threads]) if (t.parentId === channelId) g.threads.delete(tid);
  }

  private setRoles(g: ModelGuild, guildId: string, roles: Obj[]): void {
    g.roles.clear();
    for (const r of roles) g.roles.set(r.id as string, { name: r.name as string, position: r.position as number, permissions: BigInt(r.permissions as string) });
    for (const m of g.members.values()) m.roles = m.roles.filter((r) => g.roles.has(r) || r === guildId);
  }

  private upsertMember(g: ModelGuild, d: Obj, partial: boolean, join: boolean): void {
    const u = (d.user as Obj).id as string;
    if (!this.options.members) {
      if (join) this.transition(g, u, true, false);
      return;
    }
    let m = g.members.get(u);
    if (join) this.transition(g, u, true, m !== undefined && m.epoch === g.epoch);
    if (!m) {
      if (this.options.cap > 0 && g.members.size >= this.options.cap && u !== this.selfId) return;
      m = { roles: [], nick: null, epoch: g.epoch };
      g.members.set(u, m);
    }
    if (!partial || d.roles !== undefined) m.roles = [...new Set(d.roles as string[])];
    if (!partial || d.nick !== undefined) m.nick = (d.nick as string | null) ?? null;
    m.epoch = g.epoch;
    g.sync?.seen.add(u);
  }

  private transition(g: ModelGuild, u: string, join: boolean, cached: boolean): void {
    const last = g.transitions.get(u);
    const state = last ?? (cached ? 1 : -1);
    if (state === (join ? 1 : 0)) return;
    if (g.count !== null) g.count = join ? g.count + 1 : Math.max(0, g.count - 1);
    g.transitions.set(u, join ? 1 : 0);
  }

  private storeEntitlement(d: Obj, fromInteraction: boolean, stamped: boolean): void {
    const id = d.id as string;
    const old = this.entitlements.get(id);
    let endsAt = typeof d.ends_at === 'string' ? Date.parse(d.ends_at) : null;
    if (fromInteraction) {
      if (old === undefined && this.stamps.has(id)) return;
      if (old !== undefined && old.endsAt !== null && endsAt === null) endsAt = old.endsAt;
    }
    this.entitlements.set(id, { skuId: d.sku_id as string, userId: d.user_id as string, endsAt });
    if (stamped) this.stamps.set(id, ++this.clock);
  }
}

function channelOf(c: Obj): ModelChannel {
  return {
    type: c.type as number,
    name: (c.name as string | undefined) ?? null,
    parentId: (c.parent_id as string | null | undefined) ?? null,
    position: (c.position as number | undefined) ?? 0,
    overwrites: ((c.permission_overwrites as Obj[] | undefined) ?? []).map((o) => ({ id: o.id as string, type: o.type as number, allow: BigInt(o.allow as string), deny: BigInt(o.deny as string) })),
  };
}

function threadOf(t: Obj): ModelThread {
  const meta = (t.thread_metadata as Obj | undefined) ?? {};
  return { parentId: (t.parent_id as string | null | undefined) ?? null, name: (t.name as string | undefined) ?? null, archived: meta.archived === true, locked: meta.locked === true };
}
