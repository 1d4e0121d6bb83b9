import {
  InteractionResponseType,
  MessageFlags,
  type APIApplicationCommandInteraction,
  type APIApplicationCommandAutocompleteInteraction,
  type APIApplicationCommandOptionChoice,
  type APIMessageComponentInteraction,
  type APIModalSubmitInteraction,
  type APIInteractionResponse,
  type APIInteractionResponseCallbackData,
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  type APIUser,
  type APIInteractionGuildMember,
} from 'discord-api-types/v10';
import type { InteractionTransport } from './rest-port.js';
import type { FocusedOption, OptionValue } from './options.js';
import type { Logger } from 'pino';
import { FollowUpLimitError, InteractionStateError } from './errors.js';

/** Text, or a message body plus `ephemeral` as a shorthand for the EPHEMERAL flag. */
export type ReplyInput = string | (APIInteractionResponseCallbackData & { ephemeral?: boolean });

/** Follow-ups allowed per interaction when the app is installed only to the user (protocol §S8). */
export const USER_INSTALL_FOLLOW_UP_LIMIT = 5;

/**
 * Where an interaction's answer stands: not yet answered, deferred (a "thinking" message to fill in),
 * answered, or (components and modals) acknowledged with a deferred update of the message they sit on.
 */
export type ResponseState = 'pending' | 'deferred' | 'replied' | 'deferred-update';

function toMessage(input: ReplyInput): APIInteractionResponseCallbackData {
  if (typeof input === 'string') return { content: input };
  const { ephemeral, ...body } = input;
  if (ephemeral) body.flags = (body.flags ?? 0) | MessageFlags.Ephemeral;
  return body;
}

function isEphemeral(body: { flags?: number | undefined }): boolean {
  return body.flags !== undefined && (body.flags & MessageFlags.Ephemeral) !== 0;
}

/** The body without the EPHEMERAL flag, which cannot change once a message exists. */
function withoutEphemeral<T extends { flags?: number | undefined }>(body: T): T {
  if (body.flags === undefined) return body;
  const flags = body.flags & ~MessageFlags.Ephemeral;
  const out = { ...body };
  if (flags === 0) delete out.flags;
  else out.flags = flags;
  return out;
}

/** True when only the user-install key authorized the interaction (owners `{ "1": user_id }`). */
export function isUserInstallOnly(interaction: { authorizing_integration_owners?: object }): boolean {
  const owners = interaction.authorizing_integration_owners;
  if (owners === undefined) return false;
  const keys = Object.keys(owners);
  return keys.length > 0 && keys.every((k) => k === '1');
}

/**
 * What the host hands every handler besides the interaction: its plugin's logger, config, the cache, and
 * the plugin's own context (REST, member requests, application id) as `plugin`.
 */
export interface ContextServices<TCache = unknown, TPlugin = unknown> {
  readonly log: Logger;
  readonly config: Readonly<Record<string, unknown>>;
  readonly cache: TCache;
  readonly plugin: TPlugin;
}

/**
 * The type of a context's `config`: the plugin context's own when it has one (a plugin's schema output, typed by
 * the plugin layer), else the section as a bag. The value is always the one the host put in the services.
 */
export type ConfigOf<TPlugin> = TPlugin extends { readonly config: infer C } ? C : Readonly<Record<string, unknown>>;

/** Interactions a handler context wraps: commands, autocomplete, component clicks and modal submissions. */
export type ContextInteraction =
  | APIApplicationCommandInteraction
  | APIApplicationCommandAutocompleteInteraction
  | APIMessageComponentInteraction
  | APIModalSubmitInteraction;

/** Fields shared by every handler context. */
abstract class BaseContext<TInteraction extends ContextInteraction, TCache, TPlugin> {
  readonly user: APIUser;
  readonly member: APIInteractionGuildMember | undefined;
  readonly log: Logger;
  readonly config: ConfigOf<TPlugin>;
  readonly cache: TCache;
  readonly plugin: TPlugin;

