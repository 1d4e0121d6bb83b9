import { afterEach, describe, expect, it } from 'vitest';
import { RestClient, bearerAuth, botAuth, type RateLimitedEvent } from '../../src/rest/index.js';
import { coldStartProxy } from './helpers/cold-start-proxy.js';
import { FakeApi, globalRateLimited, maxInWindow, startFakeApi, userRateLimited } from './helpers/fake-api.js';

const TOKEN = 'fake-bot-token-for-rate-limit-tests';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(
  api: FakeApi | Promise<FakeApi>,
  options: ConstructorParameters<typeof RestClient>[0] = {},
): Promise<{ api: FakeApi; rest: RestClient; limited: RateLimitedEvent[] }> {
  const server = await api;
  open.push(server);
  const rest = new RestClient({ baseUrl: server.baseUrl, token: TOKEN, ...options });
  open.push(rest);
  const limited: RateLimitedEvent[] = [];
  rest.on('rateLimited', (e) => limited.push(e));
  return { api: server, rest, limited };
}

const messages = (method: string, path: string): boolean => method === 'POST' && /^\/channels\/\d+\/messages$/.test(path);

describe('per-route buckets', () => {
  it('50 concurrent requests to a bucket of 5 per window: at most the discovery costs a 429, order is kept', async () => {
    const { api, rest, limited } = await setup(
      startFakeApi({ buckets: [{ match: messages, hash: 'msgs', limit: 5, windowMs: 250 }] }),
    );
    const completed: number[] = [];
    const all = Array.from({ length: 50 }, (_, n) =>
      rest
        .request<{ echo: { n: number } }>({
          method: 'POST',
          route: '/channels/{channel_id}/messages',
          params: { channel_id: '100' },
          body: { n },
        })
        .then((r) => {
          completed.push(n);
          return r.echo.n;
        }),
    );
    const echoed = await Promise.all(all);

    expect(echoed).toEqual(Array.from({ length: 50 }, (_, n) => n));
    // Completion order and the order the server saw them in are the order of the calls.
    expect(completed).toEqual(echoed);
    const served = api.requests.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { n: number }).n);
    expect(served).toEqual(echoed);

    const rejected = api.requests.filter((r) => r.status === 429);
    expect(rejected.length).toBeLessThanOrEqual(1);
    // A 429, if any, belongs to the first window (the discovery), never later.
    for (const r of rejected) expect(r.seq).toBeLessThanOrEqual(5);
    expect(limited.length).toBe(rejected.length);
    // The bucket learnt from X-RateLimit-Bucket is keyed with the major parameter.
    expect(rest.stats().queued).toBe(0);
  });

  it('queues per major parameter: an exhausted channel does not hold another channel back', async () => {
    const { api, rest } = await setup(
      startFakeApi({ buckets: [{ match: messages, hash: 'msgs', limit: 1, windowMs: 600 }] }),
    );
    const send = (channel: string, n: number): Promise<unknown> =>
      rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: channel }, body: { n } });

    await send('1', 0); // learn the bucket
    const a = send('1', 1); // must wait for channel 1's window
    const b = send('2', 2); // another channel: its own window
    await Promise.all([a, b]);

    const order = api.requests.map((r) => (JSON.parse(r.body) as { n: number }).n);
    expect(order).toEqual([0, 2, 1]);
    expect(api.countWhere((r) => r.status === 429)).toBe(0);
  });

  it('routes that share a bucket hash share one queue once it is known', async () => {
    const channel = (method: string, path: string): boolean => /^\/channels\/\d+$/.test(path) && (method === 'GET' || method === 'PATCH');
    const { api, rest } = await setup(startFakeApi({ buckets: [{ match: channel, hash: 'chan', limit: 3, windowMs: 250 }] }));
    const calls = Array.from({ length: 24 }, (_, n) =>
      rest.request({
        method: n % 2 === 0 ? 'GET' : 'PATCH',
        route: '/channels/{channel_id}',
        params: { channel_id: '5' },
        ...(n % 2 === 0 ? {} : { body: { n } }),
      }),
    );
    await Promise.all(calls);
    // Both routes discover concurrently, so one 429 may be the price of the first window; none after.
    const rejected = api.requests.filter((r) => r.status === 429);
    expect(rejected.length).toBeLessThanOrEqual(1);
    for (const r of rejected) expect(r.seq).toBeLessThanOrEqual(3);
    expect(api.countWhere((r) => r.status === 200)).toBe(24);
    expect(rest.queueDepths().map((q) => q.bucket)).toEqual(['chan:5']);
  });

  it('requests sent while a bucket is being discovered do not overtake the discovering request', async () => {
    const { api, rest } = await setup(startFakeApi({ buckets: [{ match: messages, hash: 'msgs', limit: 10, windowMs: 1000 }] }));
    // The first answer reveals the bucket and is a 429 (another process spent the window).
    api.script('POST', /^\/channels\/9\/messages$/, [userRateLimited(300)]);
    const send = (n: number): Promise<unknown> =>
      rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: '9' }, body: { n } });
    const completed: number[] = [];
    const first = send(0).then(() => completed.push(0));
    await new Promise<void>((resolve) => rest.once('rateLimited', () => resolve()));
    const later = [1, 2, 3].map((n) => send(n).then(() => completed.push(n)));
    await Promise.all([first, ...later]);
    const served = api.requests.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { n: number }).n);
    expect(served).toEqual([0, 1, 2, 3]);
    expect(completed).toEqual([0, 1, 2, 3]);
  });

  it('each token has its own buckets: one user waiting out its window does not hold back another token', async () => {
    const { api, rest } = await setup(
      startFakeApi({ buckets: [{ match: (m, p) => m === 'GET' && p === '/users/@me', hash: 'me', limit: 1, windowMs: 30_000, perCredential: true }] }),
    );
    const me = (auth?: ReturnType<typeof bearerAuth>, signal?: AbortSignal) =>
      rest.request({ method: 'GET', route: '/users/@me', ...(auth ? { auth } : {}), ...(signal ? { signal } : {}) });
    const stop = new AbortController();
    const settled = (p: Promise<unknown>) => p.then(() => 'done', () => 'failed');
    await me(bearerAuth('user-a-access-token'));
    const waitingA = settled(me(bearerAuth('user-a-access-token'), stop.signal));
    // Another user and the bot go at once while user A waits out its 30 s window.
    const others = Promise.all([me(bearerAuth('user-b-access-token')), me()]);
    const outcome = await Promise.race([others.then(() => 'sent'), new Promise((r) => setTimeout(() => r('held back'), 5_000))]);
    expect(outcome).toBe('sent');
    // The bot token given explicitly is the client's own token: same (now exhausted) bucket, it waits too.
    const waitingBot = settled(me(botAuth(TOKEN), stop.signal));
    const keys = rest.queueDepths().map((q) => q.bucket);
    expect(keys.filter((k) => k.startsWith('Bearer:'))).toHaveLength(2); // one per user
    expect(keys.some((k) => k.startsWith('Bot:'))).toBe(false);
    expect(keys.join(' ')).not.toContain('access-token');
    stop.abort();
    expect(await Promise.all([waitingA, waitingBot])).toEqual(['failed', 'failed']);
    expect(api.requests.map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('exposes queue depths per bucket while requests wait', async () => {
    const { rest } = await setup(startFakeApi({ buckets: [{ match: messages, hash: 'msgs', limit: 1, windowMs: 300 }] }));
    await rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: '7' }, body: {} });
    const pending = Array.from({ length: 4 }, () =>
      rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: '7' }, body: {} }),
    );
    const depths = rest.queueDepths();
    expect(depths).toHaveLength(1);
    expect(depths[0]).toMatchObject({ bucket: 'msgs:7', queued: 4, limit: 1 });
    await Promise.all(pending);
    expect(rest.stats().queued).toBe(0);
  });

  it('honours retry_after of a 429 and then succeeds', async () => {
    const { api, rest, limited } = await setup(startFakeApi());
    api.script('GET', /^\/users\/@me$/, [userRateLimited(400)]);
    const user = await rest.request<{ ok: boolean }>({ method: 'GET', route: '/users/@me' });

    expect(user.ok).toBe(true);
    expect(api.requests).toHaveLength(2);
    const [first, second] = api.requests;
    // Lower bound only: the retry may be late on a loaded machine, never early.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(390);
    // The body's float retry_after (0.4 s) wins over the rounded-up Retry-After header (1 s).
    expect(second!.at - first!.at).toBeLessThan(1000 + 2000);
    expect(limited).toEqual([
      expect.objectContaining({ route: '/users/@me', scope: 'user', global: false, retryAfterMs: 400 }),
    ]);
  });

  it('falls back to the Retry-After header when the body has no retry_after', async () => {
    const { api, rest } = await setup(startFakeApi());
    api.script('GET', /^\/gateway\/bot$/, [
      { status: 429, headers: { 'retry-after': '1', 'x-ratelimit-scope': 'user' }, body: { message: 'slow down' } },
    ]);
    await rest.request({ method: 'GET', route: '/gateway/bot' });
    const [first, second] = api.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(990);
  });

  it('fails with a RateLimitError instead of waiting out a retry_after longer than the configured maximum', async () => {
    const { api, rest } = await setup(startFakeApi(), { maxRateLimitWaitMs: 5_000 });
    api.script('POST', /commands$/, [userRateLimited(3_600_000)]);
    const err = await rest
      .request({ method: 'POST', route: '/applications/{application_id}/commands', params: { application_id: '1' }, body: {} })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'RateLimitError', status: 429, retryAfterMs: 3_600_000, route: '/applications/{application_id}/commands' });
    expect(api.requests).toHaveLength(1);
  });

  it('fails at once, without sending, when a known bucket stays exhausted longer than the configured maximum', async () => {
    const { api, rest } = await setup(
      startFakeApi({ buckets: [{ match: messages, hash: 'msgs', limit: 1, windowMs: 60_000 }] }),
      { maxRateLimitWaitMs: 1_000 },
    );
    const send = () => rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: '7' }, body: {} });
    await send();
    const err = await send().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'RateLimitError', scope: 'bucket', route: '/channels/{channel_id}/messages' });
    expect((err as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(1_000);
    expect(api.requests).toHaveLength(1);
  });
});

