/**
 * The cooldown stores of the preconditions: the memory one and the Redis one answer alike (a sliding window of
 * `limit` uses, refused until the use that frees it leaves), and the Redis one is exact across connections
 * (processes) racing for one window and keeps the window when a new store (a restarted process) asks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCooldowns, RedisCooldowns, type CooldownStore } from '../../src/cluster/cooldowns.js';
import { describeWithRedis } from '../helpers/redis.js';
import { redisScope, type RedisScope } from './helpers.js';

function conformance(name: string, make: () => CooldownStore): void {
  describe(name, () => {
    it('takes `limit` uses per window and says when the next one is allowed', async () => {
      const store = make();
      const t0 = 1_700_000_000_000;
      expect(await store.take('u:1', 2, 10_000, t0)).toEqual({ ok: true, retryAt: 0, remaining: 1 });
      expect(await store.take('u:1', 2, 10_000, t0 + 1_000)).toEqual({ ok: true, retryAt: 0, remaining: 0 });
      expect(await store.take('u:1', 2, 10_000, t0 + 2_000)).toEqual({ ok: false, retryAt: t0 + 10_000, remaining: 0 });
      // Another key has its own window.
      expect((await store.take('u:2', 2, 10_000, t0 + 2_000)).ok).toBe(true);
      // The first use leaves the window at t0 + 10 s: one use is free again, not two.
      expect((await store.take('u:1', 2, 10_000, t0 + 10_000)).ok).toBe(true);
      expect(await store.take('u:1', 2, 10_000, t0 + 10_500)).toEqual({ ok: false, retryAt: t0 + 11_000, remaining: 0 });
    });

    it('a refused use does not extend the window', async () => {
      const store = make();
      const t0 = 1_700_000_100_000;
      expect((await store.take('k', 1, 5_000, t0)).ok).toBe(true);
      for (let i = 1; i <= 4; i++) expect((await store.take('k', 1, 5_000, t0 + i * 1_000)).retryAt).toBe(t0 + 5_000);
      expect((await store.take('k', 1, 5_000, t0 + 5_000)).ok).toBe(true);
    });
  });
}

conformance('memory cooldowns', () => new MemoryCooldowns());

describeWithRedis('Redis cooldowns', () => {
  let scope: RedisScope | null = null;
  afterEach(async () => {
    await scope?.close();
    scope = null;
  });
  const open = (): RedisScope => (scope ??= redisScope('cooldowns'));

  conformance('conformance', () => new RedisCooldowns(open().connect(), open().prefix));

  it('is exact across processes racing for one window, and outlives them', async () => {
    const s = open();
    const stores = [0, 1, 2].map(() => new RedisCooldowns(s.connect(), s.prefix));
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.take('u:race', 1, 10_000)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const refused = results.filter((r) => !r.ok);
    expect(new Set(refused.map((r) => r.retryAt)).size).toBe(1);
    // A store made afterwards (a restarted process) sees the same window.
    const again = await new RedisCooldowns(s.connect(), s.prefix).take('u:race', 1, 10_000);
    expect(again.ok).toBe(false);
    expect(again.retryAt).toBe(refused[0]!.retryAt);
    // Without a caller's clock the server's decides: the window ends about 10 s from now.
    expect(Math.abs(again.retryAt - (Date.now() + 10_000))).toBeLessThan(10_000);
    expect(await s.admin.pttl(`${s.prefix}:cd:u:race`)).toBeGreaterThan(0);
  });
});