  constructor(
    readonly interaction: TInteraction,
    protected readonly transport: InteractionTransport,
    services: ContextServices<TCache, TPlugin>,
  ) {
    this.log = services.log;
    this.config = services.config as ConfigOf<TPlugin>;
    this.cache = services.cache;
    this.plugin = services.plugin;
    this.member = interaction.member;
    // In guilds the user is inside member; in DMs at top level (protocol §14.1).
    this.user = (interaction.member?.user ?? interaction.user) as APIUser;
  }

  get applicationId(): string {
    return this.interaction.application_id;
  }
  get guildId(): string | undefined {
    return this.interaction.guild_id;
  }
  get channelId(): string | undefined {
    return this.interaction.channel?.id ?? this.interaction.channel_id;
  }
  get locale(): string | undefined {
    return this.interaction.locale;
  }
}

/**
 * What every context that answers with messages shares (commands, components, modals). Every response goes
 * through one queue so that calls issued without awaiting (and the deadline guard) reach the service in the
 * order they were made and never race.
 *
 * An ephemeral answer is never shown to the channel. The EPHEMERAL flag is fixed by the first response, so
 * when a handler answers ephemerally after a public defer (its own, or the deadline guard's for a command
 * that did not declare `deferEphemeral`), the public "thinking" placeholder is deleted and the answer goes
 * out as an ephemeral follow-up, which from then on is what editReply and deleteReply act on. The delete
 * comes first: the service turns the first follow-up after a defer into an edit of the placeholder,
 * ignoring its EPHEMERAL flag.
 */
export abstract class RespondingContext<
  TInteraction extends APIApplicationCommandInteraction | APIMessageComponentInteraction | APIModalSubmitInteraction,
  TCache = unknown,
  TPlugin = unknown,
