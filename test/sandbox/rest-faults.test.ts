import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxRestEvents } from '../../src/sandbox/index.js';
import { api } from './helpers.js';

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function start(): Promise<Sandbox> {
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 2 } });
  sandboxes.push(sb);
  return sb;
}

const bot = (sb: Sandbox) => ({ headers: { authorization: `Bot ${sb.botToken}` } });

describe('sandbox: forced 429s, REST answers, the recommended shard count', () => {
  it('answers the next requests of a bucket 429 with the given retry_after and scope, then as usual', async () => {
    const sb = await start();
    const seen: SandboxRestEvents['response'][0][] = [];
    sb.restEvents.on('response', (e) => seen.push(e));
    sb.restFaults.rateLimit({ bucket: 'gateway', retryAfterMs: 1500, count: 2 });
    const first = await api(sb.restUrl, 'GET', '/gateway/bot', bot(sb));
    expect(first.status).toBe(429);
    expect(first.body).toEqual({ message: 'You are being rate limited.', retry_after: 1.5, global: false });
    expect(first.headers.get('x-ratelimit-scope')).toBe('user');
    expect(first.headers.get('retry-after')).toBe('2');
    // With the bucket's headers, used up until retry_after (reference §3.2: a user 429 carries them).
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(first.headers.get('x-ratelimit-reset-after')).toBe('1.500');
    expect(first.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(first.headers.get('x-ratelimit-limit')).toEqual(expect.stringMatching(/^\d+$/));
    expect((await api(sb.restUrl, 'GET', '/gateway/bot', bot(sb))).status).toBe(429);
    expect((await api(sb.restUrl, 'GET', '/gateway/bot', bot(sb))).status).toBe(200);
    expect(seen.map((e) => [e.method, e.path, e.bucket, e.status])).toEqual([
      ['GET', '/api/v10/gateway/bot', 'gateway', 429],
      ['GET', '/api/v10/gateway/bot', 'gateway', 429],
      ['GET', '/api/v10/gateway/bot', 'gateway', 200],
    ]);
    expect(sb.counters.rest429s).toBe(2);

    // A global one, through the admin API.
    const admin = await api(sb.adminUrl, 'POST', '/rest/faults', { body: { bucket: 'users.me', retryAfterMs: 250, scope: 'global' } });
    expect(admin.status).toBe(204);
    const global = await api(sb.restUrl, 'GET', '/users/@me', bot(sb));
    expect(global.status).toBe(429);
    expect(global.headers.get('x-ratelimit-global')).toBe('true');
    expect(global.body).toMatchObject({ retry_after: 0.25, global: true });
    expect(global.headers.get('x-ratelimit-bucket')).toBeNull();
    // A shared one leaves the bucket as it is: Remaining may be above 0 (reference §3.2).
    sb.restFaults.rateLimit({ bucket: 'users.me', retryAfterMs: 250, scope: 'shared' });
    const shared = await api(sb.restUrl, 'GET', '/users/@me', bot(sb));
    expect(shared.status).toBe(429);
    expect(shared.headers.get('x-ratelimit-scope')).toBe('shared');
    expect(Number(shared.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    expect(shared.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect((await api(sb.adminUrl, 'POST', '/rest/faults', { body: { bucket: 'users.me' } })).status).toBe(400);
  });

  it('an unauthenticated request does not use up a forced 429, and is reported with its status', async () => {
    const sb = await start();
    const seen: number[] = [];
    sb.restEvents.on('response', (e) => seen.push(e.status));
    sb.restFaults.rateLimit({ bucket: 'users.me', retryAfterMs: 100 });
    expect((await api(sb.restUrl, 'GET', '/users/@me', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await api(sb.restUrl, 'GET', '/users/@me', bot(sb))).status).toBe(429);
    expect(seen).toEqual([401, 429]);
  });

  it('GET /gateway/bot recommends the shard count set at run time (programmatically or by the admin API)', async () => {
    const sb = await start();
    const shards = async (): Promise<number> => (await api(sb.restUrl, 'GET', '/gateway/bot', bot(sb))).body.shards;
    expect(await shards()).toBe(1);
    sb.setRecommendedShards(4);
    expect(await shards()).toBe(4);
    const set = await api(sb.adminUrl, 'PUT', '/gateway/recommended-shards', { body: { count: 8 } });
    expect(set).toMatchObject({ status: 200, body: { shards: 8 } });
    expect(await shards()).toBe(8);
    expect((await api(sb.adminUrl, 'PUT', '/gateway/recommended-shards', { body: { count: 0 } })).status).toBe(400);
    await api(sb.adminUrl, 'PUT', '/gateway/recommended-shards', { body: { count: null } });
    expect(await shards()).toBe(1);
  });
});
