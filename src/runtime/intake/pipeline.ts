/**
 * The intake pipeline: the one place where everything that reaches the bot is delivered, whichever way it came.
 * Gateway dispatches, interactions received over HTTP and webhook events all go through `deliver`, in one order:
 *
 *   1. admit    an interaction whose shape breaks the protocol is reported and never routed; a second copy (an
 *               interaction id seen over the other transport or replayed, an entitlement event that came by
 *               gateway and by webhook) is a duplicate;
 *   2. verdict  the cache applies a first copy and says whether typed plugin events may carry it (its checks
 *               passed); without a cache the same checks decide;
 *   3. route    an interaction goes to the router (inside an "intake" span), tracked until its handler is done;
 *   4. plugins  gateway dispatches to the plugins' event handlers (`raw` always, typed ones per the verdict),
 *               webhook events likewise; an HTTP interaction has no plugin event of its own.
 *
 * The source is data (a small number), never a copy of the order. A webhook's redelivery is dropped before this
 * (intake/webhook-receipt.ts: the service's own retries, shared through Redis in a fleet), as a replayed signed
 * request is by the endpoint and a replayed dispatch by the shard.
 *
 * Hot path: `dispatch` runs for every gateway event. It allocates nothing of its own: the stages are methods
 * taking the event's parts as arguments, and only interactions (rare beside member events) open a span.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import type { Cache } from '../../cache/index.js';
import type { DispatchHook } from '../../gateway/index.js';
import type { InteractionRouter } from '../../interactions/router.js';
import { interactionProblem } from '../../interactions/shape.js';
import type { PluginHost } from '../../plugins/host.js';
import { RecentKeys, type WebhookEvent } from '../../transports/http/index.js';
import type { AnomalyLog } from '../../util/anomaly-log.js';
import { traceIntake } from '../tracing.js';
import type { IntakeCounters } from './counters.js';

/** Where a delivery came from. Numbers, so that the hot path compares without strings. */
export const Source = { gateway: 0, http: 1, webhook: 2 } as const;
export type Source = (typeof Source)[keyof typeof Source];
export const SOURCE_NAMES: readonly string[] = ['gateway', 'http', 'webhook'];

/** What `admit` says of a delivery. */
const FIRST = 0;
const DUPLICATE = 1;
const MALFORMED = 2;
type Admission = typeof FIRST | typeof DUPLICATE | typeof MALFORMED;

const INTERACTION_CREATE = 'INTERACTION_CREATE';
const ENTITLEMENT_PREFIX = 'ENTITLEMENT_';

/**
 * Interaction ids handled lately, so that an interaction is handled once whichever way it came (gateway and
 * HTTP both, or a signed request replayed inside the timestamp window): 10 minutes or the newest 50,000.
 */
export const INTERACTION_DEDUPE_TTL_MS = 10 * 60_000;
const INTERACTION_DEDUPE_MAX_KEYS = 50_000;

export interface PipelineOptions {
  cache: Cache;
  host: PluginHost;
  router: InteractionRouter<unknown, unknown>;
  counters: IntakeCounters;
  anomalies: AnomalyLog;
  log: Logger;
  /** How long an interaction id is remembered (at least as long as a signed request may be replayed). */
  interactionTtlMs: number;
  /** Transport "both": entitlement events arrive by gateway and by webhook, and each is delivered once. */
  entitlementCopies: boolean;
  /** Called for every gateway dispatch, with its seq, after it was delivered (tooling and tests). */
  observeDispatch?: DispatchHook;
}

export class IntakePipeline {
  private readonly seenInteractions: RecentKeys;
  /** Entitlement events seen (transport "both"); the cache applies each once, plugins get each once. */
  private readonly seenEntitlements: RecentKeys | null;
  private accepting = true;

  constructor(private readonly o: PipelineOptions) {
    this.seenInteractions = new RecentKeys(INTERACTION_DEDUPE_MAX_KEYS, o.interactionTtlMs);
    this.seenEntitlements = o.entitlementCopies ? new RecentKeys(10_000, 15 * 60_000) : null;
  }

  /** Whether HTTP interactions and webhook events are taken (false once the intake closed). */
  get open(): boolean {
    return this.accepting;
  }

  close(): void {
    this.accepting = false;
  }

  /** Hot path: one gateway dispatch. */
  dispatch(shardId: number, t: string, d: unknown, s: number): void {
    this.o.counters.dispatches++;
    if (t === 'READY') this.o.counters.noteReady(shardId, d);
    this.deliver(Source.gateway, shardId, t, d, null);
    this.o.observeDispatch?.(shardId, t, d, s);
  }

