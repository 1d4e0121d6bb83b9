/**
 * Numbers and value sets of the spec (sections 2.1-2.6 and 8), in one place so each rule reads its limit by name.
 */
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  EntryPointCommandHandlerType,
  InteractionContextType,
} from 'discord-api-types/v10';

// Values from the wire-types dependency; the SCREAMING_CASE keys are the spec's names (protocol §S2.1-§S2.6), which
// every rule and message here reads and which plugins see in problems.
export const CommandType = {
  CHAT_INPUT: ApplicationCommandType.ChatInput,
  USER: ApplicationCommandType.User,
  MESSAGE: ApplicationCommandType.Message,
  PRIMARY_ENTRY_POINT: ApplicationCommandType.PrimaryEntryPoint,
} as const;
export const OptionType = {
  SUB_COMMAND: ApplicationCommandOptionType.Subcommand,
  SUB_COMMAND_GROUP: ApplicationCommandOptionType.SubcommandGroup,
  STRING: ApplicationCommandOptionType.String,
  INTEGER: ApplicationCommandOptionType.Integer,
  BOOLEAN: ApplicationCommandOptionType.Boolean,
  USER: ApplicationCommandOptionType.User,
  CHANNEL: ApplicationCommandOptionType.Channel,
  ROLE: ApplicationCommandOptionType.Role,
  MENTIONABLE: ApplicationCommandOptionType.Mentionable,
  NUMBER: ApplicationCommandOptionType.Number,
  ATTACHMENT: ApplicationCommandOptionType.Attachment,
} as const;
export const HandlerType = {
  APP_HANDLER: EntryPointCommandHandlerType.AppHandler,
  // The spec's name; the package calls it DiscordLaunchActivity.
  SERVICE_LAUNCH_ACTIVITY: EntryPointCommandHandlerType.DiscordLaunchActivity,
} as const;
export const IntegrationType = { GUILD_INSTALL: ApplicationIntegrationType.GuildInstall, USER_INSTALL: ApplicationIntegrationType.UserInstall } as const;
export const ContextType = { GUILD: InteractionContextType.Guild, BOT_DM: InteractionContextType.BotDM, PRIVATE_CHANNEL: InteractionContextType.PrivateChannel } as const;

export const COMMAND_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'CHAT_INPUT',
  2: 'USER',
  3: 'MESSAGE',
  4: 'PRIMARY_ENTRY_POINT',
};
export const OPTION_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'SUB_COMMAND',
  2: 'SUB_COMMAND_GROUP',
  3: 'STRING',
  4: 'INTEGER',
  5: 'BOOLEAN',
  6: 'USER',
  7: 'CHANNEL',
  8: 'ROLE',
  9: 'MENTIONABLE',
  10: 'NUMBER',
  11: 'ATTACHMENT',
};

export const LIMITS = {
  nameMin: 1,
  nameMax: 32,
  descriptionMin: 1,
  descriptionMax: 100,
  optionsPerLevel: 25,
  choicesPerOption: 25,
  choiceNameMin: 1,
  choiceNameMax: 100,
  choiceStringValueMax: 100,
  minLengthMin: 0,
  minLengthMax: 6000,
  maxLengthMin: 1,
  maxLengthMax: 6000,
  commandSize: 8000,
  /** INTEGER options: any integer from -2^53+1 to 2^53-1. */
  integerMin: -(2 ** 53) + 1,
  integerMax: 2 ** 53 - 1,
  /** NUMBER options: any double from -2^53 to 2^53. */
  numberMin: -(2 ** 53),
  numberMax: 2 ** 53,
  /** Not in the spec; from the public documentation (protocol §15.2: file_types on ATTACHMENT options). */
  fileTypesMax: 10,
} as const;

/** Commands per type per scope (protocol §S8): same counts in a guild, except no entry point there. */
export const SCOPE_LIMITS: Readonly<Record<'global' | 'guild', Readonly<Record<number, number>>>> = {
  global: { 1: 100, 2: 15, 3: 15, 4: 1 },
  guild: { 1: 100, 2: 15, 3: 15, 4: 0 },
};

/** Daily command creates per scope (protocol §S8: 200 per day per guild; the global list has the same budget). */
export const DAILY_CREATES = 200;

/** The locales of the service (protocol §15.3); localization keys must be one of these. */
export const LOCALES: ReadonlySet<string> = new Set([
  'id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR',
  'ro', 'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko',
]);

/** Channel types a CHANNEL option may restrict to (every numeric member of the API's channel type enum). */
export const CHANNEL_TYPES: ReadonlySet<number> = new Set(
  Object.values(ChannelType).filter((v): v is number => typeof v === 'number'),
);

/** The PRIMARY_ENTRY_POINT command the service creates when Activities are enabled (protocol §S2.6). */
export const DEFAULT_ENTRY_POINT_NAME = 'Launch';
