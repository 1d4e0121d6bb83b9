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

  constructor(private readonly applicationId: string) {}

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
