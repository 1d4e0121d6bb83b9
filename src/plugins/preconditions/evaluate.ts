/**
 * The precondition evaluator: checks one interaction against the rules that apply to its handler, in a fixed
 * order (where, who, the channel, permissions, entitlement, the plugin's own checks), the cooldown last, so that
 * a use is taken from a window only when everything else allowed it.
 */
import { PermissionFlagsBits, type APIEntitlement } from 'discord-api-types/v10';
import { ALL_PERMISSIONS, parsePermissions, permissionNames } from '../../api/permissions.js';
import { isEntitlementActive, type CacheReader } from '../../cache/index.js';
import { entitlementView } from '../../cache/entitlement-view.js';
import type { CooldownStore } from '../../cluster/cooldowns.js';
import type { GatedInteraction } from '../../interactions/router.js';
import type { ApplicationDirectory } from './directory.js';
import { denialText, relativeTime } from './texts.js';
import type {
  CooldownRule,
  CustomPrecondition,
  EntitlementRule,
  PermissionList,
  PreconditionName,
  Preconditions,
  PreconditionSubject,
  PreconditionTranslations,
} from './types.js';

export interface EvaluatorDeps {
  readonly cache: CacheReader;
  readonly cooldowns: CooldownStore;
  readonly directory: ApplicationDirectory;
  /** The bot's user id in guilds (READY's user; the application id until then). */
  readonly botUserId: () => string;
  /**
   * The cooldowns' clock. Absent: the store's own (Date.now in memory, the Redis server's clock when shared);
   * the test kit passes one it moves forward.
   */
  readonly clock?: () => number;
}

/** The rules for one handler, merged from the plugin's defaults down to the subcommand. */
export interface ResolvedRules {
  readonly rules: Preconditions;
  /** The cooldown's window name when the rule names none: where the rule was declared. */
  readonly cooldownBucket: string;
  readonly plugin: string;
  readonly target: string;
  readonly translations: PreconditionTranslations | undefined;
}

/** A denial: which precondition, the message, and what the event reports besides. */
export interface Verdict {
  readonly precondition: PreconditionName;
  readonly message: string;
  readonly missing?: readonly string[];
  readonly whose?: 'member' | 'bot';
  readonly retryAt?: number;
  readonly skuId?: string;
}

export class PreconditionEvaluator {
  constructor(private readonly deps: EvaluatorDeps) {}

  /** Null when every precondition allows the handler to run; otherwise the first denial. */
  async evaluate(resolved: ResolvedRules, interaction: GatedInteraction): Promise<Verdict | null> {
    const { rules, translations } = resolved;
    const locale = interaction.locale;
    const text = (key: Parameters<typeof denialText>[0], values?: Record<string, string>): string => denialText(key, locale, translations, values);
    const inGuild = interaction.guild_id !== undefined;
    if (rules.guildOnly === true && !inGuild) return { precondition: 'guildOnly', message: text('guildOnly') };
    if (rules.dmOnly === true && inGuild) return { precondition: 'dmOnly', message: text('dmOnly') };
    const userId = userOf(interaction);
    if (rules.owners === true && !(await this.deps.directory.isOwner(userId))) return { precondition: 'owners', message: text('owners') };
    if (rules.nsfw === true && !(await this.nsfwChannel(interaction))) return { precondition: 'nsfw', message: text('nsfw') };
    if (rules.permissions !== undefined && rules.permissions !== null && inGuild) {
      for (const whose of ['member', 'bot'] as const) {
        const required = rules.permissions[whose];
        if (required === undefined) continue;
        const missing = await this.missingPermissions(toBits(required), whose, interaction);
        if (missing.length === 0) continue;
        const key = whose === 'member' ? 'memberPermissions' : 'botPermissions';
        return { precondition: 'permissions', message: text(key, { permissions: missing.join(', ') }), missing, whose };
      }
    }
    const entitlement = ruleOfEntitlement(rules.entitlement);
    if (entitlement !== null && !(await this.entitled(entitlement, interaction))) {
      return { precondition: 'entitlement', message: text('entitlement'), skuId: entitlement.sku };
    }
    const custom = await this.custom(rules.custom, interaction, resolved.target);
    if (custom !== null) return { precondition: 'custom', message: custom };
    if (rules.cooldown !== undefined && rules.cooldown !== null) {
      const retryAt = await this.cooldown(rules.cooldown, resolved, interaction);
      if (retryAt !== null) return { precondition: 'cooldown', message: text('cooldown', { retry: relativeTime(retryAt) }), retryAt };
    }
    return null;
  }

  /** An age-restricted channel: the cache's view (a thread's parent's), else the interaction's partial channel. */
  private async nsfwChannel(interaction: GatedInteraction): Promise<boolean> {
    const channelId = channelOf(interaction);
    if (interaction.guild_id === undefined || channelId === undefined) return false;
    let channel = await this.deps.cache.getChannel(channelId);
    if (channel?.thread !== null && channel?.thread !== undefined && channel.parentId !== null) channel = await this.deps.cache.getChannel(channel.parentId);
    if (channel !== undefined) return channel.nsfw;
    return (interaction.channel as { nsfw?: unknown } | undefined)?.nsfw === true;
  }

