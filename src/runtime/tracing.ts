/**
 * The runtime's two span kinds beside the handler's (interactions/router.ts): the intake of an interaction, and
 * each REST request (the REST client's RequestTracer hook). See util/tracing.ts for the tree they make.
 */
import type { Attributes } from '@opentelemetry/api';
import type { RequestTrace, RequestTracer } from '../rest/request-trace.js';
import { activeValue, failed, inSpan, PLUGIN_KEY, SHARD_KEY, SpanKind, tracer } from '../util/tracing.js';

/** Handle an interaction inside a "gatehouse.intake" span tagged with its source and shard. */
export function traceIntake(source: string, shardId: number, interaction: { id: string; type: number; data?: unknown }, handle: () => Promise<void>): Promise<void> {
  const attributes: Attributes = {
    'gatehouse.source': source,
    'discord.interaction.id': interaction.id,
    'discord.interaction.type': interaction.type,
  };
  if (shardId >= 0) attributes['gatehouse.shard'] = shardId;
  const data = interaction.data as { name?: unknown; custom_id?: unknown } | undefined;
  if (typeof data?.name === 'string') attributes['discord.command'] = data.name;
  if (typeof data?.custom_id === 'string') attributes['discord.custom_id'] = data.custom_id;
  return inSpan('gatehouse.intake', SpanKind.SERVER, attributes, shardId >= 0 ? [[SHARD_KEY, shardId]] : [], handle);
}

/**
 * A span per REST request ("<METHOD> <route>", a client span): the route, the time it waited before its first
 * send (`gatehouse.rest.bucket_wait_ms`; each wait also an event with its reason), each 429 as an event, the
 * final status, and the shard and plugin of the context it was made in.
 */
export function restTracer(): RequestTracer {
  return {
    start(method, route): RequestTrace | null {
      const attributes: Attributes = { 'http.request.method': method, 'gatehouse.route': route };
      const shard = activeValue(SHARD_KEY);
      const plugin = activeValue(PLUGIN_KEY);
      if (typeof shard === 'number') attributes['gatehouse.shard'] = shard;
      if (typeof plugin === 'string') attributes['gatehouse.plugin'] = plugin;
      const span = tracer().startSpan(`${method} ${route}`, { kind: SpanKind.CLIENT, attributes });
      if (!span.isRecording()) return null;
      const startedAt = performance.now();
      return {
        wait(ms, reason) {
          span.addEvent('gatehouse.rest.wait', { 'gatehouse.rest.wait_ms': ms, 'gatehouse.rest.wait_reason': reason });
        },
        send(attempt) {
          if (attempt === 0) span.setAttribute('gatehouse.rest.bucket_wait_ms', performance.now() - startedAt);
          else span.addEvent('gatehouse.rest.retry', { 'gatehouse.rest.attempt': attempt });
        },
        rateLimited(retryAfterMs, scope, global) {
          span.addEvent('gatehouse.rest.rate_limited', { 'gatehouse.rest.retry_after_ms': retryAfterMs, 'gatehouse.rest.scope': scope, 'gatehouse.rest.global': global });
        },
        end(status, error) {
          if (status > 0) span.setAttribute('http.response.status_code', status);
          if (error !== null) failed(span, error);
          span.end();
        },
      };
    },
  };
}
