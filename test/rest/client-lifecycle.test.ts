import { afterEach, describe, expect, it } from 'vitest';
import { RestClient, RestError, restClientFromConfig } from '../../src/rest/index.js';
import { startFakeApi, type FakeApi } from './helpers/fake-api.js';

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
    expect(await queued).toMatchObject({ name: 'RestError', message: 'GET /users/@me: client closed' });
    await inFlight; // settles one way or the other, without hanging
    await expect(rest.request({ method: 'GET', route: '/users/@me' })).rejects.toBeInstanceOf(RestError);
    expect(server.requests).toHaveLength(1);
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
