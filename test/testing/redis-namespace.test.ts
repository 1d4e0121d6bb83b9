/**
 * Two bots on embedded sandboxes with one Redis: every sandbox is the same application (the same id, the same
 * seeded guild ids), so a cache namespaced by application id alone was one cache for both, and each bot saw the
 * other's members. Each embedded sandbox now has a namespace of its own, removed by whoever owns the sandbox when
 * its bot stops (the runtime for the sandbox it started, the test kit for its own).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { startBot, type TestBot } from '../../src/testing/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { dropPrefix } from '../cache/redis-cleanup.js';

describeWithRedis('two bots on embedded sandboxes sharing a Redis', () => {
  const prefix = uniquePrefix('embedded-namespace');
  const redisConfig = { redisUrl: REDIS_URL, cache: { redisPrefix: prefix } };
  let admin: Redis;
  let a: TestBot;
  let b: TestBot;

  beforeAll(async () => {
    admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    [a, b] = await Promise.all([startBot({ plugins: [], config: redisConfig }), startBot({ plugins: [], config: redisConfig })]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropPrefix(admin, prefix);
    admin.disconnect();
  });

  it('keep their caches apart, and each is removed when its bot stops', async () => {
    expect(a.applicationId).toBe(b.applicationId);
    expect(a.guild.id).toBe(b.guild.id);
    expect(a.runtime.cache.backend).toBe('redis');

    // A member joins A's sandbox only: B's world has no such member, and B's cache must not say otherwise.
    const only = await a.join({ username: 'only-in-a' });
    expect((await a.runtime.cache.getMember(a.guild.id, only.id))?.user?.username).toBe('only-in-a');
    expect(await b.runtime.cache.getMember(b.guild.id, only.id)).toBeUndefined();
    expect((await b.runtime.cache.getMembers(b.guild.id, { limit: 1000 })).members.map((m) => m.userId)).not.toContain(only.id);

    // Each bot's keys live under a namespace of its own; A's go when A stops, B's stay.
    const keysOf = (bot: TestBot): Promise<string[]> => keysUnder(bot.runtime.cacheNamespace);
    expect(a.runtime.cacheNamespace).not.toBe(b.runtime.cacheNamespace);
    expect(a.runtime.cacheNamespace.startsWith(`${prefix}:{${a.applicationId}:sandbox-`)).toBe(true);
    expect((await keysOf(a)).length).toBeGreaterThan(0);
    await a.close();
    expect(await keysOf(a)).toEqual([]);
    expect((await keysOf(b)).length).toBeGreaterThan(0);
  });

  it('npm start\'s own embedded sandbox: the bot removes its keys when it stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-embedded-ns-'));
    try {
      // The runtime starts its own sandbox (no token, no sandbox given), as `npm start` does.
      const config = loadConfig({ cwd: dir, env: {}, overrides: { ...redisConfig, plugins: { dirs: [dir] }, http: { enabled: false } } });
      const runtime = new Runtime({ config, cwd: dir, log: silentLogger(), production: false });
      try {
        await runtime.start();
        expect(runtime.sandbox).not.toBeNull();
        expect(runtime.cacheNamespace.startsWith(`${prefix}:{${runtime.applicationId}:sandbox-`)).toBe(true);
        expect((await keysUnder(runtime.cacheNamespace)).length).toBeGreaterThan(0);
      } finally {
        await runtime.stop({ graceMs: 500 });
      }
      expect(await keysUnder(runtime.cacheNamespace)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function keysUnder(namespace: string): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    let rounds = 0;
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${namespace.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      out.push(...keys);
      cursor = next;
    } while (cursor !== '0' && ++rounds < 1_000);
    return out;
  }
});
