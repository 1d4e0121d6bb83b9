/**
 * Whether a member may use an application command in a channel, and why: command permissions v2 (protocol §S2.7),
 * in the order the platform documents (protocol §15.6):
 *
 * 0. Administrators (and the owner, who has every permission) can use every command.
 * 1. Channel checks. The command's own setting for the channel (for a thread: the thread, else its parent
 *    channel), else its All Channels setting (id = guild id - 1), else the same two at application level (id =
 *    application id). `false` denies outright, even a member whose user setting is `true`; `true` only lets the
 *    user/role checks run (a channel never grants on its own); no setting at all lets them run too.
 * 2. User/role checks at command level decide outright: the member's user setting; else, when any of the
 *    member's roles has a setting, allowed when at least one of them is `true`; else the @everyone setting (id =
 *    guild id). Only when the command has none of the three, the application-level ones are read the same way,
 *    and there an allowing setting (or none) still has to pass default_member_permissions; a denying one denies.
 * 3. default_member_permissions: null or absent allows; "0" denies (administrators only); otherwise the member
 *    needs every one of those bits in this channel.
 *
 * Command-level settings are the ones listed under the command's id, application-level ones under the application
 * id: each kind of setting (channel, user/role) falls back to the application level on its own.
 */
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { permissionNames } from './permissions.js';

/** One command permission overwrite (protocol §S2.7 "Command permission"). */
export interface CommandPermissionEntry {
  /** A role, user or channel id, or a constant (@everyone = guild id, All Channels = guild id - 1). */
  readonly id: string;
  /** 1 ROLE, 2 USER, 3 CHANNEL. */
  readonly type: number;
  readonly permission: boolean;
}

export const COMMAND_PERMISSION_ROLE = 1;
export const COMMAND_PERMISSION_USER = 2;
export const COMMAND_PERMISSION_CHANNEL = 3;

export interface CommandAccessInput {
  readonly guildId: string;
  readonly applicationId: string;
  readonly userId: string;
  /** The member's role ids (without @everyone). */
  readonly roleIds: readonly string[];
  /** The channel the command would be used in. */
  readonly channelId: string;
  /** When that channel is a thread: its parent channel (whose settings apply to it). */
  readonly parentId: string | null;
  /** The member's permissions in that channel (permissionsOf). */
  readonly permissions: bigint;
  /** The member is the guild's owner (only changes the wording: the owner has every permission). */
  readonly owner?: boolean;
  readonly command: { readonly id: string; readonly name?: string; readonly default_member_permissions?: string | null };
  /** The settings listed under the command's id in this guild; undefined or empty when none. */
  readonly commandPermissions: readonly CommandPermissionEntry[] | undefined;
  /** The settings listed under the application id in this guild. */
  readonly applicationPermissions: readonly CommandPermissionEntry[] | undefined;
}

export type CommandAccessLevel = 'command' | 'application';
export type CommandAccessTarget = 'channel' | 'all-channels' | 'user' | 'role' | 'everyone';

export type CommandAccessReason =
  | { readonly kind: 'administrator'; readonly owner: boolean }
  | {
      readonly kind: 'overwrite';
      readonly level: CommandAccessLevel;
      readonly target: CommandAccessTarget;
      /** The setting's id (channel, All Channels constant, user, role, or the guild id for @everyone). */
      readonly id: string;
      readonly permission: boolean;
      /** For a role decision: every role of the member with a setting at that level. */
      readonly roles?: readonly string[];
    }
  | {
      readonly kind: 'default_member_permissions';
      /** The command's value (null: none, so everyone). */
      readonly value: string | null;
      /** The bits the member lacks in the channel (0n when allowed, or for "0"). */
      readonly missing: bigint;
      /** What let the check run this far: an allowing application-level setting, or none at all. */
      readonly via: { readonly level: 'application'; readonly target: CommandAccessTarget; readonly id: string } | null;
    };

export interface CommandAccess {
  readonly allowed: boolean;
  readonly reason: CommandAccessReason;
  /** One line saying what decided, e.g. `denied: the command's setting for channel 123 is false`. */
  readonly message: string;
}

/** All Channels: the guild id minus one (protocol §S2.7 constants). */
export function allChannelsId(guildId: string): string {
  return (BigInt(guildId) - 1n).toString();
}

type Found = { entry: CommandPermissionEntry; target: CommandAccessTarget } | null;

function channelSetting(entries: readonly CommandPermissionEntry[] | undefined, input: CommandAccessInput, allChannels: string): Found {
  if (entries === undefined || entries.length === 0) return null;
  const ids = input.parentId !== null ? [input.channelId, input.parentId] : [input.channelId];
  for (const id of ids) {
    const entry = entries.find((e) => e.type === COMMAND_PERMISSION_CHANNEL && e.id === id);
    if (entry !== undefined) return { entry, target: 'channel' };
  }
  const all = entries.find((e) => e.type === COMMAND_PERMISSION_CHANNEL && e.id === allChannels);
  return all === undefined ? null : { entry: all, target: 'all-channels' };
}

interface UserRoleDecision {
  readonly permission: boolean;
  readonly target: 'user' | 'role' | 'everyone';
  readonly id: string;
  readonly roles?: readonly string[];
}

