/**
 * The in-process cache (the default backend). Users and members live in column tables (users.ts,
 * members.ts); guilds, roles and entitlements, which are few, in small frozen objects. Every read
 * builds a fresh plain view; the `*Sync` methods are the same reads without a promise.
 */
import type { APIEntitlement, APIRole, APIUser } from 'discord-api-types/v10';
import { entitlementView } from '../entitlement-view.js';
import { isEntitlementActive, toMillis } from '../entitlements.js';
import { reduce, type CacheSink, type GuildPayload, type MemberPayload } from '../reducer.js';
import type {
  Cache,
  CacheOptions,
  CacheSizes,
  CacheStats,
  EntitlementOwner,
  EntitlementQuery,
  EntitlementView,
  GuildView,
  MemberPage,
  MemberPageOptions,
  MemberView,
  RoleView,
  UserView,
} from '../types.js';
import { nanToNull, scratchId, splitSnowflake } from '../wire.js';
import { compareRoles, GuildRecord, roleView } from './guilds.js';
import { checkOptions, ownerOf, pageLimit, type CacheHooks } from '../shared.js';
import { MemberTable } from './members.js';
import { UserTable } from './users.js';

export class MemoryCache implements Cache, CacheSink {
  readonly backend = 'memory' as const;
  readonly options: Readonly<CacheOptions>;
  private readonly guilds = new Map<string, GuildRecord>();
  private nextGuildSlot = 0;
  private readonly freeGuildSlots: number[] = [];
  private users: UserTable;
  private members = new MemberTable();
  private readonly entitlements = new Map<string, EntitlementView>();
  private readonly entitlementsByUser = new Map<string, Set<string>>();
  private readonly entitlementsByGuild = new Map<string, Set<string>>();
  private selfId: string | null = null;
  private selfSlot = -1;
  private readonly counters: CacheStats = { applied: 0, rejected: 0, capped: 0 };

  constructor(
    options: Partial<CacheOptions> = {},
    private readonly hooks: CacheHooks = {},
  ) {
    this.options = Object.freeze(checkOptions(options));
    this.users = new UserTable(this.options.users);
  }