> extends BaseContext<TInteraction, TCache, TPlugin> {
  protected stateValue: ResponseState = 'pending';
  /**
   * The state an acknowledgement under way leads to (null when none is): set synchronously, so that the
   * deadline guard never sends a second one, and so that a reply made while a defer is on the wire waits for
   * it and fills in the deferred message instead of failing.
   */
  protected ackInFlight: ResponseState | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private followUps = 0;
  /** Whether the initial response (reply or defer) was ephemeral. */
  private ephemeralOriginal = false;
  /** The public placeholder was deleted to keep an ephemeral answer private: there is no @original. */
  private originalGone = false;
  /** The ephemeral follow-up that stands in for the reply once the placeholder is gone. */
  private replyMessageId: string | null = null;

  get state(): ResponseState {
    return this.stateValue;
  }
  /** True once the interaction has been acknowledged (replied, deferred, modal or activity), or is being. */
  get acknowledged(): boolean {
    return this.stateValue !== 'pending' || this.ackInFlight !== null;
  }
  protected enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Send the initial response; runs inside the queue. */
  protected async sendAck(body: APIInteractionResponse, next: ResponseState): Promise<void> {
    this.ackInFlight = next;
    try {
      await this.transport.callback(this.interaction.id, this.interaction.token, body);
      const data = 'data' in body ? (body.data as { flags?: number } | undefined) : undefined;
      this.ephemeralOriginal = data !== undefined && isEphemeral(data);
      this.stateValue = next;
    } finally {
      this.ackInFlight = null;
    }
  }

  /** Why a second initial response is refused, in words a handler's author can act on. */
  protected alreadyAnswered(what: string): InteractionStateError {
    const how = this.ackInFlight !== null ? 'is already being answered' : this.stateValue === 'deferred' ? 'was already deferred' : 'was already answered';
    const hint =
      this.stateValue === 'deferred' || this.ackInFlight === 'deferred'
        ? ' (a modal or an Activity launch must be the first answer; a handler that has not answered in time is deferred automatically)'
        : '';
    return new InteractionStateError(`cannot ${what}: this interaction ${how}${hint}`);
  }

  protected acknowledge(body: APIInteractionResponse, next: ResponseState, what: string): Promise<void> {
    if (this.acknowledged) return Promise.reject(this.alreadyAnswered(what));
    this.ackInFlight = next;
    return this.enqueue(() => this.sendAck(body, next));
  }

  /**
   * Fill in or edit the reply; runs inside the queue. The EPHEMERAL flag cannot change after the first
   * response: an ephemeral answer to a public placeholder replaces it (see the class comment), and an
   * ephemeral edit of a public reply is refused rather than shown to everyone.
   */
  protected async editOriginal(input: ReplyInput): Promise<APIMessage> {
    const body = toMessage(input);
    if (this.replyMessageId !== null) {
      const message = await this.transport.editFollowUp(this.applicationId, this.interaction.token, this.replyMessageId, withoutEphemeral(body));
      this.stateValue = 'replied';
      return message;
    }
    if (this.originalGone || (isEphemeral(body) && !this.ephemeralOriginal)) {
      if (this.stateValue !== 'deferred') {
        throw new InteractionStateError(
          'cannot make a public reply ephemeral (the flag is fixed by the first response): edit it without `ephemeral`, or send followUp({ ephemeral: true })',
        );
      }
      return this.replacePlaceholder(body);
    }
    const message = await this.transport.editOriginal(this.applicationId, this.interaction.token, withoutEphemeral(body));
    this.stateValue = 'replied';
    return message;
  }

  /** Delete the public placeholder (once) so that the next follow-up is a message of its own. */
  private async removePlaceholder(): Promise<void> {
    if (this.originalGone) return;
    await this.transport.deleteOriginal(this.applicationId, this.interaction.token);
    this.originalGone = true;
  }

  /** The reply goes out as a follow-up instead of filling the public placeholder. */
  private async replacePlaceholder(body: APIInteractionResponseCallbackData): Promise<APIMessage> {
    this.countFollowUp();
    try {
      await this.removePlaceholder();
      const message = await this.transport.followUp(this.applicationId, this.interaction.token, body);
      this.replyMessageId = message.id;
      this.stateValue = 'replied';
      return message;
    } catch (error) {
      this.followUps--;
      throw error;
    }
  }

  /** User-installed apps get at most five follow-ups per interaction (protocol §S8). */
  private countFollowUp(): void {
    if (isUserInstallOnly(this.interaction) && this.followUps >= USER_INSTALL_FOLLOW_UP_LIMIT) {
      throw new FollowUpLimitError(USER_INSTALL_FOLLOW_UP_LIMIT);
    }
    this.followUps++;
  }

  /**
   * Answer with a message. After a defer (the handler's, or the deadline guard's, even one still on the wire)
   * this fills in the deferred ("thinking") message instead; if that defer failed, the reply answers itself.
   */
  reply(input: ReplyInput): Promise<void> {
    const response: APIInteractionResponse = { type: InteractionResponseType.ChannelMessageWithSource, data: toMessage(input) };
    if (this.stateValue !== 'deferred' && this.ackInFlight !== 'deferred') return this.acknowledge(response, 'replied', 'reply');
    return this.enqueue(async () => {
      if (this.stateValue === 'deferred') await this.editOriginal(input);
      else if (this.stateValue === 'pending') await this.sendAck(response, 'replied');
      else throw this.alreadyAnswered('reply');
    });
  }

  /** Acknowledge now and answer later (the user sees "thinking"). Only EPHEMERAL is allowed as a flag. */
  defer(options: { ephemeral?: boolean } = {}): Promise<void> {
    if (this.stateValue === 'deferred' || this.ackInFlight !== null) return this.queue.then(() => undefined);
    return this.acknowledge(
      {
        type: InteractionResponseType.DeferredChannelMessageWithSource,
        ...(options.ephemeral ? { data: { flags: MessageFlags.Ephemeral } } : {}),
      },
      'deferred',
      'defer',
    );
  }

  /** Edit the original response (the reply, or the deferred message). */
  editReply(input: ReplyInput): Promise<APIMessage> {
    return this.enqueue(async () => {
      if (this.stateValue === 'pending') {
        throw new InteractionStateError('editReply needs a reply or a defer first');
      }
      return this.editOriginal(input);
    });
  }

  deleteReply(): Promise<void> {
    return this.enqueue(async () => {
      if (this.stateValue === 'pending') throw new InteractionStateError('there is no reply to delete');
      if (this.replyMessageId !== null) {
        await this.transport.deleteFollowUp(this.applicationId, this.interaction.token, this.replyMessageId);
        this.replyMessageId = null;
      } else if (!this.originalGone) {
        await this.transport.deleteOriginal(this.applicationId, this.interaction.token);
      }
      this.originalGone = true;
    });
  }

  /**
   * Send another message. User-installed apps get at most five per interaction; the sixth throws here. An
   * ephemeral follow-up while a public placeholder still says "thinking" deletes the placeholder first (the
   * service would otherwise put the follow-up into it, publicly); a later reply then comes as a follow-up too.
   */
  followUp(input: ReplyInput): Promise<APIMessage> {
    try {
      // Counted when issued, so that calls made without awaiting cannot pass the limit together.
      this.countFollowUp();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async () => {
      try {
        if (this.stateValue === 'pending') throw new InteractionStateError('followUp needs a reply or a defer first');
        const body = toMessage(input);
        if (this.stateValue === 'deferred' && !this.ephemeralOriginal && isEphemeral(body)) await this.removePlaceholder();
        return await this.transport.followUp(this.applicationId, this.interaction.token, body);
      } catch (error) {
        if (error instanceof InteractionStateError) this.followUps--;
        throw error;
      }
    });
  }

  /** Open a modal (callback type 9); it must be the first answer. Commands and components expose it. */
  protected openModal(modal: APIModalInteractionResponseCallbackData): Promise<void> {
    return this.acknowledge({ type: InteractionResponseType.Modal, data: modal }, 'replied', 'show a modal');
  }

  /** Launch the app's Activity (callback type 12); for apps with Activities enabled. */
  launchActivity(): Promise<void> {
    return this.acknowledge({ type: InteractionResponseType.LaunchActivity }, 'replied', 'launch the Activity');
  }

  /** Wait for every response call made so far. */
  settled(): Promise<void> {
    return this.queue.then(() => undefined);
  }
}

