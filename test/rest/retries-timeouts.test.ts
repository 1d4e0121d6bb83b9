import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  NetworkError,
  RequestAbortedError,
  RestClient,
  RestError,
  TimeoutError,
  type RestClientOptions,
} from '../../src/rest/index.js';
import { startFakeApi, type FakeApi } from './helpers/fake-api.js';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(options: RestClientOptions = {}): Promise<{ api: FakeApi; rest: RestClient }> {
  const api = await startFakeApi();
  open.push(api);
  const rest = new RestClient({ baseUrl: api.baseUrl, token: 'retry-test-token', retryBaseDelayMs: 20, ...options });
  open.push(rest);
  return { api, rest };
}

const getMe = (rest: RestClient, extra: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<unknown> =>
  rest.request({ method: 'GET', route: '/users/@me', ...extra });

describe('retries', () => {
  it('retries 502/503/500 with backoff, then succeeds', async () => {
    const { api, rest } = await setup({ retries: 3 });
    api.script('GET', /^\/users\/@me$/, [
      { status: 502, body: 'Bad Gateway', headers: { 'content-type': 'text/html' } },
      { status: 503, body: { message: 'overloaded', code: 130000 } },
      { status: 500, body: { message: 'oops', code: 0 } },
    ]);
    const attempts: number[] = [];
    rest.on('request', (e) => attempts.push(e.attempt));
    await expect(getMe(rest)).resolves.toMatchObject({ ok: true });
    expect(api.requests.map((r) => r.status)).toEqual([502, 503, 500, 200]);
    expect(attempts).toEqual([0, 1, 2, 3]);
    expect(rest.stats().retries).toBe(3);
  });

  it('gives up after the configured number of retries with an ApiError carrying the status', async () => {
    const { api, rest } = await setup({ retries: 2 });
    api.script('GET', /^\/users\/@me$/, [{ status: 504 }, { status: 504 }, { status: 504 }, { status: 504 }]);
    const err = await getMe(rest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 504, method: 'GET', route: '/users/@me' });
    expect(api.requests).toHaveLength(3);
  });

  it('never retries a 4xx other than 429', async () => {
    const { api, rest } = await setup();
    api.script('GET', /^\/users\/@me$/, [{ status: 404, body: { message: 'Unknown User', code: 10013 } }]);
    const err = await getMe(rest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 10013 });
    expect(api.requests).toHaveLength(1);
  });

  it('retries a dropped connection, then succeeds', async () => {
    const { api, rest } = await setup();
    api.script('GET', /^\/users\/@me$/, [{ status: 0, destroy: true }]);
    await expect(getMe(rest)).resolves.toMatchObject({ ok: true });
    expect(api.requests).toHaveLength(2);
  });

  it('surfaces a NetworkError after bounded retries when nothing listens', async () => {
    // A port that was just free: bind, read it, close.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const rest = new RestClient({ baseUrl: `http://127.0.0.1:${port}/api/v10`, token: 'x-token-123', retries: 2, retryBaseDelayMs: 10 });
    open.push(rest);
    const sent: number[] = [];
    rest.on('request', (e) => sent.push(e.attempt));
    const err = await getMe(rest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ attempts: 3, errorCode: 'ECONNREFUSED', route: '/users/@me' });
    expect(sent).toEqual([0, 1, 2]);
  });
});

describe('timeouts and cancellation', () => {
  it('a slow response surfaces as a typed TimeoutError, not retried', async () => {
    const { api, rest } = await setup();
    api.script('GET', /^\/users\/@me$/, [{ status: 200, body: { late: true }, delayMs: 3000 }]);
    const err = await getMe(rest, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toBeInstanceOf(RestError);
    expect(err).toMatchObject({ name: 'TimeoutError', timeoutMs: 150, method: 'GET', route: '/users/@me' });
    expect((err as Error).message).toBe('GET /users/@me: no response within 150 ms');
    expect(api.requests).toHaveLength(1);
  });

  it('the client-wide timeout applies when the request sets none', async () => {
    const { api, rest } = await setup({ timeoutMs: 100 });
    api.script('GET', /^\/users\/@me$/, [{ status: 200, delayMs: 3000 }]);
    await expect(getMe(rest)).rejects.toBeInstanceOf(TimeoutError);
  });

  it("the caller's signal aborts a request on the wire and one still queued", async () => {
    const { api, rest } = await setup();
    api.script('GET', /^\/users\/@me$/, [{ status: 200, delayMs: 3000 }]);
    const controller = new AbortController();
    const onWire = getMe(rest, { signal: controller.signal }).catch((e: unknown) => e);
    const queued = getMe(rest, { signal: controller.signal }).catch((e: unknown) => e); // same bucket: waits
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect(await onWire).toBeInstanceOf(RequestAbortedError);
    expect(await queued).toBeInstanceOf(RequestAbortedError);
    expect(api.requests).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { api, rest } = await setup();
    await expect(getMe(rest, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RequestAbortedError);
    expect(api.requests).toHaveLength(0);
  });
});
