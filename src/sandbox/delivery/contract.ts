/**
 * The sandbox's outgoing webhooks: signed interactions to the application's interactions endpoint URL and
 * signed webhook events to its webhook events URL, as the service sends them. Part of the sandbox contract
 * (`sandbox.webhooks`); the implementation is ./webhooks.ts.
 */

export type WebhookDeliveryKind = 'interaction' | 'event';

/** A fault applied to one delivery attempt. */
export type DeliveryFault = 'bad-signature' | 'stale-timestamp';

export interface DeliveryAttempt {
  /** ms since the epoch */
  at: number;
  /** HTTP status, or null when no response came (connection refused, timeout). */
  status: number | null;
  durationMs: number;
  fault?: DeliveryFault;
  /** Why the attempt did not count as delivered. */
  error?: string;
}

/** One interaction or webhook event the sandbox sent, with every attempt. */
export interface WebhookDeliveryRecord {
  /** Sequence number of the delivery, as a string. */
  readonly id: string;
  readonly kind: WebhookDeliveryKind;
  readonly url: string;
  /** The interaction id (interactions) or the event type (events). */
  readonly subject: string;
  /** The exact body sent (every attempt sends the same bytes). */
  readonly body: string;
  readonly attempts: DeliveryAttempt[];
  /** pending: in flight or waiting for a retry; delivered: a 2xx came; failed: no more attempts. */
  state: 'pending' | 'delivered' | 'failed';
  /**
   * Interactions: how the app answered the POST. `inline`: 200 with an interaction response, applied as the
   * initial response (`error` when the service would have refused it); `callback`: 202, the app answers through
   * the callback endpoint; `rejected`: any other status.
   */
  answer?: { kind: 'inline' | 'callback' | 'rejected'; status: number; error?: string };
}

export interface SandboxWebhookOptions {
  /** Waits between attempts of an event that was not acknowledged with a 2xx. Default 1 s doubling to 256 s (about 10 minutes in all). */
  retryDelaysMs?: number[];
  /** An attempt without a response after this long fails. Default 3000 (the service's acknowledgement deadline). */
  timeoutMs?: number;
  /** Delivery records kept for inspection (oldest dropped first). Default 1000. */
  keep?: number;
}

export interface InstallOptions {
  /**
   * Install to this guild (integration type 0, with the guild object); otherwise to the user (type 1). A guild
   * the bot left is joined again (GUILD_CREATE) when the scopes include `bot`.
   */
  guildId?: string;
  /** Who authorized: default the guild's owner (guild install) or the first seeded user. */
  userId?: string;
  /** Default ["applications.commands", "bot"] for a guild, ["applications.commands"] for a user. */
  scopes?: string[];
}

export interface SandboxWebhooks {
  /** The application's public key (hex); GET /applications/@me returns it as `verify_key`. */
  readonly publicKey: string;
  readonly interactionsEndpointUrl: string | null;
  readonly eventsUrl: string | null;
  /** Event types delivered to the events URL; empty = every type. */
  readonly eventTypes: readonly string[];
  /**
   * Set (or clear with null) the interactions endpoint URL. As the service does, the URL is verified first: a
   * signed PING must be answered 200 with a PONG body and a PING with an invalid signature with 401; otherwise
   * this rejects and nothing changes. While set, interactions go there instead of over the gateway.
   */
  setInteractionsEndpoint(url: string | null, options?: { verify?: boolean }): Promise<void>;
  /** Set (or clear) the webhook events URL, verified with a signed PING (type 0) answered 204. */
  setEventsEndpoint(url: string | null, options?: { verify?: boolean; types?: string[] }): Promise<void>;
  /** Extension: while true, interactions sent to the endpoint are also dispatched over the gateway. */
  alsoGateway: boolean;
  /** Faults for the next `count` delivery attempts (interactions and events). */
  readonly faults: {
    /** Sign with a key that is not the application's. */
    badSignature(count?: number): void;
    /** Sign with a timestamp `ageSeconds` old (default 600). */
    staleTimestamp(count?: number, ageSeconds?: number): void;
    clear(): void;
  };
  /** APPLICATION_AUTHORIZED: the app installed to a guild or a user. Null when no events URL takes it. */
  install(options?: InstallOptions): WebhookDeliveryRecord | null;
  /** APPLICATION_DEAUTHORIZED: a user removes the app they installed. */
  deauthorize(userId: string): WebhookDeliveryRecord | null;
  /** Send any event (unknown types included) to the events URL. Null when no events URL takes it. */
  sendEvent(type: string, data?: unknown): WebhookDeliveryRecord | null;
  /** Send an event delivery's exact body once more, as the service's retries do. */
  redeliver(deliveryId: string): WebhookDeliveryRecord;
  /** Deliveries so far, oldest first (bounded). */
  deliveries(filter?: { kind?: WebhookDeliveryKind }): readonly WebhookDeliveryRecord[];
  delivery(id: string): WebhookDeliveryRecord | undefined;
  /** The delivery of an interaction, by interaction id. */
  deliveryOf(interactionId: string): WebhookDeliveryRecord | undefined;
  /** Resolves when the delivery is delivered or failed for good. */
  settled(deliveryId: string): Promise<WebhookDeliveryRecord>;
  /** User ids the app is installed to (by `install` without a guild). */
  readonly userInstalls: readonly string[];
}