  /**
   * Names of the required permissions the member (or the bot) lacks in the channel: from the cache's calculator,
   * or, when the cache lacks what it takes, from the interaction's `member.permissions` / `app_permissions`
   * (both are the permissions in the channel, protocol §14.1).
   */
  private async missingPermissions(required: bigint, whose: 'member' | 'bot', interaction: GatedInteraction): Promise<string[]> {
    const guildId = interaction.guild_id!;
    const channelId = channelOf(interaction);
    const userId = whose === 'member' ? userOf(interaction) : this.deps.botUserId();
    let have = await this.deps.cache.permissionsOf(guildId, userId, channelId);
    if (have === undefined) {
      have = parsePermissions(whose === 'member' ? interaction.member?.permissions : interaction.app_permissions);
      if ((have & PermissionFlagsBits.Administrator) !== 0n) have = ALL_PERMISSIONS;
    }
    return permissionNames(required & ~have);
  }

  /** An active entitlement to the SKU, owned as the rule (or the SKU) says: in the interaction's list, or the cache. */
  private async entitled(rule: EntitlementRule, interaction: GatedInteraction): Promise<boolean> {
    const owner = rule.owner ?? (await this.deps.directory.ownerOfSku(rule.sku));
    const ownerId = owner === 'guild' ? interaction.guild_id : userOf(interaction);
    if (ownerId === undefined) return false;
    const now = Date.now();
    const listed = (interaction.entitlements ?? []).some((e: APIEntitlement) => {
      if (e.sku_id !== rule.sku || (owner === 'guild' ? e.guild_id : e.user_id) !== ownerId) return false;
      return isEntitlementActive(entitlementView(e), now);
    });
    if (listed) return true;
    return this.deps.cache.hasEntitlement(owner === 'guild' ? { guildId: ownerId, skuId: rule.sku } : { userId: ownerId, skuId: rule.sku });
  }

  /** The plugin's own checks in order: the first reason given, or null. */
  private async custom(checks: Preconditions['custom'], interaction: GatedInteraction, target: string): Promise<string | null> {
    if (checks === undefined || checks === null) return null;
    const list: readonly CustomPrecondition[] = typeof checks === 'function' ? [checks] : checks;
    const subject: PreconditionSubject = {
      interaction,
      userId: userOf(interaction),
      guildId: interaction.guild_id,
      channelId: channelOf(interaction),
      locale: interaction.locale,
      target,
    };
    for (const check of list) {
      const result = await check(subject);
      if (typeof result === 'string') return result;
    }
    return null;
  }

  /** Take a use of the window; null when taken, else when the next use is allowed. */
  private async cooldown(rule: CooldownRule, resolved: ResolvedRules, interaction: GatedInteraction): Promise<number | null> {
    const key = `${resolved.plugin}:${rule.bucket ?? resolved.cooldownBucket}:${scopeKey(rule, interaction)}`;
    const verdict = await this.deps.cooldowns.take(key, rule.limit ?? 1, rule.windowMs, this.deps.clock?.());
    return verdict.ok ? null : verdict.retryAt;
  }
}

/** Whose uses count together (see CooldownRule.per); in a DM, `member` and `guild` are the user's own there. */
function scopeKey(rule: CooldownRule, interaction: GatedInteraction): string {
  const userId = userOf(interaction);
  const guildId = interaction.guild_id;
  switch (rule.per ?? 'user') {
    case 'user':
      return `u:${userId}`;
    case 'member':
      return guildId !== undefined ? `m:${guildId}:${userId}` : `dm:${userId}`;
    case 'guild':
      return guildId !== undefined ? `g:${guildId}` : `dm:${userId}`;
    case 'channel':
      return `c:${channelOf(interaction) ?? `dm:${userId}`}`;
  }
}

function ruleOfEntitlement(rule: Preconditions['entitlement']): EntitlementRule | null {
  if (rule === undefined || rule === null) return null;
  return typeof rule === 'string' ? { sku: rule } : rule;
}

/** A permission list as bits (names are checked when the plugin loads). */
export function toBits(list: PermissionList): bigint {
  if (typeof list === 'bigint') return list;
  let bits = 0n;
  for (const name of list) bits |= PermissionFlagsBits[name];
  return bits;
}

/** In guilds the user is inside member; in DMs at top level (protocol §14.1). */
function userOf(interaction: GatedInteraction): string {
  return (interaction.member?.user ?? interaction.user)?.id ?? '';
}

function channelOf(interaction: GatedInteraction): string | undefined {
  return interaction.channel?.id ?? interaction.channel_id;
}
