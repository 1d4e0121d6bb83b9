/**
 * Runs a step list (world.ts) against one cache backend and the reference model side by side: every dispatch
 * goes to both, and after every step what the step touched is read from both and compared (everything, at
 * checkpoints). The model is also held to the guarantees docs/cache.md states against the truth: after a fresh
 * session or a member sync a guild's roles, members and count are the truth's; member_count stays exact
 * through repeated deliveries; after an entitlement sync the active entitlements are the truth's.
 */
import { computePermissions } from '../../../src/api/permissions.js';
import type { Cache, CacheOptions, ChannelView, MemberView } from '../../../src/cache/index.js';
import { ModelCache, type ModelOptions } from './reference.js';
import {
  BOT_ID,
  ENTITLEMENT_COUNT,
  GUILD_COUNT,
  NOW,
  SHARDS,
  SKUS,
  USER_COUNT,
  World,
  bitsOf,
  channelIdOf,
  threadIdOf,
  CHANNELS_PER_GUILD,
  THREADS_PER_GUILD,
  entitlementIdOf,
  guildIdOf,
  roleIdOf,
  userIdOf,
  userObject,
  type Dispatch,
  type Step,
  type TruthGuild,
} from './world.js';

export interface Backend {
  readonly name: string;
  create(options: Partial<CacheOptions>): Promise<Cache>;
  /** A new instance on the same storage (memory: empty); the old one is closed. */
  restart(cache: Cache, options: Partial<CacheOptions>): Promise<Cache>;
  readonly persistent: boolean;
  /** Close what this run made and drop its data. */
  dispose(): Promise<void>;
}

export class ModelMismatch extends Error {}

type Obj = Record<string, unknown>;
const LOG_LIMIT = 60;
const CHECKPOINT_EVERY = 500;

interface Touched {
  guilds: Set<string>;
  /** Guilds whose channels and threads to compare. */
  channels: Set<string>;
  /** guild/channel pairs to read by id too (every id of the guild: guild/*). */
  channelIds: Set<string>;
  /** guild/channel pairs whose permissions to compare (for one cached member). */
  permissions: Set<string>;
  members: Set<string>;
  users: Set<string>;
  entitlements: Set<string>;
  holders: Set<string>;
}

export class ModelRun {
  private readonly world = new World();
  private model: ModelCache;
  private cache!: Cache;
  private readonly modelOptions: ModelOptions;
  /** Guilds whose member_count the model must have exactly (no event of theirs missed since a baseline). */
  private readonly exact = new Set<string>();
  private entitlementsExact = false;
  private freshCount = 0;
  private touched: Touched = newTouched();
  private stepIndex = -1;

  constructor(
    private readonly backend: Backend,
    private readonly options: Partial<CacheOptions>,
  ) {
    this.modelOptions = { cap: options.maxMembersPerGuild ?? 0, members: options.members ?? true, channels: options.channels ?? true };
    this.model = new ModelCache(this.modelOptions);
  }

  async run(steps: readonly Step[]): Promise<void> {
    this.cache = await this.backend.create(this.options);
    for (let s = 0; s < SHARDS; s++) this.fresh(s);
    await this.seed(0, 0, 0);
    await this.compareAll('start');
    for (let i = 0; i < steps.length; i++) {
      this.stepIndex = i;
      this.touched = newTouched();
      await this.step(steps[i]!);
      // A step that changed nothing (it did not apply to the world as it was) has nothing to compare.
      if (isEmpty(this.touched) && (i + 1) % CHECKPOINT_EVERY !== 0) continue;
      await this.cache.settled();
      await this.compareTouched(steps[i]!);
      const checkpoint = (i + 1) % CHECKPOINT_EVERY === 0;
      this.checkTruth(checkpoint);
      if (checkpoint) await this.compareAll('checkpoint');
    }
    await this.compareAll('end');
  }

  // ---- delivery -----------------------------------------------------------------------------------------

  private deliver(shard: number, t: string, d: Obj, log = true): void {
    const session = this.world.sessions[shard]!;
    if (!session.live) {
      session.missed.push([t, d]);
      const g = guildOf(t, d);
      if (g !== null) this.exact.delete(g);
      if (t.startsWith('ENTITLEMENT_')) this.entitlementsExact = false;
      return;
    }
    this.touch(t, d);
    this.cache.apply(t, d);
    this.model.apply(t, d);
    if (log) {
      session.log.push([t, d]);
      if (session.log.length > LOG_LIMIT) session.log.shift();
    }
  }