describe('global limit', () => {
  it('keeps every window below the global limit across buckets', async () => {
    const { api, rest } = await setup(startFakeApi(), { globalLimit: 10, globalWindowMs: 1000 });
    const count = 35;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(1000 + i) } }),
      ),
    );
    expect(api.requests).toHaveLength(count);
    // Counted on the server per (sliding) second, with no slack: a slot counts until a window after the
    // response, which left the server after it stamped the request.
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(10);
  });

  it('holds at the server when the first requests take long to get there (new sockets on a cold start)', async () => {
    // Every new connection's first bytes reach the server 300 ms after they were written; requests on a kept-alive
    // connection pass at once. Counting a request from its admission let the next window's requests, sent on
    // the warm sockets, arrive 300 ms less than a window after the first ones: 100 in one second at the server.
    const api = await startFakeApi();
    open.push(api);
    const proxy = await coldStartProxy(api.baseUrl, 300);
    open.push(proxy);
    const rest = new RestClient({ baseUrl: proxy.baseUrl, token: TOKEN, globalLimit: 50, globalWindowMs: 1000 });
    open.push(rest);
    const count = 120;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(5000 + i) } }),
      ),
    );
    expect(api.requests).toHaveLength(count);
    expect(maxInWindow(api.requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(50);
  });

  it('many requests waiting on the global limit and one shared AbortSignal raise no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const { api, rest } = await setup(startFakeApi(), { globalLimit: 1, globalWindowMs: 30_000 });
      const stop = new AbortController();
      const get = (i: number, signal?: AbortSignal): Promise<unknown> =>
        rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(100 + i) }, signal }).catch((e: unknown) => e);
      await get(0);
      // 20 requests wait on the global window (30 s) with no signal of their own, 20 more with one shared signal.
      const waiting = [...Array.from({ length: 20 }, (_, i) => get(1 + i)), ...Array.from({ length: 20 }, (_, i) => get(21 + i, stop.signal))];
      for (let i = 0; i < 100 && rest.stats().queued < 40; i++) await new Promise((r) => setTimeout(r, 10));
      expect(rest.stats().queued).toBe(40);
      await new Promise((r) => setTimeout(r, 50));
      stop.abort();
      rest.close();
      const outcomes = await Promise.all(waiting);
      expect(outcomes.filter((o) => o instanceof Error)).toHaveLength(40);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
      expect(api.requests).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a 429 of global scope pauses every bucket until retry_after', async () => {
    const { api, rest, limited } = await setup(startFakeApi());
    api.script('GET', /^\/channels\/1$/, [globalRateLimited(500)]);

    const first = rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '1' } });
    // Wait until the client has seen the global 429, then ask for other buckets.
    await new Promise<void>((resolve) => rest.once('rateLimited', () => resolve()));
    const others = ['2', '3', '4', '5'].map((id) =>
      rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: id } }),
    );
    const users = rest.request({ method: 'GET', route: '/users/@me' });
    await Promise.all([first, ...others, users]);

    const limitedAt = api.requests[0]!.at;
    expect(api.requests[0]!.status).toBe(429);
    const after = api.requests.slice(1);
    expect(after).toHaveLength(6);
    for (const r of after) expect(r.at - limitedAt).toBeGreaterThanOrEqual(490);
    expect(limited).toEqual([expect.objectContaining({ scope: 'global', global: true, retryAfterMs: 500 })]);
  });

  it('a global pause longer than maxRateLimitWaitMs fails every waiting request at once', async () => {
    const { api, rest } = await setup(startFakeApi(), { maxRateLimitWaitMs: 2_000 });
    api.script('GET', /^\/users\/@me$/, [globalRateLimited(30_000)]);
    await expect(rest.request({ method: 'GET', route: '/users/@me' })).rejects.toMatchObject({ name: 'RateLimitError', global: true });
    const others = Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(70 + i) } })),
    );
    // Each one is told of the 30 s pause and fails, rather than waiting behind the first to be told.
    const outcome = await Promise.race([others, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
    expect(outcome).not.toBe('hung');
    const settled = outcome as PromiseSettledResult<unknown>[];
    expect(settled.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : 'sent'))).toEqual(Array(5).fill('RateLimitError'));
    expect(api.requests).toHaveLength(1);
  });

  it('does not count interaction callbacks against the global limit', async () => {
    const { api, rest } = await setup(startFakeApi(), { globalLimit: 2, globalWindowMs: 5000 });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rest.request({
          method: 'POST',
          route: '/interactions/{interaction_id}/{interaction_token}/callback',
          params: { interaction_id: String(500 + i), interaction_token: `tok-${i}-aaaaaaaaaaaaaaaa` },
          body: { type: 4, data: { content: 'hi' } },
          auth: false,
        }),
      ),
    );
    const times = api.requests.map((r) => r.at);
    // Held to 2 per 5 s they would need 20 s; exempt, they all go at once.
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(4000);
    expect(api.requests).toHaveLength(8);
  });
});
