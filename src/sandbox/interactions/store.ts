/**
 * Interactions the sandbox sent and everything the app answered: the initial callback (with its 3-second
 * deadline), the @original message, follow-ups (at most 5 for user-installed apps), all with the service's
 * errors (protocol §14.4, §14.5).
 */
import { InteractionResponseType, InteractionType as DiscordInteractionType } from 'discord-api-types/v10';
import type { SnowflakeGenerator } from '../../api/snowflake.js';
import type { InteractionRecord } from '../contract.js';
import { addTreeError, emptyErrorTree, Errors, invalidFormBody } from '../errors.js';
import { attachmentObjects, checkMessage, editableFlags, editMessage, flagsOf, MessageFlags, messageObject, type EditUploads, type Json, type MessageContext } from './messages.js';
import { isObject } from '../../util/is-object.js';

// Values from the wire-types dependency; the keys are the names protocol §14 uses, which the sandbox's errors quote.
export const InteractionType = {
  PING: DiscordInteractionType.Ping,
  APPLICATION_COMMAND: DiscordInteractionType.ApplicationCommand,
  MESSAGE_COMPONENT: DiscordInteractionType.MessageComponent,
  AUTOCOMPLETE: DiscordInteractionType.ApplicationCommandAutocomplete,
  MODAL_SUBMIT: DiscordInteractionType.ModalSubmit,
} as const;
export const CallbackType = {
  PONG: InteractionResponseType.Pong,
  CHANNEL_MESSAGE_WITH_SOURCE: InteractionResponseType.ChannelMessageWithSource,
  DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: InteractionResponseType.DeferredChannelMessageWithSource,
  DEFERRED_UPDATE_MESSAGE: InteractionResponseType.DeferredMessageUpdate,
  UPDATE_MESSAGE: InteractionResponseType.UpdateMessage,
  APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: InteractionResponseType.ApplicationCommandAutocompleteResult,
  MODAL: InteractionResponseType.Modal,
  PREMIUM_REQUIRED: InteractionResponseType.PremiumRequired,
  LAUNCH_ACTIVITY: InteractionResponseType.LaunchActivity,
} as const;

/** Which callback types answer which interaction types. */
const ALLOWED_CALLBACKS: Record<number, readonly number[]> = {
  [InteractionType.PING]: [1],
  [InteractionType.APPLICATION_COMMAND]: [4, 5, 9, 10, 12],
  [InteractionType.MESSAGE_COMPONENT]: [4, 5, 6, 7, 9, 10, 12],
  [InteractionType.AUTOCOMPLETE]: [8],
  [InteractionType.MODAL_SUBMIT]: [4, 5, 6, 7, 10, 12],
};

const MAX_USER_INSTALL_FOLLOWUPS = 5;
const MAX_CHOICES = 25;

export interface InteractionMeta {
  id: string;
  token: string;
  type: number;
  payload: Json;
  channelId: string;
  guildId: string | null;
  /** Only USER_INSTALL authorized the interaction (5 follow-ups at most). */
  userInstallOnly: boolean;
  /** Type of the focused option (autocomplete), to check choice values. */
  focusedType?: number;
  /** The message a component sits on (component interactions). */
  sourceMessage?: Json;
  /** The command type (message type 20 for slash, 23 for context menus); 0 for components and modals. */
  commandType: number;
  /**
   * For components (and modals opened from them): puts an update of the message the component sits on where that
   * message lives (the interaction that sent it, or the channel a bot message was posted in).
   */
  source?: { replace(message: Json): void };
  /** The integration that authorized it (a component or modal inherits its command's). */
  integration: 'guild' | 'user';
}

export interface InteractionClock {
  responseMs: number;
  tokenMs: number;
}