  private touch(t: string, d: Obj): void {
    const x = this.touched;
    const g = guildOf(t, d);
    if (g !== null) x.guilds.add(g);
    const memberOf = (m: Obj): void => {
      const u = (m.user as Obj).id as string;
      x.users.add(u);
      if (g !== null) x.members.add(`${g}/${u}`);
    };
    if (t === 'GUILD_MEMBER_ADD' || t === 'GUILD_MEMBER_UPDATE' || t === 'GUILD_MEMBER_REMOVE') memberOf(d);
    if (t === 'GUILD_CREATE' || t === 'GUILD_MEMBERS_CHUNK') for (const m of (d.members as Obj[] | undefined) ?? []) memberOf(m);
    if (t === 'GUILD_ROLE_DELETE' || t === 'GUILD_ROLE_CREATE' || t === 'GUILD_UPDATE' || t === 'GUILD_CREATE') {
      // Every cached member's visible roles may change.
      for (const u of this.model.guilds.get(g!)?.members.keys() ?? []) x.members.add(`${g}/${u}`);
    }
    if (g !== null && (t.startsWith('CHANNEL_') || t.startsWith('THREAD_') || t === 'GUILD_CREATE')) x.channels.add(g);
    if (g !== null && (t.startsWith('CHANNEL_') || t === 'THREAD_CREATE' || t === 'THREAD_UPDATE' || t === 'THREAD_DELETE')) x.channelIds.add(`${g}/${d.id as string}`);
    if (g !== null && t === 'CHANNEL_DELETE') for (const [tid, th] of this.model.guilds.get(g)?.threads ?? []) if (th.parentId === d.id) x.channelIds.add(`${g}/${tid}`);
    if (g !== null && (t === 'THREAD_LIST_SYNC' || t === 'GUILD_CREATE')) x.channelIds.add(`${g}/*`);
    if (g !== null && t === 'CHANNEL_UPDATE') x.permissions.add(`${g}/${d.id as string}`);
    if (g !== null && t === 'GUILD_ROLE_UPDATE') for (const c of this.model.guilds.get(g)?.channels.keys() ?? []) x.permissions.add(`${g}/${c}`);
    if (t === 'GUILD_DELETE' || t === 'READY') {
      const ids = t === 'READY' ? this.world.guilds.filter((w) => w.shard === shardOfReady(d)).map((w) => w.id) : [g!];
      for (const id of ids) {
        x.guilds.add(id);
        x.channels.add(id);
        x.channelIds.add(`${id}/*`);
        for (const u of this.model.guilds.get(id)?.members.keys() ?? []) {
          x.users.add(u);
          x.members.add(`${id}/${u}`);
        }
      }
    }
    const ents = t === 'INTERACTION_CREATE' ? (d.entitlements as Obj[]) : t.startsWith('ENTITLEMENT_') ? [d] : [];
    for (const e of ents) {
      x.entitlements.add(e.id as string);
      x.holders.add(e.user_id as string);
      const old = this.model.entitlements.get(e.id as string);
      if (old) x.holders.add(old.userId);
    }
  }

  private fresh(shard: number): void {
    const session = this.world.sessions[shard]!;
    session.live = true;
    session.missed = [];
    session.log = [];
    this.deliver(shard, 'READY', this.world.ready(shard), false);
    for (const g of this.world.guilds) {
      if (g.shard !== shard) continue;
      this.exact.delete(g.id);
      if (g.botIn && g.available) {
        const mask = this.freshCount++ * 7 + g.shard;
        this.deliver(shard, 'GUILD_CREATE', this.world.guildCreate(g, mask));
        this.exact.add(g.id);
        // A complete member list (every third one here) leaves exactly the guild's members.
        if (mask % 3 === 0 && this.modelOptions.members && this.modelOptions.cap === 0) this.checkMembersAgainstTruth(g);
      }
    }
  }

  private resume(shard: number): void {
    const session = this.world.sessions[shard]!;
    if (session.live) return;
    session.live = true;
    const missed = session.missed;
    session.missed = [];
    for (const [t, d] of missed) this.deliver(shard, t, d);
    this.deliver(shard, 'RESUMED', {}, false);
  }

  private replay(shard: number, count: number): void {
    const session = this.world.sessions[shard]!;
    if (!session.live) return;
    for (const [t, d] of session.log.slice(-count)) this.deliver(shard, t, d, false);
  }

  // ---- steps --------------------------------------------------------------------------------------------

