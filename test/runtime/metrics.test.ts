/** The metrics registry on its own: a scrape must answer even when a component cannot. */
import { Redis } from 'ioredis';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { RedisCache } from '../../src/cache/index.js';
import { createMetrics } from '../../src/runtime/metrics.js';
import type { Runtime } from '../../src/runtime/runtime.js';

describe('metrics', () => {
  it('a cache that cannot answer (Redis down) leaves its gauge out instead of failing the whole scrape', async () => {
    // Nothing listens on port 1: every command fails at once.
    const redis = new Redis(1, '127.0.0.1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    const cache = new RedisCache(redis, { prefix: 'gh-test:metrics' });
    await expect(cache.sizes()).rejects.toThrow();
    const runtime = {
      parts: { cache, gateway: null, rest: null },
      dispatches: 7,
      malformedPayloads: 3,
      interactionsInFlight: 0,
    } as unknown as Runtime;
    const metrics = createMetrics(runtime, { processMetrics: false });
    const families = parsePrometheusTextFormat(await metrics.registry.metrics());
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(Number(byName.get('gatehouse_gateway_events_total')!.metrics[0]!.value)).toBe(7);
    expect(Number(byName.get('gatehouse_malformed_payloads_total')!.metrics[0]!.value)).toBe(3);
    expect(byName.get('gatehouse_cache_entries')?.metrics ?? []).toEqual([]);
    redis.disconnect();
  });
});
