import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  createFollowup,
  createGlobalCommand,
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

describe('retries of requests that are not idempotent (POST)', () => {
  const followUp = (rest: RestClient): Promise<unknown> =>
    createFollowup(rest, '100000000000000001', 'interaction-token-xyz', { content: 'hi' });

  it('a 500 answer to a follow-up is not retried: a second POST could be a second message', async () => {
    const { api, rest } = await setup({ retries: 3 });
    api.script('POST', /^\/webhooks\//, [{ status: 500, body: { message: 'oops', code: 0 } }]);
    const err = await followUp(rest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500 });
    expect(api.requests).toHaveLength(1);
    expect(rest.stats().retries).toBe(0);
  });

  it('a connection dropped after a follow-up was sent is not retried, on a new or a kept-alive socket', async () => {
    const { api, rest } = await setup({ retries: 3 });
    api.script('POST', /^\/webhooks\//, [{ status: 0, destroy: true }, { status: 200, body: { id: '1' } }, { status: 0, destroy: true }]);
    const first = await followUp(rest).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(NetworkError);
    expect(first).toMatchObject({ attempts: 1 });
    await followUp(rest);
    // The server read this one before the reset: the reset of a reused socket is no proof it was not processed.
    const third = await followUp(rest).catch((e: unknown) => e);
    expect(third).toMatchObject({ name: 'NetworkError', attempts: 1 });
    expect(api.requests).toHaveLength(3);
  });

  it('a 502 (no gateway available to process the request) is retried whatever the method', async () => {
    const { api, rest } = await setup({ retries: 3 });
    api.script('POST', /^\/webhooks\//, [{ status: 502, body: 'Bad Gateway', headers: { 'content-type': 'text/html' } }]);
    await expect(followUp(rest)).resolves.toMatchObject({ ok: true });
    expect(api.requests.map((r) => r.status)).toEqual([502, 200]);
  });

  it('a POST that never reached the service (connection refused) is retried', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const rest = new RestClient({ baseUrl: `http://127.0.0.1:${port}/api/v10`, token: 'x-token-123', retries: 2, retryBaseDelayMs: 10 });
    open.push(rest);
    const err = await followUp(rest).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'NetworkError', attempts: 3, errorCode: 'ECONNREFUSED' });
  });

  it('the command create, an upsert by name, is retried like an idempotent request', async () => {
    const { api, rest } = await setup({ retries: 3 });
    api.script('POST', /\/commands$/, [{ status: 500, body: { message: 'oops', code: 0 } }, { status: 201, body: { id: '1', name: 'ping' } }]);
    const result = await createGlobalCommand(rest, '100000000000000001', { name: 'ping', description: 'Ping' });
    expect(result).toEqual({ command: { id: '1', name: 'ping' }, created: true });
    expect(api.requests.map((r) => r.status)).toEqual([500, 201]);
  });

  it('a request may declare itself idempotent (or not) against the method default', async () => {
    const { api, rest } = await setup({ retries: 3 });
    api.script('POST', /^\/channels\//, [{ status: 503 }]);
    await expect(rest.request({ method: 'POST', route: '/channels/{channel_id}/typing', params: { channel_id: '1' }, idempotent: true })).resolves.toBeDefined();
    api.script('PUT', /^\/channels\//, [{ status: 503 }]);
    const err = await rest
      .request({ method: 'PUT', route: '/channels/{channel_id}/voice-status', params: { channel_id: '1' }, body: {}, idempotent: false })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ApiError', status: 503 });
    expect(api.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['POST 503', 'POST 200', 'PUT 503']);
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
    // On the wire: the server has it (a fixed pause could end before it got there on a busy machine).
    for (let i = 0; i < 500 && api.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
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