  private async step(step: Step): Promise<void> {
    const w = this.world;
    switch (step.k) {
      case 'join': {
        const g = w.guilds[step.g]!;
        this.join(g, userIdOf(step.u), step.n);
        return;
      }
      case 'leave': {
        const g = w.guilds[step.g]!;
        const u = userIdOf(step.u);
        if (!g.available || !g.members.has(u)) return;
        g.members.delete(u);
        if (g.botIn) this.deliver(g.shard, 'GUILD_MEMBER_REMOVE', { guild_id: g.id, user: userObject(u) });
        return;
      }
      case 'mupd': {
        const g = w.guilds[step.g]!;
        const u = userIdOf(step.u);
        const m = g.members.get(u);
        if (!g.available || !m) return;
        m.roles = pickRoles(g, step.n);
        m.nick = step.n % 5 === 0 ? null : `nick ${step.n % 97}`;
        if (g.botIn) this.deliver(g.shard, 'GUILD_MEMBER_UPDATE', { guild_id: g.id, user: userObject(u), roles: [...m.roles], nick: m.nick });
        return;
      }
      case 'rcreate': {
        const g = w.guilds[step.g]!;
        const id = roleIdOf(step.r);
        if (!g.available || g.roles.has(id)) return;
        g.roles.set(id, { name: `role ${step.r}`, position: 1 + (step.n % 9), permissions: bitsOf(step.n >> 4) });
        if (g.botIn) this.deliver(g.shard, 'GUILD_ROLE_CREATE', { guild_id: g.id, role: rolePayload(id, g.roles.get(id)!) });
        return;
      }
      case 'rupdate':
      case 'rdelete': {
        const g = w.guilds[step.g]!;
        const ids = [...g.roles.keys()];
        if (!g.available || ids.length === 0) return;
        const id = ids[step.n % ids.length]!;
        if (step.k === 'rupdate') {
          g.roles.set(id, { name: `role ${id.slice(-3)} v${step.n % 13}`, position: 1 + (step.n % 9), permissions: bitsOf(step.n >> 4) });
          if (g.botIn) this.deliver(g.shard, 'GUILD_ROLE_UPDATE', { guild_id: g.id, role: rolePayload(id, g.roles.get(id)!) });
        } else {
          g.roles.delete(id);
          for (const m of g.members.values()) m.roles.delete(id);
          if (g.botIn) this.deliver(g.shard, 'GUILD_ROLE_DELETE', { guild_id: g.id, role_id: id });
        }
        return;
      }
      case 'gupdate': {
        const g = w.guilds[step.g]!;
        if (!g.available) return;
        g.name = `guild ${step.g} v${step.n % 50}`;
        if (g.botIn) this.deliver(g.shard, 'GUILD_UPDATE', { id: g.id, name: g.name, owner_id: userIdOf(0), roles: w.rolesPayload(g) });
        return;
      }
      case 'botjoin': {
        const g = w.guilds[step.g]!;
        if (g.botIn) return;
        g.botIn = true;
        g.available = true;
        g.members.set(BOT_ID, { roles: new Set(), nick: null });
        this.baselineCreate(g, step.n);
        return;
      }
      case 'botleave': {
        const g = w.guilds[step.g]!;
        if (!g.botIn || !g.available) return;
        g.botIn = false;
        g.members.delete(BOT_ID);
        this.exact.delete(g.id);
        this.deliver(g.shard, 'GUILD_DELETE', { id: g.id });
        return;
      }
      case 'outage': {
        const g = w.guilds[step.g]!;
        if (!g.botIn || !g.available) return;
        g.available = false;
        this.exact.delete(g.id);
        this.deliver(g.shard, 'GUILD_DELETE', { id: g.id, unavailable: true });
        return;
      }
      case 'back': {
        const g = w.guilds[step.g]!;
        if (!g.botIn || g.available) return;
        g.available = true;
        this.baselineCreate(g, step.n);
        return;
      }
      case 'ent': {
        const id = entitlementIdOf(step.e);
        if (w.entitlements.has(id)) return;
        const e = { id, skuId: SKUS[step.n % SKUS.length]!, userId: userIdOf(step.u), endsAt: null, deleted: false };
        w.entitlements.set(id, e);
        this.deliver(0, 'ENTITLEMENT_CREATE', w.entitlementObject(e));
        return;
      }
      case 'entend': {
        const e = w.entitlements.get(entitlementIdOf(step.e));
        if (!e || e.deleted || e.endsAt !== null) return;
        // Some end before "now", some after (still active until then).
        e.endsAt = step.e % 2 === 0 ? '2029-06-01T00:00:00.000000+00:00' : '2031-06-01T00:00:00.000000+00:00';
        this.deliver(0, 'ENTITLEMENT_UPDATE', w.entitlementObject(e));
        return;
      }
      case 'entdel': {
        const e = w.entitlements.get(entitlementIdOf(step.e));
        if (!e || e.deleted) return;
        e.deleted = true;
        this.deliver(0, 'ENTITLEMENT_DELETE', w.entitlementObject(e));
        return;
      }
      case 'interact': {
        const g = w.guilds[step.g]!;
        const u = userIdOf(step.u);
        if (!g.botIn || !g.available || !g.members.has(u)) return;
        const ents = w.activeEntitlements(u).map((e) => w.entitlementObject(e));
        this.deliver(g.shard, 'INTERACTION_CREATE', { id: '1', type: 2, guild_id: g.id, member: { user: userObject(u), roles: [] }, entitlements: ents });
        return;
      }
      case 'dup':
        this.replay(step.s, step.n);
        return;
      case 'disconnect':
        w.sessions[step.s]!.live = false;
        return;
      case 'resume':
        this.resume(step.s);
        return;
      case 'fresh':
        this.fresh(step.s);
        return;
      case 'restart':
        await this.restart(step.n);
        return;
      case 'sync':
        await this.sync(step.g, step.u, step.n);
        return;
      case 'seed':
        await this.seed(step.e, step.u, step.n);
        return;
      case 'ccreate':
      case 'cupdate':
      case 'cdelete':
      case 'overwrite':
        this.channelStep(step.k, w.guilds[step.g]!, step.c, step.n);
        return;
      case 'tcreate':
      case 'tupdate':
      case 'tdelete':
      case 'tsync':
        this.threadStep(step.k, w.guilds[step.g]!, step.c, step.n);
        return;
    }
  }

