/**
 * Auto moderation rules of the sandbox's guilds (discord-api-docs "Auto Moderation"): records, their limits and
 * their serialization. Per guild at most 6 KEYWORD rules and 1 of each other trigger type, so a guild never
 * holds more than 10 rules; the REST routes (../rest/routes/auto-moderation.ts) check bodies against these.
 */

export type Json = Record<string, unknown>;

export const TRIGGER = { KEYWORD: 1, SPAM: 3, KEYWORD_PRESET: 4, MENTION_SPAM: 5, MEMBER_PROFILE: 6 } as const;
export const ACTION = { BLOCK_MESSAGE: 1, SEND_ALERT_MESSAGE: 2, TIMEOUT: 3, BLOCK_MEMBER_INTERACTION: 4 } as const;
export const EVENT = { MESSAGE_SEND: 1, MEMBER_UPDATE: 2 } as const;

/** Rules of a trigger type a guild may hold (discord-api-docs "Trigger Types", max per guild). */
export const RULES_PER_GUILD = new Map<number, number>([
  [TRIGGER.KEYWORD, 6],
  [TRIGGER.SPAM, 1],
  [TRIGGER.KEYWORD_PRESET, 1],
  [TRIGGER.MENTION_SPAM, 1],
  [TRIGGER.MEMBER_PROFILE, 1],
]);

/** Trigger metadata limits (discord-api-docs "Trigger Metadata Field Limits"). */
export const LIMITS = {
  keywords: 1000,
  keywordLength: 60,
  regexPatterns: 10,
  regexLength: 260,
  allowListKeyword: 100,
  allowListPreset: 1000,
  allowLength: 60,
  mentionTotal: 50,
  exemptRoles: 20,
  exemptChannels: 50,
  customMessage: 150,
  timeoutSeconds: 2_419_200,
  name: 100,
} as const;

export interface AutomodAction {
  type: number;
  /** As the service answers it: `{}` when the action has none. */
  metadata: Json;
}

export interface AutomodRule {
  id: string;
  guildId: string;
  name: string;
  creatorId: string;
  eventType: number;
  triggerType: number;
  triggerMetadata: Json;
  actions: AutomodAction[];
  enabled: boolean;
  exemptRoles: string[];
  exemptChannels: string[];
}

/** The metadata of a trigger type with every field the service answers with, defaults filled in. */
export function fullTriggerMetadata(triggerType: number, given: Json): Json {
  const list = (k: string): unknown[] => (Array.isArray(given[k]) ? (given[k] as unknown[]) : []);
  switch (triggerType) {
    case TRIGGER.KEYWORD:
    case TRIGGER.MEMBER_PROFILE:
      return { keyword_filter: list('keyword_filter'), regex_patterns: list('regex_patterns'), allow_list: list('allow_list') };
    case TRIGGER.KEYWORD_PRESET:
      return { allow_list: list('allow_list'), presets: list('presets') };
    case TRIGGER.MENTION_SPAM:
      return {
        mention_total_limit: typeof given.mention_total_limit === 'number' ? given.mention_total_limit : 0,
        mention_raid_protection_enabled: given.mention_raid_protection_enabled === true,
      };
    default:
      return {};
  }
}

export function ruleObject(r: AutomodRule): Json {
  return {
    id: r.id,
    guild_id: r.guildId,
    name: r.name,
    creator_id: r.creatorId,
    event_type: r.eventType,
    trigger_type: r.triggerType,
    trigger_metadata: r.triggerMetadata,
    actions: r.actions.map((a) => ({ type: a.type, metadata: a.metadata })),
    enabled: r.enabled,
    exempt_roles: [...r.exemptRoles],
    exempt_channels: [...r.exemptChannels],
  };
}

/** The rules of every guild, by guild id then rule id (bounded per guild by RULES_PER_GUILD). */
export class AutomodRules {
  private readonly byGuild = new Map<string, Map<string, AutomodRule>>();

  of(guildId: string): Map<string, AutomodRule> {
    let rules = this.byGuild.get(guildId);
    if (rules === undefined) {
      rules = new Map();
      this.byGuild.set(guildId, rules);
    }
    return rules;
  }

  countOf(guildId: string, triggerType: number): number {
    let n = 0;
    for (const r of this.of(guildId).values()) if (r.triggerType === triggerType) n++;
    return n;
  }
}
