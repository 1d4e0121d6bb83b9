/**
 * The interactions endpoint route (behind the signature gate of ./server.ts).
 *
 * discord-api-docs, "Overview of Interactions" > "Acknowledging PING requests": when the URL is saved (and in
 * routine checks later) the service POSTs a PING (interaction type 1) and expects 200 with a PONG body
 * (callback type 1). Every other interaction is handed to the intake; the HTTP response is its initial
 * response or 202 (see ./initial-responses.ts).
 */
import type { EndpointReply, SignedRoute } from './server.js';
import type { InitialResponses } from './initial-responses.js';
import { isSnowflake } from '../../api/snowflake.js';

const PING = 1;
const PONG_BODY = '{"type":1}';

/** What the route needs to know of a received interaction; the rest is the runtime's business. */
export interface ReceivedInteraction {
  readonly id: string;
  readonly type: number;
  readonly [field: string]: unknown;
}

export interface InteractionIntake {
  /**
   * Why the interaction cannot be handled as the protocol describes it (a field of the wrong type, say), or
   * null when it can. A problem is answered 400 and the interaction is never taken: the signature only says
   * who sent the body, not that its shape is what handlers rely on.
   */
  problem?(interaction: ReceivedInteraction): string | null;
  /**
   * Take an interaction for handling. Returns the handling (resolving when it is over) or null when the
   * interaction is not taken: already received (over the gateway or an earlier request) or not accepted now.
   */
  take(interaction: ReceivedInteraction): Promise<void> | null;
}

export interface InteractionsRouteOptions {
  intake: InteractionIntake;
  responses: InitialResponses;
  /** Release the HTTP exchange with 202 this long after receipt when nothing answered (below the 3 s limit). */
  deadlineMs: number;
  /** Called when a handling that was taken rejects (it should not: the router never throws). */
  onError?(err: unknown): void;
}

export function isInteraction(v: unknown): v is ReceivedInteraction {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as { id?: unknown; type?: unknown };
  return typeof o.type === 'number' && isSnowflake(o.id);
}

export function interactionsRoute(options: InteractionsRouteOptions): SignedRoute {
  const { intake, responses, deadlineMs } = options;
  return async (request): Promise<EndpointReply> => {
    const json = request.json;
    if (typeof json === 'object' && json !== null && (json as { type?: unknown }).type === PING) {
      return { status: 200, body: PONG_BODY };
    }
    if (!isInteraction(json)) return { status: 400, body: '{"message":"expected an interaction object with id and type"}' };
    // A second request for an open exchange (a replay inside the signature window) is not taken again.
    if (responses.has(json.id)) return { status: 202 };
    const problem = intake.problem?.(json) ?? null;
    if (problem !== null) return { status: 400, body: JSON.stringify({ message: `not a valid interaction: ${problem}` }) };
    const outcome = responses.wait(json.id, deadlineMs);
    const handling = intake.take(json);
    if (handling === null) {
      responses.release(json.id);
      await outcome;
      return { status: 202 };
    }
    handling.then(
      () => responses.release(json.id),
      (err: unknown) => {
        responses.release(json.id);
        options.onError?.(err);
      },
    );
    const result = await outcome;
    if (result.kind === 'inline') return { status: 200, body: result.json, sent: result.sent };
    return { status: 202 };
  };
}