  /** An interaction received over HTTP: its handling, or null when it is not taken (a duplicate, or closed). */
  interaction(interaction: unknown): Promise<void> | null {
    if (!this.accepting) return null;
    return this.deliver(Source.http, -1, INTERACTION_CREATE, interaction, null);
  }

  /** A webhook event whose receipt was checked (its application, not a redelivery). */
  webhookEvent(event: WebhookEvent): void {
    this.deliver(Source.webhook, -1, event.type, event.data, event);
  }

  /**
   * Why an interaction cannot be handled as the protocol describes it (reported once per kind), or null. The
   * HTTP route asks first, to answer 400; `admit` asks again for every source.
   */
  problem(interaction: unknown): string | null {
    const problem = interactionProblem(interaction);
    if (problem === null) return null;
    this.o.anomalies.report({ event: INTERACTION_CREATE, field: problem.path, reason: `${problem.reason} (not routed)` });
    return `${problem.path}: ${problem.reason}`;
  }

  /** The one delivery order (see the module comment). */
  private deliver(source: Source, shardId: number, t: string, d: unknown, event: WebhookEvent | null): Promise<void> | null {
    const admission = this.admit(t, d);
    const typed = admission === FIRST && this.verdict(source, t, d);
    const handling = admission === FIRST && t === INTERACTION_CREATE ? this.route(source, shardId, d as APIInteraction) : null;
    this.toPlugins(source, shardId, t, d, typed, admission, event);
    return handling;
  }

  /** 1. Shape of interactions, and second copies (interaction ids; entitlement events in transport "both"). */
  private admit(t: string, d: unknown): Admission {
    if (t === INTERACTION_CREATE) {
      if (this.problem(d) !== null) return MALFORMED;
      const id = (d as { id: string }).id;
      if (this.seenInteractions.add(id)) return FIRST;
      this.o.log.debug({ interaction: id }, 'interaction received again; already handled');
      return DUPLICATE;
    }
    if (this.seenEntitlements !== null && t.startsWith(ENTITLEMENT_PREFIX)) return this.firstEntitlementCopy(t, d) ? FIRST : DUPLICATE;
    return FIRST;
  }

  /** 2. The cache's verdict: applied, and fit for typed plugin events. A webhook's own event types are not cached. */
  private verdict(source: Source, t: string, d: unknown): boolean {
    if (source === Source.webhook && !t.startsWith(ENTITLEMENT_PREFIX)) return true;
    return this.o.cache.apply(t, d);
  }

  /** 3. Route an interaction (never throws); the handling is tracked so shutdown can wait for it. */
  private route(source: Source, shardId: number, interaction: APIInteraction): Promise<void> {
    const handling = traceIntake(SOURCE_NAMES[source]!, shardId, interaction, () => this.o.router.handle(interaction)).catch((err: unknown) => {
      this.o.log.error({ err }, 'interaction routing failed');
    });
    this.o.counters.track(handling);
    return handling;
  }

  /** 4. Plugins: gateway dispatches (raw always, typed per the verdict); webhook events unless a second copy. */
  private toPlugins(source: Source, shardId: number, t: string, d: unknown, typed: boolean, admission: Admission, event: WebhookEvent | null): void {
    if (source === Source.gateway) this.o.host.dispatch(shardId, t, d, typed);
    else if (source === Source.webhook && admission !== DUPLICATE) this.o.host.dispatchWebhookEvent(event!, typed);
  }

  /**
   * False for the second copy of an entitlement event (one by gateway, one by webhook). The key is built from
   * the payload's fields without converting any object (`String({ toString: 1 })` throws); and should anything
   * in here throw all the same, the event counts as a first copy: delivered twice rather than never.
   */
  private firstEntitlementCopy(t: string, d: unknown): boolean {
    if (this.seenEntitlements === null || typeof d !== 'object' || d === null) return true;
    try {
      const e = d as { id?: unknown; ends_at?: unknown; deleted?: unknown; consumed?: unknown };
      if (typeof e.id !== 'string') return true;
      return this.seenEntitlements.add(`${t}|${e.id}|${keyPart(e.ends_at)}|${e.deleted === true}|${e.consumed === true}`);
    } catch (err) {
      this.o.anomalies.report({ event: t, reason: `the duplicate check threw (${err instanceof Error ? err.message : 'not an Error'}); delivered as a first copy` });
      return true;
    }
  }
}

/**
 * A payload field as part of a dedupe key: a string or number as it is, absent as '', anything else (an
 * object, whose conversion may throw or be anything) one marker per type.
 */
function keyPart(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v === null || v === undefined) return '';
  return `\u0000${typeof v}`;
}
