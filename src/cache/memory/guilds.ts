/**
 * One record per guild (guilds are few next to members, so a small object each is fine), holding the
 * guild's fields, its role records, the numbering of its role ids used by member role sets, the head of its
 * member list in the MemberTable, and its recent membership transitions.
 *
 * Role numbers. A role id gets a number on first sight, from the guild's role list or from a member's roles.
 * A number is "current" while the guild has that role (listed, created, not deleted); members show only
 * current roles, so a role id a member carried before the guild announced it shows once it is announced. A
 * number is released (and cleared from every member first) when its role is deleted or missing from a
 * complete role list.
 */
import type { APIRole } from 'discord-api-types/v10';
import type { CommandPermissionEntry } from '../../api/command-access.js';
import type { RoleView, VoiceStateView } from '../types.js';
import type { TransitionLog } from './transitions.js';

export class GuildRecord {
  name: string | null = null;
  ownerId: string | null = null;
  /** -1 = not known. */
  memberCount = -1;
  unavailable = true;
  readonly roles = new Map<string, RoleView>();
  /** First member slot of this guild's list in the MemberTable, -1 when none. */
  memberHead = -1;
  cachedMembers = 0;
  /** Member slots ordered by user id, built on demand for paging and dropped on any add/remove. */
  sorted: Int32Array | null = null;
  /** Recent membership transitions (see MemoryCache.transition); created on the first one. */
  transitions: TransitionLog | null = null;
  /**
   * Bumped (mod 256) at every member_count baseline: a cached member written before it is not known to be in
   * as of the baseline (a GUILD_CREATE replayed after a crash may predate its join).
   */
  epoch = 0;
  /** Member slots written since an open member sync began (see MemberSync); null when none is open. */
  syncSeen: Set<number> | null = null;
  syncToken: object | null = null;
  /** Heads of the guild's channel and thread lists in the ChannelTable, -1 when none. */
  channelHead = -1;
  threadHead = -1;
  channels = 0;
  threads = 0;
  /** Voice states by user id (cache.voiceStates); null until the first. */
  voice: Map<string, VoiceStateView> | null = null;
  /** Command permission settings by command id (or application id); null until the first. */
  commandPermissions: Map<string, readonly CommandPermissionEntry[]> | null = null;
  /** The full list was read from REST since the guild became available (see GuildCommandPermissionsView). */
  commandPermissionsLoaded = false;
  /** An open CommandPermissionsLoad: its token and the targets events changed since it began. */
  commandPermissionsLoad: { token: object; touched: Set<string> } | null = null;

  private readonly roleSlots = new Map<string, number>();
  private roleIds: (string | undefined)[] = [];
  private roleCurrent: boolean[] = [];
  private readonly freeRoleSlots: number[] = [];

  constructor(
    readonly id: string,
    readonly slot: number,
  ) {}

  /**
   * The small number a role id has in this guild's member role sets, assigned on first sight (roles
   * of the guild payload first, so that real roles get the lowest numbers).
   */
  roleSlot(roleId: string): number {
    const known = this.roleSlots.get(roleId);
    if (known !== undefined) return known;
    const reused = this.freeRoleSlots.pop();
    const slot = reused ?? this.roleIds.length;
    if (reused === undefined) this.roleIds.push(roleId);
    else this.roleIds[slot] = roleId;
    this.roleSlots.set(roleId, slot);
    return slot;
  }

  knownRoleSlot(roleId: string): number {
    return this.roleSlots.get(roleId) ?? -1;
  }

  /** The role id of a number while the guild has that role, else undefined. */
  currentRoleAt(slot: number): string | undefined {
    return this.roleCurrent[slot] === true ? this.roleIds[slot] : undefined;
  }

  /** The guild has this role (listed or created). */
  markCurrent(slot: number): void {
    this.roleCurrent[slot] = true;
  }

  /** Numbers of every role id seen, current or not. */
  roleSlotsInUse(): IterableIterator<[string, number]> {
    return this.roleSlots.entries();
  }

  /** Forget a role id's number; the caller has already removed it from every member. */
  releaseRoleSlot(roleId: string): void {
    const slot = this.roleSlots.get(roleId);
    if (slot === undefined) return;
    this.roleSlots.delete(roleId);
    this.roleIds[slot] = undefined;
    this.roleCurrent[slot] = false;
    this.freeRoleSlots.push(slot);
  }
}

const NO_COLOR = 0;

export function roleView(guildId: string, role: APIRole): RoleView {
  const colors = typeof role.colors === 'object' && role.colors !== null ? role.colors : undefined;
  let permissions = 0n;
  try {
    permissions = typeof role.permissions === 'string' ? BigInt(role.permissions) : 0n;
  } catch {
    permissions = 0n;
  }
  const primary = typeof colors?.primary_color === 'number' ? colors.primary_color : typeof role.color === 'number' ? role.color : NO_COLOR;
  return Object.freeze({
    id: role.id,
    guildId,
    name: role.name,
    permissions,
    position: typeof role.position === 'number' ? role.position : 0,
    colors: Object.freeze({
      primary,
      secondary: typeof colors?.secondary_color === 'number' ? colors.secondary_color : null,
      tertiary: typeof colors?.tertiary_color === 'number' ? colors.tertiary_color : null,
    }),
  });
}

/** Position, then id (numerically), as the service orders roles. */
export function compareRoles(a: RoleView, b: RoleView): number {
  return a.position - b.position || a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
