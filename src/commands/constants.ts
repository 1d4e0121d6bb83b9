/**
 * Numbers and value sets of the spec (sections 2.1-2.6 and 8), in one place so each rule reads its limit by name.
 */
import { ChannelType } from 'discord-api-types/v10';

export const CommandType = { CHAT_INPUT: 1, USER: 2, MESSAGE: 3, PRIMARY_ENTRY_POINT: 4 } as const;
export const OptionType = {
  SUB_COMMAND: 1,
  SUB_COMMAND_GROUP: 2,
  STRING: 3,
  INTEGER: 4,
  BOOLEAN: 5,
  USER: 6,
  CHANNEL: 7,
  ROLE: 8,
  MENTIONABLE: 9,
  NUMBER: 10,
  ATTACHMENT: 11,
} as const;
export const HandlerType = { APP_HANDLER: 1, SERVICE_LAUNCH_ACTIVITY: 2 } as const;
export const IntegrationType = { GUILD_INSTALL: 0, USER_INSTALL: 1 } as const;
export const ContextType = { GUILD: 0, BOT_DM: 1, PRIVATE_CHANNEL: 2 } as const;

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
  /** Not in the spec; from the reference (file_types on ATTACHMENT options). */
  fileTypesMax: 10,
} as const;

/** Commands per type per scope (spec 8): same counts in a guild, except no entry point there. */
export const SCOPE_LIMITS: Readonly<Record<'global' | 'guild', Readonly<Record<number, number>>>> = {
  global: { 1: 100, 2: 15, 3: 15, 4: 1 },
  guild: { 1: 100, 2: 15, 3: 15, 4: 0 },
};

/** Daily command creates per scope (spec 8: 200 per day per guild; the global list has the same budget). */
export const DAILY_CREATES = 200;

/** The locales of the reference's list (discord-protocol.md 15.3); localization keys must be one of these. */
export const LOCALES: ReadonlySet<string> = new Set([
  'id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR',
  'ro', 'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko',
]);

/** Channel types a CHANNEL option may restrict to (every numeric member of the API's channel type enum). */
export const CHANNEL_TYPES: ReadonlySet<number> = new Set(
  Object.values(ChannelType).filter((v): v is number => typeof v === 'number'),
);

/** The PRIMARY_ENTRY_POINT command the service creates when Activities are enabled (spec 2.6). */
export const DEFAULT_ENTRY_POINT_NAME = 'Launch';
