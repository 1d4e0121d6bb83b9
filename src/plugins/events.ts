/**
 * The plugin events of gateway dispatches: every name of discord-api-types' GatewayDispatchEvents has one,
 * named in camelCase (GUILD_MEMBER_ADD -> guildMemberAdd; APPLICATION_COMMAND_PERMISSIONS_UPDATE is
 * commandPermissionsUpdate), its payload the package's type for that dispatch, delivered after the cache applied
 * it. Each event names the intents that bring it (protocol §9; any one of them suffices, none for the events
 * every session gets), so that a plugin listening to an event the configuration cannot receive fails to load
 * saying which intent is missing.
 */
import { GatewayDispatchEvents, type GatewayDispatchPayload } from 'discord-api-types/v10';
import { INTENT_BITS, PRIVILEGED_INTENTS, type IntentName } from '../api/intents.js';
import { closest } from '../util/did-you-mean.js';

/** The payload type discord-api-types gives a dispatch. */
export type DispatchData<T extends GatewayDispatchEvents> = Extract<GatewayDispatchPayload, { t: T }>['d'];

const E = GatewayDispatchEvents;

/** Plugin event name -> the dispatch it is. */
export const DISPATCH_OF_EVENT = {
  commandPermissionsUpdate: E.ApplicationCommandPermissionsUpdate,
  autoModerationActionExecution: E.AutoModerationActionExecution,
  autoModerationRuleCreate: E.AutoModerationRuleCreate,
  autoModerationRuleDelete: E.AutoModerationRuleDelete,
  autoModerationRuleUpdate: E.AutoModerationRuleUpdate,
  channelCreate: E.ChannelCreate,
  channelDelete: E.ChannelDelete,
  channelInfo: E.ChannelInfo,
  channelPinsUpdate: E.ChannelPinsUpdate,
  channelUpdate: E.ChannelUpdate,
  entitlementCreate: E.EntitlementCreate,
  entitlementDelete: E.EntitlementDelete,
  entitlementUpdate: E.EntitlementUpdate,
  guildAuditLogEntryCreate: E.GuildAuditLogEntryCreate,
  guildBanAdd: E.GuildBanAdd,
  guildBanRemove: E.GuildBanRemove,
  guildCreate: E.GuildCreate,
  guildDelete: E.GuildDelete,
  guildEmojisUpdate: E.GuildEmojisUpdate,
  guildIntegrationsUpdate: E.GuildIntegrationsUpdate,
  guildMemberAdd: E.GuildMemberAdd,
  guildMemberRemove: E.GuildMemberRemove,
  guildMembersChunk: E.GuildMembersChunk,
  guildMemberUpdate: E.GuildMemberUpdate,
  guildRoleCreate: E.GuildRoleCreate,
  guildRoleDelete: E.GuildRoleDelete,
  guildRoleUpdate: E.GuildRoleUpdate,
  guildScheduledEventCreate: E.GuildScheduledEventCreate,
  guildScheduledEventDelete: E.GuildScheduledEventDelete,
  guildScheduledEventUpdate: E.GuildScheduledEventUpdate,
  guildScheduledEventUserAdd: E.GuildScheduledEventUserAdd,
  guildScheduledEventUserRemove: E.GuildScheduledEventUserRemove,
  guildSoundboardSoundCreate: E.GuildSoundboardSoundCreate,
  guildSoundboardSoundDelete: E.GuildSoundboardSoundDelete,
  guildSoundboardSoundsUpdate: E.GuildSoundboardSoundsUpdate,
  guildSoundboardSoundUpdate: E.GuildSoundboardSoundUpdate,
  soundboardSounds: E.SoundboardSounds,
  guildStickersUpdate: E.GuildStickersUpdate,
  guildUpdate: E.GuildUpdate,
  integrationCreate: E.IntegrationCreate,
  integrationDelete: E.IntegrationDelete,
  integrationUpdate: E.IntegrationUpdate,
  interactionCreate: E.InteractionCreate,
  inviteCreate: E.InviteCreate,
  inviteDelete: E.InviteDelete,
  messageCreate: E.MessageCreate,
  messageDelete: E.MessageDelete,
  messageDeleteBulk: E.MessageDeleteBulk,
  messagePollVoteAdd: E.MessagePollVoteAdd,
  messagePollVoteRemove: E.MessagePollVoteRemove,
  messageReactionAdd: E.MessageReactionAdd,
  messageReactionRemove: E.MessageReactionRemove,
  messageReactionRemoveAll: E.MessageReactionRemoveAll,
  messageReactionRemoveEmoji: E.MessageReactionRemoveEmoji,
  messageUpdate: E.MessageUpdate,
  presenceUpdate: E.PresenceUpdate,
  rateLimited: E.RateLimited,
  ready: E.Ready,
  resumed: E.Resumed,
  stageInstanceCreate: E.StageInstanceCreate,
  stageInstanceDelete: E.StageInstanceDelete,
  stageInstanceUpdate: E.StageInstanceUpdate,
  subscriptionCreate: E.SubscriptionCreate,
  subscriptionDelete: E.SubscriptionDelete,
  subscriptionUpdate: E.SubscriptionUpdate,
  threadCreate: E.ThreadCreate,
  threadDelete: E.ThreadDelete,
  threadListSync: E.ThreadListSync,
  threadMembersUpdate: E.ThreadMembersUpdate,
  threadMemberUpdate: E.ThreadMemberUpdate,
  threadUpdate: E.ThreadUpdate,
  typingStart: E.TypingStart,
  userUpdate: E.UserUpdate,
  voiceChannelEffectSend: E.VoiceChannelEffectSend,
  voiceChannelStartTimeUpdate: E.VoiceChannelStartTimeUpdate,
  voiceChannelStatusUpdate: E.VoiceChannelStatusUpdate,
  voiceServerUpdate: E.VoiceServerUpdate,
  voiceStateUpdate: E.VoiceStateUpdate,
  webhooksUpdate: E.WebhooksUpdate,
} as const satisfies Record<string, GatewayDispatchEvents>;