/** The context a command handler gets. */
export class CommandContext<
  TOptions = Record<string, OptionValue | undefined>,
  TCache = unknown,
  TPlugin = unknown,
> extends RespondingContext<APIApplicationCommandInteraction, TCache, TPlugin> {
  constructor(
    interaction: APIApplicationCommandInteraction,
    transport: InteractionTransport,
    services: ContextServices<TCache, TPlugin>,
    readonly options: TOptions,
    /** Subcommand group and subcommand names, outermost first. */
    readonly path: readonly string[],
  ) {
    super(interaction, transport, services);
  }

  get commandName(): string {
    return this.interaction.data.name;
  }
  /** For USER and MESSAGE commands: the id of the user or message the command targets. */
  get targetId(): string | undefined {
    return 'target_id' in this.interaction.data ? this.interaction.data.target_id : undefined;
  }

  showModal(modal: APIModalInteractionResponseCallbackData): Promise<void> {
    return this.openModal(modal);
  }
}

export type AutocompleteChoice = APIApplicationCommandOptionChoice;

/** Choices per autocomplete answer (protocol §14.4). */
export const AUTOCOMPLETE_CHOICE_LIMIT = 25;

export class AutocompleteContext<
  TOptions = Record<string, OptionValue | undefined>,
  TCache = unknown,
  TPlugin = unknown,
> extends BaseContext<APIApplicationCommandAutocompleteInteraction, TCache, TPlugin> {
  private responded = false;

  constructor(
    interaction: APIApplicationCommandAutocompleteInteraction,
    transport: InteractionTransport,
    services: ContextServices<TCache, TPlugin>,
    /** Options filled so far; required ones may be missing, and values may be partial. */
    readonly options: Partial<TOptions>,
    readonly focused: FocusedOption,
    readonly path: readonly string[],
  ) {
    super(interaction, transport, services);
  }

  get commandName(): string {
    return this.interaction.data.name;
  }

  get answered(): boolean {
    return this.responded;
  }

  /** Answer with up to 25 choices (extra ones are cut, and the count returned says how many were sent). */
  async respond(choices: readonly AutocompleteChoice[]): Promise<number> {
    if (this.responded) throw new InteractionStateError('this autocomplete interaction was already answered');
    this.responded = true;
    const sent = choices.slice(0, AUTOCOMPLETE_CHOICE_LIMIT);
    await this.transport.callback(this.interaction.id, this.interaction.token, {
      type: InteractionResponseType.ApplicationCommandAutocompleteResult,
      data: { choices: sent },
    });
    return sent.length;
  }
}
