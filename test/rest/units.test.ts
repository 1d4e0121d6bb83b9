import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GlobalLimiter } from '../../src/rest/global-limiter.js';
import { parseRateLimitHeaders } from '../../src/rest/headers.js';
import { compileRoute, majorKey, renderPath, routeId } from '../../src/rest/route.js';
import { LIBRARY_VERSION, userAgent } from '../../src/rest/user-agent.js';
import { readFileSync } from 'node:fs';

describe('GlobalLimiter (clock injected)', () => {
  it('admits `limit` per sliding window, per identity, counting each slot until a window after its response', () => {
    let now = 1000;
    const g = new GlobalLimiter(3, 1000, () => now);
    const slots = [g.tryAcquire('bot')!, g.tryAcquire('bot')!, g.tryAcquire('bot')!];
    expect(g.tryAcquire('bot')).toBeNull();
    // All three are out: none can free before a window from now.
    expect(g.delay('bot')).toBe(1000);
    expect(g.delay('other')).toBe(0);
    now = 1100;
    for (const s of slots) g.release(s, now);
    expect(g.delay('bot')).toBe(1000);
    now = 1600;
    expect(g.delay('bot')).toBe(500);
    now = 2100;
    expect(g.delay('bot')).toBe(0);
    expect(g.free('bot')).toBe(3);
  });

  it('a slot whose request never left is free at once; one whose response is late holds until a window after it', () => {
    let now = 0;
    const g = new GlobalLimiter(2, 1000, () => now);
    const a = g.tryAcquire('bot')!;
    const b = g.tryAcquire('bot')!;
    g.release(a, null);
    expect(g.delay('bot')).toBe(0);
    now = 5000; // b's response took 5 s: it may have reached the service just before
    g.release(b, now);
    g.tryAcquire('bot');
    expect(g.delay('bot')).toBe(1000);
    // A second release of the same slot changes nothing.
    g.release(b, 5500);
    expect(g.delay('bot')).toBe(1000);
  });

  it('never admits more than the limit in any window, whatever the delay between admission and response', () => {
    let now = 0;
    const g = new GlobalLimiter(5, 1000, () => now);
    // Each request "arrives" at the service some time between its admission and its response.
    const out: Array<{ slot: NonNullable<ReturnType<GlobalLimiter['tryAcquire']>>; respondAt: number; arrival: number }> = [];
    const arrivals: number[] = [];
    for (let step = 0; step < 5000 && arrivals.length < 40; step++) {
      now = step * 10;
      for (const o of out.filter((o) => o.respondAt <= now)) g.release(o.slot, now);
      out.splice(0, out.length, ...out.filter((o) => o.respondAt > now));
      for (let slot = g.tryAcquire('bot'); slot !== null && arrivals.length < 40; slot = g.tryAcquire('bot')) {
        const latency = (step * 37) % 300;
        const arrival = now + (latency * ((step * 13) % 7)) / 7;
        arrivals.push(arrival);
        out.push({ slot, respondAt: now + latency, arrival });
      }
    }
    expect(arrivals).toHaveLength(40);
    for (const t of arrivals) expect(arrivals.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(5);
  });

  it('pause holds an identity until it ends', () => {
    let now = 0;
    const g = new GlobalLimiter(50, 1000, () => now);
    g.pause('bot', 700);
    expect(g.delay('bot')).toBe(700);
    expect(g.pausedFor('bot')).toBe(700);
    now = 700;
    expect(g.delay('bot')).toBe(0);
  });
});

describe('routes', () => {
  it('renders templates with encoded params and keys buckets on major params only', () => {
    const r = compileRoute('/channels/{channel_id}/messages/{message_id}');
    expect(renderPath(r, { channel_id: '1', message_id: '2' })).toBe('/channels/1/messages/2');
    expect(majorKey(r, { channel_id: '1', message_id: '2' })).toBe('1');
    expect(majorKey(r, { channel_id: '1', message_id: '3' })).toBe('1');
    expect(routeId('GET', r)).toBe('GET /channels/{channel_id}/messages/{message_id}');
  });

  it('keys interaction routes per interaction, with the token digested', () => {
    const r = compileRoute('/webhooks/{application_id}/{interaction_token}/messages/@original');
    const key = majorKey(r, { application_id: '1', interaction_token: 'super-secret-interaction-token' });
    expect(key).not.toContain('super-secret');
    expect(key).toHaveLength(16);
    // The first 16 characters of the token's SHA-256 in base64url, whichever hashing API computed it.
    expect(key).toBe(createHash('sha256').update('super-secret-interaction-token').digest('base64url').slice(0, 16));
    expect(majorKey(r, { application_id: '1', interaction_token: 'another-secret-interaction-token' })).not.toBe(key);
    expect(r.globalExempt).toBe(true);
    expect(compileRoute('/interactions/{interaction_id}/{interaction_token}/callback').globalExempt).toBe(true);
    expect(compileRoute('/applications/{application_id}/commands').globalExempt).toBe(false);
  });

  it('guild_id is major wherever it appears', () => {
    const r = compileRoute('/applications/{application_id}/guilds/{guild_id}/commands');
    expect(majorKey(r, { application_id: '1', guild_id: '2' })).toBe('2');
    expect(majorKey(compileRoute('/users/@me'), {})).toBe('-');
  });

  it('rejects malformed templates', () => {
    expect(() => compileRoute('users/@me')).toThrow(TypeError);
    expect(() => compileRoute('/users?x=1')).toThrow(TypeError);
    expect(() => compileRoute('/users/{Bad}')).toThrow(TypeError);
  });
});

describe('rate-limit headers', () => {
  it('parses the bucket headers, preferring Reset-After over Reset', () => {
    const info = parseRateLimitHeaders(
      {
        'x-ratelimit-bucket': 'abcd1234',
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1470173023.123',
        'x-ratelimit-reset-after': '64.57',
        'x-ratelimit-scope': 'Shared',
        'retry-after': '65',
      },
      1470173000000,
    );
    expect(info.resetAfterMs).toBeCloseTo(64570, 6);
    expect(info).toEqual({
      bucket: 'abcd1234',
      limit: 5,
      remaining: 0,
      resetAfterMs: info.resetAfterMs,
      global: false,
      scope: 'shared',
      retryAfterMs: 65000,
    });
  });

  it('falls back to X-RateLimit-Reset against the clock, and reads X-RateLimit-Global', () => {
    const info = parseRateLimitHeaders({ 'x-ratelimit-reset': '100.5', 'x-ratelimit-global': 'true' }, 100_000);
    expect(info.resetAfterMs).toBe(500);
    expect(info.global).toBe(true);
    expect(parseRateLimitHeaders({}).bucket).toBeNull();
  });
});

describe('user agent', () => {
  it('carries the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(LIBRARY_VERSION).toBe(pkg.version);
    expect(userAgent()).toBe(`DiscordBot (https://github.com/gatehouse/gatehouse, ${pkg.version})`);
  });
});
