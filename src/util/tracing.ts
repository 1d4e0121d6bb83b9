/**
 * Tracing through @opentelemetry/api: spans are recorded only when the bot owner registers an OpenTelemetry SDK
 * (a TracerProvider and a context manager, as `NodeSDK` does); without one every call here is the API's no-op.
 *
 * The runtime's spans, parented through the active context:
 *
 *   gatehouse.intake      an interaction or webhook event received (source, shard, interaction type and id)
 *     gatehouse.handler   a plugin's handler running it (plugin, command or custom_id)
 *       <METHOD> <route>  each REST call made meanwhile (route, status, bucket wait; waits and 429s as events)
 *
 * The shard and the plugin also ride in the context (SHARD_KEY, PLUGIN_KEY), so that a REST span, which knows
 * only its route, is tagged with both.
 */
import { context, createContextKey, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';

export { SpanKind };

/** The instrumentation scope every gatehouse span is recorded under. */
export const TRACER_NAME = 'gatehouse';

export const SHARD_KEY = createContextKey('gatehouse.shard');
export const PLUGIN_KEY = createContextKey('gatehouse.plugin');

/** The tracer of the globally registered provider (a no-op one until an SDK is registered). */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * Run `fn` inside a new span (a child of the active one) with `values` put in its context; the span ends when
 * `fn` settles, recording a rejection. Without an SDK the span does not record and `fn` runs as it is.
 */
export function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  values: ReadonlyArray<readonly [symbol, unknown]>,
  fn: () => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan(name, { kind, attributes });
  if (!span.isRecording()) return fn();
  let ctx: Context = trace.setSpan(context.active(), span);
  for (const [key, value] of values) ctx = ctx.setValue(key, value);
  return context.with(ctx, fn).then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      failed(span, err);
      span.end();
      throw err;
    },
  );
}

/** Mark a span failed with the error. */
export function failed(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** A value the active context carries (the shard or plugin a REST call is made for), or undefined. */
export function activeValue(key: symbol): unknown {
  return context.active().getValue(key);
}
