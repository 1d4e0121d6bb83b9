/**
 * The in-process cache (the default backend). Users and members live in column tables (users.ts,
 * members.ts); guilds, roles and entitlements, which are few, in small frozen objects. Every read
 * builds a fresh plain view; the `*Sync` methods are the same reads without a promise. Writes never fail
 * and there is no background work: syncs commit at once, nothing is ever stale.
 */
import type { APIEntitlement, APIRole, APIUser } from 'discord-api-types/v10';
import type { CommandAccess, CommandPermissionEntry } from '../../api/command-access.js';
import { isThreadType } from '../../api/permissions.js';
import { commandAccessFromParts, permissionsFromParts, type PermissionParts } from '../access.js';
import { compareChannels, compareIds, type ChannelFields, type VoiceStateFields } from '../channel-payloads.js';
import { entitlementView } from '../entitlement-view.js';
import { isEntitlementActive, toMillis } from '../entitlements.js';
import { commandPermissionsListEntries, entitlementProblem, NOT_CACHED, reduce, REFUSED, type CacheSink, type GuildPayload, type MemberPayload } from '../reducer.js';
import type {
  Cache,
  CacheOptions,
  CacheSizes,
  ChannelView,
  CommandPermissionsLoad,
  CommandRef,
  GuildCommandPermissionsView,
  CacheStats,
  EntitlementOwner,
  EntitlementQuery,
  EntitlementSync,
  EntitlementView,
  GuildView,
  MemberPage,
  MemberPageOptions,
  MemberSync,
  MemberView,
  RoleView,
  StaleScope,
  UserView,
  VoiceStateView,
} from '../types.js';
import { idHalves, nanToNull, splitSnowflake, type IdHalves } from '../wire.js';
import { compareRoles, GuildRecord, roleView } from './guilds.js';
import {
  checkOptions,
  ENTITLEMENT_TOMBSTONE_MS,
  MAX_ENTITLEMENT_TOMBSTONES,
  MAX_TRANSITIONS,
  ownerOf,
  pageLimit,
  shardOf,
  TRANSITION_WINDOW_MS,
  type CacheHooks,
} from '../shared.js';
import { ChannelTable } from './channels.js';
import { MemberTable } from './members.js';
import { TransitionLog } from './transitions.js';
import { UserTable } from './users.js';

/** The member-sync token of a GUILD_CREATE whose complete member list replaces the cached one. */
const LISTED = Object.freeze({});

export class MemoryCache implements Cache, CacheSink {
  readonly backend = 'memory' as const;
  readonly reachable = true;
  readonly options: Readonly<CacheOptions>;
  private readonly guilds = new Map<string, GuildRecord>();
  /** Guild records by slot (a channel knows its guild by slot). */
  private guildsBySlot: (GuildRecord | undefined)[] = [];
  private channels = new ChannelTable();
  private nextGuildSlot = 0;
  private readonly freeGuildSlots: number[] = [];
  private users: UserTable;
  private members = new MemberTable();
  private readonly entitlements = new Map<string, EntitlementView>();
  private readonly entitlementsByUser = new Map<string, Set<string>>();
  private readonly entitlementsByGuild = new Map<string, Set<string>>();
  /**
   * When each entitlement id was last written or deleted (a tick of `clock`); deleted ids stay as
   * tombstones, so that an interaction's older copy cannot bring them back and an entitlement sync knows
   * what events changed while it read REST.
   */
  private readonly entitlementStamps = new Map<string, number>();
  /**
   * Deleted entitlement ids -> when (this.now), oldest first: their stamps are forgotten after
   * ENTITLEMENT_TOMBSTONE_MS or past MAX_ENTITLEMENT_TOMBSTONES (see sweepTombstones).
   */
  private readonly entitlementTombstones = new Map<string, number>();
  private clock = 0;
  private entitlementSync: { stamp: number; seen: Set<string> } | null = null;
  private selfId: string | null = null;
  private selfSlot = -1;
  private readonly counters: CacheStats = { applied: 0, rejected: 0, capped: 0, writeErrors: 0 };
  /** The `after` id of a members page (getMembersSync). */
  private readonly pageAfter = idHalves();
  private readonly now: () => number;
  /** Members are cached and uncapped: a joining member is always cached (see transition). */
  private readonly everyMemberCached: boolean;