export class SandboxInteraction implements InteractionRecord {
  readonly id: string;
  readonly token: string;
  readonly type: number;
  readonly payload: Record<string, unknown>;
  readonly callbacks: Array<{ type: number; data?: Record<string, unknown> }> = [];
  original: Record<string, unknown> | null = null;
  readonly followups: Array<Record<string, unknown>> = [];
  readonly createdAt = Date.now();
  /** The messages of this interaction by id (the original and follow-ups). */
  private readonly messages = new Map<string, Json>();
  private waiters: Array<(cb: { type: number; data?: Record<string, unknown> }) => void> = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly meta: InteractionMeta,
    private readonly clock: InteractionClock,
  ) {
    this.id = meta.id;
    this.token = meta.token;
    this.type = meta.type;
    this.payload = meta.payload;
  }

  firstResponse(timeoutMs = 3_000): Promise<{ type: number; data?: Record<string, unknown> }> {
    const first = this.callbacks[0];
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new Error(`interaction ${this.id} got no response within ${timeoutMs} ms`));
      }, timeoutMs);
      // A pending wait must not keep a closed sandbox's process alive.
      timer.unref();
      const done = (cb: { type: number; data?: Record<string, unknown> }): void => {
        clearTimeout(timer);
        resolve(cb);
      };
      this.waiters.push(done);
    });
  }

  /** Called on every change (callback, edit, follow-up); for the admin API's long polls. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  get responseExpired(): boolean {
    return Date.now() - this.createdAt > this.clock.responseMs;
  }

  get tokenExpired(): boolean {
    return Date.now() - this.createdAt > this.clock.tokenMs;
  }

  get deferredLoading(): boolean {
    return this.original !== null && ((this.original.flags as number) & MessageFlags.LOADING) !== 0;
  }

  // ---- initial response -------------------------------------------------------------------------------

  respond(body: unknown, files: number, msg: (type: number) => MessageContext, embedded: boolean): { type: number; message: Json | null } {
    if (this.callbacks.length > 0) throw Errors.alreadyAcknowledged();
    if (this.responseExpired) throw Errors.unknownInteraction();
    const tree = emptyErrorTree();
    if (!isObject(body)) {
      addTreeError(tree, [], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
      throw invalidFormBody(tree);
    }
    const type = body.type;
    if (typeof type !== 'number' || !Number.isInteger(type)) {
      addTreeError(tree, ['type'], { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
      throw invalidFormBody(tree);
    }
    if (!(ALLOWED_CALLBACKS[this.type] ?? []).includes(type)) {
      addTreeError(tree, ['type'], { code: 'INTERACTION_RESPONSE_TYPE_INVALID', message: `Interaction response type ${type} is not valid for this interaction (type ${this.type}).` });
      throw invalidFormBody(tree);
    }
    if ((type === CallbackType.DEFERRED_UPDATE_MESSAGE || type === CallbackType.UPDATE_MESSAGE) && !this.meta.sourceMessage) {
      addTreeError(tree, ['type'], { code: 'INTERACTION_RESPONSE_TYPE_INVALID', message: 'There is no message to update (the modal was not opened from a component).' });
      throw invalidFormBody(tree);
    }
    const data = body.data;
    let message: Json | null = null;
    switch (type) {
      case CallbackType.CHANNEL_MESSAGE_WITH_SOURCE: {
        const d = checkMessage(data, { at: ['data'], requireContent: true, files });
        message = messageObject(msg(this.meta.commandType === 1 ? 20 : 23), d);
        this.setOriginal(message);
        break;
      }
      case CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: {
        // A deferred response may only say whether it is ephemeral.
        const d = checkMessage(data, { at: ['data'], requireContent: false, allowedFlags: MessageFlags.EPHEMERAL });
        message = messageObject(msg(this.meta.commandType === 1 ? 20 : 23), { flags: d.flags }, MessageFlags.LOADING);
        this.setOriginal(message);
        break;
      }
      case CallbackType.DEFERRED_UPDATE_MESSAGE:
        // Nothing shows yet; @original is now the message the component sits on, edited later.
        if (this.meta.sourceMessage) this.setOriginal(this.meta.sourceMessage);
        break;
      case CallbackType.UPDATE_MESSAGE: {
        const d = checkMessage(data, { at: ['data'], requireContent: false, files, existingFlags: flagsOf(this.meta.sourceMessage) });
        const ctx = files > 0 || !this.meta.sourceMessage ? msg(0) : null;
        const source = this.meta.sourceMessage ?? messageObject({ ...ctx!, uploads: [] }, {});
        // An update edits the message: its files and `attachments` as for PATCH @original.
        const uploads: EditUploads | undefined = ctx ? { uploads: ctx.uploads, attach: (u) => attachmentObjects(ctx.channelId, u, ctx.nextId) } : undefined;
        message = editMessage(source, d, uploads, ['data']);
        this.setOriginal(message);
        // The message the component sits on changes where it lives, too.
        this.meta.source?.replace(message);
        break;
      }
      case CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
        this.checkChoices(data);
        break;
      case CallbackType.MODAL:
        this.checkModal(data);
        break;
      case CallbackType.LAUNCH_ACTIVITY:
        if (!embedded) {
          addTreeError(tree, ['type'], { code: 'INTERACTION_RESPONSE_TYPE_INVALID', message: 'This application has no Activity (EMBEDDED flag); LAUNCH_ACTIVITY is not available.' });
          throw invalidFormBody(tree);
        }
        break;
      default:
        break;
    }
    const record: { type: number; data?: Record<string, unknown> } = { type };
    if (isObject(data)) record.data = data;
    this.callbacks.push(record);
    for (const w of this.waiters.splice(0)) w(record);
    this.changed();
    return { type, message };
  }

  private setOriginal(message: Json): void {
    this.original = message;
    this.messages.set(message.id as string, message);
  }

  private checkChoices(data: unknown): void {
    const tree = emptyErrorTree();
    const choices = isObject(data) ? data.choices : undefined;
    if (!Array.isArray(choices)) {
      addTreeError(tree, ['data', 'choices'], { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
      throw invalidFormBody(tree);
    }
    if (choices.length > MAX_CHOICES) {
      addTreeError(tree, ['data', 'choices'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_CHOICES} or fewer in length.` });
    }
    const t = this.meta.focusedType;
    choices.forEach((c: unknown, i) => {
      if (!isObject(c)) {
        addTreeError(tree, ['data', 'choices', i], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
        return;
      }
      const len = typeof c.name === 'string' ? [...c.name].length : 0;
      if (len < 1 || len > 100) addTreeError(tree, ['data', 'choices', i, 'name'], { code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' });
      const v = c.value;
      const ok =
        t === 3 ? typeof v === 'string' && [...v].length <= 100 :
        t === 4 ? typeof v === 'number' && Number.isInteger(v) :
        t === 10 ? typeof v === 'number' && Number.isFinite(v) :
        typeof v === 'string' || typeof v === 'number';
      if (!ok) addTreeError(tree, ['data', 'choices', i, 'value'], { code: 'APPLICATION_COMMAND_OPTION_CHOICE_VALUE_INVALID', message: 'Choice value does not match the option type.' });
    });
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
  }

  private checkModal(data: unknown): void {
    const tree = emptyErrorTree();
    const d = isObject(data) ? data : {};
    const len = (v: unknown): number => (typeof v === 'string' ? [...v].length : -1);
    const id = len(d.custom_id);
    if (id < 1 || id > 100) addTreeError(tree, ['data', 'custom_id'], { code: id < 0 ? 'BASE_TYPE_REQUIRED' : 'BASE_TYPE_BAD_LENGTH', message: id < 0 ? 'This field is required' : 'Must be between 1 and 100 in length.' });
    const title = len(d.title);
    if (title < 1 || title > 45) addTreeError(tree, ['data', 'title'], { code: title < 0 ? 'BASE_TYPE_REQUIRED' : 'BASE_TYPE_BAD_LENGTH', message: title < 0 ? 'This field is required' : 'Must be between 1 and 45 in length.' });
    if (!Array.isArray(d.components) || d.components.length < 1 || d.components.length > 5) {
      addTreeError(tree, ['data', 'components'], { code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 5 in length.' });
    }
    // A file upload takes between 0 and 10 files (protocol §S8).
    (Array.isArray(d.components) ? (d.components as unknown[]) : []).forEach((top, i) => {
      const inner = isObject(top) && isObject(top.component) ? top.component : null;
      if (inner === null || inner.type !== 19) return;
      for (const key of ['min_values', 'max_values'] as const) {
        const v = inner[key];
        if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 10)) {
          addTreeError(tree, ['data', 'components', i, 'component', key], { code: 'NUMBER_TYPE_MAX', message: 'int value should be between 0 and 10.' });
        }
      }
    });
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
  }

  // ---- webhook side: @original and follow-ups ---------------------------------------------------------

  /** Token still valid for webhook calls (15 minutes). */
  checkToken(): void {
    if (this.tokenExpired) throw Errors.invalidWebhookToken();
  }

  /** The message with this id, if this interaction produced it. */
  findMessage(id: string): Json | undefined {
    return this.messages.get(id);
  }

  /** Replace a message of this interaction (a component interaction updated it). */
  replaceMessage(id: string, message: Json): void {
    const current = this.messages.get(id);
    if (!current) return;
    this.messages.set(id, message);
    if (current === this.original) this.original = message;
    else {
      const i = this.followups.indexOf(current);
      if (i >= 0) this.followups[i] = message;
    }
    this.changed();
  }

  message(id: string): Json {
    const target = id === '@original' ? this.original : this.messages.get(id);
    if (!target) throw Errors.unknownMessage();
    return target;
  }

  /** Edit a message of this interaction; `files` are the request's uploads (kept or dropped as `attachments` says). */
  editMessage(id: string, patch: unknown, files?: EditUploads): Json {
    const current = this.message(id);
    const d = checkMessage(patch, { at: [], requireContent: false, allowedFlags: editableFlags() | MessageFlags.EPHEMERAL, existingFlags: flagsOf(current) });
    const edited = editMessage(current, d, files);
    this.messages.set(edited.id as string, edited);
    if (current === this.original) {
      this.original = edited;
      // After an update (6 or 7) @original is the component's message: it changes where it lives too.
      const first = this.callbacks[0]?.type;
      if ((first === CallbackType.DEFERRED_UPDATE_MESSAGE || first === CallbackType.UPDATE_MESSAGE) && this.meta.source) {
        this.meta.source.replace(edited);
      }
    } else {
      const i = this.followups.indexOf(current);
      if (i >= 0) this.followups[i] = edited;
    }
    this.changed();
    return edited;
  }

  deleteMessage(id: string): void {
    const current = this.message(id);
    this.messages.delete(current.id as string);
    if (current === this.original) this.original = null;
    else {
      const i = this.followups.indexOf(current);
      if (i >= 0) this.followups.splice(i, 1);
    }
    this.changed();
  }

  followup(body: unknown, files: number, ctx: MessageContext): Json {
    // Follow-ups need an acknowledged interaction that has a message channel.
    const first = this.callbacks[0];
    if (!first || ![4, 5, 6, 7].includes(first.type)) throw Errors.unknownWebhook();
    const d = checkMessage(body, { at: [], requireContent: true, files });
    if (this.deferredLoading) {
      // Legacy behaviour: the first follow-up after a deferral edits the loading message (ephemeral ignored).
      const { flags: _ignored, ...rest } = d;
      return this.editMessage('@original', rest, { uploads: ctx.uploads, attach: (u) => attachmentObjects(ctx.channelId, u, ctx.nextId) });
    }
    if (this.meta.userInstallOnly && this.followups.length >= MAX_USER_INSTALL_FOLLOWUPS) throw Errors.maxFollowups();
    const message = messageObject(ctx, d);
    this.followups.push(message);
    this.messages.set(message.id as string, message);
    this.changed();
    return message;
  }
}

export class InteractionStore {
  private readonly byId = new Map<string, SandboxInteraction>();
  private readonly byToken = new Map<string, SandboxInteraction>();

  constructor(
    readonly ids: SnowflakeGenerator,
    private readonly clock: InteractionClock,
  ) {}

  add(meta: InteractionMeta): SandboxInteraction {
    const record = new SandboxInteraction(meta, this.clock);
    this.byId.set(meta.id, record);
    this.byToken.set(meta.token, record);
    return record;
  }

  get(id: string): SandboxInteraction | undefined {
    return this.byId.get(id);
  }

  byTokenValue(token: string): SandboxInteraction | undefined {
    return this.byToken.get(token);
  }

  all(): SandboxInteraction[] {
    return [...this.byId.values()];
  }

  /** The interaction that produced a message, and the message. */
  findMessage(messageId: string): { record: SandboxInteraction; message: Json } | undefined {
    for (const record of this.byId.values()) {
      const message = record.findMessage(messageId);
      if (message) return { record, message };
    }
    return undefined;
  }
}
