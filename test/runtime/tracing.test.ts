/**
 * Tracing through OpenTelemetry: one slash command over the gateway yields spans intake -> handler -> REST
 * callback, each the child of the one before, tagged with the shard, the plugin, the route and the REST request's
 * bucket wait. Without an SDK registered nothing is recorded (the API is a no-op). The SDK here is the one a bot
 * owner would register: a tracer provider with an in-memory exporter, and the async-hooks context manager.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restTracer } from '../../src/runtime/tracing.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, startBot, until } from '../plugins/helpers.js';

let sandbox: Sandbox;
let runtime: Runtime;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  sandbox = await newSandbox();
  ({ runtime } = await startBot(sandbox, ['plugins']));
});
afterAll(async () => {
  await runtime.stop({ graceMs: 500 });
  await sandbox.close();
  trace.disable();
  context.disable();
});

function parentOf(span: ReadableSpan): string | undefined {
  return (span as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;
}

async function flip(): Promise<void> {
  const record = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId: sandbox.state.guildIds[0]! });
  await record.firstResponse(5_000);
}

describe('tracing', () => {
  it('without an SDK registered, nothing is recorded', async () => {
    expect(restTracer().start('POST', '/x')).toBeNull();
    await flip();
    // Registered only now: nothing the interaction did before can reach it.
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('one slash command yields intake -> handler -> REST callback spans, parented, with shard, plugin, route and bucket wait', async () => {
    exporter.reset();
    await flip();
    const callbackRoute = '/interactions/{interaction_id}/{interaction_token}/callback';
    await until(() => exporter.getFinishedSpans().some((s) => s.name === 'gatehouse.intake'), 'the intake span ended');
    const spans = exporter.getFinishedSpans();
    const intake = spans.find((s) => s.name === 'gatehouse.intake')!;
    const handler = spans.find((s) => s.name === 'gatehouse.handler')!;
    const callback = spans.find((s) => s.attributes['gatehouse.route'] === callbackRoute)!;
    expect(intake.attributes).toMatchObject({ 'gatehouse.source': 'gateway', 'gatehouse.shard': 0, 'discord.command': 'dice', 'discord.interaction.type': 2 });
    expect(handler.attributes).toMatchObject({ 'gatehouse.plugin': 'dice', 'gatehouse.handler': '/dice flip' });
    expect(callback.name).toBe(`POST ${callbackRoute}`);
    expect(callback.attributes).toMatchObject({ 'gatehouse.shard': 0, 'gatehouse.plugin': 'dice', 'http.response.status_code': 204 });
    expect(typeof callback.attributes['gatehouse.rest.bucket_wait_ms']).toBe('number');
    // One trace, each span the child of the one before.
    expect(parentOf(handler)).toBe(intake.spanContext().spanId);
    expect(parentOf(callback)).toBe(handler.spanContext().spanId);
    expect(new Set([intake, handler, callback].map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it('a 429 on the REST call is an event of its span, and so is the wait it asked for', async () => {
    exporter.reset();
    sandbox.restFaults.rateLimit({ bucket: 'interaction.callback', retryAfterMs: 100, count: 1 });
    await flip();
    await until(() => exporter.getFinishedSpans().some((s) => s.name === 'gatehouse.intake'), 'the intake span ended');
    const callback = exporter.getFinishedSpans().find((s) => String(s.attributes['gatehouse.route']).endsWith('/callback'))!;
    const limited = callback.events.find((e) => e.name === 'gatehouse.rest.rate_limited');
    expect(limited?.attributes).toMatchObject({ 'gatehouse.rest.retry_after_ms': 100 });
    expect(callback.events.map((e) => e.name)).toContain('gatehouse.rest.wait');
    expect(callback.attributes['http.response.status_code']).toBe(204);
  });
});
