/** Guild application command permissions (protocol §S2.7): per guild, per command id (or the application id). */

export interface CommandPermission {
  id: string;
  type: 1 | 2 | 3;
  permission: boolean;
}

export interface GuildCommandPermissions {
  id: string;
  application_id: string;
  guild_id: string;
  permissions: CommandPermission[];
}

export class CommandPermissionStore {
  private readonly byGuild = new Map<string, Map<string, GuildCommandPermissions>>();

  constructor(readonly applicationId: string) {}

  list(guildId: string): GuildCommandPermissions[] {
    return [...(this.byGuild.get(guildId)?.values() ?? [])];
  }

  get(guildId: string, targetId: string): GuildCommandPermissions | undefined {
    return this.byGuild.get(guildId)?.get(targetId);
  }

  /** Replace the overwrites of one command (an empty list removes the entry). */
  set(guildId: string, targetId: string, permissions: CommandPermission[]): GuildCommandPermissions {
    const entry: GuildCommandPermissions = { id: targetId, application_id: this.applicationId, guild_id: guildId, permissions };
    let guild = this.byGuild.get(guildId);
    if (guild === undefined) {
      guild = new Map();
      this.byGuild.set(guildId, guild);
    }
    if (permissions.length === 0) guild.delete(targetId);
    else guild.set(targetId, entry);
    return entry;
  }

  /** A command was deleted or renamed: its permissions go, in one guild or (global command) everywhere. */
  drop(guildId: string | null, commandId: string): void {
    if (guildId !== null) {
      this.byGuild.get(guildId)?.delete(commandId);
      return;
    }
    for (const guild of this.byGuild.values()) guild.delete(commandId);
  }
}

/** What the client knows when a member picks a command in a guild channel. */
export interface CommandUse {
  readonly guildId: string;
  readonly commandId: string;
  readonly userId: string;
  /** The member's role ids (@everyone not among them). */
  readonly roleIds: readonly string[];
  readonly channelId: string;
  /** The parent channel when the channel is a thread (a channel's settings cover its threads); else null. */
  readonly threadParentId: string | null;
  /** The member's permissions in that channel. */
  readonly permissions: bigint;
  readonly defaultMemberPermissions: string | null | undefined;
}

export interface CommandUseVerdict {
  readonly allowed: boolean;
  /** What decided, in words (the sandbox's FORBIDDEN message carries it). */
  readonly why: string;
}

const ADMINISTRATOR = 1n << 3n;
const ROLE = 1;
const USER = 2;
const CHANNEL = 3;

/** One level's settings (a command's, or the application's), indexed by kind. */
class Level {
  private readonly channels = new Map<string, boolean>();
  private readonly users = new Map<string, boolean>();
  private readonly roles = new Map<string, boolean>();

  constructor(
    readonly label: string,
    entry: GuildCommandPermissions | undefined,
  ) {
    for (const p of entry?.permissions ?? []) {
      const kind = p.type === CHANNEL ? this.channels : p.type === USER ? this.users : p.type === ROLE ? this.roles : null;
      kind?.set(p.id, p.permission);
    }
  }

  /** The channel setting that applies: the channel's own (a thread's, else its parent's), else All Channels. */
  channel(use: CommandUse, allChannels: string): { id: string; permission: boolean } | null {
    for (const id of [use.channelId, use.threadParentId, allChannels]) {
      if (id === null) continue;
      const permission = this.channels.get(id);
      if (permission !== undefined) return { id, permission };
    }
    return null;
  }

  /** The member's setting: their user's, else their roles' (one `true` suffices), else @everyone's; with its words. */
  member(use: CommandUse): { permission: boolean; says: string } | null {
    const own = this.users.get(use.userId);
    if (own !== undefined) return { permission: own, says: `setting for user ${use.userId} is ${String(own)}` };
    const set = use.roleIds.filter((id) => id !== use.guildId && this.roles.has(id));
    if (set.length > 0) {
      const allowing = set.find((id) => this.roles.get(id) === true);
      return allowing !== undefined
        ? { permission: true, says: `setting for role ${allowing} is true` }
        : { permission: false, says: `settings for the member's roles (${set.join(', ')}) are all false` };
    }
    const everyone = this.roles.get(use.guildId);
    return everyone === undefined ? null : { permission: everyone, says: `@everyone setting is ${String(everyone)}` };
  }
}

/**
 * Command permissions v2 (protocol §15.6, §S2.7), as the client applies them before it sends an invocation:
 * administrators pass; channel settings first (the command's, and only when it has none for this channel nor All
 * Channels, the application's), where `false` denies and `true` merely lets the member checks run; then the
 * command's member settings decide outright; failing those, the application's, whose `false` denies and whose
 * `true` (like having no setting at all) still leaves default_member_permissions to pass.
 */
export function evaluateCommandUse(store: CommandPermissionStore, use: CommandUse): CommandUseVerdict {
  if ((use.permissions & ADMINISTRATOR) !== 0n) return { allowed: true, why: 'administrators can use every command' };
  const command = new Level("the command's", store.get(use.guildId, use.commandId));
  const app = new Level("the application's", store.get(use.guildId, store.applicationId));
  const allChannels = (BigInt(use.guildId) - 1n).toString();

  const channelLevel = command.channel(use, allChannels) !== null ? command : app;
  const channel = channelLevel.channel(use, allChannels);
  if (channel !== null && !channel.permission) {
    const which = channel.id === allChannels ? 'All Channels setting' : `setting for channel ${channel.id}`;
    return { allowed: false, why: `${channelLevel.label} ${which} is false` };
  }

  const commandMember = command.member(use);
  if (commandMember !== null) return { allowed: commandMember.permission, why: `${command.label} ${commandMember.says}` };
  const appMember = app.member(use);
  if (appMember !== null && !appMember.permission) return { allowed: false, why: `${app.label} ${appMember.says}` };

  const dmp = use.defaultMemberPermissions;
  if (dmp === null || dmp === undefined) return { allowed: true, why: 'no default_member_permissions' };
  // Unreadable fails closed, like "0".
  if (!/^\d{1,20}$/.test(dmp)) return { allowed: false, why: `default_member_permissions ${JSON.stringify(dmp)} is not a permission bit set` };
  const needed = BigInt(dmp);
  if (needed === 0n) return { allowed: false, why: 'default_member_permissions is "0" (administrators only)' };
  const missing = needed & ~use.permissions;
  return missing === 0n
    ? { allowed: true, why: 'the member has default_member_permissions' }
    : { allowed: false, why: `the member lacks default_member_permissions bits ${missing.toString()}` };
}