  private channelStep(k: 'ccreate' | 'cupdate' | 'cdelete' | 'overwrite', g: TruthGuild, c: number, n: number): void {
    if (!g.available) return;
    const w = this.world;
    const id = channelIdOf(g.index, c);
    const ch = g.channels.get(id);
    const send = (t: string, d: Record<string, unknown>): void => {
      if (g.botIn) this.deliver(g.shard, t, d);
    };
    switch (k) {
      case 'ccreate': {
        if (ch) return;
        const category = n % 5 === 0;
        const parent = !category && n % 2 === 1 && g.channels.get(channelIdOf(g.index, 0))?.type === 4 ? channelIdOf(g.index, 0) : null;
        g.channels.set(id, { type: category ? 4 : 0, name: `ch ${c}`, parentId: parent, position: n % 7, overwrites: new Map() });
        send('CHANNEL_CREATE', w.channelObject(g, id, true));
        return;
      }
      case 'cupdate': {
        if (!ch) return;
        ch.name = `ch ${c} v${n % 11}`;
        ch.position = n % 7;
        const categories = [...g.channels].filter(([cid, x]) => x.type === 4 && cid !== id).map(([cid]) => cid);
        if (ch.type === 0) ch.parentId = n % 3 === 0 || categories.length === 0 ? null : categories[n % categories.length]!;
        send('CHANNEL_UPDATE', w.channelObject(g, id, true));
        return;
      }
      case 'cdelete': {
        if (!ch) return;
        const object = w.channelObject(g, id, true);
        g.channels.delete(id);
        for (const [tid, t] of [...g.threads]) if (t.parentId === id) g.threads.delete(tid);
        send('CHANNEL_DELETE', object);
        // The service moves a deleted category's channels out of it.
        for (const [cid, x] of g.channels) {
          if (x.parentId !== id) continue;
          x.parentId = null;
          send('CHANNEL_UPDATE', w.channelObject(g, cid, true));
        }
        return;
      }
      case 'overwrite': {
        if (!ch) return;
        const targets: Array<[string, number]> = [[g.id, 0], ...[...g.roles.keys()].map((r): [string, number] => [r, 0]), [userIdOf(n % USER_COUNT), 1]];
        const [target, type] = targets[(n >> 3) % targets.length]!;
        if (n % 4 === 0) ch.overwrites.delete(target);
        else ch.overwrites.set(target, { type, allow: bitsOf(n >> 5), deny: bitsOf(n >> 10) & ~bitsOf(n >> 5) });
        send('CHANNEL_UPDATE', w.channelObject(g, id, true));
        return;
      }
    }
  }

  private threadStep(k: 'tcreate' | 'tupdate' | 'tdelete' | 'tsync', g: TruthGuild, t: number, n: number): void {
    if (!g.available) return;
    const w = this.world;
    const id = threadIdOf(g.index, t);
    const thread = g.threads.get(id);
    const texts = [...g.channels].filter(([, x]) => x.type === 0).map(([cid]) => cid);
    const send = (name: string, d: Record<string, unknown>): void => {
      if (g.botIn) this.deliver(g.shard, name, d);
    };
    switch (k) {
      case 'tcreate': {
        if (thread || texts.length === 0) return;
        g.threads.set(id, { parentId: texts[n % texts.length]!, name: `thread ${t}`, archived: false, locked: false });
        send('THREAD_CREATE', { ...w.threadObject(g, id, true), newly_created: true });
        return;
      }
      case 'tupdate': {
        if (!thread) return;
        thread.archived = n % 3 === 0 ? !thread.archived : thread.archived;
        thread.locked = n % 5 === 0;
        thread.name = `thread ${t} v${n % 7}`;
        send('THREAD_UPDATE', w.threadObject(g, id, true));
        return;
      }
      case 'tdelete': {
        if (!thread) return;
        g.threads.delete(id);
        send('THREAD_DELETE', { id, guild_id: g.id, parent_id: thread.parentId, type: 11 });
        return;
      }
      case 'tsync': {
        const all = n % 3 === 0;
        const parents = all ? [...g.channels.keys()] : texts.filter((_, i) => ((n >> i) & 1) === 1);
        const active = [...g.threads].filter(([, x]) => !x.archived && parents.includes(x.parentId)).map(([tid]) => w.threadObject(g, tid, false));
        send('THREAD_LIST_SYNC', { guild_id: g.id, ...(all ? {} : { channel_ids: parents }), threads: active, members: [] });
        return;
      }
    }
  }

  private join(g: TruthGuild, u: string, n: number): void {
    if (!g.available || g.members.has(u)) return;
    g.members.set(u, { roles: pickRoles(g, n), nick: n % 4 === 0 ? `nick ${n % 97}` : null });
    if (g.botIn) this.deliver(g.shard, 'GUILD_MEMBER_ADD', { guild_id: g.id, ...this.world.memberObject(g, u) });
  }

