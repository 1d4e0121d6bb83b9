import { GatewayIntentBits } from 'discord-api-types/v10';

/**
 * Gateway intent bits (protocol §9), values from the wire-types dependency. The SCREAMING_CASE names are kept
 * because configuration and plugins name intents this way (the documentation's spelling); the package's enum
 * also carries deprecated aliases (GuildBans, GuildEmojisAndStickers) that configuration does not accept.
 */
export const INTENT_BITS = {
  GUILDS: GatewayIntentBits.Guilds,
  GUILD_MEMBERS: GatewayIntentBits.GuildMembers,
  GUILD_MODERATION: GatewayIntentBits.GuildModeration,
  GUILD_EXPRESSIONS: GatewayIntentBits.GuildExpressions,
  GUILD_INTEGRATIONS: GatewayIntentBits.GuildIntegrations,
  GUILD_WEBHOOKS: GatewayIntentBits.GuildWebhooks,
  GUILD_INVITES: GatewayIntentBits.GuildInvites,
  GUILD_VOICE_STATES: GatewayIntentBits.GuildVoiceStates,
  GUILD_PRESENCES: GatewayIntentBits.GuildPresences,
  GUILD_MESSAGES: GatewayIntentBits.GuildMessages,
  GUILD_MESSAGE_REACTIONS: GatewayIntentBits.GuildMessageReactions,
  GUILD_MESSAGE_TYPING: GatewayIntentBits.GuildMessageTyping,
  DIRECT_MESSAGES: GatewayIntentBits.DirectMessages,
  DIRECT_MESSAGE_REACTIONS: GatewayIntentBits.DirectMessageReactions,
  DIRECT_MESSAGE_TYPING: GatewayIntentBits.DirectMessageTyping,
  MESSAGE_CONTENT: GatewayIntentBits.MessageContent,
  GUILD_SCHEDULED_EVENTS: GatewayIntentBits.GuildScheduledEvents,
  AUTO_MODERATION_CONFIGURATION: GatewayIntentBits.AutoModerationConfiguration,
  AUTO_MODERATION_EXECUTION: GatewayIntentBits.AutoModerationExecution,
  GUILD_MESSAGE_POLLS: GatewayIntentBits.GuildMessagePolls,
  DIRECT_MESSAGE_POLLS: GatewayIntentBits.DirectMessagePolls,
} as const;

export type IntentName = keyof typeof INTENT_BITS;

/** Every documented bit; any other bit in an Identify is invalid (close 4013). */
export const ALL_INTENTS: number = Object.values(INTENT_BITS).reduce((a, b) => a | b, 0);

/** Intents that need the application's portal switch (close 4014 without it). */
export const PRIVILEGED_INTENTS: number =
  INTENT_BITS.GUILD_MEMBERS | INTENT_BITS.GUILD_PRESENCES | INTENT_BITS.MESSAGE_CONTENT;