export type DispatchEventName = keyof typeof DISPATCH_OF_EVENT;

/**
 * Payloads of the dispatch events. `ready` and `resumed` carry the shard they came through (a bot has several
 * sessions); every other one is the dispatch's `d` as the package types it.
 */
export type DispatchEventMap = {
  [K in DispatchEventName]: K extends 'ready'
    ? DispatchData<GatewayDispatchEvents.Ready> & { shardId: number }
    : K extends 'resumed'
      ? { shardId: number }
      : DispatchData<(typeof DISPATCH_OF_EVENT)[K]>;
};

/** Plugin events by dispatch name (a Map: dispatch names come from the gateway). */
export const EVENT_OF_DISPATCH: ReadonlyMap<string, DispatchEventName> = new Map(
  (Object.entries(DISPATCH_OF_EVENT) as Array<[DispatchEventName, string]>).map(([event, t]) => [t, event]),
);

/** Every dispatch event's name. */
export const DISPATCH_EVENT_NAMES: readonly DispatchEventName[] = Object.keys(DISPATCH_OF_EVENT) as DispatchEventName[];

const G: readonly IntentName[] = ['GUILDS'];
const MEMBERS: readonly IntentName[] = ['GUILD_MEMBERS'];
const MODERATION: readonly IntentName[] = ['GUILD_MODERATION'];
const EXPRESSIONS: readonly IntentName[] = ['GUILD_EXPRESSIONS'];
const INTEGRATIONS: readonly IntentName[] = ['GUILD_INTEGRATIONS'];
const SCHEDULED: readonly IntentName[] = ['GUILD_SCHEDULED_EVENTS'];
const MESSAGES: readonly IntentName[] = ['GUILD_MESSAGES', 'DIRECT_MESSAGES'];
const REACTIONS: readonly IntentName[] = ['GUILD_MESSAGE_REACTIONS', 'DIRECT_MESSAGE_REACTIONS'];
const POLLS: readonly IntentName[] = ['GUILD_MESSAGE_POLLS', 'DIRECT_MESSAGE_POLLS'];
const VOICE: readonly IntentName[] = ['GUILD_VOICE_STATES'];
const NONE: readonly IntentName[] = [];

/**
 * The intents that bring each dispatch, any one of them (protocol §9): none for the events every session
 * receives (READY, RESUMED, INTERACTION_CREATE, entitlements, subscriptions, replies to requests the bot sends).
 */
