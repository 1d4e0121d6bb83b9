/**
 * The webhook events route (behind the signature gate of ./server.ts).
 *
 * discord-api-docs, "Webhook Events":
 * - payload structure: `version` (always 1), `application_id`, `type` (0 PING, 1 event) and, for events,
 *   `event` = { `type` (the event type name), `timestamp` (ISO 8601, when the event happened), `data?` };
 * - a PING (type 0) is acknowledged with 204 and an empty body;
 * - an event is acknowledged with 204 within 3 seconds; an event not acknowledged is sent again with
 *   exponential backoff for up to 10 minutes, so the same event can arrive more than once.
 *
 * The route answers 204 as soon as the body checks out and hands the event over only after the response is
 * out, so slow plugin handlers never cost a retry. The dedupe key of an event (`webhookEventKey`) lets the
 * receiver apply a redelivered event once.
 */
import { createHash } from 'node:crypto';
import type { EndpointReply, SignedRoute } from './server.js';
import { isObject } from '../../util/is-object.js';

export const WEBHOOK_PING = 0;
export const WEBHOOK_EVENT = 1;

/** One webhook event as received (the inner `event` object plus the application it was sent for). */
export interface WebhookEvent {
  readonly applicationId: string;
  /** The event type name, e.g. APPLICATION_AUTHORIZED, ENTITLEMENT_CREATE; unknown names are passed on. */
  readonly type: string;
  /** When the event happened (ISO 8601, as sent). */
  readonly timestamp: string;
  /** The event's data; its shape depends on the type (undefined when the event has none). */
  readonly data: unknown;
}

export interface WebhookEventIntake {
  /** False while the receiver cannot take events (stopping): answered 503 so that the service retries. */
  accepting(): boolean;
  /** Deliver an event; called after its 204 has been sent. */
  deliver(event: WebhookEvent): void;
}

/**
 * The dedupe key of an event: SHA-256 over its type, its timestamp and its data as JSON. A redelivery is the
 * same event (same occurrence time, same data), whatever X-Signature-Timestamp it is signed with; two distinct
 * events never share all three.
 */
export function webhookEventKey(event: WebhookEvent): string {
  const data = event.data === undefined ? '' : JSON.stringify(event.data);
  return createHash('sha256').update(event.type).update('\n').update(event.timestamp).update('\n').update(data).digest('base64url');
}

/** The event inside a webhook body, or a reason why the body is not one. */
export function parseWebhookBody(json: unknown): { kind: 'ping' } | { kind: 'event'; event: WebhookEvent } | { kind: 'invalid'; reason: string } {
  if (!isObject(json)) return { kind: 'invalid', reason: 'expected a JSON object' };
  if (json.version !== 1) return { kind: 'invalid', reason: 'version: expected 1' };
  if (typeof json.application_id !== 'string') return { kind: 'invalid', reason: 'application_id: expected a snowflake' };
  if (json.type === WEBHOOK_PING) return { kind: 'ping' };
  if (json.type !== WEBHOOK_EVENT) return { kind: 'invalid', reason: 'type: expected 0 (PING) or 1 (event)' };
  const event = json.event;
  if (!isObject(event)) return { kind: 'invalid', reason: 'event: expected an object' };
  if (typeof event.type !== 'string' || event.type.length === 0) return { kind: 'invalid', reason: 'event.type: expected a string' };
  if (typeof event.timestamp !== 'string') return { kind: 'invalid', reason: 'event.timestamp: expected a string' };
  return { kind: 'event', event: { applicationId: json.application_id, type: event.type, timestamp: event.timestamp, data: event.data } };
}

export function webhookEventsRoute(intake: WebhookEventIntake): SignedRoute {
  return (request): EndpointReply => {
    const parsed = parseWebhookBody(request.json);
    if (parsed.kind === 'invalid') return { status: 400, body: JSON.stringify({ message: `not a webhook event: ${parsed.reason}` }) };
    if (parsed.kind === 'ping') return { status: 204 };
    if (!intake.accepting()) return { status: 503, body: '{"message":"not accepting events now; send again later"}' };
    const { event } = parsed;
    return { status: 204, after: () => intake.deliver(event) };
  };
}
