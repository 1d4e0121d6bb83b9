/**
 * What the app answered to one interaction, read live from the sandbox's record: the initial response, the
 * message as edited since, every earlier version of it, follow-ups, a modal or autocomplete choices.
 */
import type {
  APIApplicationCommandOptionChoice,
  APIMessage,
  APIModalInteractionResponseCallbackData,
} from 'discord-api-types/v10';
import type { InteractionRecord } from '../sandbox/contract.js';
import { asMessage, EPHEMERAL, flagsOf, LOADING } from './messages.js';
import { waitFor } from './wait.js';

/** One interaction response callback as the app sent it (`{ type, data }`). */
export interface Callback {
  type: number;
  data?: Record<string, unknown>;
}

/** Per-call options of every wait. */
export interface WaitTime {
  /** How long to wait; default: the kit's `timeoutMs`. */
  timeoutMs?: number;
}

/** Who acts, for the actions a reply offers (the user of the interaction by default). */
export interface ActOptions extends WaitTime {
  /** The user who clicks, selects or submits: a user of the kit or a user id. */
  user?: { readonly id: string } | string;
  locale?: string;
}

/** What a reply needs from the kit that made it. */
export interface ReplyHost {
  readonly timeoutMs: number;
  /** What went wrong around this reply meanwhile (refused REST calls, the bot's error lines). */
  diagnose(reply: Reply): string;
  click(target: Reply, customId: string, options?: ActOptions): Promise<Reply>;
  select(target: Reply, customId: string, values: readonly string[], options?: ActOptions): Promise<Reply>;
  submitModal(target: Reply, values: Readonly<Record<string, string | readonly string[]>>, options?: Omit<ActOptions, 'user'>): Promise<Reply>;
}

export class Reply {
  /** When the user acted (epoch ms). */
  readonly at = Date.now();
  private readonly versions: APIMessage[] = [];
  private lastOriginal: Record<string, unknown> | null;

  /** @internal Made by the kit's actions. */
  constructor(
    /** The sandbox's record of the interaction, for what this view does not cover. */
    readonly record: InteractionRecord,
    /** What the user did, as errors say it: "/dice roll", "button 'vote:yes'". */
    readonly what: string,
    private readonly host: ReplyHost,
  ) {
    this.lastOriginal = record.original;
    // Every version of @original, so that a test can check what it said before the last edit.
    record.onChange(() => {
      const now = record.original;
      if (now !== null && now !== this.lastOriginal && this.lastOriginal !== null) this.versions.push(asMessage(now));
      if (now !== null) this.lastOriginal = now;
    });
  }

  get interactionId(): string {
    return this.record.id;
  }

  /** Interaction type sent: 2 command, 3 component, 4 autocomplete, 5 modal submit. */
  get interactionType(): number {
    return this.record.type;
  }

  /** The initial response (callback), or null while there is none. */
  get initial(): Callback | null {
    return this.record.callbacks[0] ?? null;
  }

  /** Callback type of the initial response: 4 message, 5 deferred, 6 deferred update, 7 update, 8 choices, 9 modal. */
  get type(): number | null {
    return this.initial?.type ?? null;
  }

  get callbacks(): readonly Callback[] {
    return this.record.callbacks;
  }

  /** The response was deferred (5, or 6 for components). */
  get deferred(): boolean {
    const t = this.type;
    return t === 5 || t === 6;
  }

  /** The response message (@original) as it is now; null before a response, for choices and modals, or deleted. */
  get message(): APIMessage | null {
    const o = this.record.original;
    return o === null ? null : asMessage(o);
  }

  get content(): string | undefined {
    return this.message?.content;
  }

  get embeds(): APIMessage['embeds'] {
    return this.message?.embeds ?? [];
  }

  get components(): NonNullable<APIMessage['components']> {
    return this.message?.components ?? [];
  }

  /** Only the invoking user sees the response (flag EPHEMERAL on the message, or asked for in the callback). */
  get ephemeral(): boolean {
    const message = this.record.original;
    if (message !== null) return (flagsOf(message) & EPHEMERAL) !== 0;
    return (flagsOf(this.initial?.data) & EPHEMERAL) !== 0;
  }