function userRoleSetting(entries: readonly CommandPermissionEntry[] | undefined, input: CommandAccessInput): UserRoleDecision | null {
  if (entries === undefined || entries.length === 0) return null;
  const user = entries.find((e) => e.type === COMMAND_PERMISSION_USER && e.id === input.userId);
  if (user !== undefined) return { permission: user.permission, target: 'user', id: user.id };
  const roles = entries.filter((e) => e.type === COMMAND_PERMISSION_ROLE && e.id !== input.guildId && input.roleIds.includes(e.id));
  if (roles.length > 0) {
    const granting = roles.find((e) => e.permission);
    const ids = roles.map((e) => e.id);
    return { permission: granting !== undefined, target: 'role', id: (granting ?? roles[0]!).id, roles: ids };
  }
  const everyone = entries.find((e) => e.type === COMMAND_PERMISSION_ROLE && e.id === input.guildId);
  if (everyone !== undefined) return { permission: everyone.permission, target: 'everyone', id: everyone.id };
  return null;
}

/** Evaluate command permissions v2 (see the module comment). */
export function evaluateCommandAccess(input: CommandAccessInput): CommandAccess {
  const name = input.command.name !== undefined ? `/${input.command.name}` : `command ${input.command.id}`;
  if ((input.permissions & PermissionFlagsBits.Administrator) !== 0n) {
    const owner = input.owner === true;
    return { allowed: true, reason: { kind: 'administrator', owner }, message: `allowed: ${owner ? 'the guild owner' : 'an administrator'} can use every command` };
  }
  const allChannels = allChannelsId(input.guildId);
  // 1. Channel checks: the command's, else the application's.
  const channel = channelSetting(input.commandPermissions, input, allChannels) ?? null;
  const channelLevel: CommandAccessLevel = channel !== null ? 'command' : 'application';
  const decidedChannel = channel ?? channelSetting(input.applicationPermissions, input, allChannels);
  if (decidedChannel !== null && !decidedChannel.entry.permission) {
    return overwrite(false, channelLevel, decidedChannel.target, decidedChannel.entry.id, undefined, name);
  }
  // 2. User/role checks at command level decide outright.
  const commandLevel = userRoleSetting(input.commandPermissions, input);
  if (commandLevel !== null) return overwrite(commandLevel.permission, 'command', commandLevel.target, commandLevel.id, commandLevel.roles, name);
  const appLevel = userRoleSetting(input.applicationPermissions, input);
  if (appLevel !== null && !appLevel.permission) return overwrite(false, 'application', appLevel.target, appLevel.id, appLevel.roles, name);
  // 3. default_member_permissions.
  const via = appLevel !== null ? { level: 'application' as const, target: appLevel.target, id: appLevel.id } : null;
  const raw = input.command.default_member_permissions;
  const viaText = via !== null ? ` (after the application's ${describeTarget(via.target, via.id)} allowed it)` : '';
  if (raw === null || raw === undefined) {
    return { allowed: true, reason: { kind: 'default_member_permissions', value: null, missing: 0n, via }, message: `allowed: ${name} has no default_member_permissions${viaText}` };
  }
  const required = /^\d{1,20}$/.test(raw) ? BigInt(raw) : null;
  if (required === null) {
    // Unreadable: fail closed, as "0" does.
    return { allowed: false, reason: { kind: 'default_member_permissions', value: raw, missing: 0n, via }, message: `denied: ${name}'s default_member_permissions ${JSON.stringify(raw)} is not a permission bit set` };
  }
  if (required === 0n) {
    return { allowed: false, reason: { kind: 'default_member_permissions', value: raw, missing: 0n, via }, message: `denied: ${name}'s default_member_permissions is "0" (administrators only)${viaText}` };
  }
  const missing = required & ~input.permissions;
  if (missing !== 0n) {
    return {
      allowed: false,
      reason: { kind: 'default_member_permissions', value: raw, missing, via },
      message: `denied: ${name}'s default_member_permissions needs ${permissionNames(missing).join(', ')} in this channel${viaText}`,
    };
  }
  return { allowed: true, reason: { kind: 'default_member_permissions', value: raw, missing: 0n, via }, message: `allowed: the member has ${name}'s default_member_permissions (${permissionNames(required).join(', ')})${viaText}` };
}

function describeTarget(target: CommandAccessTarget, id: string): string {
  switch (target) {
    case 'channel':
      return `setting for channel ${id}`;
    case 'all-channels':
      return `All Channels setting (${id})`;
    case 'user':
      return `setting for user ${id}`;
    case 'role':
      return `setting for role ${id}`;
    case 'everyone':
      return `@everyone setting (${id})`;
  }
}

function overwrite(
  permission: boolean,
  level: CommandAccessLevel,
  target: CommandAccessTarget,
  id: string,
  roles: readonly string[] | undefined,
  name: string,
): CommandAccess {
  const whose = level === 'command' ? `${name}'s` : "the application's";
  let what = `${whose} ${describeTarget(target, id)} is ${String(permission)}`;
  if (target === 'role' && roles !== undefined && roles.length > 1) what = permission ? `${whose} setting for role ${id} is true (one allowing role is enough)` : `${whose} settings for every role of the member (${roles.join(', ')}) are false`;
  return {
    allowed: permission,
    reason: { kind: 'overwrite', level, target, id, permission, ...(roles !== undefined ? { roles } : {}) },
    message: `${permission ? 'allowed' : 'denied'}: ${what}`,
  };
}
