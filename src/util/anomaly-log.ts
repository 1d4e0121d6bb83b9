/**
 * Protocol anomalies: payloads that are not what the protocol says (a GUILD_MEMBER_ADD without `user`, a READY
 * without `session_id`, an INTERACTION_CREATE whose option value has the wrong type). Each is worth a warning
 * naming the event and the field, but a peer that sends one broken payload usually sends thousands, so each
 * kind (event + field, array indexes folded) is logged once per window; the repeats are counted and the count
 * rides on the next line of that kind. Nothing here runs unless something is wrong, so the hot path pays nothing.
 */
import { RateLimitedWarner } from './rate-limited-warner.js';

/** The part of a pino logger this needs. */
export interface WarnLogger {
  warn(fields: object, message: string): void;
}

export interface AnomalyLogOptions {
  /** One line per kind per this many ms. Default 60000. */
  windowMs?: number;
  /** Kinds tracked at once; further kinds share one slot until old ones expire. Default 1000. */
  maxKinds?: number;
  now?: () => number;
}

export interface Anomaly {
  /** The dispatch (or opcode) name: `GUILD_MEMBER_ADD`, `READY`, `INTERACTION_CREATE`. */
  event: string;
  /** Field path inside the payload (`user.id`, `data.options[0].value`), when the reporter knows it. */
  field?: string;
  /** What is wrong, in words. */
  reason: string;
}

export class AnomalyLog {
  private readonly warner: RateLimitedWarner;
  private total = 0;

  constructor(
    private readonly log: WarnLogger,
    options: AnomalyLogOptions = {},
  ) {
    this.warner = new RateLimitedWarner({ windowMs: options.windowMs, maxKeys: options.maxKinds, now: options.now });
  }

  /** Anomalies reported since creation (logged or not). */
  get count(): number {
    return this.total;
  }

  report(anomaly: Anomaly): void {
    this.total++;
    const suppressed = this.warner.take(kindOf(anomaly));
    if (suppressed === null) return;
    const fields: Record<string, unknown> = { event: anomaly.event };
    if (anomaly.field !== undefined) fields.field = anomaly.field;
    fields.reason = anomaly.reason;
    if (suppressed > 0) fields.repeated = suppressed;
    const where = anomaly.field !== undefined ? `${anomaly.event} ${anomaly.field}` : anomaly.event;
    this.log.warn(
      fields,
      `malformed payload: ${where}: ${anomaly.reason}${suppressed > 0 ? ` (and ${suppressed} more like it since the last report)` : ''}`,
    );
  }
}

const FIELD_FIRST = /^([A-Za-z_$][\w$]*(?:\[\d+\]|\.[A-Za-z_$][\w$]*)*): (.+)$/s;

/**
 * An anomaly from a reporter that only gives text: `user.id: expected a snowflake` (the path-first form problems
 * take throughout the project) becomes field and reason; other text is the reason alone.
 */
export function anomalyFromText(event: string, text: string): Anomaly {
  const m = FIELD_FIRST.exec(text);
  return m !== null ? { event, field: m[1]!, reason: m[2]! } : { event, reason: text };
}

/** Event and field with array indexes folded (`members[7].user` and `members[9].user` are one kind). */
function kindOf(a: Anomaly): string {
  const field = a.field ?? a.reason;
  return `${a.event}\u0000${field.replace(/\d+/g, '#')}`;
}