  /** A GUILD_CREATE that the model takes as a baseline (the guild was unknown or unavailable to it). */
  private baselineCreate(g: TruthGuild, mask: number): void {
    const known = this.model.guilds.get(g.id);
    const baseline = this.world.sessions[g.shard]!.live && (known === undefined || known.unavailable);
    this.deliver(g.shard, 'GUILD_CREATE', this.world.guildCreate(g, mask));
    if (baseline) this.exact.add(g.id);
  }

  private async restart(n: number): Promise<void> {
    this.cache = await this.backend.restart(this.cache, this.options);
    if (!this.backend.persistent) {
      // A restarted process with a memory cache starts empty and identifies afresh.
      this.model = new ModelCache(this.modelOptions);
      this.exact.clear();
      this.entitlementsExact = false;
      for (let s = 0; s < SHARDS; s++) this.fresh(s);
    } else if (n % 2 === 0) {
      for (let s = 0; s < SHARDS; s++) this.fresh(s);
    } else {
      // A crash: the new process resumes from the last checkpoint, so recent dispatches come again.
      for (let s = 0; s < SHARDS; s++) {
        this.replay(s, 1 + (n % 8));
        this.resume(s);
      }
    }
    // The runtime seeds entitlements at every start.
    await this.seed(0, 0, 0);
    this.touchAll();
  }

  /** An all-member request: chunks (a join may arrive between them), then the commit with the total. */
  private async sync(gi: number, ui: number, n: number): Promise<void> {
    const g = this.world.guilds[gi]!;
    if (!g.botIn || !g.available || !this.world.sessions[g.shard]!.live || !this.model.guilds.has(g.id)) return;
    const handle = this.cache.beginMemberSync(g.id);
    const model = this.model.beginMemberSync(g.id);
    const first = [...g.members.keys()];
    const half = first.slice(0, Math.ceil(first.length / 2));
    this.deliver(g.shard, 'GUILD_MEMBERS_CHUNK', { guild_id: g.id, members: half.map((u) => this.world.memberObject(g, u)), chunk_index: 0, chunk_count: 2, nonce: 'x' });
    if (n % 2 === 1) this.join(g, userIdOf(ui), n);
    const sent = new Set(half);
    const rest = [...g.members.keys()].filter((u) => !sent.has(u));
    this.deliver(g.shard, 'GUILD_MEMBERS_CHUNK', { guild_id: g.id, members: rest.map((u) => this.world.memberObject(g, u)), chunk_index: 1, chunk_count: 2, nonce: 'x' });
    const total = half.length + rest.length;
    await handle.commit(total);
    model.commit(total);
    this.exact.add(g.id);
    this.touchGuild(g.id);
    if (this.modelOptions.members && this.modelOptions.cap === 0) this.checkMembersAgainstTruth(g);
  }

  /** The REST entitlement sync, 3 per page, an event between pages when `n` is odd. */
  private async seed(ei: number, ui: number, n: number): Promise<void> {
    const handle = this.cache.beginEntitlementSync();
    const model = this.model.beginEntitlementSync();
    const ids = [...this.world.entitlements.keys()].sort();
    for (let i = 0; i < ids.length; i += 3) {
      const page = ids
        .slice(i, i + 3)
        .map((id) => this.world.entitlements.get(id)!)
        .filter((e) => !e.deleted)
        .map((e) => this.world.entitlementObject(e));
      handle.add(page);
      model.add(page);
      if (i === 0 && n % 2 === 1) await this.step({ k: 'ent', e: ei, u: ui, n });
    }
    await handle.commit();
    model.commit();
    for (const e of this.model.entitlements.keys()) this.touched.entitlements.add(e);
    for (const id of ids) this.touched.entitlements.add(id);
    for (let u = 0; u < USER_COUNT; u++) this.touched.holders.add(userIdOf(u));
    const session = this.world.sessions[0]!;
    this.entitlementsExact = session.live && !session.missed.some(([t]) => t.startsWith('ENTITLEMENT_'));
  }

  // ---- comparisons --------------------------------------------------------------------------------------

  private touchGuild(id: string): void {
    this.touched.guilds.add(id);
    this.touched.channels.add(id);
    this.touched.channelIds.add(`${id}/*`);
    for (const u of this.model.guilds.get(id)?.members.keys() ?? []) this.touched.members.add(`${id}/${u}`);
  }

  private touchAll(): void {
    for (let i = 0; i < GUILD_COUNT; i++) this.touchGuild(guildIdOf(i));
    for (let u = 0; u < USER_COUNT; u++) this.touched.users.add(userIdOf(u));
  }

  private fail(what: string, got: unknown, want: unknown): never {
    throw new ModelMismatch(`step ${this.stepIndex} (${this.backend.name}): ${what}: got ${JSON.stringify(got)}, model says ${JSON.stringify(want)}`);
  }

  private async compareGuild(id: string): Promise<void> {
    const got = await this.cache.getGuild(id);
    const g = this.model.guilds.get(id);
    const want = g ? { name: g.name, unavailable: g.unavailable, memberCount: g.count, roleIds: [...g.roles.keys()].sort() } : undefined;
    const have = got ? { name: got.name, unavailable: got.unavailable, memberCount: got.memberCount, roleIds: [...got.roleIds].sort() } : undefined;
    if (JSON.stringify(have) !== JSON.stringify(want)) this.fail(`guild ${id}`, have, want);
  }

