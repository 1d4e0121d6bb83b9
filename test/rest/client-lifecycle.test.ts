import { afterEach, describe, expect, it } from 'vitest';
import { RestClient, RestClientClosedError, RestError, restClientFromConfig } from '../../src/rest/index.js';
import { globalRateLimited, startFakeApi, type FakeApi } from './helpers/fake-api.js';

let server: FakeApi | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('client lifecycle', () => {
  it('takes base URL and token from the configuration', async () => {
    server = await startFakeApi();
    const rest = restClientFromConfig({ apiUrl: server.baseUrl, token: 'config-token-value' });
    await rest.request({ method: 'GET', route: '/gateway/bot' });
    rest.close();
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/gateway/bot' });
    expect(server.requests[0]!.headers.authorization).toBe('Bot config-token-value');
  });

  it('close() rejects what is queued and refuses new requests', async () => {
    server = await startFakeApi();
    server.script('GET', /^\/users\/@me$/, [{ status: 200, body: { id: '1' }, delayMs: 200 }]);
    const rest = new RestClient({ baseUrl: server.baseUrl, token: 'close-test-token' });
    const inFlight = rest.request({ method: 'GET', route: '/users/@me' }).catch((e: unknown) => e);
    const queued = rest.request({ method: 'GET', route: '/users/@me' }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    rest.close();
    expect(await queued).toMatchObject({ name: 'RestClientClosedError', message: 'GET /users/@me: client closed' });
    await inFlight; // settles one way or the other, without hanging
    await expect(rest.request({ method: 'GET', route: '/users/@me' })).rejects.toBeInstanceOf(RestError);
    expect(server.requests).toHaveLength(1);
  });

  it('close() rejects at once what waits out a bucket reset or a global pause, and leaves no timer behind', async () => {
    // A bucket of one request per 30 s, and a route whose first answer pauses the whole token for 30 s.
    server = await startFakeApi({
      buckets: [{ match: (_m, p) => p.startsWith('/channels/'), hash: 'channels', limit: 1, windowMs: 30_000 }],
    });
    server.script('GET', /^\/users\/@me$/, [globalRateLimited(30_000)]);
    const timersBefore = activeTimers();
    const rest = new RestClient({ baseUrl: server.baseUrl, token: 'close-waits-token', maxRateLimitWaitMs: 120_000 });
    const first = await rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '1' } });
    expect(first).toMatchObject({ ok: true });
    // Waits about 30 s for the bucket to reset.
    const bucketWait = rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '1' } }).catch((e: unknown) => e);
    // Gets a global 429 and waits out the 30 s pause; the next one queues behind the same pause (asked once the
    // client has seen the 429: the server having sent it is not enough on a busy machine).
    const paused = new Promise<void>((resolve) => rest.once('rateLimited', () => resolve()));
    const globalWait = rest.request({ method: 'GET', route: '/users/@me' }).catch((e: unknown) => e);
    await paused;
    expect(server.requests.map((r) => r.path)).toEqual(['/channels/1', '/users/@me']);
    const pausedToo = rest.request({ method: 'GET', route: '/applications/@me' }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    expect(rest.stats().queued).toBeGreaterThanOrEqual(3);

    const closedAt = performance.now();
    rest.close();
    const outcomes = await Promise.all([bucketWait, globalWait, pausedToo]);
    // "At once": well under the 30 s waits (generous for a busy machine).
    expect(performance.now() - closedAt).toBeLessThan(5_000);
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(RestClientClosedError);
    await expect(rest.request({ method: 'GET', route: '/users/@me' })).rejects.toBeInstanceOf(RestClientClosedError);
    // Nothing of the client keeps the event loop alive: no timer it started is still pending.
    await new Promise((r) => setImmediate(r));
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    expect(server.requests).toHaveLength(2);
  });

  it('forgets idle queues once their window is over', async () => {
    server = await startFakeApi();
    const rest = new RestClient({ baseUrl: server.baseUrl, token: 'idle-test-token' });
    for (let i = 0; i < 20; i++) {
      await rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: String(i + 1) } });
    }
    expect(rest.queueDepths()).toEqual([]);
    expect(rest.stats()).toMatchObject({ requests: 20, responses: 20, queues: 0, queued: 0 });
    rest.close();
  });
});

/** Pending timers of this process (process.getActiveResourcesInfo names each one "Timeout"). */
function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}
