/**
 * The runtime's side of the HTTP transport: the signed endpoint with its two routes, and the interaction
 * transport that turns an HTTP interaction's first answer into the HTTP response.
 *
 * The router and the handler contexts are the same for both transports. They answer through the
 * `InteractionTransport` port; `transport(base)` wraps the REST implementation so that `callback` for an
 * interaction whose HTTP request is still open becomes that request's response body, and every other call
 * (edits of @original, follow-ups, callbacks of gateway interactions or of released exchanges) goes through
 * REST unchanged. The deadline guard of the handler context (it defers a handler that has not answered, with
 * the flags the context decides) therefore produces the deferred HTTP response too.
 */
import type { Logger } from 'pino';
import type { InteractionTransport } from '../interactions/rest-port.js';
import {
  ed25519PublicKey,
  InitialResponses,
  interactionsRoute,
  SignedEndpoint,
  webhookEventsRoute,
  type InteractionIntake,
  type RequestOutcome,
  type SignedRoute,
  type WebhookEventIntake,
} from '../transports/http/index.js';
import type { Config } from './config.js';

export interface HttpEndpointOptions {
  config: Config['endpoint'];
  /** The application's public key, hex. */
  publicKeyHex: string;
  interactions: InteractionIntake;
  /** Webhook events; ignored when `config.eventsPath` is null. */
  events: WebhookEventIntake;
  log: Logger;
  onOutcome?: (path: string, outcome: RequestOutcome, status: number) => void;
  /** The open exchanges, when the router's transport was built over them before the endpoint (see inlineTransport). */
  responses?: InitialResponses;
}

/** The transport handlers answer through: inline for open HTTP exchanges, `base` (REST) for the rest. */
export function inlineTransport(responses: InitialResponses, base: InteractionTransport): InteractionTransport {
  return {
    ...base,
    callback: (interactionId, token, body) => responses.answer(interactionId, body) ?? base.callback(interactionId, token, body),
  };
}

export class HttpEndpoint {
  readonly responses: InitialResponses;
  private readonly server: SignedEndpoint;
  private addressValue: { host: string; port: number } | null = null;

  constructor(options: HttpEndpointOptions) {
    const { config, log } = options;
    this.responses = options.responses ?? new InitialResponses();
    const routes = new Map<string, SignedRoute>();
    routes.set(
      config.interactionsPath,
      interactionsRoute({
        intake: options.interactions,
        responses: this.responses,
        deadlineMs: config.deadlineMs,
        onError: (err) => log.error({ err }, 'interaction handling failed'),
      }),
    );
    if (config.eventsPath !== null) routes.set(config.eventsPath, webhookEventsRoute(options.events));
    this.server = new SignedEndpoint({
      host: config.host,
      port: config.port,
      publicKey: ed25519PublicKey(options.publicKeyHex),
      maxBodyBytes: config.maxBodyBytes,
      timestampWindowSeconds: config.timestampWindowSeconds,
      routes,
      log,
      ...(options.onOutcome !== undefined ? { onOutcome: options.onOutcome } : {}),
    });
  }

  get address(): { host: string; port: number } | null {
    return this.addressValue;
  }

  /** Base URL of the listener (for a client on this host: an unspecified address becomes loopback). */
  get url(): string | null {
    const a = this.addressValue;
    if (a === null) return null;
    const host = a.host === '0.0.0.0' ? '127.0.0.1' : a.host === '::' ? '::1' : a.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${a.port}`;
  }

  /** The transport handlers answer through: inline for open HTTP exchanges, REST for the rest. */
  transport(base: InteractionTransport): InteractionTransport {
    return inlineTransport(this.responses, base);
  }

  async listen(): Promise<{ host: string; port: number }> {
    this.addressValue = await this.server.listen();
    return this.addressValue;
  }

  /** No new requests (the listener closes; requests on open connections get 503). */
  stopAccepting(): void {
    this.server.stopAccepting();
  }

  /** Release open exchanges with 202 and close every connection. */
  async close(): Promise<void> {
    this.responses.releaseAll();
    await this.server.close();
  }
}
