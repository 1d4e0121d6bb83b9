/**
 * Shared REST limits against a real Redis: several clients (each with its own connection and store, as
 * separate processes would have) send to one fake API. What the server sees is the judge: bucket windows,
 * the global limit, 429 waits and the invalid-request budget hold for the clients together.
 */
import { Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import pino from 'pino';
import { Redis } from 'ioredis';
import { InvalidRequestGuardError, RestClient, RestClientClosedError, type RateLimitedEvent } from '../../src/rest/index.js';
import { SharedRateLimits, type SharedRateLimitsOptions } from '../../src/rest/redis/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { dropPrefix } from '../cache/redis-cleanup.js';
import { redisGate, type RedisGate } from '../cluster/helpers.js';
import { redisProxy } from '../helpers/redis-proxy.js';
import { coldStartProxy } from './helpers/cold-start-proxy.js';
import { globalRateLimited, maxInWindow, startFakeApi, userRateLimited, type FakeApi, type FakeApiOptions } from './helpers/fake-api.js';

const TOKEN = 'fake-bot-token-for-shared-limit-tests';

interface Fleet {
  api: FakeApi;
  clients: RestClient[];
  stores: SharedRateLimits[];
  limited: RateLimitedEvent[][];
  namespace: string;
  /** Each client's store's own Redis connection. */
  connections: Redis[];
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function connect(url = REDIS_URL): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
  r.on('error', () => undefined);
  cleanups.push(() => r.disconnect());
  return r;
}

async function fleet(
  n: number,
  apiOptions: FakeApiOptions,
  options: Partial<SharedRateLimitsOptions> & { clientOptions?: ConstructorParameters<typeof RestClient>[0]; redisUrl?: string; redisUrls?: string[] } = {},
): Promise<Fleet> {
  const api = await startFakeApi(apiOptions);
  cleanups.push(() => api.close());
  const namespace = uniquePrefix('rest-limits');
  const admin = connect();
  cleanups.push(() => dropPrefix(admin, namespace));
  const clients: RestClient[] = [];
  const stores: SharedRateLimits[] = [];
  const limited: RateLimitedEvent[][] = [];
  const connections: Redis[] = [];
  for (let i = 0; i < n; i++) {
    const { clientOptions, redisUrl, redisUrls, ...storeOptions } = options;
    const connection = connect(redisUrls?.[i] ?? redisUrl);
    connections.push(connection);
    const store = new SharedRateLimits({ redis: connection, namespace, ...storeOptions });
    const client = new RestClient({ baseUrl: api.baseUrl, token: TOKEN, limits: store, ...clientOptions });
    cleanups.push(() => client.close());
    const events: RateLimitedEvent[] = [];
    client.on('rateLimited', (e) => events.push(e));
    clients.push(client);
    stores.push(store);
    limited.push(events);
  }
  return { api, clients, stores, limited, namespace, connections };
}

const channelGet = (rest: RestClient, id: number): Promise<unknown> =>
  rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(id) } });
const until = async (what: string, test: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const started = performance.now();
  while (!test()) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
const messages = (method: string, path: string): boolean => method === 'POST' && /^\/channels\/\d+\/messages$/.test(path);
const post = (rest: RestClient, channel: string, n: number): Promise<unknown> =>
  rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: channel }, body: { n } });