  private memberWant(gid: string, uid: string): unknown {
    const m = this.model.guilds.get(gid)?.members.get(uid);
    return m ? { roles: this.model.visibleRoles(gid, m), nick: m.nick } : undefined;
  }

  private static memberHave(m: MemberView | undefined): unknown {
    return m ? { roles: [...m.roles].sort(), nick: m.nick } : undefined;
  }

  private async compareMember(key: string): Promise<void> {
    const [gid, uid] = key.split('/') as [string, string];
    const have = ModelRun.memberHave(await this.cache.getMember(gid, uid));
    const want = this.memberWant(gid, uid);
    if (JSON.stringify(have) !== JSON.stringify(want)) this.fail(`member ${key}`, have, want);
  }

  private async compareUser(uid: string, users: Set<string>): Promise<void> {
    const have = (await this.cache.getUser(uid)) !== undefined;
    if (have !== users.has(uid)) this.fail(`user ${uid} cached`, have, users.has(uid));
  }

  private async compareEntitlement(id: string): Promise<void> {
    const got = await this.cache.getEntitlement(id);
    const e = this.model.entitlements.get(id);
    const have = got ? { skuId: got.skuId, userId: got.userId, endsAt: got.endsAt } : undefined;
    const want = e ? { skuId: e.skuId, userId: e.userId, endsAt: e.endsAt } : undefined;
    if (JSON.stringify(have) !== JSON.stringify(want)) this.fail(`entitlement ${id}`, have, want);
  }

  private async compareHolder(uid: string): Promise<void> {
    for (const sku of SKUS) {
      const have = await this.cache.hasEntitlement({ userId: uid, skuId: sku, at: NOW });
      const want = this.model.hasEntitlement(uid, sku, NOW);
      if (have !== want) this.fail(`hasEntitlement(${uid}, ${sku})`, have, want);
    }
  }

