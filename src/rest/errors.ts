import { redact } from '../util/redact.js';
import { flattenErrorTree, formatFieldError, type FieldError } from './error-tree.js';
import { isObject } from '../util/is-object.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Base of every error the REST client raises. `route` is always the route TEMPLATE
 * (`/webhooks/{application_id}/{interaction_token}/messages/@original`), never the real path, so that no
 * interaction or webhook token can reach a message, a log line or an error report. Messages pass through
 * `redact` as a second net.
 */
export class RestError extends Error {
  readonly method: HttpMethod;
  readonly route: string;
  /** HTTP status when a response was received. */
  readonly status: number | null;
  /** The service's JSON error code when it sent one. */
  readonly code: number | null;

  constructor(
    method: HttpMethod,
    route: string,
    detail: string,
    extra: { status?: number | null; code?: number | null; cause?: unknown } = {},
  ) {
    super(redact(`${method} ${route}: ${detail}`), extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'RestError';
    this.method = method;
    this.route = route;
    this.status = extra.status ?? null;
    this.code = extra.code ?? null;
  }
}

/** The service answered with an error status (4xx other than a handled 429, or 5xx after the last retry). */
export class ApiError extends RestError {
  /** The service's own message ("Invalid Form Body"). */
  readonly apiMessage: string;
  /** The flattened `errors` tree of a validation error, one entry per problem. */
  readonly fieldErrors: readonly FieldError[];
  declare readonly status: number;

  constructor(method: HttpMethod, route: string, status: number, body: unknown) {
    const parsed = parseErrorBody(status, body);
    const lines = parsed.fieldErrors.map(formatFieldError);
    const codeText = parsed.code === null ? '' : ` (code ${parsed.code})`;
    const head = `${status} ${parsed.message}${codeText}`;
    super(method, route, lines.length === 0 ? head : `${head}\n  ${lines.join('\n  ')}`, {
      status,
      code: parsed.code,
    });
    this.name = 'ApiError';
    this.apiMessage = redact(parsed.message);
    this.fieldErrors = parsed.fieldErrors.map((e) => ({ ...e, message: redact(e.message) }));
  }

  /** `path: message (CODE)` lines, ready to print. */
  get lines(): string[] {
    return this.fieldErrors.map(formatFieldError);
  }
}

/** A 429 the client would not wait out (too long, or too many in a row for one request). */
export class RateLimitError extends RestError {
  readonly retryAfterMs: number;
  readonly scope: RateLimitScope;
  readonly global: boolean;

  constructor(
    method: HttpMethod,
    route: string,
    info: { retryAfterMs: number; scope: RateLimitScope; global: boolean; why: string },
  ) {
    super(method, route, `rate limited (${info.scope}), retry after ${Math.ceil(info.retryAfterMs)} ms: ${info.why}`, {
      status: 429,
    });
    this.name = 'RateLimitError';
    this.retryAfterMs = info.retryAfterMs;
    this.scope = info.scope;
    this.global = info.global;
  }
}

export type RateLimitScope = 'user' | 'global' | 'shared' | 'bucket';

/** An attempt took longer than its timeout. Not retried: the caller's budget is spent. */
export class TimeoutError extends RestError {
  readonly timeoutMs: number;
  constructor(method: HttpMethod, route: string, timeoutMs: number) {
    super(method, route, `no response within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired before the request completed. */
export class RequestAbortedError extends RestError {
  /** `cause` is the signal's reason when the caller gave one. */
  constructor(method: HttpMethod, route: string, reason?: unknown) {
    super(method, route, 'aborted by the caller', { cause: reason });
    this.name = 'RequestAbortedError';
  }
}

/**
 * The client was closed: every request still queued, waiting out a rate limit or in flight is rejected with
 * this at once, and new requests are refused with it.
 */
export class RestClientClosedError extends RestError {
  constructor(method: HttpMethod, route: string) {
    super(method, route, 'client closed');
    this.name = 'RestClientClosedError';
  }
}

/** The connection failed on every attempt (refused, reset, DNS...). */
export class NetworkError extends RestError {
  readonly attempts: number;
  /** The system error code of the last failure (ECONNREFUSED, ECONNRESET...). */
  readonly errorCode: string | null;
  /** `cause` is the last attempt's failure. */
  constructor(method: HttpMethod, route: string, attempts: number, errorCode: string | null, detail: string, cause?: Error) {
    super(method, route, `network error after ${attempts} attempt(s): ${detail}`, { cause });
    this.name = 'NetworkError';
    this.attempts = attempts;
    this.errorCode = errorCode;
  }
}

/**
 * The client stopped sending because 401/403/429 responses approach the service's limit of 10,000 per
 * 10 minutes, past which the IP is banned for an hour.
 */
export class InvalidRequestGuardError extends RestError {
  readonly count: number;
  readonly limit: number;
  readonly retryAfterMs: number;
  constructor(method: HttpMethod, route: string, info: { count: number; limit: number; retryAfterMs: number }) {
    super(
      method,
      route,
      `not sent: ${info.count} invalid (401/403/429) responses in the guard window reached the local limit of ` +
        `${info.limit}; sending resumes in ${Math.ceil(info.retryAfterMs)} ms`,
    );
    this.name = 'InvalidRequestGuardError';
    this.count = info.count;
    this.limit = info.limit;
    this.retryAfterMs = info.retryAfterMs;
  }
}

export type RefusalReason = 'bearer-required' | 'endpoint-disabled' | 'invalid-input';

/** Refused locally, before any request: the service would reject it, and a rejection costs an invalid request. */
export class RequestRefusedError extends RestError {
  readonly reason: RefusalReason;
  constructor(method: HttpMethod, route: string, reason: RefusalReason, detail: string) {
    super(method, route, `refused locally: ${detail}`);
    this.name = 'RequestRefusedError';
    this.reason = reason;
  }
}

function parseErrorBody(
  status: number,
  body: unknown,
): { code: number | null; message: string; fieldErrors: FieldError[] } {
  if (isObject(body)) {
    const code = typeof body.code === 'number' && Number.isInteger(body.code) ? body.code : null;
    const message = typeof body.message === 'string' && body.message !== '' ? body.message : `HTTP ${status}`;
    return { code, message, fieldErrors: flattenErrorTree(body.errors) };
  }
  if (typeof body === 'string' && body.trim() !== '') {
    // Proxies answer with HTML pages; one line of it is enough to recognise them.
    const oneLine = body.replace(/\s+/g, ' ').trim();
    return { code: null, message: `HTTP ${status}: ${oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine}`, fieldErrors: [] };
  }
  return { code: null, message: `HTTP ${status}`, fieldErrors: [] };
}
