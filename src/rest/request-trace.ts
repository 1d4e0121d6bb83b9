/**
 * A hook around each REST request, for tracing (the runtime implements it with OpenTelemetry spans; see
 * src/runtime/tracing.ts). The client calls it at the points only it knows: when a request starts (in the
 * caller's async context, so a span can find its parent), each wait for a bucket, the global limit or a retry,
 * each send, each 429, and the end. Nothing is called when no tracer is given.
 */
import type { RateLimitScope } from './errors.js';

export interface RequestTrace {
  /** The request waits `ms` before it may be sent: `reason` is the bucket's scope, "global", or "retry". */
  wait(ms: number, reason: string): void;
  /** Attempt `attempt` (0 for the first) goes out now. */
  send(attempt: number): void;
  /** A 429 came back. */
  rateLimited(retryAfterMs: number, scope: RateLimitScope, global: boolean): void;
  /** The request settled: with the last response's status (0 when none came) and the error it failed with, if any. */
  end(status: number, error: Error | null): void;
}

export interface RequestTracer {
  /** A trace for one request, or null to trace nothing. */
  start(method: string, route: string): RequestTrace | null;
}