export const INTENTS_OF_EVENT: Readonly<Record<DispatchEventName, readonly IntentName[]>> = {
  commandPermissionsUpdate: NONE,
  autoModerationActionExecution: ['AUTO_MODERATION_EXECUTION'],
  autoModerationRuleCreate: ['AUTO_MODERATION_CONFIGURATION'],
  autoModerationRuleDelete: ['AUTO_MODERATION_CONFIGURATION'],
  autoModerationRuleUpdate: ['AUTO_MODERATION_CONFIGURATION'],
  channelCreate: G,
  channelDelete: G,
  channelInfo: NONE,
  channelPinsUpdate: ['GUILDS', 'DIRECT_MESSAGES'],
  channelUpdate: G,
  entitlementCreate: NONE,
  entitlementDelete: NONE,
  entitlementUpdate: NONE,
  guildAuditLogEntryCreate: MODERATION,
  guildBanAdd: MODERATION,
  guildBanRemove: MODERATION,
  guildCreate: G,
  guildDelete: G,
  guildEmojisUpdate: EXPRESSIONS,
  guildIntegrationsUpdate: INTEGRATIONS,
  guildMemberAdd: MEMBERS,
  guildMemberRemove: MEMBERS,
  guildMembersChunk: NONE,
  guildMemberUpdate: MEMBERS,
  guildRoleCreate: G,
  guildRoleDelete: G,
  guildRoleUpdate: G,
  guildScheduledEventCreate: SCHEDULED,
  guildScheduledEventDelete: SCHEDULED,
  guildScheduledEventUpdate: SCHEDULED,
  guildScheduledEventUserAdd: SCHEDULED,
  guildScheduledEventUserRemove: SCHEDULED,
  guildSoundboardSoundCreate: EXPRESSIONS,
  guildSoundboardSoundDelete: EXPRESSIONS,
  guildSoundboardSoundsUpdate: EXPRESSIONS,
  guildSoundboardSoundUpdate: EXPRESSIONS,
  soundboardSounds: NONE,
  guildStickersUpdate: EXPRESSIONS,
  guildUpdate: G,
  integrationCreate: INTEGRATIONS,
  integrationDelete: INTEGRATIONS,
  integrationUpdate: INTEGRATIONS,
  interactionCreate: NONE,
  inviteCreate: ['GUILD_INVITES'],
  inviteDelete: ['GUILD_INVITES'],
  messageCreate: MESSAGES,
  messageDelete: MESSAGES,
  messageDeleteBulk: ['GUILD_MESSAGES'],
  messagePollVoteAdd: POLLS,
  messagePollVoteRemove: POLLS,
  messageReactionAdd: REACTIONS,
  messageReactionRemove: REACTIONS,
  messageReactionRemoveAll: REACTIONS,
  messageReactionRemoveEmoji: REACTIONS,
  messageUpdate: MESSAGES,
  presenceUpdate: ['GUILD_PRESENCES'],
  rateLimited: NONE,
  ready: NONE,
  resumed: NONE,
  stageInstanceCreate: G,
  stageInstanceDelete: G,
  stageInstanceUpdate: G,
  subscriptionCreate: NONE,
  subscriptionDelete: NONE,
  subscriptionUpdate: NONE,
  threadCreate: G,
  threadDelete: G,
  threadListSync: G,
  // Without GUILD_MEMBERS only for the bot itself being added or removed (protocol §9).
  threadMembersUpdate: G,
  threadMemberUpdate: G,
  threadUpdate: G,
  typingStart: ['GUILD_MESSAGE_TYPING', 'DIRECT_MESSAGE_TYPING'],
  userUpdate: NONE,
  voiceChannelEffectSend: VOICE,
  voiceChannelStartTimeUpdate: G,
  voiceChannelStatusUpdate: G,
  voiceServerUpdate: NONE,
  voiceStateUpdate: VOICE,
  webhooksUpdate: ['GUILD_WEBHOOKS'],
};

function describeIntents(names: readonly IntentName[]): string {
  const privileged = names.length === 1 && (INTENT_BITS[names[0]!] & PRIVILEGED_INTENTS) !== 0;
  const list = names.join(' or ');
  return privileged
    ? `the privileged ${list} intent, which is not configured (add it to \`intents\` in the configuration, or GATEHOUSE_INTENTS, and enable it for the application in the Developer Portal)`
    : `the ${list} intent${names.length > 1 ? ' (either)' : ''}, which is not configured (add it to \`intents\` in the configuration, or GATEHOUSE_INTENTS)`;
}

/**
 * One problem per handler of `on` whose event the configured intents cannot bring: `on.presenceUpdate: needs the
 * privileged GUILD_PRESENCES intent, which is not configured (...)`. Names that are no dispatch event are the
 * shape check's business.
 */
export function intentProblems(on: unknown, intents: number): string[] {
  if (typeof on !== 'object' || on === null) return [];
  const problems: string[] = [];
  for (const key of Object.keys(on)) {
    const needs = Object.hasOwn(INTENTS_OF_EVENT, key) ? INTENTS_OF_EVENT[key as DispatchEventName] : NONE;
    if (needs.length === 0 || needs.some((n) => (intents & INTENT_BITS[n]) !== 0)) continue;
    problems.push(`on.${key}: needs ${describeIntents(needs)}`);
  }
  return problems;
}

/** The event a misspelt name most likely meant (`guildMemberAd`, `GUILD_MEMBER_ADD`, `messagecreate`), or null. */
export function closestEvent(name: string, events: Iterable<string>): string | null {
  // A dispatch name as the gateway spells it is its camelCase event.
  const byDispatch = EVENT_OF_DISPATCH.get(name);
  return byDispatch ?? closest(name, events);
}
