/**
 * Contexts of component clicks (MESSAGE_COMPONENT) and modal submissions (MODAL_SUBMIT). Besides the answers
 * a command has (reply, defer, follow-ups, Activity launch) they can update the message they came from:
 * `update` (callback 7) or `deferUpdate` (6, then `editReply` edits that message). A component may also open
 * a modal. Parameters of the handler's custom_id pattern are in `ctx.params`.
 */
import {
  InteractionResponseType,
  type APIMessage,
  type APIMessageComponentInteraction,
  type APIModalInteractionResponseCallbackData,
  type APIModalSubmitInteraction,
} from 'discord-api-types/v10';
import {
  RespondingContext,
  type ContextServices,
  type ReplyInput,
} from './context.js';
import {
  componentValues,
  kindOfComponentType,
  modalFields,
  type AnyComponentValues,
  type ComponentKind,
  type ComponentValuesByKind,
  type ModalField,
} from './component-values.js';
import type { ResolvedAttachment } from './options.js';
import type { InteractionTransport } from './rest-port.js';
import { InteractionStateError } from './errors.js';

function toData(input: ReplyInput): Exclude<ReplyInput, string> {
  return typeof input === 'string' ? { content: input } : input;
}

/** What component and modal contexts share: the custom_id, its parameters, and updating the message. */
abstract class MessageBoundContext<
  TInteraction extends APIMessageComponentInteraction | APIModalSubmitInteraction,
  TParams,
  TCache,
  TPlugin,
> extends RespondingContext<TInteraction, TCache, TPlugin> {
  constructor(
    interaction: TInteraction,
    transport: InteractionTransport,
    services: ContextServices<TCache, TPlugin>,
    /** Named parameters of the handler's custom_id pattern (`poll:{id}` gives `params.id`). */
    readonly params: TParams,
  ) {
    super(interaction, transport, services);
  }

  get customId(): string {
    return this.interaction.data.custom_id;
  }

  /** The message the component sits on (for a modal: the message of the component that opened it, if any). */
  get message(): APIMessage | undefined {
    return this.interaction.message;
  }

  /**
   * Answer with a message. After `deferUpdate` there is no message of this interaction's own to fill in, so
   * the reply becomes a follow-up (keeping its own ephemeral flag).
   */
  override reply(input: ReplyInput): Promise<void> {
    if (this.stateValue === 'deferred-update' || this.ackInFlight === 'deferred-update') {
      return this.followUp(input).then(() => undefined);
    }
    return super.reply(input);
  }

  /**
   * After a deferred update, @original is the component's message: editing it keeps the interaction in that
   * state, so a later reply is still a follow-up and a later update still an edit.
   */
  protected override async editOriginal(input: ReplyInput): Promise<APIMessage> {
    const before = this.stateValue;
    const message = await super.editOriginal(input);
    if (before === 'deferred-update') this.stateValue = 'deferred-update';
    return message;
  }

  /**
   * Edit the message the component sits on (callback 7), or after `deferUpdate` fill it in. A modal can do
   * this only when a component opened it.
   */
  update(input: ReplyInput): Promise<void> {
    if (this.interaction.message === undefined) {
      return Promise.reject(new InteractionStateError('cannot update: this modal was not opened from a message component, so there is no message to update'));
    }
    if (this.stateValue === 'deferred-update' || this.ackInFlight === 'deferred-update') {
      return this.enqueue(async () => {
        if (this.stateValue !== 'deferred-update') throw this.alreadyAnswered('update the message');
        await this.editOriginal(input);
      });
    }
    return this.acknowledge({ type: InteractionResponseType.UpdateMessage, data: toData(input) }, 'replied', 'update the message');
  }

  /** Acknowledge without a visible answer (callback 6); `update` or `editReply` change the message later. */
  deferUpdate(): Promise<void> {
    if (this.interaction.message === undefined) {
      return Promise.reject(new InteractionStateError('cannot defer an update: this modal was not opened from a message component'));
    }
    if (this.stateValue === 'deferred-update' || this.ackInFlight === 'deferred-update') return this.settled();
    return this.acknowledge({ type: InteractionResponseType.DeferredMessageUpdate }, 'deferred-update', 'defer an update');
  }

  /** Alias of `defer`: acknowledge now with a "thinking" message of this interaction's own (callback 5). */
  deferReply(options: { ephemeral?: boolean } = {}): Promise<void> {
    return this.defer(options);
  }
}

/** The context of a button click or a select-menu pick. `values` is typed by the handler's declared kind. */
export class ComponentContext<
  TKind extends ComponentKind = ComponentKind,
  TParams = Readonly<Record<string, string>>,
  TCache = unknown,
  TPlugin = unknown,
> extends MessageBoundContext<APIMessageComponentInteraction, TParams, TCache, TPlugin> {
  /** Picked values: strings for string selects; users, roles or channels (with resolved objects) for the others. */
  readonly values: ComponentValuesByKind[TKind];

  constructor(
    interaction: APIMessageComponentInteraction,
    transport: InteractionTransport,
    services: ContextServices<TCache, TPlugin>,
    params: TParams,
  ) {
    super(interaction, transport, services, params);
    this.values = componentValues(interaction.data) as AnyComponentValues as ComponentValuesByKind[TKind];
  }

  /** The kind of component that was used (`button`, `stringSelect`, `userSelect`, ...). */
  get kind(): ComponentKind | undefined {
    return kindOfComponentType(this.interaction.data.component_type);
  }

  /** Open a modal; it must be the first answer. */
  showModal(modal: APIModalInteractionResponseCallbackData): Promise<void> {
    return this.openModal(modal);
  }
}

/** The context of a modal submission: every field by custom_id, with typed accessors. */
export class ModalContext<
  TParams = Readonly<Record<string, string>>,
  TCache = unknown,
  TPlugin = unknown,
> extends MessageBoundContext<APIModalSubmitInteraction, TParams, TCache, TPlugin> {
  readonly fields: ReadonlyMap<string, ModalField>;

  constructor(
    interaction: APIModalSubmitInteraction,
    transport: InteractionTransport,
    services: ContextServices<TCache, TPlugin>,
    params: TParams,
  ) {
    super(interaction, transport, services, params);
    this.fields = modalFields(interaction.data);
  }

  /** The text of a text input (undefined when the modal has no such input). */
  text(customId: string): string | undefined {
    const f = this.fields.get(customId);
    return f?.kind === 'text' ? f.value : undefined;
  }

  /** Picked values of a select, radio group or checkbox group, as strings (ids for user/role/channel selects). */
  values(customId: string): string[] {
    const f = this.fields.get(customId);
    if (f === undefined) return [];
    switch (f.kind) {
      case 'stringSelect':
      case 'checkboxes':
        return [...f.values];
      case 'userSelect':
      case 'roleSelect':
      case 'mentionableSelect':
      case 'channelSelect':
      case 'files':
        return f.values.map((v) => v.id);
      case 'radio':
        return f.value === null ? [] : [f.value];
      default:
        return [];
    }
  }

  /** Files of a file upload component (0 to 10), with their attachment objects. */
  files(customId: string): readonly ResolvedAttachment[] {
    const f = this.fields.get(customId);
    return f?.kind === 'files' ? f.values : [];
  }
}
