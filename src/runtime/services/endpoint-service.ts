/**
 * The signed HTTP endpoint (transport "both" and "http"): interactions and webhook events, verified with the
 * application's public key, handed to the intake pipeline. On the embedded sandbox the runtime plays the
 * developer portal and points the application's URLs at itself.
 *
 * Stopping it loses nothing a client sent: it keeps answering for the drain window (counted from the start of
 * the stop, while /readyz already says 503, so a load balancer moves traffic away), then refuses new requests,
 * lets the handlers still running answer (their answer is the response of a still open request), and closes.
 */
import type { Logger } from 'pino';
import { cacheNamespace } from '../../cache/index.js';
import type { Sandbox } from '../../sandbox/contract.js';
import type { RequestOutcome } from '../../transports/http/index.js';
import { sleep } from '../../util/sleep.js';
import { HttpEndpoint } from '../http-endpoint.js';
import type { IntakeService } from '../intake/intake-service.js';
import {
  dedupeTtlMs,
  MemorySeenKeys,
  RedisSeenKeys,
  WEBHOOK_DEDUPE_MAX_KEYS,
  WEBHOOK_DEDUPE_TTL_MS,
  WebhookEventHandler,
  type SeenKeys,
} from '../intake/webhook-receipt.js';
import type { Service, StopOptions } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import type { RestService } from './rest-service.js';

interface Made {
  readonly endpoint: HttpEndpoint;
  readonly events: WebhookEventHandler;
  readonly seen: SeenKeys;
}

export class EndpointService implements Service {
  readonly name = 'http endpoint';
  /** Requests to the signed endpoint by `path\toutcome\tstatus` (for metrics). */
  readonly requests = new Map<string, number>();
  private made: Made | null = null;
  private listening = false;
  /** The sandbox whose URLs this runtime pointed at its endpoint (they are cleared at stop). */
  private pointed: Sandbox | null = null;
  private readonly log: Logger;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    private readonly intake: IntakeService,
  ) {
    this.log = ctx.log.child({ component: 'endpoint' });
  }

  /** The endpoint once listening (null before, and for transport "gateway"). */
  get endpoint(): HttpEndpoint | null {
    return this.listening ? this.made!.endpoint : null;
  }

  async start(signal: AbortSignal): Promise<void> {
    const made = this.create();
    this.made = made;
    const { host, port, interactionsPath, eventsPath, deadlineMs } = this.ctx.config.endpoint;
    let listening: { host: string; port: number };
    try {
      listening = await made.endpoint.listen();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new Error(
        `the HTTP endpoint cannot listen on ${host}:${port}${typeof code === 'string' ? ` (${code})` : ''}: check endpoint.host / endpoint.port (GATEHOUSE_ENDPOINT_HOST / GATEHOUSE_ENDPOINT_PORT)`,
        { cause: err },
      );
    }
    this.listening = true;
    signal.throwIfAborted();
    const base = made.endpoint.url!;
    this.ctx.log.info(
      { host: listening.host, port: listening.port, interactions: interactionsPath, events: eventsPath },
      `interactions endpoint on ${base}${interactionsPath}${eventsPath !== null ? `, webhook events on ${base}${eventsPath}` : ''}`,
    );
    const deferAfterMs = this.ctx.options.deferAfterMs ?? 2_000;
    if (deferAfterMs >= deadlineMs) {
      this.ctx.log.warn(
        { deferAfterMs, deadlineMs },
        'handlers are deferred automatically only after the endpoint has released the HTTP request; their defer then goes through REST',
      );
    }
    await this.pointSandbox(base, signal);
  }

  /** The endpoint and its webhook receipt; the key comes from the configuration or the application. */
  private create(): Made {
    const { endpoint, redisUrl, cache } = this.ctx.config;
    // Namespaced as the cache is (an embedded sandbox's receipts are that sandbox's alone).
    const namespace = cacheNamespace(cache.redisPrefix, this.rest.namespaceId);
    const publicKeyHex = endpoint.publicKey?.toLowerCase() ?? this.rest.verifyKey;
    if (publicKeyHex === null) {
      throw new Error('the HTTP endpoint needs the application\'s public key: set DISCORD_PUBLIC_KEY (endpoint.publicKey)');
    }
    const applicationId = this.rest.applicationId;
    const ttlMs = dedupeTtlMs(endpoint.timestampWindowSeconds, WEBHOOK_DEDUPE_TTL_MS);
    const seen: SeenKeys =
      redisUrl !== undefined
        ? new RedisSeenKeys(redisUrl, `${namespace}:webhook-events`, this.log, ttlMs)
        : new MemorySeenKeys(WEBHOOK_DEDUPE_MAX_KEYS, ttlMs);
    const pipeline = this.intake.pipeline;
    const events = new WebhookEventHandler({ applicationId, seen, deliver: (event) => pipeline.webhookEvent(event), log: this.log });
    const http = new HttpEndpoint({
      config: endpoint,
      publicKeyHex,
      log: this.log,
      ...(this.intake.responses !== null ? { responses: this.intake.responses } : {}),
      interactions: { problem: (interaction) => pipeline.problem(interaction), take: (interaction) => pipeline.interaction(interaction) },
      events: { accepting: () => pipeline.open, deliver: (event) => events.deliver(event) },
      onOutcome: (path, outcome: RequestOutcome, status) => {
        const key = `${path}\t${outcome}\t${status}`;
        this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
      },
    });
    return { endpoint: http, events, seen };
  }

  /** On the sandbox the runtime plays the developer portal: it points the application's URLs at itself. */
  private async pointSandbox(base: string, signal: AbortSignal): Promise<void> {
    const sandbox = this.ctx.embedded ? this.rest.sandbox : null;
    if (sandbox === null) return;
    const publicKey = this.ctx.config.endpoint.publicKey?.toLowerCase() ?? this.rest.verifyKey;
    if (sandbox.webhooks.publicKey !== publicKey) {
      this.ctx.log.warn('endpoint.publicKey is not the sandbox application\'s key: the sandbox cannot deliver here, so its URLs stay as they are');
      return;
    }
    const { interactionsPath, eventsPath } = this.ctx.config.endpoint;
    this.pointed = sandbox;
    await sandbox.webhooks.setInteractionsEndpoint(`${base}${interactionsPath}`);
    if (eventsPath !== null) await sandbox.webhooks.setEventsEndpoint(`${base}${eventsPath}`);
    signal.throwIfAborted();
  }

  async stop(options: StopOptions): Promise<void> {
    const made = this.made;
    if (made === null) return;
    const window = options.drainMs - (performance.now() - options.since);
    if (this.listening && window > 0) await sleep(window);
    if (this.pointed !== null) {
      // As if the URLs were removed in the portal: the sandbox goes back to the gateway for interactions.
      const sandbox = this.pointed;
      this.pointed = null;
      await sandbox.webhooks.setInteractionsEndpoint(null);
      await sandbox.webhooks.setEventsEndpoint(null);
    }
    made.endpoint.stopAccepting();
    // After the drain: an HTTP interaction's answer is the response of its still open request.
    await this.intake.drain(options.graceMs);
    await made.endpoint.close();
    await made.events.settled();
    await made.seen.close();
  }
}
