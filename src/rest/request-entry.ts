/**
 * One request as the client's queues hold it (built by RestClient.prepare), and the encoding of its query and
 * of the answer (multipart bodies: multipart.ts).
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { HttpMethod } from './errors.js';
import type { LimitKey } from './rate-limits.js';
import type { CompiledRoute } from './route.js';
import type { TransportResponse } from './transport.js';
import type { RequestTrace } from './request-trace.js';
import type { Query, RestResponse } from './types.js';

export interface Entry extends LimitKey {
  readonly method: HttpMethod;
  readonly route: CompiledRoute;
  readonly routeId: string;
  readonly major: string;
  readonly globalExempt: boolean;
  readonly path: string;
  readonly headers: OutgoingHttpHeaders;
  body: Buffer | null;
  /** Multipart bodies are encoded asynchronously; the queue awaits them so FIFO order holds. */
  pendingBody: Promise<{ body: Buffer; contentType: string }> | null;
  readonly identity: string;
  /** A repeat has the effect of one request: retried after a 5xx or a lost connection. */
  readonly idempotent: boolean;
  /** RequestBase.repeatRefusedCode. */
  readonly repeatRefusedCode: number | undefined;
  /** The caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** Aborted with the caller's signal; given to the transport (one listener each, however shared the caller's is). */
  readonly wireSignal: AbortSignal | undefined;
  readonly timeoutMs: number;
  /** The order of the call: the admission gate lets earlier calls ask first. */
  readonly order: number;
  started: boolean;
  settled: boolean;
  /** Set while the entry waits (a limit, a retry delay, its turn at the gate): ends that wait early. */
  interrupt: (() => void) | null;
  resolve(value: RestResponse<unknown>): void;
  reject(err: Error): void;
  detach(): void;
  /** The request's trace, when the client has a tracer. */
  trace?: RequestTrace | null;
}

export function encodeQuery(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values as readonly unknown[]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
    }
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

export function parseBody(res: TransportResponse): unknown {
  if (res.status === 204 || res.body.length === 0) return undefined;
  const text = res.body.toString('utf8');
  const type = res.headers['content-type'] ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