  /**
   * Channels and threads of a guild; by id too (the index) for `byId` (every id the world may use when '*'), where
   * ids the model lacks must read as absent.
   */
  private async compareChannels(gid: string, byIdKeys: ReadonlySet<string> = new Set([`${gid}/*`])): Promise<void> {
    const g = this.model.guilds.get(gid);
    const channelView = (c: ChannelView): unknown => ({
      id: c.id,
      type: c.type,
      name: c.name,
      parentId: c.parentId,
      position: c.position,
      overwrites: c.permissionOverwrites.map((o) => `${o.id}:${o.type}:${o.allow}:${o.deny}`).sort(),
    });
    const threadView = (c: ChannelView): unknown => ({ id: c.id, parentId: c.parentId, name: c.name, archived: c.thread?.archived, locked: c.thread?.locked });
    const wantChannels = g
      ? [...g.channels]
          .sort(([a, x], [b, y]) => x.position - y.position || (BigInt(a) < BigInt(b) ? -1 : 1))
          .map(([id, c]) => ({ id, type: c.type, name: c.name, parentId: c.parentId, position: c.position, overwrites: c.overwrites.map((o) => `${o.id}:${o.type}:${o.allow}:${o.deny}`).sort() }))
      : [];
    const wantThreads = g
      ? [...g.threads].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1)).map(([id, t]) => ({ id, parentId: t.parentId, name: t.name, archived: t.archived, locked: t.locked }))
      : [];
    const [channels, threads] = await Promise.all([this.cache.getChannels(gid), this.cache.getThreads(gid)]);
    const have = channels.map(channelView);
    if (JSON.stringify(have) !== JSON.stringify(wantChannels)) this.fail(`channels of ${gid}`, have, wantChannels);
    const haveThreads = threads.map(threadView);
    if (JSON.stringify(haveThreads) !== JSON.stringify(wantThreads)) this.fail(`threads of ${gid}`, haveThreads, wantThreads);
    const index = this.world.guilds.findIndex((w) => w.id === gid);
    const ids: string[] = [];
    if (byIdKeys.has(`${gid}/*`)) {
      for (let c = 0; c < CHANNELS_PER_GUILD; c++) ids.push(channelIdOf(index, c));
      for (let t = 0; t < THREADS_PER_GUILD; t++) ids.push(threadIdOf(index, t));
    } else {
      for (const key of byIdKeys) if (key.startsWith(`${gid}/`)) ids.push(key.slice(gid.length + 1));
    }
    const byId = await Promise.all(ids.map((id) => this.cache.getChannel(id)));
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const got = byId[i];
      const isThread = g?.threads.has(id) === true;
      const want = isThread ? wantThreads.find((t) => t.id === id) : wantChannels.find((c) => c.id === id);
      const view = got === undefined ? undefined : got.guildId !== gid ? { guild: got.guildId } : isThread ? threadView(got) : channelView(got);
      if (JSON.stringify(view) !== JSON.stringify(want)) this.fail(`getChannel(${id}) of ${gid}`, view, want);
    }
  }

  /** permissionsOf the guild's first cached member in a channel, against computePermissions over the model. */
  private async comparePermissions(key: string): Promise<void> {
    const [gid, cid] = key.split('/') as [string, string];
    const g = this.model.guilds.get(gid);
    const c = g?.channels.get(cid);
    if (!g || !c || g.ownerId === null) return;
    const everyone = g.roles.get(gid);
    for (const uid of [...g.members.keys()].slice(0, 1)) {
      const m = g.members.get(uid)!;
      const roles = this.model.visibleRoles(gid, m).filter((r) => r !== gid);
      const want =
        everyone === undefined
          ? undefined
          : computePermissions(
              { guildId: gid, ownerId: g.ownerId, userId: uid, everyone: everyone.permissions, rolePermissions: roles.map((r) => g.roles.get(r)!.permissions), roleIds: roles, timedOutUntil: null },
              { overwrites: c.overwrites, thread: false },
            );
      const have = await this.cache.permissionsOf(gid, uid, cid);
      if (have !== want) this.fail(`permissionsOf(${gid}, ${uid}, ${cid})`, have?.toString(), want?.toString());
    }
  }

  private async compareTouched(step: Step): Promise<void> {
    const x = this.touched;
    const users = x.users.size > 0 ? this.model.users() : new Set<string>();
    try {
      await Promise.all([
        ...[...x.guilds].map((g) => this.compareGuild(g)),
        ...[...x.channels].map((g) => this.compareChannels(g, x.channelIds)),
        ...[...x.permissions].map((p) => this.comparePermissions(p)),
        ...[...x.members].map((m) => this.compareMember(m)),
        ...[...x.users].map((u) => this.compareUser(u, users)),
        ...[...x.entitlements].map((e) => this.compareEntitlement(e)),
        ...[...x.holders].map((u) => this.compareHolder(u)),
      ]);
    } catch (err) {
      if (err instanceof ModelMismatch) err.message += ` after ${JSON.stringify(step)}`;
      throw err;
    }
  }

  private async compareAll(when: string): Promise<void> {
    const users = this.model.users();
    const checks: Promise<void>[] = [];
    for (let i = 0; i < GUILD_COUNT; i++) {
      const id = guildIdOf(i);
      checks.push(this.compareGuild(id));
      checks.push(this.compareChannels(id));
      for (const c of this.model.guilds.get(id)?.channels.keys() ?? []) checks.push(this.comparePermissions(`${id}/${c}`));
      checks.push(
        (async () => {
          const got: MemberView[] = [];
          let after: string | undefined;
          for (let pages = 0; pages < 100; pages++) {
            const page = await this.cache.getMembers(id, { limit: 5, ...(after !== undefined ? { after } : {}) });
            got.push(...page.members);
            if (page.next === null) break;
            after = page.next;
          }
          const g = this.model.guilds.get(id);
          const want = g ? [...g.members.keys()].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)) : [];
          const have = got.map((m) => m.userId);
          if (JSON.stringify(have) !== JSON.stringify(want)) this.fail(`${when}: members of ${id}`, have, want);
          for (const m of got) {
            const w = this.memberWant(id, m.userId);
            if (JSON.stringify(ModelRun.memberHave(m)) !== JSON.stringify(w)) this.fail(`${when}: member ${id}/${m.userId} in a page`, ModelRun.memberHave(m), w);
          }
        })(),
      );
    }
    for (let u = 0; u < USER_COUNT; u++) {
      checks.push(this.compareUser(userIdOf(u), users));
      checks.push(this.compareHolder(userIdOf(u)));
    }
    checks.push(this.compareUser(BOT_ID, users));
    for (let e = 0; e < ENTITLEMENT_COUNT; e++) checks.push(this.compareEntitlement(entitlementIdOf(e)));
    checks.push(
      (async () => {
        const sizes = await this.cache.sizes();
        let members = 0;
        let channels = 0;
        let threads = 0;
        for (const g of this.model.guilds.values()) {
          members += g.members.size;
          channels += g.channels.size;
          threads += g.threads.size;
        }
        const want = { guilds: this.model.guilds.size, members, users: users.size, entitlements: this.model.entitlements.size, channels, threads };
        const have = { guilds: sizes.guilds, members: sizes.members, users: sizes.users, entitlements: sizes.entitlements, channels: sizes.channels, threads: sizes.threads };
        if (JSON.stringify(have) !== JSON.stringify(want)) this.fail(`${when}: sizes`, have, want);
      })(),
    );
    await Promise.all(checks);
  }

  /** The guarantees, on the model against the truth: for what the step touched, or everything. */
  private checkTruth(all: boolean): void {
    for (const g of this.world.guilds) {
      if (!this.exact.has(g.id) || !(all || this.touched.guilds.has(g.id))) continue;
      const m = this.model.guilds.get(g.id);
      if (!m) throw new ModelMismatch(`step ${this.stepIndex}: guarantee: guild ${g.id} is in sync but the model does not have it`);
      if (m.count !== g.members.size) {
        throw new ModelMismatch(`step ${this.stepIndex}: guarantee: member_count of ${g.id} is ${m.count}, the truth ${g.members.size}`);
      }
      const roles = [...m.roles.keys()].filter((r) => r !== g.id).sort();
      const truth = [...g.roles.keys()].sort();
      if (JSON.stringify(roles) !== JSON.stringify(truth)) {
        throw new ModelMismatch(`step ${this.stepIndex}: guarantee: roles of ${g.id} are ${JSON.stringify(roles)}, the truth ${JSON.stringify(truth)}`);
      }
      if (this.modelOptions.channels) {
        // Channels are the truth's; threads: every active one, and nothing the truth lacks.
        const channels = JSON.stringify([...m.channels].map(([id, c]) => [id, c.name, c.parentId, c.position, c.overwrites.map((o) => `${o.id}:${o.allow}:${o.deny}`).sort()]).sort());
        const truthChannels = JSON.stringify(
          [...g.channels].map(([id, c]) => [id, c.name, c.parentId, c.position, [...c.overwrites].map(([o, x]) => `${o}:${x.allow}:${x.deny}`).sort()]).sort(),
        );
        if (channels !== truthChannels) throw new ModelMismatch(`step ${this.stepIndex}: guarantee: channels of ${g.id} are ${channels}, the truth ${truthChannels}`);
        for (const [tid, t] of g.threads) {
          const mt = m.threads.get(tid);
          if (!t.archived && (mt === undefined || mt.archived || mt.parentId !== t.parentId)) throw new ModelMismatch(`step ${this.stepIndex}: guarantee: active thread ${tid} of ${g.id} is ${JSON.stringify(mt)}`);
        }
        for (const tid of m.threads.keys()) {
          if (!g.threads.has(tid)) throw new ModelMismatch(`step ${this.stepIndex}: guarantee: thread ${tid} of ${g.id} is gone in the truth`);
        }
      }
    }
    for (const g of this.world.guilds) {
      if (!(all || this.touched.guilds.has(g.id))) continue;
      const session = this.world.sessions[g.shard]!;
      // A guild the bot left, once its shard's session is fresh and nothing is pending, is gone.
      if (!g.botIn && session.live && session.missed.length === 0 && this.freshSince(g) && this.model.guilds.has(g.id)) {
        throw new ModelMismatch(`step ${this.stepIndex}: guarantee: the bot left ${g.id} but the model still has it`);
      }
    }
    if (this.entitlementsExact && (all || this.touched.holders.size > 0)) {
      for (let u = 0; u < USER_COUNT; u++) {
        const uid = userIdOf(u);
        if (!all && !this.touched.holders.has(uid)) continue;
        for (const sku of SKUS) {
          const truth = this.world.activeEntitlements(uid).some((e) => e.skuId === sku);
          if (this.model.hasEntitlement(uid, sku, NOW) !== truth) {
            throw new ModelMismatch(`step ${this.stepIndex}: guarantee: hasEntitlement(${uid}, ${sku}) should be ${truth}`);
          }
        }
      }
    }
  }

  private freshSince(g: TruthGuild): boolean {
    // A live session with nothing missed has seen every change of the guild (its leave included).
    return this.world.sessions[g.shard]!.live;
  }

  private checkMembersAgainstTruth(g: TruthGuild): void {
    const m = this.model.guilds.get(g.id)!;
    const have = [...m.members.keys()].sort();
    const want = [...g.members.keys()].sort();
    if (JSON.stringify(have) !== JSON.stringify(want)) {
      throw new ModelMismatch(`step ${this.stepIndex}: guarantee: after a member sync, members of ${g.id} are ${JSON.stringify(have)}, the truth ${JSON.stringify(want)}`);
    }
  }

  async dispose(): Promise<void> {
    await this.backend.dispose();
  }
}