  apply(t: string, d: unknown): void {
    try {
      if (reduce(this, t, d)) this.counters.applied++;
    } catch (err) {
      // A payload the checks let through but a field read chokes on must not stop the dispatch loop.
      this.reject(t, `threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async flush(): Promise<void> {}

  /** Drop everything (the cache stays usable, empty). */
  async close(): Promise<void> {
    this.guilds.clear();
    this.freeGuildSlots.length = 0;
    this.nextGuildSlot = 0;
    this.users = new UserTable(this.options.users);
    this.members = new MemberTable();
    this.selfId = null;
    this.selfSlot = -1;
    this.entitlements.clear();
    this.entitlementsByUser.clear();
    this.entitlementsByGuild.clear();
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  // ---- sink -----------------------------------------------------------------------------------

  reject(event: string, reason: string): void {
    this.counters.rejected++;
    this.hooks.onReject?.(event, reason);
  }

  setSelf(user: APIUser): void {
    if (!this.options.members) {
      this.selfId = user.id;
      return;
    }
    if (this.selfId !== user.id) {
      if (this.selfSlot >= 0) this.users.release(this.selfSlot);
      this.selfSlot = this.users.acquire(user.id);
      this.selfId = user.id;
    }
    this.users.write(this.selfSlot, user);
  }

  guildUnavailable(guildId: string): void {
    this.guildRecord(guildId).unavailable = true;
  }

  guildUpsert(p: GuildPayload): void {
    const g = this.guildRecord(p.id);
    g.unavailable = false;
    if (this.options.guilds) {
      if (typeof p.name === 'string') g.name = p.name;
      if (typeof p.owner_id === 'string') g.ownerId = p.owner_id;
      if (typeof p.member_count === 'number') g.memberCount = p.member_count;
    }
    const roles = p.roles;
    if (roles === undefined) return;
    if (this.options.roles) g.roles.clear();
    for (let i = 0; i < roles.length; i++) this.storeRole(g, roles[i]!);
  }

  guildRemove(guildId: string): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    this.dropMembers(g);
    this.guilds.delete(guildId);
    this.freeGuildSlots.push(g.slot);
  }

  memberUpsert(guildId: string, m: MemberPayload, partial: boolean, join: boolean): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    if (!this.options.members) {
      if (join && g.memberCount >= 0) g.memberCount++;
      return;
    }
    const userId = m.user.id;
    if (!splitSnowflake(userId)) {
      this.reject('GUILD_MEMBER_*', 'member user.id is not a snowflake');
      return;
    }
    const hi = scratchId.hi;
    const lo = scratchId.lo;
    let userSlot = this.users.findKey(hi, lo);
    let slot = userSlot >= 0 ? this.members.find(g.slot, userSlot) : -1;
    const existed = slot >= 0;
    if (!existed) {
      const cap = this.options.maxMembersPerGuild;
      if (cap > 0 && g.cachedMembers >= cap && userId !== this.selfId) {
        this.counters.capped++;
        if (join && g.memberCount >= 0) g.memberCount++;
        return;
      }
      userSlot = this.users.acquireKey(hi, lo, userSlot < 0);
      slot = this.members.insert(g, userSlot);
    }
    this.members.write(slot, g, m, partial);
    this.users.write(userSlot, m.user);
    if (join && !existed && g.memberCount >= 0) g.memberCount++;
  }

  memberRemove(guildId: string, user: APIUser): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    if (g.memberCount > 0) g.memberCount--;
    const userSlot = this.users.find(user.id);
    if (userSlot < 0) return;
    const slot = this.members.find(g.slot, userSlot);
    if (slot < 0) return;
    this.users.write(userSlot, user);
    this.members.remove(g, slot);
    this.users.release(userSlot);
  }

  roleUpsert(guildId: string, role: APIRole): void {
    const g = this.guilds.get(guildId);
    if (g) this.storeRole(g, role);
  }

  roleRemove(guildId: string, roleId: string): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    g.roles.delete(roleId);
    const n = g.knownRoleSlot(roleId);
    if (n < 0) return;
    this.members.dropRole(g, n);
    g.releaseRoleSlot(roleId);
  }

  entitlementUpsert(e: APIEntitlement): void {
    if (!this.options.entitlements) return;
    const view = entitlementView(e);
    const old = this.entitlements.get(view.id);
    if (old) this.unindexEntitlement(old);
    this.entitlements.set(view.id, view);
    if (view.userId !== null) indexAdd(this.entitlementsByUser, view.userId, view.id);
    if (view.guildId !== null) indexAdd(this.entitlementsByGuild, view.guildId, view.id);
  }

  entitlementRemove(e: APIEntitlement): void {
    const old = this.entitlements.get(e.id);
    if (!old) return;
    this.entitlements.delete(e.id);
    this.unindexEntitlement(old);
  }

  // ---- reads ----------------------------------------------------------------------------------

  getGuildSync(guildId: string): GuildView | undefined {
    const g = this.guilds.get(guildId);
    if (!g || !this.options.guilds) return undefined;
    return {
      id: g.id,
      name: g.name,
      ownerId: g.ownerId,
      memberCount: g.memberCount >= 0 ? g.memberCount : null,
      unavailable: g.unavailable,
      roleIds: [...g.roles.keys()],
    };
  }

  getMemberSync(guildId: string, userId: string): MemberView | undefined {
    const g = this.guilds.get(guildId);
    if (!g) return undefined;
    const userSlot = this.users.find(userId);
    if (userSlot < 0) return undefined;
    const slot = this.members.find(g.slot, userSlot);
    return slot < 0 ? undefined : this.memberView(g, slot);
  }

  getUserSync(userId: string): UserView | undefined {
    const slot = this.users.find(userId);
    return slot < 0 ? undefined : (this.users.view(slot) ?? undefined);
  }

  getRoleSync(guildId: string, roleId: string): RoleView | undefined {
    return this.guilds.get(guildId)?.roles.get(roleId);
  }

  getRolesSync(guildId: string): RoleView[] {
    const g = this.guilds.get(guildId);
    return g ? [...g.roles.values()].sort(compareRoles) : [];
  }

  getMembersSync(guildId: string, options: MemberPageOptions = {}): MemberPage {
    const limit = pageLimit(options.limit);
    const g = this.guilds.get(guildId);
    if (!g) return { members: [], next: null };
    const sorted = this.sortedMembers(g);
    let lo = 0;
    if (options.after !== undefined) {
      if (!splitSnowflake(options.after)) throw new TypeError(`members page "after" must be a snowflake; got ${JSON.stringify(options.after)}`);
      // First member whose user id is greater than `after`.
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.users.isAfterScratch(this.members.userOf(sorted[mid]!))) hi = mid;
        else lo = mid + 1;
      }
    }
    const end = Math.min(sorted.length, lo + limit);
    const members: MemberView[] = [];
    for (let i = lo; i < end; i++) members.push(this.memberView(g, sorted[i]!));
    return { members, next: end < sorted.length && members.length > 0 ? members[members.length - 1]!.userId : null };
  }

  memberCountSync(guildId: string): number | undefined {
    const g = this.guilds.get(guildId);
    return g && this.options.guilds && g.memberCount >= 0 ? g.memberCount : undefined;
  }

  getEntitlementSync(entitlementId: string): EntitlementView | undefined {
    return this.entitlements.get(entitlementId);
  }

  entitlementsOfSync(owner: EntitlementOwner): EntitlementView[] {
    const ids = 'userId' in owner ? this.entitlementsByUser.get(owner.userId) : this.entitlementsByGuild.get(owner.guildId);
    const out: EntitlementView[] = [];
    if (ids) for (const id of ids) out.push(this.entitlements.get(id)!);
    return out;
  }

  hasEntitlementSync(query: EntitlementQuery): boolean {
    const at = toMillis(query.at);
    const owner = ownerOf(query);
    const ids = 'userId' in owner ? this.entitlementsByUser.get(owner.userId) : this.entitlementsByGuild.get(owner.guildId);
    if (!ids) return false;
    for (const id of ids) {
      const e = this.entitlements.get(id)!;
      if (e.skuId === query.skuId && isEntitlementActive(e, at)) return true;
    }
    return false;
  }

  sizesSync(): CacheSizes {
    let roles = 0;
    for (const g of this.guilds.values()) roles += g.roles.size;
    return {
      guilds: this.options.guilds ? this.guilds.size : 0,
      members: this.members.size,
      users: this.options.users ? this.users.size : 0,
      roles,
      entitlements: this.entitlements.size,
    };
  }

  sweepMembersSync(predicate: (member: MemberView) => boolean, guildId?: string): number {
    let removed = 0;
    const sweep = (g: GuildRecord): void => {
      for (let slot = g.memberHead; slot >= 0; ) {
        const next = this.members.nextOf(slot);
        if (predicate(this.memberView(g, slot))) {
          this.users.release(this.members.remove(g, slot));
          removed++;
        }
        slot = next;
      }
    };
    if (guildId !== undefined) {
      const g = this.guilds.get(guildId);
      if (g) sweep(g);
    } else {
      for (const g of this.guilds.values()) sweep(g);
    }
    return removed;
  }

  async getGuild(guildId: string): Promise<GuildView | undefined> {
    return this.getGuildSync(guildId);
  }
  async getMember(guildId: string, userId: string): Promise<MemberView | undefined> {
    return this.getMemberSync(guildId, userId);
  }
  async getUser(userId: string): Promise<UserView | undefined> {
    return this.getUserSync(userId);
  }
  async getRole(guildId: string, roleId: string): Promise<RoleView | undefined> {
    return this.getRoleSync(guildId, roleId);
  }
  async getRoles(guildId: string): Promise<RoleView[]> {
    return this.getRolesSync(guildId);
  }
  async getMembers(guildId: string, options?: MemberPageOptions): Promise<MemberPage> {
    return this.getMembersSync(guildId, options);
  }
  async memberCount(guildId: string): Promise<number | undefined> {
    return this.memberCountSync(guildId);
  }
  async getEntitlement(entitlementId: string): Promise<EntitlementView | undefined> {
    return this.getEntitlementSync(entitlementId);
  }
  async entitlementsOf(owner: EntitlementOwner): Promise<EntitlementView[]> {
    return this.entitlementsOfSync(owner);
  }
  async hasEntitlement(query: EntitlementQuery): Promise<boolean> {
    return this.hasEntitlementSync(query);
  }
  async sizes(): Promise<CacheSizes> {
    return this.sizesSync();
  }
  async sweepMembers(predicate: (member: MemberView) => boolean, guildId?: string): Promise<number> {
    return this.sweepMembersSync(predicate, guildId);
  }

  // ---- internals ------------------------------------------------------------------------------

  private guildRecord(id: string): GuildRecord {
    let g = this.guilds.get(id);
    if (g) return g;
    g = new GuildRecord(id, this.freeGuildSlots.pop() ?? this.nextGuildSlot++);
    this.guilds.set(id, g);
    return g;
  }

  private storeRole(g: GuildRecord, role: APIRole): void {
    // @everyone (id = guild id) is never listed on members, so it needs no number.
    if (role.id !== g.id) g.roleSlot(role.id);
    if (this.options.roles) g.roles.set(role.id, roleView(g.id, role));
  }

  private dropMembers(g: GuildRecord): void {
    for (let slot = g.memberHead; slot >= 0; ) {
      const next = this.members.nextOf(slot);
      this.users.release(this.members.remove(g, slot));
      slot = next;
    }
  }

  private sortedMembers(g: GuildRecord): Int32Array {
    if (g.sorted) return g.sorted;
    const sorted = new Int32Array(g.cachedMembers);
    let i = 0;
    for (let slot = g.memberHead; slot >= 0; slot = this.members.nextOf(slot)) sorted[i++] = slot;
    const members = this.members;
    const users = this.users;
    sorted.sort((a, b) => users.compare(members.userOf(a), members.userOf(b)));
    g.sorted = sorted;
    return sorted;
  }

  private memberView(g: GuildRecord, slot: number): MemberView {
    const m = this.members;
    const userSlot = m.userOf(slot);
    return {
      guildId: g.id,
      userId: this.users.idOf(userSlot),
      nick: m.nickOf(slot),
      roles: m.roles(slot, g),
      joinedAt: nanToNull(m.joinedOf(slot)),
      avatar: m.avatarOf(slot),
      banner: m.bannerOf(slot),
      communicationDisabledUntil: nanToNull(m.timeoutOf(slot)),
      flags: m.flagsOf(slot),
      pending: m.pendingOf(slot),
      user: this.options.users ? this.users.view(userSlot) : null,
    };
  }

  private unindexEntitlement(e: EntitlementView): void {
    if (e.userId !== null) indexDelete(this.entitlementsByUser, e.userId, e.id);
    if (e.guildId !== null) indexDelete(this.entitlementsByGuild, e.guildId, e.id);
  }
}

function indexAdd(index: Map<string, Set<string>>, key: string, id: string): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(id);
}

function indexDelete(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) index.delete(key);
}
