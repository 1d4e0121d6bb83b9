/**
 * Declarative preconditions (docs/plugins.md "Preconditions"): checks the runtime makes before a command,
 * subcommand, component or modal handler runs. A denied one is answered ephemerally, reported to the plugin as a
 * `preconditionDenied` event and counted; the handler never runs.
 */
import type { APIInteraction, PermissionFlagsBits } from 'discord-api-types/v10';

/** A permission by its name in discord-api-types' PermissionFlagsBits (`'ManageMessages'`). */
export type PermissionName = keyof typeof PermissionFlagsBits;

/** Permissions: names, or a bit set. */
export type PermissionList = readonly PermissionName[] | bigint;

/** Whose uses a cooldown counts together. */
export type CooldownScope = 'user' | 'member' | 'guild' | 'channel';

export interface CooldownRule {
  /** Uses per window. Default 1. */
  readonly limit?: number;
  /** The window, in milliseconds. */
  readonly windowMs: number;
  /**
   * Whose uses count together: one user everywhere (default), a user in one guild (`member`), a whole guild, or a
   * channel. In a DM, `member` and `guild` count the user's own uses there.
   */
  readonly per?: CooldownScope;
  /**
   * Name of the window. Rules with the same bucket in one plugin share their uses. Default: where the rule is
   * declared (a plugin default is one window for all the plugin's commands; a command's is that command's).
   */
  readonly bucket?: string;
}

export interface PermissionRule {
  /** What the member who invoked must have in the channel. */
  readonly member?: PermissionList;
  /** What the bot must have in the channel. */
  readonly bot?: PermissionList;
}

export interface EntitlementRule {
  /** The SKU an active entitlement must be for. */
  readonly sku: string;
  /**
   * Who must own it. Default: per the SKU, a guild for a guild subscription (SKU flag GUILD_SUBSCRIPTION), the
   * user otherwise (the SKUs are read once from GET /applications/{application.id}/skus).
   */
  readonly owner?: 'user' | 'guild';
}

/** What a custom precondition sees. */
export interface PreconditionSubject {
  readonly interaction: APIInteraction;
  readonly userId: string;
  readonly guildId: string | undefined;
  readonly channelId: string | undefined;
  readonly locale: string | undefined;
  /** `/cart items add`, `component shop:{id}`, `modal feedback`. */
  readonly target: string;
}

/** `true` (or nothing) lets the handler run; a string denies, and is what the user reads. */
export type PreconditionResult = true | string | undefined | void;
export type CustomPrecondition = (subject: PreconditionSubject) => PreconditionResult | Promise<PreconditionResult>;

/**
 * The preconditions of a command, subcommand, component or modal, and a plugin's defaults for its commands. A
 * more specific level replaces a rule of the same name (`cooldown: null` or `guildOnly: false` lifts it).
 */
export interface Preconditions {
  readonly cooldown?: CooldownRule | null;
  readonly permissions?: PermissionRule | null;
  readonly entitlement?: EntitlementRule | string | null;
  /** Only in guilds. */
  readonly guildOnly?: boolean;
  /** Only in DMs (the bot's DM or a private channel). */
  readonly dmOnly?: boolean;
  /** Only the application's owner, or the members of its team. */
  readonly owners?: boolean;
  /** Only in age-restricted (NSFW) channels; a thread takes its parent's setting. */
  readonly nsfw?: boolean;
  readonly custom?: CustomPrecondition | readonly CustomPrecondition[] | null;
}

export type PreconditionName = 'guildOnly' | 'dmOnly' | 'owners' | 'nsfw' | 'permissions' | 'entitlement' | 'custom' | 'cooldown';

/** The texts a denial answers with; `{placeholders}` are filled in. */
export interface PreconditionTexts {
  /** `{retry}`: when the user may try again, as `<t:UNIX:R>`. */
  readonly cooldown: string;
  /** `{permissions}`: the missing permissions' names. */
  readonly memberPermissions: string;
  readonly botPermissions: string;
  readonly entitlement: string;
  readonly guildOnly: string;
  readonly dmOnly: string;
  readonly owners: string;
  readonly nsfw: string;
}

/** Translations by locale (`fr`, `pt-BR`: the interaction's locale, then its language); English is the default. */
export type PreconditionTranslations = Readonly<Record<string, Partial<PreconditionTexts>>>;

/** The `preconditionDenied` plugin event. */
export interface PreconditionDenial {
  readonly precondition: PreconditionName;
  /** What was denied: `/cart items add`, `component shop:{id}`, `modal feedback`. */
  readonly target: string;
  readonly interactionId: string;
  readonly userId: string;
  readonly guildId: string | undefined;
  readonly channelId: string | undefined;
  /** What the user was told. */
  readonly message: string;
  /** permissions: the missing ones, and whose (`member` or `bot`). */
  readonly missing?: readonly PermissionName[] | readonly string[];
  readonly whose?: 'member' | 'bot';
  /** cooldown: when a use is allowed again (ms since the epoch). */
  readonly retryAt?: number;
  /** entitlement: the SKU. */
  readonly skuId?: string;
}