function isEmpty(x: Touched): boolean {
  return x.guilds.size + x.members.size + x.users.size + x.entitlements.size + x.holders.size + x.channels.size + x.permissions.size === 0;
}

function newTouched(): Touched {
  return { guilds: new Set(), channels: new Set(), channelIds: new Set(), permissions: new Set(), members: new Set(), users: new Set(), entitlements: new Set(), holders: new Set() };
}

function guildOf(t: string, d: Obj): string | null {
  if (t === 'GUILD_CREATE' || t === 'GUILD_UPDATE' || t === 'GUILD_DELETE') return d.id as string;
  if (t.startsWith('GUILD_') || t.startsWith('CHANNEL_') || t.startsWith('THREAD_') || t === 'INTERACTION_CREATE') return (d.guild_id as string | undefined) ?? null;
  return null;
}

function shardOfReady(d: Obj): number {
  return (d.shard as [number, number])[0];
}

function pickRoles(g: TruthGuild, n: number): Set<string> {
  const ids = [...g.roles.keys()];
  return new Set(ids.filter((_, i) => ((n >> (i % 16)) & 1) === 1));
}

function rolePayload(id: string, r: { name: string; position: number; permissions: bigint }): Obj {
  return { id, name: r.name, position: r.position, permissions: String(r.permissions), color: 0 };
}

export type { Dispatch };
