/**
 * permissionsOf and canUseCommand over what a backend read: the guild's owner and roles, the member, the channel
 * (and a thread's parent), the guild's command permission settings. Both backends read those their own way and
 * hand them here, so the rules (src/api/permissions.ts, src/api/command-access.ts) are applied once.
 */
import { evaluateCommandAccess, type CommandAccess } from '../api/command-access.js';
import { computePermissions, isThreadType } from '../api/permissions.js';
import type { ChannelView, CommandRef, GuildCommandPermissionsView, MemberView, RoleView } from './types.js';

export interface PermissionParts {
  /** The guild's owner; undefined when the guild is not cached. */
  readonly ownerId: string | null | undefined;
  /** Every cached role of the guild (the @everyone role among them, id = guild id). */
  readonly roles: readonly RoleView[];
  readonly member: MemberView | undefined;
  /** The channel asked about (undefined: not cached), or null when none was asked. */
  readonly channel: ChannelView | undefined | null;
  /** A thread's parent channel, when the channel is a thread. */
  readonly parent: ChannelView | undefined;
}

/** The member's permissions, or undefined when the parts do not tell (see CacheReader.permissionsOf). */
export function permissionsFromParts(guildId: string, userId: string, parts: PermissionParts, now = Date.now()): bigint | undefined {
  const { ownerId, channel } = parts;
  if (ownerId === undefined || ownerId === null) return undefined;
  if (channel === undefined || (channel !== null && channel.guildId !== guildId)) return undefined;
  const thread = channel !== null && isThreadType(channel.type);
  const source = thread ? parts.parent : channel;
  if (source === undefined || (source !== null && source.guildId !== guildId)) return undefined;
  if (ownerId === userId) return computePermissions({ guildId, ownerId, userId, everyone: 0n, rolePermissions: [], roleIds: [], timedOutUntil: null, now });
  const member = parts.member;
  if (member === undefined) return undefined;
  let everyone: bigint | undefined;
  const byId = new Map<string, bigint>();
  for (const r of parts.roles) {
    if (r.id === guildId) everyone = r.permissions;
    else byId.set(r.id, r.permissions);
  }
  if (everyone === undefined) return undefined;
  const rolePermissions: bigint[] = [];
  for (const id of member.roles) {
    const p = byId.get(id);
    if (p !== undefined) rolePermissions.push(p);
  }
  return computePermissions(
    { guildId, ownerId, userId, everyone, rolePermissions, roleIds: member.roles, timedOutUntil: member.communicationDisabledUntil, now },
    source === null ? undefined : { overwrites: source.permissionOverwrites, thread },
  );
}

/** canUseCommand over the parts and the guild's settings; undefined when they do not tell. */
export function commandAccessFromParts(
  guildId: string,
  userId: string,
  channelId: string,
  command: CommandRef,
  parts: PermissionParts,
  settings: GuildCommandPermissionsView | undefined,
  now = Date.now(),
): CommandAccess | undefined {
  if (settings === undefined || !settings.loaded) return undefined;
  const channel = parts.channel;
  if (channel === null || channel === undefined) return undefined;
  const permissions = permissionsFromParts(guildId, userId, parts, now);
  if (permissions === undefined) return undefined;
  const thread = isThreadType(channel.type);
  return evaluateCommandAccess({
    guildId,
    applicationId: command.application_id,
    userId,
    roleIds: parts.member?.roles ?? [],
    channelId,
    parentId: thread ? channel.parentId : null,
    permissions,
    owner: parts.ownerId === userId,
    command,
    commandPermissions: settings.byTarget.get(command.id),
    applicationPermissions: settings.byTarget.get(command.application_id),
  });
}