  constructor(
    options: Partial<CacheOptions> = {},
    private readonly hooks: CacheHooks = {},
  ) {
    this.options = Object.freeze(checkOptions(options));
    this.users = new UserTable(this.options.users);
    this.now = hooks.now ?? Date.now;
    this.everyMemberCached = this.options.members && this.options.maxMembersPerGuild === 0;
  }

  apply(t: string, d: unknown): boolean {
    try {
      const reduced = reduce(this, t, d);
      if (reduced !== NOT_CACHED) this.counters.applied++;
      return reduced !== REFUSED;
    } catch (err) {
      // A payload the checks let through but a field read chokes on must not stop the dispatch loop.
      this.reject(t, `threw: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  }

  async flush(): Promise<void> {}

  async settled(): Promise<void> {}

  /** Nothing is ever stale in memory: writes cannot fail. */
  async stale(): Promise<{ guildIds: string[]; entitlements: boolean }> {
    return { guildIds: [], entitlements: false };
  }

  async recovered(_scope: StaleScope): Promise<void> {}

  beginMemberSync(guildId: string): MemberSync {
    const token = {};
    const g = this.guilds.get(guildId);
    if (g) {
      g.syncToken = token;
      g.syncSeen = new Set();
    }
    return {
      guildId,
      commit: async (memberCount?: number) => this.commitMemberSync(guildId, token, memberCount),
      abort: () => {
        const current = this.guilds.get(guildId);
        if (current?.syncToken === token) {
          current.syncToken = null;
          current.syncSeen = null;
        }
      },
    };
  }

  beginEntitlementSync(): EntitlementSync {
    const sync = { stamp: ++this.clock, seen: new Set<string>() };
    this.entitlementSync = sync;
    return {
      add: (list) => {
        for (let i = 0; i < list.length; i++) {
          const e = list[i];
          const problem = entitlementProblem(e);
          if (problem !== null) {
            this.reject('entitlement sync', `[${i}]${problem.charCodeAt(0) === 58 ? '' : '.'}${problem}`);
            continue;
          }
          const id = (e as APIEntitlement).id;
          sync.seen.add(id);
          // An event since begin is newer than this page.
          if ((this.entitlementStamps.get(id) ?? 0) < sync.stamp) this.storeEntitlement(e as APIEntitlement, false, false);
        }
      },
      commit: async () => {
        if (this.entitlementSync !== sync) return;
        this.entitlementSync = null;
        for (const id of [...this.entitlements.keys()]) {
          if (!sync.seen.has(id) && (this.entitlementStamps.get(id) ?? 0) < sync.stamp) this.dropEntitlement(id, false);
        }
      },
      abort: () => {
        if (this.entitlementSync === sync) this.entitlementSync = null;
      },
    };
  }

  beginCommandPermissionsLoad(guildId: string): CommandPermissionsLoad {
    const token = {};
    const g = this.guilds.get(guildId);
    if (g && this.options.channels) g.commandPermissionsLoad = { token, touched: new Set() };
    return {
      guildId,
      commit: async (list) => {
        const current = this.guilds.get(guildId);
        if (!current || current.commandPermissionsLoad?.token !== token) return;
        const touched = current.commandPermissionsLoad.touched;
        current.commandPermissionsLoad = null;
        const listed = commandPermissionsListEntries(list, guildId, (reason) => this.reject('command permissions load', reason));
        const kept = current.commandPermissions ?? new Map<string, readonly CommandPermissionEntry[]>();
        const next = new Map<string, readonly CommandPermissionEntry[]>();
        // An event since begin is newer than the answer.
        for (const [target, entries] of kept) if (touched.has(target)) next.set(target, entries);
        for (const [target, entries] of listed) if (!touched.has(target) && entries.length > 0) next.set(target, Object.freeze(entries.map((e) => Object.freeze({ ...e }))));
        current.commandPermissions = next;
        current.commandPermissionsLoaded = true;
      },
      abort: () => {
        const current = this.guilds.get(guildId);
        if (current?.commandPermissionsLoad?.token === token) current.commandPermissionsLoad = null;
      },
    };
  }

  /** Drop everything (the cache stays usable, empty). */
  async close(): Promise<void> {
    this.guilds.clear();
    this.guildsBySlot = [];
    this.channels = new ChannelTable();
    this.freeGuildSlots.length = 0;
    this.nextGuildSlot = 0;
    this.users = new UserTable(this.options.users);
    this.members = new MemberTable();
    this.selfId = null;
    this.selfSlot = -1;
    this.entitlements.clear();
    this.entitlementsByUser.clear();
    this.entitlementsByGuild.clear();
    this.entitlementStamps.clear();
    this.entitlementTombstones.clear();
    this.entitlementSync = null;
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  // ---- sink -----------------------------------------------------------------------------------

  reject(event: string, reason: string): void {
    this.counters.rejected++;
    this.hooks.onReject?.(event, reason);
  }

  ready(guildIds: readonly string[], shardId: number, shardCount: number): void {
    for (let i = 0; i < guildIds.length; i++) this.guildUnavailable(guildIds[i]!);
    if (shardCount <= 0) return;
    const listed = new Set(guildIds);
    for (const id of [...this.guilds.keys()]) {
      if (!listed.has(id) && shardOf(id, shardCount) === shardId) this.guildRemove(id);
    }
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

  guildUpsert(p: GuildPayload, create: boolean, listComplete: boolean): void {
    const known = this.guilds.get(p.id);
    // A GUILD_CREATE sets the count's baseline when the guild was unknown or unavailable; one for a guild
    // already available is a replay (after a crash) and must not undo the transitions counted since.
    const baseline = create && (known === undefined || known.unavailable);
    const g = known ?? this.guildRecord(p.id);
    g.unavailable = false;
    // Settings changed while the guild was away reached no event here: the next canUseCommand reads them again.
    if (baseline) g.commandPermissionsLoaded = false;
    if (baseline && listComplete && this.options.members && g.cachedMembers > 0) {
      // The members that follow are all there is (this supersedes an open member sync).
      g.syncToken = LISTED;
      g.syncSeen = new Set();
    }
    if (this.options.guilds) {
      if (typeof p.name === 'string') g.name = p.name;
      if (typeof p.owner_id === 'string') g.ownerId = p.owner_id;
      if (baseline && typeof p.member_count === 'number' && Number.isSafeInteger(p.member_count) && p.member_count >= 0) {
        g.memberCount = p.member_count;
        g.transitions = null;
        g.epoch = (g.epoch + 1) & 255;
      }
    }
    const roles = p.roles;
    if (roles === undefined) return;
    // The list is complete: a role id not in it is gone, from members too.
    const listed = new Set<string>();
    for (let i = 0; i < roles.length; i++) listed.add(roles[i]!.id);
    let gone: number[] | null = null;
    let goneIds: string[] | null = null;
    for (const [id, n] of g.roleSlotsInUse()) {
      if (!listed.has(id)) {
        (gone ??= []).push(n);
        (goneIds ??= []).push(id);
      }
    }
    if (gone !== null) {
      this.members.dropRoles(g, gone);
      for (const id of goneIds!) g.releaseRoleSlot(id);
    }
    g.roles.clear();
    for (let i = 0; i < roles.length; i++) this.storeRole(g, roles[i]!);
  }

  guildMembersListed(guildId: string): void {
    if (this.guilds.get(guildId)?.syncToken === LISTED) this.commitMemberSync(guildId, LISTED, undefined);
  }

  guildRemove(guildId: string): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    this.dropMembers(g);
    this.dropChannels(g, false);
    this.dropChannels(g, true);
    this.guilds.delete(guildId);
    this.guildsBySlot[g.slot] = undefined;
    this.freeGuildSlots.push(g.slot);
  }

  channelUpsert(guildId: string, c: ChannelFields): void {
    if (!this.options.channels) return;
    const g = this.guilds.get(guildId);
    if (g) this.channels.upsert(g, c, isThreadType(c.type), this.guildAt);
  }

  channelRemove(guildId: string, channelId: string, thread: boolean): void {
    if (!this.options.channels) return;
    const g = this.guilds.get(guildId);
    if (!g) return;
    const slot = this.channels.find(channelId);
    const cached = slot >= 0 && this.channels.guildOf(slot) === g.slot;
    const wasThread = cached && this.channels.isThread(slot);
    // THREAD_DELETE names threads only. A deleted channel takes its threads with it, also when it is not cached
    // (a replay can bring back a thread created before the deletion).
    if (thread && !wasThread) return;
    if (!thread) this.dropThreadsOf(g, [channelId]);
    if (cached && thread === wasThread) this.channels.remove(g, slot);
  }

  channelsReplace(guildId: string, channels: readonly ChannelFields[] | null, threads: readonly ChannelFields[] | null): void {
    if (!this.options.channels) return;
    const g = this.guilds.get(guildId);
    if (!g) return;
    if (channels !== null) this.replaceKind(g, channels, false);
    if (threads !== null) this.replaceKind(g, threads, true);
  }

  threadsSync(guildId: string, parentIds: readonly string[] | null, threads: readonly ChannelFields[]): void {
    if (!this.options.channels) return;
    const g = this.guilds.get(guildId);
    if (!g) return;
    const listed = new Set<string>();
    for (const t of threads) listed.add(t.id);
    // Active threads of the synced parents that the list leaves out are gone; archived ones are not in its scope.
    for (let slot = g.threadHead; slot >= 0; ) {
      const next = this.channels.nextOf(slot);
      if (!this.channels.isArchived(slot) && !listed.has(this.channels.idOf(slot))) {
        const parent = this.channels.parentOf(slot);
        if (parentIds === null || (parent !== null && parentIds.includes(parent))) this.channels.remove(g, slot);
      }
      slot = next;
    }
    for (const t of threads) this.channels.upsert(g, t, isThreadType(t.type), this.guildAt);
  }

  voiceStateUpsert(guildId: string, v: VoiceStateFields): void {
    if (!this.options.voiceStates) return;
    const g = this.guilds.get(guildId);
    if (!g) return;
    if (v.channelId === null) g.voice?.delete(v.userId);
    else (g.voice ??= new Map()).set(v.userId, Object.freeze({ guildId, ...v }));
  }

  voiceStatesReplace(guildId: string, states: readonly VoiceStateFields[]): void {
    if (!this.options.voiceStates) return;
    const g = this.guilds.get(guildId);
    if (!g) return;
    g.voice = null;
    for (const v of states) this.voiceStateUpsert(guildId, v);
  }

  commandPermissionsPut(guildId: string, targetId: string, entries: readonly CommandPermissionEntry[]): void {
    if (!this.options.channels) return;
    const g = this.guilds.get(guildId);
    if (!g) return;
    g.commandPermissionsLoad?.touched.add(targetId);
    if (entries.length === 0) g.commandPermissions?.delete(targetId);
    else (g.commandPermissions ??= new Map()).set(targetId, Object.freeze(entries.map((e) => Object.freeze({ ...e }))));
  }

  memberUpsert(guildId: string, m: MemberPayload, partial: boolean, join: boolean, userIdHalves: Readonly<IdHalves>): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    const userId = m.user.id;
    const hi = userIdHalves.hi;
    const lo = userIdHalves.lo;
    if (!this.options.members) {
      if (join) this.transition(g, hi, lo, true, false);
      return;
    }
    let userSlot = this.users.findKey(hi, lo);
    let slot = userSlot >= 0 ? this.members.find(g.slot, userSlot) : -1;
    const existed = slot >= 0;
    if (join) this.transition(g, hi, lo, true, existed && this.members.currentOf(slot, g));
    if (!existed) {
      const cap = this.options.maxMembersPerGuild;
      if (cap > 0 && g.cachedMembers >= cap && userId !== this.selfId) {
        this.counters.capped++;
        return;
      }
      userSlot = this.users.acquireKey(hi, lo, userSlot < 0);
      slot = this.members.insert(g, userSlot);
    }
    this.members.write(slot, g, m, partial);
    this.users.write(userSlot, m.user);
    if (g.syncSeen !== null) g.syncSeen.add(slot);
  }

  memberRemove(guildId: string, user: APIUser, userIdHalves: Readonly<IdHalves>): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    const hi = userIdHalves.hi;
    const lo = userIdHalves.lo;
    const userSlot = this.options.members ? this.users.findKey(hi, lo) : -1;
    const slot = userSlot >= 0 ? this.members.find(g.slot, userSlot) : -1;
    this.transition(g, hi, lo, false, slot >= 0 && this.members.currentOf(slot, g));
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
    this.members.dropRoles(g, [n]);
    g.releaseRoleSlot(roleId);
  }

  entitlementUpsert(e: APIEntitlement, fromInteraction: boolean): void {
    if (!this.options.entitlements) return;
    this.storeEntitlement(e, fromInteraction, true);
  }

  entitlementRemove(e: APIEntitlement): void {
    if (this.options.entitlements) this.dropEntitlement(e.id, true);
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
      const after = this.pageAfter;
      if (!splitSnowflake(options.after, after)) throw new TypeError(`members page "after" must be a snowflake; got ${JSON.stringify(options.after)}`);
      // First member whose user id is greater than `after`.
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.users.isAfter(this.members.userOf(sorted[mid]!), after)) hi = mid;
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

  getChannelSync(channelId: string): ChannelView | undefined {
    const slot = this.channels.find(channelId);
    if (slot < 0) return undefined;
    const g = this.guildsBySlot[this.channels.guildOf(slot)];
    return g === undefined ? undefined : this.channels.view(slot, g.id);
  }

  getChannelsSync(guildId: string): ChannelView[] {
    const g = this.guilds.get(guildId);
    if (!g) return [];
    const out: ChannelView[] = [];
    for (let slot = g.channelHead; slot >= 0; slot = this.channels.nextOf(slot)) out.push(this.channels.view(slot, g.id));
    return out.sort(compareChannels);
  }

  getThreadsSync(guildId: string, parentId?: string): ChannelView[] {
    const g = this.guilds.get(guildId);
    if (!g) return [];
    const out: ChannelView[] = [];
    for (let slot = g.threadHead; slot >= 0; slot = this.channels.nextOf(slot)) {
      const view = this.channels.view(slot, g.id);
      if (parentId === undefined || view.parentId === parentId) out.push(view);
    }
    return out.sort((a, b) => compareIds(a.id, b.id));
  }

  getVoiceStateSync(guildId: string, userId: string): VoiceStateView | undefined {
    return this.guilds.get(guildId)?.voice?.get(userId);
  }

  getVoiceStatesSync(guildId: string): VoiceStateView[] {
    const voice = this.guilds.get(guildId)?.voice;
    return voice ? [...voice.values()].sort((a, b) => compareIds(a.userId, b.userId)) : [];
  }

  getCommandPermissionsSync(guildId: string): GuildCommandPermissionsView | undefined {
    const g = this.guilds.get(guildId);
    if (!g || !this.options.channels) return undefined;
    return { guildId, loaded: g.commandPermissionsLoaded, byTarget: new Map(g.commandPermissions ?? []) };
  }

  permissionsOfSync(guildId: string, userId: string, channelId?: string): bigint | undefined {
    return permissionsFromParts(guildId, userId, this.permissionParts(guildId, userId, channelId));
  }

  canUseCommandSync(guildId: string, userId: string, channelId: string, command: CommandRef): CommandAccess | undefined {
    return commandAccessFromParts(guildId, userId, channelId, command, this.permissionParts(guildId, userId, channelId), this.getCommandPermissionsSync(guildId));
  }

  private permissionParts(guildId: string, userId: string, channelId: string | undefined): PermissionParts {
    const channel = channelId === undefined ? null : this.getChannelSync(channelId);
    const parent = channel !== null && channel !== undefined && channel.thread !== null && channel.parentId !== null ? this.getChannelSync(channel.parentId) : undefined;
    return {
      ownerId: this.getGuildSync(guildId)?.ownerId,
      roles: this.getRolesSync(guildId),
      member: this.getMemberSync(guildId, userId),
      channel,
      parent,
    };
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
    let voiceStates = 0;
    for (const g of this.guilds.values()) {
      roles += g.roles.size;
      voiceStates += g.voice?.size ?? 0;
    }
    return {
      guilds: this.options.guilds ? this.guilds.size : 0,
      members: this.members.size,
      users: this.options.users ? this.users.size : 0,
      roles,
      entitlements: this.entitlements.size,
      channels: this.channels.channelCount,
      threads: this.channels.threadCount,
      voiceStates,
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
  async getChannel(channelId: string): Promise<ChannelView | undefined> {
    return this.getChannelSync(channelId);
  }
  async getChannels(guildId: string): Promise<ChannelView[]> {
    return this.getChannelsSync(guildId);
  }
  async getThreads(guildId: string, parentId?: string): Promise<ChannelView[]> {
    return this.getThreadsSync(guildId, parentId);
  }
  async getVoiceState(guildId: string, userId: string): Promise<VoiceStateView | undefined> {
    return this.getVoiceStateSync(guildId, userId);
  }
  async getVoiceStates(guildId: string): Promise<VoiceStateView[]> {
    return this.getVoiceStatesSync(guildId);
  }
  async permissionsOf(guildId: string, userId: string, channelId?: string): Promise<bigint | undefined> {
    return this.permissionsOfSync(guildId, userId, channelId);
  }
  async getCommandPermissions(guildId: string): Promise<GuildCommandPermissionsView | undefined> {
    return this.getCommandPermissionsSync(guildId);
  }
  async canUseCommand(guildId: string, userId: string, channelId: string, command: CommandRef): Promise<CommandAccess | undefined> {
    return this.canUseCommandSync(guildId, userId, channelId, command);
  }

  // ---- internals ------------------------------------------------------------------------------

  private guildRecord(id: string): GuildRecord {
    let g = this.guilds.get(id);
    if (g) return g;
    g = new GuildRecord(id, this.freeGuildSlots.pop() ?? this.nextGuildSlot++);
    this.guilds.set(id, g);
    this.guildsBySlot[g.slot] = g;
    return g;
  }

  /** The guild record at a slot (for the channel table); an arrow so it can be handed on without binding. */
  private readonly guildAt = (slot: number): GuildRecord | undefined => this.guildsBySlot[slot];

  /** Replace the guild's channels (or threads) with `list`: those it leaves out go. */
  private replaceKind(g: GuildRecord, list: readonly ChannelFields[], thread: boolean): void {
    const listed = new Set<string>();
    for (const c of list) if (isThreadType(c.type) === thread) listed.add(c.id);
    const gone: string[] = [];
    for (let slot = thread ? g.threadHead : g.channelHead; slot >= 0; ) {
      const next = this.channels.nextOf(slot);
      const id = this.channels.idOf(slot);
      if (!listed.has(id)) {
        this.channels.remove(g, slot);
        gone.push(id);
      }
      slot = next;
    }
    // Threads of a channel the list left out went with it.
    if (!thread && gone.length > 0) this.dropThreadsOf(g, gone);
    for (const c of list) this.channels.upsert(g, c, isThreadType(c.type), this.guildAt);
  }

  /** Remove the threads whose parent is one of `parentIds` (they go with their channel). */
  private dropThreadsOf(g: GuildRecord, parentIds: readonly string[]): void {
    if (g.threads === 0) return;
    for (let slot = g.threadHead; slot >= 0; ) {
      const next = this.channels.nextOf(slot);
      const parent = this.channels.parentOf(slot);
      if (parent !== null && parentIds.includes(parent)) this.channels.remove(g, slot);
      slot = next;
    }
  }

  private dropChannels(g: GuildRecord, thread: boolean): void {
    for (let slot = thread ? g.threadHead : g.channelHead; slot >= 0; ) {
      const next = this.channels.nextOf(slot);
      this.channels.remove(g, slot);
      slot = next;
    }
  }

  private storeRole(g: GuildRecord, role: APIRole): void {
    // @everyone (id = guild id) is never listed on members, so it needs no number.
    if (role.id !== g.id) g.markCurrent(g.roleSlot(role.id));
    if (this.options.roles) g.roles.set(role.id, roleView(g.id, role));
  }

  /**
   * Count a membership transition once. The state of a user before this event is the last transition
   * recorded within the window, else "in" when the member is cached and was written since the count's
   * baseline (`cached`), else unknown; a join of a user known to be in, or a leave of one known to be out, is
   * a repeat and changes nothing. Replaying a suffix of a user's alternating joins and leaves (what a resume
   * after a crash delivers) ends where it started, so the count ends right; a replayed GUILD_CREATE that sets
   * a baseline (after an outage in the replay) forgets the transitions and which members are known to be in,
   * so the joins replayed after it count again, as they must.
   */
  private transition(g: GuildRecord, hi: number, lo: number, join: boolean, cached: boolean): void {
    if (!this.options.guilds) return;
    const t = g.transitions;
    const last = t === null ? undefined : t.get(hi, lo);
    let state = cached ? 1 : -1;
    let now = 0;
    if (last !== undefined) {
      now = this.now();
      if (last >= (now - TRANSITION_WINDOW_MS) * 2) state = last % 2;
    }
    if (state === (join ? 1 : 0)) return;
    if (g.memberCount >= 0) g.memberCount = join ? g.memberCount + 1 : Math.max(0, g.memberCount - 1);
    if (join && this.everyMemberCached) {
      // Every member is cached, so the cache itself says who is in: only leaves need a record, and a join
      // clears one.
      if (last !== undefined) t!.clear(hi, lo);
      return;
    }
    if (now === 0) now = this.now();
    // Two generations of half the cap each, a new one at least every window: bounded, and a record lives at
    // least a window (or until MAX_TRANSITIONS newer ones).
    (g.transitions ??= new TransitionLog(MAX_TRANSITIONS / 2, TRANSITION_WINDOW_MS)).set(hi, lo, now * 2 + (join ? 1 : 0), now);
  }

  private commitMemberSync(guildId: string, token: object, memberCount: number | undefined): void {
    const g = this.guilds.get(guildId);
    if (!g || g.syncToken !== token) return;
    const seen = g.syncSeen!;
    g.syncToken = null;
    g.syncSeen = null;
    for (let slot = g.memberHead; slot >= 0; ) {
      const next = this.members.nextOf(slot);
      if (!seen.has(slot)) this.users.release(this.members.remove(g, slot));
      slot = next;
    }
    // The transitions recorded stay: a replay of events from before the sync may still come after it, and
    // they describe the latest state of each user, which the new count includes.
    if (memberCount !== undefined && this.options.guilds && Number.isInteger(memberCount) && memberCount >= 0) g.memberCount = memberCount;
  }

  /** `stamped`: an event wrote it (a REST listing stamps nothing: it is not newer than any event). */
  private storeEntitlement(e: APIEntitlement, fromInteraction: boolean, stamped: boolean): void {
    let view = entitlementView(e);
    const old = this.entitlements.get(view.id);
    if (fromInteraction) {
      // An interaction's copy may be older than the events: it never undoes a deletion or an end.
      if (old === undefined && this.entitlementStamps.has(view.id)) return;
      if (old !== undefined && old.endsAt !== null && view.endsAt === null) view = Object.freeze({ ...view, endsAt: old.endsAt });
    }
    if (old) this.unindexEntitlement(old);
    this.entitlements.set(view.id, view);
    if (stamped) {
      this.entitlementStamps.set(view.id, ++this.clock);
      this.entitlementTombstones.delete(view.id);
    }
    if (view.userId !== null) indexAdd(this.entitlementsByUser, view.userId, view.id);
    if (view.guildId !== null) indexAdd(this.entitlementsByGuild, view.guildId, view.id);
  }

  /** `tombstone`: an event deleted it (remembered); otherwise a sync found it gone. */
  private dropEntitlement(id: string, tombstone: boolean): void {
    this.entitlementTombstones.delete(id);
    if (tombstone) {
      this.entitlementStamps.set(id, ++this.clock);
      this.entitlementTombstones.set(id, this.now());
      this.sweepTombstones();
    } else this.entitlementStamps.delete(id);
    const old = this.entitlements.get(id);
    if (!old) return;
    this.entitlements.delete(id);
    this.unindexEntitlement(old);
  }

  /** Forget the tombstones past their window or the count, oldest first (the Map is in order of deletion). */
  private sweepTombstones(): void {
    const now = this.now();
    for (const [id, at] of this.entitlementTombstones) {
      if (this.entitlementTombstones.size <= MAX_ENTITLEMENT_TOMBSTONES && now - at < ENTITLEMENT_TOMBSTONE_MS) break;
      this.entitlementTombstones.delete(id);
      if (!this.entitlements.has(id)) this.entitlementStamps.delete(id);
    }
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