  /** The message still shows "thinking..." (deferred, not edited yet). */
  get loading(): boolean {
    return (flagsOf(this.record.original) & LOADING) !== 0;
  }

  /**
   * Every later version of the response message, oldest first (the one replacing a deferral's loading message
   * included); `message` is the newest.
   */
  get edits(): readonly APIMessage[] {
    return this.versions;
  }

  /** Follow-up messages as they are now, in the order they were sent. */
  get followups(): readonly APIMessage[] {
    return this.record.followups.map(asMessage);
  }

  /** The modal the app opened (callback 9), or null. */
  get modal(): APIModalInteractionResponseCallbackData | null {
    const first = this.initial;
    return first?.type === 9 && first.data !== undefined ? (first.data as unknown as APIModalInteractionResponseCallbackData) : null;
  }

  /** Autocomplete choices (callback 8), or null. */
  get choices(): readonly APIApplicationCommandOptionChoice[] | null {
    const first = this.initial;
    if (first?.type !== 8) return null;
    const choices = first.data?.choices;
    return Array.isArray(choices) ? (choices as APIApplicationCommandOptionChoice[]) : [];
  }

  /** Wait until `check(this)` holds (bounded; the error names `what`). */
  waitFor(check: (reply: this) => boolean, what: string, options: WaitTime = {}): Promise<this> {
    return waitFor(() => (check(this) ? this : undefined), {
      what: `${what} (${this.what}, interaction ${this.interactionId})`,
      timeoutMs: options.timeoutMs ?? this.host.timeoutMs,
      sources: [(l) => this.record.onChange(l)],
      detail: () => this.describe(),
    });
  }

  /** The follow-up at `index` (0: the first), once the app has sent it. */
  async waitForFollowup(index = 0, options: WaitTime = {}): Promise<APIMessage> {
    await this.waitFor((r) => r.record.followups.length > index, `follow-up #${index + 1}`, options);
    return asMessage(this.record.followups[index]!);
  }

  /** The response message's edit at `index` (0: the first), once the app has made it. */
  async waitForEdit(index = 0, options: WaitTime = {}): Promise<APIMessage> {
    await this.waitFor((r) => r.versions.length > index, `edit #${index + 1} of the response message`, options);
    return this.versions[index]!;
  }

  /** Click the button with this custom_id on the response message (or a follow-up holding it). */
  click(customId: string, options?: ActOptions): Promise<Reply> {
    return this.host.click(this, customId, options);
  }

  /** Pick `values` in the select menu with this custom_id on the response message (or a follow-up holding it). */
  select(customId: string, values: readonly string[], options?: ActOptions): Promise<Reply> {
    return this.host.select(this, customId, values, options);
  }

  /** Submit the modal this reply opened, with text input values (or picked values) by custom_id. */
  submitModal(values: Readonly<Record<string, string | readonly string[]>>, options?: Omit<ActOptions, 'user'>): Promise<Reply> {
    return this.host.submitModal(this, values, options);
  }

  /** @internal Settle on the answer: the initial response, and past a deferral's loading state. */
  settled(timeoutMs: number, until: 'first' | 'answer'): Promise<this> {
    return waitFor(() => (this.initial !== null && (until === 'first' || !this.loading) ? this : undefined), {
      what: `the bot's answer to ${this.what} (interaction ${this.interactionId})`,
      timeoutMs,
      sources: [(l) => this.record.onChange(l)],
      detail: () => this.describe(),
    });
  }

  /** What the record holds now, for timeout errors. */
  private describe(): string {
    const lines: string[] = [];
    const first = this.initial;
    if (first === null) lines.push('no response callback was recorded');
    else if (this.loading) lines.push(`the bot deferred (callback type ${first.type}) and has not edited the loading message`);
    else lines.push(`responses so far: callbacks [${this.record.callbacks.map((c) => c.type).join(', ')}], ${this.versions.length} edit(s), ${this.record.followups.length} follow-up(s)`);
    const more = this.host.diagnose(this);
    if (more !== '') lines.push(more);
    return lines.map((l) => `  ${l}`).join('\n');
  }
}
