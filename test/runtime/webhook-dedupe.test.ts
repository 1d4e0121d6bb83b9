/**
 * Webhook event dedupe across processes: two handlers (two processes of one bot behind a load balancer) share
 * their keys through a real Redis, so a redelivery that reaches the other process is dropped too. The memory
 * variant bounds its keys in count and time.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createCache } from '../../src/cache/index.js';
import { PluginHost, type SharedServices } from '../../src/plugins/host.js';
import { createLogger, silentLogger } from '../../src/runtime/logger.js';
import { MemorySeenKeys, RedisSeenKeys, WEBHOOK_DEDUPE_TTL_MS, WebhookEventHandler } from '../../src/runtime/intake/webhook-receipt.js';
import { RecentKeys, type WebhookEvent } from '../../src/transports/http/index.js';
import { DEFAULT_CACHE_OPTIONS } from '../../src/cache/types.js';
import { dropPrefix } from '../cache/redis-cleanup.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { LogSink } from '../helpers/log-sink.js';
import { InteractionRouter } from '../../src/interactions/router.js';
import type { InteractionTransport } from '../../src/interactions/rest-port.js';
import { IntakeCounters } from '../../src/runtime/intake/counters.js';
import { IntakePipeline } from '../../src/runtime/intake/pipeline.js';
import { AnomalyLog } from '../../src/util/anomaly-log.js';
import type { Cache } from '../../src/cache/index.js';

const APP = '100000000000000001';

/** The intake pipeline a runtime delivers webhook events through, over this cache and plugin host. */
function pipelineFor(cache: Cache, host: PluginHost): IntakePipeline {
  const router = new InteractionRouter({ transport: {} as InteractionTransport, log: silentLogger(), servicesFor: () => { throw new Error('no handlers here'); } });
  return new IntakePipeline({ cache, host, router, counters: new IntakeCounters(), anomalies: new AnomalyLog(silentLogger()), log: silentLogger(), interactionTtlMs: 60_000, entitlementCopies: false });
}

function process_(seenFactory: () => MemorySeenKeys | RedisSeenKeys): { handler: WebhookEventHandler; got: unknown[]; cache: ReturnType<typeof createCache> } {
  const cache = createCache({ ...DEFAULT_CACHE_OPTIONS, backend: 'memory', redisPrefix: 'unused' });
  const got: unknown[] = [];
  const host = new PluginHost({ log: silentLogger(), services: { applicationId: APP, cache, rest: {}, requestMembers: async () => ({}) } as unknown as SharedServices });
  host.add({ name: 'rec', on: { entitlementCreate: (e) => void got.push(e), webhookEvent: (e) => void got.push(e.type) } }, { file: '/p/rec.ts', label: 'p/rec.ts' });
  void host.setupAll();
  const pipeline = pipelineFor(cache, host);
  const handler = new WebhookEventHandler({ applicationId: APP, seen: seenFactory(), deliver: (e) => pipeline.webhookEvent(e), log: silentLogger() });
  return { handler, got, cache };
}

const entitlement = (id: string): WebhookEvent => ({
  applicationId: APP,
  type: 'ENTITLEMENT_CREATE',
  timestamp: '2025-01-01T00:00:00.000000',
  data: { id, sku_id: '200000000000000001', application_id: APP, user_id: '300000000000000001', type: 1, deleted: false, starts_at: null, ends_at: null },
});

