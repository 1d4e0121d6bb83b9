/** Guilds, users and members as a test names them, and the API's command permission entries. */
import type { APIApplicationCommandPermission } from 'discord-api-types/v10';

/** A user a test acts as, or a user id. */
export type UserRef = { readonly id: string } | string;
/** A guild of the sandbox, or a guild id. */
export type GuildRef = { readonly id: string } | string;
/** A message (anything with an id: an API message, a sandbox message record) or a message id. */
export type MessageRef = { readonly id: string } | string;

export interface TestUser {
  readonly id: string;
  readonly username: string;
}

/** A user as a member of one guild (as it was when the kit made or looked it up). */
export interface TestMember extends TestUser {
  readonly guildId: string;
  readonly roles: readonly string[];
  readonly nick: string | null;
}

export interface TestRole {
  readonly id: string;
  readonly name: string;
}

/** A guild of the sandbox, as seeded. */
export interface TestGuild {
  readonly id: string;
  readonly name: string;
  readonly ownerId: string;
  /** The text channel `general`: interactions happen there unless a test names another. */
  readonly channelId: string;
  readonly channelIds: readonly string[];
  /** @everyone first, then Admin, Moderator, the bot's own role and the others. */
  readonly roles: readonly TestRole[];
}

export function idOf(ref: { readonly id: string } | string): string {
  return typeof ref === 'string' ? ref : ref.id;
}

/**
 * Entries for `setCommandPermissions` (protocol §S2.7): allow or deny a role, a user or a channel; @everyone is the
 * guild's id and "all channels" the guild's id minus one.
 */
export const commandPermission = {
  role: (role: { readonly id: string } | string, permission: boolean): APIApplicationCommandPermission => ({ id: idOf(role), type: 1, permission }),
  user: (user: UserRef, permission: boolean): APIApplicationCommandPermission => ({ id: idOf(user), type: 2, permission }),
  channel: (channel: { readonly id: string } | string, permission: boolean): APIApplicationCommandPermission => ({ id: idOf(channel), type: 3, permission }),
  everyone: (guild: GuildRef, permission: boolean): APIApplicationCommandPermission => ({ id: idOf(guild), type: 1, permission }),
  allChannels: (guild: GuildRef, permission: boolean): APIApplicationCommandPermission => ({ id: String(BigInt(idOf(guild)) - 1n), type: 3, permission }),
} as const;