describeWithRedis('shared REST limits (several clients, one Redis)', () => {
  it('three clients hammering one bucket: the server never sees more than its limit per window, and no 429', async () => {
    const { api, clients, limited } = await fleet(3, { buckets: [{ match: messages, hash: 'msgs', limit: 5, windowMs: 400 }] });
    const perClient = 10;
    const results = await Promise.all(
      clients.flatMap((rest, c) => Array.from({ length: perClient }, (_, i) => post(rest, '42', c * 100 + i))),
    );
    expect(results).toHaveLength(30);
    expect(api.countWhere((r) => r.status === 429)).toBe(0);
    expect(limited.flat()).toEqual([]);
    // The server's own windows (fixed, from the first request after the last one ended) held 5 each.
    expect(api.countWhere((r) => r.status === 200)).toBe(30);
    // Each client's requests reached the server in the order it made them.
    for (let c = 0; c < 3; c++) {
      const seen = api.requests.map((r) => (JSON.parse(r.body) as { n: number }).n).filter((n) => Math.floor(n / 100) === c);
      expect(seen).toEqual(Array.from({ length: perClient }, (_, i) => c * 100 + i));
    }
  });

  it('the global limit holds for the clients together (every bucket, every client)', async () => {
    // The clients count 10 per 2 s; the server allows 10 per 1 s: one client alone could not trip it, three
    // unshared ones at once would (30 in the first second).
    const { api, clients } = await fleet(3, { global: { limit: 10, windowMs: 1000, retryAfterMs: 1000 } }, {
      globalLimit: 10,
      globalWindowMs: 2000,
    });
    await Promise.all(
      clients.flatMap((rest, c) =>
        Array.from({ length: 5 }, (_, i) => rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(1000 + c * 10 + i) } })),
      ),
    );
    expect(api.countWhere((r) => r.status === 429)).toBe(0);
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(10);
  });

  it('a 429 with retry_after served to one client holds the others back on that bucket', async () => {
    const { api, clients, connections } = await fleet(2, { buckets: [{ match: messages, hash: 'msgs', limit: 50, windowMs: 60_000 }] });
    const [a, b] = clients as [RestClient, RestClient];
    await post(a, '7', 0); // the bucket is known to both now
    api.script('POST', /^\/channels\/7\/messages$/, [userRateLimited(700)]);
    const first = post(a, '7', 1);
    await new Promise<void>((resolve) => a.once('rateLimited', () => resolve()));
    const limitedAt = api.requests.find((r) => r.status === 429)!.at;
    // a records the 429 at once, on its own connection; once a PING sent after it there is answered, Redis holds
    // it (a request b sent within that round trip could not know of it).
    await connections[0]!.ping();
    // B has not sent on this bucket since the 429: only Redis can tell it to wait.
    await post(b, '7', 2);
    await first;
    const fromB = api.requests.find((r) => r.body.includes('"n":2'))!;
    expect(fromB.at - limitedAt).toBeGreaterThanOrEqual(690);
    // Another channel (another major parameter) is not held back.
    const other = performance.now();
    await post(b, '8', 3);
    expect(api.requests.find((r) => r.body.includes('"n":3'))!.at - other).toBeLessThan(690);
  });

  it('a global 429 served to one client pauses every client, on every bucket', async () => {
    const { api, clients, namespace } = await fleet(2, {});
    const [a, b] = clients as [RestClient, RestClient];
    api.script('GET', /^\/users\/@me$/, [globalRateLimited(600)]);
    const first = a.request({ method: 'GET', route: '/users/@me' });
    await new Promise<void>((resolve) => a.once('rateLimited', () => resolve()));
    const limitedAt = api.requests[0]!.at;
    // The pause reaches Redis one round trip after a saw the 429; a request b sends within that round trip
    // cannot know of it (one ran 3 ms after). What is checked is that every client honours the recorded pause.
    const admin = connect();
    for (let i = 0; i < 500 && (await admin.keys(`${namespace}:gp:*`)).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await admin.keys(`${namespace}:gp:*`)).toHaveLength(1);
    await b.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '5' } });
    await first;
    const fromB = api.requests.find((r) => r.path === '/channels/5')!;
    expect(fromB.at - limitedAt).toBeGreaterThanOrEqual(590);
  });

  it('interaction callbacks stay exempt from the shared global limit', async () => {
    const { api, clients } = await fleet(2, {}, { globalLimit: 2, globalWindowMs: 5000 });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        clients[i % 2]!.request({
          method: 'POST',
          route: '/interactions/{interaction_id}/{interaction_token}/callback',
          params: { interaction_id: String(500 + i), interaction_token: `tok-${i}-aaaaaaaaaaaaaaaa` },
          body: { type: 4, data: { content: 'hi' } },
          auth: false,
        }),
      ),
    );
    const times = api.requests.map((r) => r.at);
    // Held to 2 per 5 s they would need 15 s; exempt, they all go at once.
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(4000);
    expect(api.requests).toHaveLength(8);
  });

  it('invalid responses of all clients count against one budget: every client stops at the shared limit', async () => {
    const { api, clients } = await fleet(3, {}, { invalidRequestLimit: 30 });
    api.onAny((r) => (r.path.startsWith('/guilds/') ? { status: 403, body: { message: 'Missing Access', code: 50001 } } : undefined));
    const outcomes = await Promise.all(
      clients.flatMap((rest, c) =>
        Array.from({ length: 20 }, (_, i) =>
          rest.request({ method: 'GET', route: '/guilds/{guild_id}', params: { guild_id: String(c * 1000 + i) } }).then(
            () => 'ok',
            (e: unknown) => (e instanceof InvalidRequestGuardError ? 'guard' : 'api'),
          ),
        ),
      ),
    );
    const sent = api.requests.length;
    // 60 asked; the budget of 30 is the fleet's, with at most the requests already in flight beyond it.
    expect(sent).toBeGreaterThanOrEqual(30);
    expect(sent).toBeLessThan(60);
    expect(outcomes.filter((o) => o === 'api')).toHaveLength(sent);
    for (const rest of clients) {
      const err = await rest.request({ method: 'GET', route: '/users/@me' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidRequestGuardError);
    }
    expect(api.requests.length).toBe(sent);
  });

  it('Redis unreachable: each client falls back to its share of the limits, warns once, and shares again when Redis is back', async () => {
    const gate: RedisGate = await redisGate(REDIS_URL);
    cleanups.push(() => gate.close());
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const { api, clients, stores } = await fleet(2, {}, {
      redisUrl: gate.url,
      globalLimit: 10,
      globalWindowMs: 1000,
      // Long enough that a busy machine's slow answer before the hold is not taken for an outage (200 ms was
      // not, at a load of 22 on 2 cores: a second fallback).
      timeoutMs: 1000,
      probeMs: 100,
      heartbeatMs: 100,
      logger,
    });
    const [a] = clients as [RestClient, RestClient];
    await a.request({ method: 'GET', route: '/users/@me' });
    for (let i = 0; i < 100 && stores.some((s) => s.processes < 2); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stores[0]!.processes).toBe(2);

    gate.hold();
    // Ten requests while Redis says nothing: they go (no stall beyond the timeout), at this client's half of
    // the global limit, so the last ones wait a window.
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => a.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(2000 + i) } })),
    );
    expect(a.limitsMode).toBe('shared-fallback');
    const during = api.requests.filter((r) => r.path.startsWith('/channels/2')).map((r) => r.at);
    expect(during).toHaveLength(10);
    // 5 per 1000 ms when admitted; half the window leaves room for delivery jitter (unshared: all 10 at once).
    expect(maxInWindow(during, 500)).toBeLessThanOrEqual(5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    const warnings = lines.filter((l) => l.includes('REST limits fall back'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('1/2');

    gate.release();
    for (let i = 0; i < 250 && a.limitsMode !== 'shared'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(a.limitsMode).toBe('shared');
    expect(lines.some((l) => l.includes('shared again'))).toBe(true);
    await a.request({ method: 'GET', route: '/users/@me' });
    expect(stores[0]!.stats().fallbacks).toBe(1);
  });

  it('close() rejects at once what waits on a shared limit and leaves no timer behind', async () => {
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const { api, clients } = await fleet(2, { buckets: [{ match: messages, hash: 'msgs', limit: 1, windowMs: 30_000 }] }, { heartbeatMs: 50 });
    const [a, b] = clients as [RestClient, RestClient];
    await post(a, '3', 0);
    // The bucket's one slot of the window is spent (by a): b waits about 30 s for it.
    const waiting = post(b, '3', 1).catch((e: unknown) => e);
    for (let i = 0; i < 100 && b.stats().queued === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    const closedAt = performance.now();
    b.close();
    expect(await waiting).toBeInstanceOf(RestClientClosedError);
    expect(performance.now() - closedAt).toBeLessThan(5_000);
    a.close();
    await new Promise((r) => setImmediate(r));
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
    expect(api.requests).toHaveLength(1);
  });

  it('the global limit holds at the server when the first requests take long to get there (cold sockets)', async () => {
    // New connections' first bytes reach the server 300 ms late. Counted from their admission in Redis, the
    // next window's requests (on warm sockets) arrived less than a second after the first window's.
    const api = await startFakeApi();
    cleanups.push(() => api.close());
    const proxy = await coldStartProxy(api.baseUrl, 300);
    cleanups.push(() => proxy.close());
    const { clients } = await fleet(3, {}, { globalLimit: 20, clientOptions: { baseUrl: proxy.baseUrl } });
    await Promise.all(clients.flatMap((rest, c) => Array.from({ length: 20 }, (_, i) => channelGet(rest, 1000 + c * 100 + i))));
    expect(api.requests).toHaveLength(60);
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(20);
  });

  it('falling back keeps the window: what the fleet sent in the last second still counts', async () => {
    const gate: RedisGate = await redisGate(REDIS_URL);
    cleanups.push(() => gate.close());
    const { api, clients, stores } = await fleet(2, {}, { redisUrl: gate.url, globalLimit: 10, timeoutMs: 500, probeMs: 60_000, heartbeatMs: 100 });
    const [a, b] = clients as [RestClient, RestClient];
    // Each knows the fleet's size (a process that has never heard it can only assume it is alone).
    await until('both processes counted', () => stores.every((s) => s.processes === 2));
    // The fleet spends its 10 of this second (a 6, b 4), then Redis stops answering.
    await Promise.all([...Array.from({ length: 6 }, (_, i) => channelGet(a, 100 + i)), ...Array.from({ length: 4 }, (_, i) => channelGet(b, 200 + i))]);
    gate.hold();
    // On their own at half the limit each, they would send 5 each at once: 20 in one second at the server.
    await Promise.all([...Array.from({ length: 5 }, (_, i) => channelGet(a, 300 + i)), ...Array.from({ length: 5 }, (_, i) => channelGet(b, 400 + i))]);
    expect(a.limitsMode).toBe('shared-fallback');
    expect(api.requests).toHaveLength(20);
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(10);
  });

  it('falling back waits out requests admitted just before the loss that reach the service late', async () => {
    const proxy = await redisProxy(REDIS_URL);
    cleanups.push(() => proxy.close());
    // A lost connection is seen at once; the long timeout keeps a busy machine's slow answer from looking like one.
    const { api, clients } = await fleet(1, {}, { redisUrl: proxy.url, globalLimit: 10, timeoutMs: 10_000, probeMs: 60_000 });
    const [a] = clients as [RestClient];
    // Answers take 400 ms: a request Redis admits now may still be arriving at the service that long after.
    api.script('GET', /^\/channels\/1\d\d$/, Array.from({ length: 3 }, () => ({ status: 200, body: {}, delayMs: 400 })));
    await Promise.all([channelGet(a, 100), channelGet(a, 101), channelGet(a, 102)]);
    expect(a.limitsMode).toBe('shared');
    await proxy.cut();
    const lostAt = performance.now();
    await channelGet(a, 200);
    expect(a.limitsMode).toBe('shared-fallback');
    const next = api.requests.find((r) => r.path === '/channels/200')!;
    // A window after the loss, and twice the answer time on top (before: a window after the loss only).
    expect(next.at - lostAt).toBeGreaterThanOrEqual(1000 + 2 * 400);
  });

  it('a request Redis booked for later asks again under the fallback when Redis is gone by then', async () => {
    const proxy = await redisProxy(REDIS_URL);
    cleanups.push(() => proxy.close());
    const { api, clients, stores } = await fleet(2, {}, { redisUrl: proxy.url, globalLimit: 10, timeoutMs: 10_000, probeMs: 60_000, heartbeatMs: 100 });
    const [a, b] = clients as [RestClient, RestClient];
    await until('both processes counted', () => stores.every((s) => s.processes === 2));
    // a spends the window and books the next one's slots; then Redis goes away (a crash, a failover).
    const first = Promise.all(Array.from({ length: 20 }, (_, i) => channelGet(a, 100 + i)));
    await until('a booked the next window', () => stores[0]!.stats().reservations >= 20);
    await proxy.cut();
    // b, on its own, sends its half of a window after the loss: a's bookings must not come on top of it.
    await Promise.all([first, ...Array.from({ length: 5 }, (_, i) => channelGet(b, 300 + i))]);
    expect(a.limitsMode).toBe('shared-fallback');
    expect(api.requests).toHaveLength(25);
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(10);
  }, 30_000);

  it('coming back from a fallback writes this process\'s sends back to Redis (a restarted Redis is empty)', async () => {
    const proxy = await redisProxy(REDIS_URL);
    cleanups.push(() => proxy.close());
    // a reaches Redis through a proxy that is cut; b directly, so it never falls back.
    const { api, clients, namespace, stores } = await fleet(2, {}, { redisUrls: [proxy.url, REDIS_URL], globalLimit: 10, timeoutMs: 200, probeMs: 100 });
    const [a, b] = clients as [RestClient, RestClient];
    await channelGet(a, 1);
    await until('a and b counted', () => stores.every((s) => s.processes === 2));
    await proxy.cut();
    // What a sends now, Redis never hears of while it is away; then Redis "restarts" empty.
    await Promise.all(Array.from({ length: 5 }, (_, i) => channelGet(a, 100 + i)));
    expect(a.limitsMode).toBe('shared-fallback');
    const admin = connect();
    await dropPrefix(admin, namespace);
    await proxy.restore();
    await until('a shares again', () => a.limitsMode === 'shared');
    const sentByA = api.requests.filter((r) => r.path.startsWith('/channels/1')).length;
    expect(sentByA).toBe(6);
    // b wants the whole limit at once: only what a did not use of the last second is left.
    await Promise.all(Array.from({ length: 10 }, (_, i) => channelGet(b, 200 + i)));
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(10);
  });

  it('waiters for a bucket\'s discovery are woken when it ends, not by polling', async () => {
    // A lease of 10 s: only the notification can wake the waiter soon after the discovery ends.
    const { api, clients, stores } = await fleet(2, {}, { discoveryLockMs: 10_000 });
    const [a, b] = clients as [RestClient, RestClient];
    api.script('GET', /^\/channels\/9$/, [{ status: 200, body: { id: '9' }, delayMs: 1500, headers: { 'x-ratelimit-bucket': 'ch', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset-after': '5' } }]);
    const first = channelGet(a, 9);
    await until('the discovery under way', () => api.requests.length === 1);
    const before = stores[1]!.stats().reservations;
    await channelGet(b, 9);
    await first;
    const asked = stores[1]!.stats().reservations - before;
    // Polling every 50 ms would have asked about 30 times during the 1.5 s discovery.
    expect(asked).toBeLessThanOrEqual(3);
    const discovered = api.requests[0]!.at + 1500;
    expect(api.requests[1]!.at - discovered).toBeLessThan(5_000);
  });

  it('costs one Redis round trip per request while requests keep coming', async () => {
    const { clients, stores } = await fleet(1, { buckets: [{ match: messages, hash: 'msgs', limit: 1000, windowMs: 60_000 }] });
    const rest = clients[0]!;
    for (let i = 0; i < 50; i++) await post(rest, '9', i);
    const s = stores[0]!.stats();
    expect(s.reservations).toBe(50);
    // The discovery's record goes at once (others may be waiting for it); nothing else needs a call of its own.
    expect(s.flushes).toBeLessThanOrEqual(1);
  });
});
