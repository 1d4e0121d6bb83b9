/**
 * Outgoing webhooks of the sandbox: interactions POSTed to the interactions endpoint URL and webhook events
 * POSTed to the webhook events URL, each signed with the application's key, with the service's behaviour where
 * discord-api-docs describes it:
 *
 * - "Overview of Interactions" > "Preparing for Interactions": with an interactions endpoint URL set,
 *   interactions go there instead of over the gateway (the two are mutually exclusive). Saving the URL sends a
 *   PING (type 1) that must be answered 200 with a PONG; the service also probes with invalid signatures and
 *   removes a URL that accepts one (modelled: the verification sends one, and a `bad-signature` fault answered
 *   with anything but 401 removes the URL).
 * - "Receiving and Responding" > "Interaction Callback": the app answers the POST with 200 and an interaction
 *   response (applied here exactly as the callback endpoint applies one, errors included), or with 202 and
 *   answers through the callback endpoint. The 3-second deadline is the interaction record's own.
 * - "Webhook Events": body `{ version: 1, application_id, type: 0 | 1, event?: { type, timestamp, data? } }`;
 *   saving the URL sends a PING (type 0) to be answered 204; an event must be answered with a 2xx within 3
 *   seconds, or it is sent again with exponential backoff for up to 10 minutes.
 *
 * Faults apply to the next delivery attempts: a signature from another key, or a stale timestamp.
 */
import { ApplicationWebhookType, InteractionResponseType, InteractionType } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import type { DispatchSink, SandboxStore } from '../state/store.js';
import type { SandboxInteraction } from '../interactions/store.js';
import { SandboxError } from '../errors.js';
import { guildObject, userObject } from '../state/serialize.js';
import type {
  DeliveryAttempt,
  DeliveryFault,
  InstallOptions,
  SandboxWebhookOptions,
  SandboxWebhooks,
  WebhookDeliveryKind,
  WebhookDeliveryRecord,
} from './contract.js';
import { signedPost, type PostResult } from './post.js';
import { SigningKey } from './signing.js';

const DEFAULT_RETRY_DELAYS_MS = [1, 2, 4, 8, 16, 32, 64, 128, 256].map((s) => s * 1000);
const ENTITLEMENT_EVENTS: ReadonlySet<string> = new Set(['ENTITLEMENT_CREATE', 'ENTITLEMENT_UPDATE', 'ENTITLEMENT_DELETE']);

export interface WebhookDeliveryDeps {
  store: SandboxStore;
  logger: Logger;
  options?: SandboxWebhookOptions;
}

/** Applies an inline interaction response as the callback endpoint would; throws the service's SandboxApiError. */
export type CallbackApplier = (record: SandboxInteraction, body: unknown) => Promise<unknown> | unknown;

class DeliveryRecord implements WebhookDeliveryRecord {
  readonly attempts: DeliveryAttempt[] = [];
  state: 'pending' | 'delivered' | 'failed' = 'pending';
  answer?: { kind: 'inline' | 'callback' | 'rejected'; status: number; error?: string };
  private waiters: Array<(r: WebhookDeliveryRecord) => void> = [];

  constructor(
    readonly id: string,
    readonly kind: WebhookDeliveryKind,
    readonly url: string,
    readonly subject: string,
    readonly body: string,
  ) {}

  settle(state: 'delivered' | 'failed'): void {
    this.state = state;
    for (const w of this.waiters.splice(0)) w(this);
  }

