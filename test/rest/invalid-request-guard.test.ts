import { afterEach, describe, expect, it } from 'vitest';
import { InvalidRequestGuard } from '../../src/rest/invalid-request-guard.js';
import { InvalidRequestGuardError, RestClient, type InvalidRequestWarningEvent } from '../../src/rest/index.js';
import { startFakeApi, userRateLimited, type FakeApi } from './helpers/fake-api.js';

describe('InvalidRequestGuard (clock injected)', () => {
  it('blocks at the limit within the window and reopens as the oldest entries expire', () => {
    let now = 0;
    const guard = new InvalidRequestGuard(3, 1000, () => now);
    guard.record();
    now = 100;
    guard.record();
    now = 200;
    expect(guard.blockedFor()).toBe(0);
    guard.record();
    expect(guard.count()).toBe(3);
    expect(guard.blockedFor()).toBe(800); // the first expires at 1000
    now = 999;
    expect(guard.blockedFor()).toBe(1);
    now = 1000;
    expect(guard.blockedFor()).toBe(0);
    expect(guard.count()).toBe(2);
    now = 5000;
    expect(guard.count()).toBe(0);
  });

  it('keeps counting at the limit without growing', () => {
    let now = 0;
    const guard = new InvalidRequestGuard(2, 1000, () => now);
    for (let i = 0; i < 10; i++) {
      now += 10;
      guard.record();
    }
    expect(guard.count()).toBe(2);
    now = 1095; // the two newest were at 90 and 100
    expect(guard.count()).toBe(1);
  });
});

describe('invalid-request guard in the client', () => {
  const open: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function setup(limit: number): Promise<{ api: FakeApi; rest: RestClient; warnings: InvalidRequestWarningEvent[] }> {
    const api = await startFakeApi();
    open.push(api);
    const rest = new RestClient({
      baseUrl: api.baseUrl,
      token: 'guard-test-token',
      invalidRequestLimit: limit,
      invalidRequestWindowMs: 60_000,
      invalidRequestWarningInterval: 2,
    });
    open.push(rest);
    const warnings: InvalidRequestWarningEvent[] = [];
    rest.on('invalidRequestWarning', (w) => warnings.push(w));
    return { api, rest, warnings };
  }

  it('stops sending once 401/403/429 responses reach the limit, with a typed error', async () => {
    const { api, rest, warnings } = await setup(6);
    api.onAny((r) =>
      r.path === '/users/@me'
        ? { status: 401, body: { message: '401: Unauthorized', code: 0 } }
        : r.path === '/guilds/1'
          ? { status: 403, body: { message: 'Missing Access', code: 50001 } }
          : undefined,
    );
    api.script('GET', /^\/gateway\/bot$/, [userRateLimited(10)]);

    for (let i = 0; i < 3; i++) await rest.request({ method: 'GET', route: '/users/@me' }).catch(() => undefined);
    await rest.request({ method: 'GET', route: '/guilds/{guild_id}', params: { guild_id: '1' } }).catch(() => undefined);
    await rest.request({ method: 'GET', route: '/gateway/bot' }); // 429 (counted), then 200
    expect(rest.stats().invalidInWindow).toBe(5);
    await rest.request({ method: 'GET', route: '/users/@me' }).catch(() => undefined); // the 6th
    expect(api.requests).toHaveLength(7);

    const err = await rest.request({ method: 'GET', route: '/gateway/bot' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestGuardError);
    expect(err).toMatchObject({ count: 6, limit: 6, route: '/gateway/bot' });
    expect((err as InvalidRequestGuardError).retryAfterMs).toBeGreaterThan(50_000);
    expect(api.requests).toHaveLength(7); // nothing more went out
    expect(warnings.map((w) => w.count)).toEqual([2, 4, 6]);
  });

  it('does not count 429s of shared scope', async () => {
    const { api, rest } = await setup(2);
    api.script('GET', /^\/channels\/9$/, [userRateLimited(10, 'shared'), userRateLimited(10, 'shared'), userRateLimited(10, 'shared')]);
    await rest.request({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: '9' } });
    expect(api.requests.map((r) => r.status)).toEqual([429, 429, 429, 200]);
    expect(rest.stats().invalidInWindow).toBe(0);
  });
});