describe('webhook events in one process', () => {
  it('applies an event once, and a different event (other timestamp or data) again', async () => {
    const p = process_(() => new MemorySeenKeys());
    p.handler.deliver(entitlement('400000000000000001'));
    p.handler.deliver(entitlement('400000000000000001'));
    await p.handler.settled();
    p.handler.deliver({ ...entitlement('400000000000000001'), timestamp: '2025-01-01T00:00:01.000000' });
    p.handler.deliver(entitlement('400000000000000002'));
    await p.handler.settled();
    expect(p.got.filter((g) => typeof g === 'object')).toHaveLength(3);
    expect((await p.cache.sizes()).entitlements).toBe(2);
  });

  it('applies an event whose duplicate check throws (as new, not lost), and says so once', async () => {
    const cache = createCache({ ...DEFAULT_CACHE_OPTIONS, backend: 'memory', redisPrefix: 'unused' });
    const got: string[] = [];
    const host = new PluginHost({ log: silentLogger(), services: { applicationId: APP, cache, rest: {}, requestMembers: async () => ({}) } as unknown as SharedServices });
    host.add({ name: 'rec', on: { entitlementCreate: (e) => void got.push(e.id) } }, { file: '/p/rec.ts', label: 'p/rec.ts' });
    await host.setupAll();
    const logs = new LogSink();
    const broken = { firstTime: () => Promise.reject(new Error('the key store broke')), close: async () => {} };
    const handler = new WebhookEventHandler({ applicationId: APP, seen: broken, deliver: (e) => pipelineFor(cache, host).webhookEvent(e), log: createLogger({ level: 'debug', pretty: false, destination: logs }) });
    const ids = Array.from({ length: 10 }, (_, i) => String(410000000000000000n + BigInt(i)));
    for (const id of ids) handler.deliver(entitlement(id));
    // A key that cannot be made at all (JSON.stringify of data nested too deep throws).
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    handler.deliver({ ...entitlement('410000000000000099'), data: { ...(entitlement('410000000000000099').data as object), deep } });
    await handler.settled();
    expect([...got].sort()).toEqual([...ids, '410000000000000099']);
    expect((await cache.sizes()).entitlements).toBe(11);
    expect(logs.lines.filter((l) => l.msg === 'webhook event handling failed')).toEqual([]);
    expect(logs.lines.filter((l) => l.msg === 'webhook event duplicate check failed; the event is applied as new')).toHaveLength(1);
  });

  it('ignores an event for another application', async () => {
    const p = process_(() => new MemorySeenKeys());
    p.handler.deliver({ ...entitlement('400000000000000003'), applicationId: '999' });
    await p.handler.settled();
    expect(p.got).toEqual([]);
  });

  it('remembers keys for a bounded time and count', () => {
    let now = 0;
    const keys = new RecentKeys(3, 1_000, () => now);
    expect(keys.add('a')).toBe(true);
    expect(keys.add('a')).toBe(false);
    now = 999;
    expect(keys.add('a')).toBe(false);
    now = 1_000;
    expect(keys.add('a')).toBe(true);
    for (const k of ['b', 'c', 'd']) keys.add(k);
    expect(keys.size).toBe(3);
    // 'a' was the oldest and left when 'd' came.
    expect(keys.has('a')).toBe(false);
    expect(keys.has('d')).toBe(true);
  });
});

describe('webhook dedupe while Redis cannot be reached', () => {
  it('answers from the process\'s memory, with one warning line, not one per event', async () => {
    const logs = new LogSink();
    // Nothing listens on port 1: every SET fails after ioredis's retry.
    const seen = new RedisSeenKeys('redis://127.0.0.1:1', 'gh-test-unreachable', createLogger({ level: 'debug', pretty: false, destination: logs }));
    try {
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
      expect(await Promise.all(keys.map((k) => seen.firstTime(k)))).toEqual(keys.map(() => true));
      expect(await seen.firstTime('k0')).toBe(false);
      expect(logs.matching(/webhook dedupe: Redis did not answer/)).toHaveLength(1);
    } finally {
      await seen.close();
    }
  }, 30_000);
});

describeWithRedis('webhook events across processes (Redis)', () => {
  const prefix = uniquePrefix('webhook-events');
  const admin = new Redis(REDIS_URL);
  const opened: RedisSeenKeys[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await dropPrefix(admin, prefix);
    await admin.quit();
  });

  it('a redelivery that reaches another process is dropped there', async () => {
    const seen = (): RedisSeenKeys => {
      const s = new RedisSeenKeys(REDIS_URL, prefix, silentLogger());
      opened.push(s);
      return s;
    };
    const a = process_(seen);
    const b = process_(seen);
    a.handler.deliver(entitlement('400000000000000010'));
    await a.handler.settled();
    b.handler.deliver(entitlement('400000000000000010'));
    await b.handler.settled();
    expect(a.got).toHaveLength(2);
    expect(b.got).toHaveLength(0);
    const [key] = await admin.keys(`${prefix}:*`);
    expect(key).toBeDefined();
    const ttl = await admin.pttl(key!);
    expect(ttl).toBeGreaterThan(WEBHOOK_DEDUPE_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(WEBHOOK_DEDUPE_TTL_MS);
  });
});
