/**
 * The receipt of a webhook event once its 204 is out: an event for another application is ignored and a
 * redelivery dropped; the rest goes to the intake pipeline (intake/pipeline.ts: the cache, then plugins).
 *
 * Redelivery: the service sends an event again when it did not get a 2xx within 3 seconds, with exponential
 * backoff for up to 10 minutes (discord-api-docs, "Webhook Events" > "Responding to Events"). An event is
 * recognised by `webhookEventKey` (SHA-256 of its type, timestamp and data) and remembered for 15 minutes,
 * or until 10,000 newer events arrived. With Redis (REDIS_URL) the keys live there (SET NX PX), so a
 * redelivery that reaches another process of the same bot is dropped too.
 */
import type { Redis } from 'ioredis';
import { openRedis } from '../../util/redis-connection.js';
import type { Logger } from 'pino';
import { RateLimitedWarner } from '../../util/rate-limited-warner.js';
import { RecentKeys, webhookEventKey, type WebhookEvent } from '../../transports/http/index.js';

/** How long, and how many, event keys are remembered (longer than the service's 10-minute retry window). */
export const WEBHOOK_DEDUPE_TTL_MS = 15 * 60_000;
export const WEBHOOK_DEDUPE_MAX_KEYS = 10_000;

/**
 * How long a dedupe memory must keep a key so that no replay of a signed request gets past it: a request
 * signed at T is accepted from T - window to T + window (clock skew either way), so its first arrival and a
 * replay can be two windows apart. Never less than `atLeastMs` (the default, which covers the service's own
 * redeliveries).
 */
export function dedupeTtlMs(timestampWindowSeconds: number, atLeastMs: number): number {
  return Math.max(atLeastMs, 2 * timestampWindowSeconds * 1000 + 60_000);
}

/** A set of keys each remembered for a while; `firstTime` records the key and says whether it was new. */
export interface SeenKeys {
  firstTime(key: string): Promise<boolean>;
  close(): Promise<void>;
}

export class MemorySeenKeys implements SeenKeys {
  private readonly keys: RecentKeys;
  constructor(maxKeys = WEBHOOK_DEDUPE_MAX_KEYS, ttlMs = WEBHOOK_DEDUPE_TTL_MS) {
    this.keys = new RecentKeys(maxKeys, ttlMs);
  }
  firstTime(key: string): Promise<boolean> {
    return Promise.resolve(this.keys.add(key));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Keys in Redis under `<prefix>:<key>`, shared by every process of the bot. When Redis cannot answer, the
 * process falls back on its own memory for that key: an event is applied (perhaps twice across processes)
 * rather than lost.
 */
export class RedisSeenKeys implements SeenKeys {
  private readonly redis: Redis;
  private readonly fallback = new MemorySeenKeys();
  private readonly warned = new RateLimitedWarner();

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly ttlMs = WEBHOOK_DEDUPE_TTL_MS,
  ) {
    this.redis = openRedis(url, {
      name: 'webhook dedupe',
      logger: log,
      redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 5_000, commandTimeout: 2_000 },
    });
  }

  async firstTime(key: string): Promise<boolean> {
    try {
      return (await this.redis.set(`${this.prefix}:${key}`, '1', 'PX', this.ttlMs, 'NX')) === 'OK';
    } catch (err) {
      // Once a minute with a count while Redis is away, not once per event.
      const logged = this.warned.fields('redis', { err });
      if (logged !== null) this.log.warn(logged, 'webhook dedupe: Redis did not answer; using this process\'s memory');
      return this.fallback.firstTime(key);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export interface WebhookEventHandlerOptions {
  applicationId: string;
  seen: SeenKeys;
  /** The intake pipeline's entry for webhook events (cache, then plugins). */
  deliver(event: WebhookEvent): void;
  log: Logger;
}

export class WebhookEventHandler {
  private pending = new Set<Promise<void>>();
  /** A duplicate check that fails keeps failing: one line per minute, with the count of repeats. */
  private readonly dedupeFailures = new RateLimitedWarner();

  constructor(private readonly options: WebhookEventHandlerOptions) {}

  /** Handle one event (after its 204); never throws. */
  deliver(event: WebhookEvent): void {
    const work = this.apply(event).catch((err: unknown) => this.options.log.error({ err, type: event.type }, 'webhook event handling failed'));
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Wait for events being handled (shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private async apply(event: WebhookEvent): Promise<void> {
    const { log } = this.options;
    if (event.applicationId !== this.options.applicationId) {
      // Signed with this application's key, so a configuration mix-up rather than an attack: say so, once per event.
      log.warn({ type: event.type, applicationId: event.applicationId }, 'webhook event for another application ignored');
      return;
    }
    if (!(await this.firstTime(event))) {
      log.debug({ type: event.type, timestamp: event.timestamp }, 'webhook event delivered again; already applied');
      return;
    }
    this.options.deliver(event);
  }

  /**
   * Whether the event is new. When the check itself throws (a key that cannot be made of the data, a key store
   * that fails), the event counts as new: applied perhaps twice rather than lost.
   */
  private async firstTime(event: WebhookEvent): Promise<boolean> {
    try {
      return await this.options.seen.firstTime(webhookEventKey(event));
    } catch (err) {
      const logged = this.dedupeFailures.fields('dedupe', { err, type: event.type });
      if (logged !== null) this.options.log.warn(logged, 'webhook event duplicate check failed; the event is applied as new');
      return true;
    }
  }
}