  settled(): Promise<WebhookDeliveryRecord> {
    if (this.state !== 'pending') return Promise.resolve(this);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  toJSON(): WebhookDeliveryRecord {
    return {
      id: this.id,
      kind: this.kind,
      url: this.url,
      subject: this.subject,
      body: this.body,
      attempts: this.attempts,
      state: this.state,
      ...(this.answer !== undefined ? { answer: this.answer } : {}),
    };
  }
}

function checkUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SandboxError('INVALID', `not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new SandboxError('INVALID', 'the URL must be http:// or https://');
  return parsed;
}

/** "2024-10-18T14:42:53.064834": the webhook event timestamp format of the documentation's examples. */
function eventTimestamp(now: number): string {
  return `${new Date(now).toISOString().slice(0, 23)}000`;
}

export class WebhookDelivery implements SandboxWebhooks {
  readonly key = SigningKey.generate();
  /** A key that is not the application's, for the bad-signature fault and the verification probe. */
  private readonly foreignKey = SigningKey.generate();
  private interactionsUrl: URL | null = null;
  private eventsUrlValue: URL | null = null;
  private eventTypesValue: string[] = [];
  alsoGateway = false;
  private readonly records = new Map<string, DeliveryRecord>();
  private readonly byInteraction = new Map<string, DeliveryRecord>();
  private sequence = 0;
  private pendingFaults: Array<{ fault: DeliveryFault; ageSeconds: number }> = [];
  private readonly installs = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private readonly retryDelaysMs: readonly number[];
  private readonly timeoutMs: number;
  private readonly keep: number;
  private readonly log: Logger;
  /** Set by createSandbox once the REST routes exist. */
  applyCallback: CallbackApplier = () => {
    throw new Error('sandbox: no callback applier');
  };

  constructor(private readonly deps: WebhookDeliveryDeps) {
    const o = deps.options ?? {};
    this.retryDelaysMs = o.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.timeoutMs = o.timeoutMs ?? 3_000;
    this.keep = o.keep ?? 1_000;
    this.log = deps.logger.child({ component: 'sandbox.webhooks' });
  }

  get publicKey(): string {
    return this.key.publicKeyHex;
  }
  get interactionsEndpointUrl(): string | null {
    return this.interactionsUrl?.href ?? null;
  }
  get eventsUrl(): string | null {
    return this.eventsUrlValue?.href ?? null;
  }
  get eventTypes(): readonly string[] {
    return this.eventTypesValue;
  }
  get userInstalls(): readonly string[] {
    return [...this.installs];
  }

  readonly faults = {
    badSignature: (count = 1): void => this.addFault('bad-signature', count, 0),
    staleTimestamp: (count = 1, ageSeconds = 600): void => this.addFault('stale-timestamp', count, ageSeconds),
    clear: (): void => {
      this.pendingFaults = [];
    },
  };

  private addFault(fault: DeliveryFault, count: number, ageSeconds: number): void {
    if (!Number.isInteger(count) || count < 1 || count > 1_000) throw new SandboxError('INVALID', 'count must be an integer from 1 to 1000');
    if (!Number.isFinite(ageSeconds) || ageSeconds < 0) throw new SandboxError('INVALID', 'ageSeconds must be a non-negative number');
    for (let i = 0; i < count; i++) this.pendingFaults.push({ fault, ageSeconds });
  }

  // ---- URLs and their verification -------------------------------------------------------------------------

  async setInteractionsEndpoint(url: string | null, options: { verify?: boolean } = {}): Promise<void> {
    if (url === null || url === '') {
      this.interactionsUrl = null;
      return;
    }
    const parsed = checkUrl(url);
    if (options.verify !== false) {
      const ping = JSON.stringify({
        id: this.deps.store.ids.next(),
        application_id: this.deps.store.applicationId,
        type: InteractionType.Ping,
        token: `ping-${this.deps.store.ids.next()}`,
        version: 1,
      });
      await this.verify(parsed, ping, 'interactions endpoint url', (r) => {
        if (r.status !== 200) return `a signed PING was answered ${r.status}, not 200`;
        if (!/^application\/json\b/i.test(String(r.headers['content-type'] ?? ''))) return 'the PONG has no application/json Content-Type';
        try {
          const body = JSON.parse(r.body.toString('utf8')) as { type?: unknown };
          return body.type === InteractionResponseType.Pong ? null : 'a signed PING was not answered with a PONG ({"type":1})';
        } catch {
          return 'the answer to a signed PING is not JSON';
        }
      });
    }
    this.interactionsUrl = parsed;
  }

  async setEventsEndpoint(url: string | null, options: { verify?: boolean; types?: string[] } = {}): Promise<void> {
    if (options.types !== undefined) {
      if (!options.types.every((t) => typeof t === 'string' && /^[A-Z_]{1,64}$/.test(t))) {
        throw new SandboxError('INVALID', 'types must be event type names such as APPLICATION_AUTHORIZED');
      }
    }
    if (url === null || url === '') {
      this.eventsUrlValue = null;
      if (options.types !== undefined) this.eventTypesValue = [...options.types];
      return;
    }
    const parsed = checkUrl(url);
    if (options.verify !== false) {
      const ping = JSON.stringify({ version: 1, application_id: this.deps.store.applicationId, type: ApplicationWebhookType.Ping });
      await this.verify(parsed, ping, 'webhook events url', (r) => (r.status === 204 ? null : `a signed PING was answered ${r.status}, not 204`));
    }
    this.eventsUrlValue = parsed;
    if (options.types !== undefined) this.eventTypesValue = [...options.types];
  }

  /** The signed PING must pass `accept`; the same PING signed with another key must get 401. */
  private async verify(url: URL, ping: string, what: string, accept: (r: PostResult) => string | null): Promise<void> {
    const fail = (reason: string): SandboxError => new SandboxError('INVALID', `the specified ${what} could not be verified: ${reason}`);
    let good: PostResult;
    try {
      good = await signedPost(url, ping, { ...this.key.headers(ping) }, this.timeoutMs);
    } catch (err) {
      throw fail(err instanceof Error ? err.message : String(err));
    }
    const problem = accept(good);
    if (problem !== null) throw fail(problem);
    let bad: PostResult;
    try {
      bad = await signedPost(url, ping, { ...this.foreignKey.headers(ping) }, this.timeoutMs);
    } catch (err) {
      throw fail(`a PING with an invalid signature got no answer (${err instanceof Error ? err.message : String(err)})`);
    }
    if (bad.status !== 401) throw fail(`a PING with an invalid signature was answered ${bad.status}, not 401`);
  }

  // ---- deliveries ----------------------------------------------------------------------------------------

  private newRecord(kind: WebhookDeliveryKind, url: URL, subject: string, body: string): DeliveryRecord {
    const record = new DeliveryRecord(String(++this.sequence), kind, url.href, subject, body);
    this.records.set(record.id, record);
    if (this.records.size > this.keep) {
      const oldest = this.records.values().next().value as DeliveryRecord;
      this.records.delete(oldest.id);
      if (oldest.kind === 'interaction') this.byInteraction.delete(oldest.subject);
    }
    if (kind === 'interaction') this.byInteraction.set(subject, record);
    return record;
  }

  /** Headers for one attempt, with the next pending fault applied. */
  private signing(body: string): { headers: Record<string, string>; fault?: DeliveryFault } {
    const next = this.pendingFaults.shift();
    const now = Math.floor(Date.now() / 1000);
    if (next?.fault === 'bad-signature') return { headers: { ...this.foreignKey.headers(body, now) }, fault: 'bad-signature' };
    if (next?.fault === 'stale-timestamp') return { headers: { ...this.key.headers(body, now - Math.round(next.ageSeconds)) }, fault: 'stale-timestamp' };
    return { headers: { ...this.key.headers(body, now) } };
  }

  private async attempt(record: DeliveryRecord): Promise<PostResult | null> {
    const url = new URL(record.url);
    const { headers, fault } = this.signing(record.body);
    const started = Date.now();
    const attempt: DeliveryAttempt = { at: started, status: null, durationMs: 0, ...(fault !== undefined ? { fault } : {}) };
    record.attempts.push(attempt);
    try {
      const result = await signedPost(url, record.body, headers, this.timeoutMs);
      attempt.status = result.status;
      attempt.durationMs = Date.now() - started;
      if (fault === 'bad-signature' && result.status !== 401) this.securityCheckFailed(record, result.status);
      return result;
    } catch (err) {
      attempt.durationMs = Date.now() - started;
      attempt.error = err instanceof Error ? err.message : String(err);
      return null;
    }
  }

  /** The app accepted a request with a wrong signature: the service removes such a URL (and emails the owner). */
  private securityCheckFailed(record: DeliveryRecord, status: number): void {
    this.log.warn({ url: record.url, status }, 'the app accepted a request with an invalid signature; its URL is removed');
    if (record.kind === 'interaction' && this.interactionsUrl?.href === record.url) this.interactionsUrl = null;
    if (record.kind === 'event' && this.eventsUrlValue?.href === record.url) this.eventsUrlValue = null;
  }

  /** POST an interaction the sandbox built to the endpoint; its answer fills the interaction record. */
  deliverInteraction(interaction: SandboxInteraction, json: string): WebhookDeliveryRecord {
    const url = this.interactionsUrl;
    if (url === null) throw new Error('sandbox: no interactions endpoint URL is set');
    const record = this.newRecord('interaction', url, interaction.id, json);
    void this.attempt(record).then((result) => this.takeAnswer(record, interaction, result));
    return record;
  }

  private async takeAnswer(record: DeliveryRecord, interaction: SandboxInteraction, result: PostResult | null): Promise<void> {
    if (result === null) {
      record.settle('failed');
      return;
    }
    const { status } = result;
    if (status === 202) {
      record.answer = { kind: 'callback', status };
      record.settle('delivered');
      return;
    }
    if (status !== 200) {
      record.answer = { kind: 'rejected', status };
      record.settle('failed');
      return;
    }
    let body: unknown;
    try {
      if (!/^application\/json\b/i.test(String(result.headers['content-type'] ?? ''))) throw new Error('the response has no application/json Content-Type');
      body = JSON.parse(result.body.toString('utf8'));
    } catch (err) {
      record.answer = { kind: 'inline', status, error: err instanceof Error ? err.message : String(err) };
      record.settle('failed');
      return;
    }
    // Known before the record's waiters hear of the response (they may look at the delivery at once).
    record.answer = { kind: 'inline', status };
    try {
      await this.applyCallback(interaction, body);
    } catch (err) {
      record.answer = { kind: 'inline', status, error: err instanceof Error ? err.message : String(err) };
    }
    record.settle('delivered');
  }

  /** Send a webhook event (when an events URL is set and the type is subscribed). */
  sendEvent(type: string, data?: unknown): WebhookDeliveryRecord | null {
    const url = this.eventsUrlValue;
    if (url === null) return null;
    if (this.eventTypesValue.length > 0 && !this.eventTypesValue.includes(type)) return null;
    const event: Record<string, unknown> = { type, timestamp: eventTimestamp(Date.now()) };
    if (data !== undefined) event.data = data;
    const body = JSON.stringify({ version: 1, application_id: this.deps.store.applicationId, type: ApplicationWebhookType.Event, event });
    const record = this.newRecord('event', url, type, body);
    this.runEvent(record, 0);
    return record;
  }

  redeliver(deliveryId: string): WebhookDeliveryRecord {
    const original = this.records.get(deliveryId);
    if (original === undefined || original.kind !== 'event') throw new SandboxError('INVALID', `no event delivery ${deliveryId}`);
    const record = this.newRecord('event', new URL(original.url), original.subject, original.body);
    this.runEvent(record, this.retryDelaysMs.length);
    return record;
  }

  /** One attempt; unless acknowledged, the next after the next backoff delay (from `retryIndex`). */
  private runEvent(record: DeliveryRecord, retryIndex: number): void {
    void this.attempt(record).then((result) => {
      const ok = result !== null && result.status >= 200 && result.status < 300;
      if (ok) return record.settle('delivered');
      const last = record.attempts[record.attempts.length - 1];
      if (last !== undefined && result !== null) last.error = `answered ${result.status}`;
      const delay = this.retryDelaysMs[retryIndex];
      if (delay === undefined || this.closed) return record.settle('failed');
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.closed) record.settle('failed');
        else this.runEvent(record, retryIndex + 1);
      }, delay);
      timer.unref();
      this.timers.add(timer);
    });
  }

  install(options: InstallOptions = {}): WebhookDeliveryRecord | null {
    const store = this.deps.store;
    // Installing with the bot scope to a guild the bot left brings it back (GUILD_CREATE), as an install does.
    const wantsBot = options.scopes === undefined || (Array.isArray(options.scopes) && options.scopes.includes('bot'));
    const byUser = options.userId === undefined || store.user(options.userId)?.bot === false;
    if (options.guildId !== undefined && wantsBot && byUser && store.leftGuildIds.includes(options.guildId)) store.joinGuild(options.guildId);
    const guild = options.guildId !== undefined ? store.requireGuild(options.guildId) : null;
    const userId = options.userId ?? (guild !== null ? guild.ownerId : store.fixture.userId(0));
    const user = store.user(userId);
    if (user === undefined) throw new SandboxError('UNKNOWN_USER', `unknown user ${userId}`);
    if (user.bot) throw new SandboxError('INVALID', 'a bot cannot authorize an application');
    const scopes = options.scopes ?? (guild !== null ? ['applications.commands', 'bot'] : ['applications.commands']);
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string')) {
      throw new SandboxError('INVALID', 'scopes must be a non-empty list of strings');
    }
    if (guild === null) this.installs.add(user.id);
    const data: Record<string, unknown> = { integration_type: guild !== null ? 0 : 1, scopes: [...scopes], user: userObject(user) };
    if (guild !== null) data.guild = guildObject(guild);
    return this.sendEvent('APPLICATION_AUTHORIZED', data);
  }

  deauthorize(userId: string): WebhookDeliveryRecord | null {
    const user = this.deps.store.user(userId);
    if (user === undefined) throw new SandboxError('UNKNOWN_USER', `unknown user ${userId}`);
    if (!this.installs.has(userId)) throw new SandboxError('CONFLICT', `user ${userId} has not installed the app (install it first)`);
    this.installs.delete(userId);
    return this.sendEvent('APPLICATION_DEAUTHORIZED', { user: userObject(user) });
  }

  deliveries(filter: { kind?: WebhookDeliveryKind } = {}): readonly WebhookDeliveryRecord[] {
    const all = [...this.records.values()];
    return filter.kind === undefined ? all : all.filter((r) => r.kind === filter.kind);
  }

  delivery(id: string): WebhookDeliveryRecord | undefined {
    return this.records.get(id);
  }

  deliveryOf(interactionId: string): WebhookDeliveryRecord | undefined {
    return this.byInteraction.get(interactionId);
  }

  settled(deliveryId: string): Promise<WebhookDeliveryRecord> {
    const record = this.records.get(deliveryId);
    if (record === undefined) return Promise.reject(new SandboxError('INVALID', `no delivery ${deliveryId}`));
    return record.settled();
  }

  /**
   * The store's dispatch sink with entitlement events also sent to the events URL: ENTITLEMENT_CREATE reaches
   * apps by gateway and by webhook (protocol §S6), as do updates and deletes (discord-api-docs, "Webhook Events").
   */
  tee(gateway: DispatchSink): DispatchSink {
    return {
      guild: (guildId, t, d, userId) => gateway.guild(guildId, t, d, userId),
      guildCreate: (guildId) => gateway.guildCreate?.(guildId),
      global: (t, d) => {
        gateway.global(t, d);
        if (ENTITLEMENT_EVENTS.has(t) && this.eventsUrlValue !== null) this.sendEvent(t, JSON.parse(d.toString()) as unknown);
      },
    };
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
