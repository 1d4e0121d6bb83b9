/**
 * The test suite writes to the Redis database REDIS_URL names, and only there: the proxies and gates tests put
 * between a client and Redis keep the database and the credentials (they used to hand out
 * `redis://127.0.0.1:PORT`, database 0, whatever REDIS_URL said).
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisGate } from '../cluster/helpers.js';
import { redisProxy } from '../helpers/redis-proxy.js';
import { describeWithRedis, REDIS_DB, REDIS_URL, redisDb, redisUrlVia, redisUrlWith, uniquePrefix } from '../helpers/redis.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('URLs the suite builds for Redis', () => {
  it('keep the database, credentials and options of the URL they stand in for', async () => {
    // Nothing connects here: a gate or a proxy only dials its target when a client connects to it.
    const target = 'redis://user:p%40ss@127.0.0.1:6379/9?family=4';
    const gate = await redisGate(target);
    closers.push(() => gate.close());
    const proxy = await redisProxy(target);
    closers.push(() => proxy.close());
    expect(gate.url).toBe(`redis://user:p%40ss@127.0.0.1:${gate.port}/9?family=4`);
    expect(proxy.url).toBe(`redis://user:p%40ss@127.0.0.1:${proxy.port}/9?family=4`);
    expect(redisDb(gate.url)).toBe(9);
    expect(redisDb(proxy.url)).toBe(9);
    expect(redisUrlVia(1234, 'redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:1234');
    expect(redisUrlWith({ password: 'secret' }, 'redis://127.0.0.1:6379/3')).toBe('redis://:secret@127.0.0.1:6379/3');
    expect(redisDb('redis://127.0.0.1:6379')).toBe(0);
    expect(redisDb('redis://127.0.0.1:6379?db=4')).toBe(4);
    expect(() => redisDb('redis://127.0.0.1:6379/x')).toThrow(/no database/);
  });
});

describeWithRedis(`the suite's Redis database (${REDIS_DB}, from REDIS_URL)`, () => {
  it('is where writes through a gate and a proxy land', async () => {
    const prefix = uniquePrefix('redis-db');
    const direct = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    closers.push(() => direct.disconnect());
    const gate = await redisGate(REDIS_URL);
    closers.push(() => gate.close());
    const proxy = await redisProxy(REDIS_URL);
    closers.push(() => proxy.close());
    for (const [name, url] of [['gate', gate.url], ['proxy', proxy.url]] as const) {
      const client = new Redis(url, { maxRetriesPerRequest: 1 });
      closers.push(() => client.disconnect());
      await client.set(`${prefix}:${name}`, name, 'PX', 60_000);
      expect(await direct.get(`${prefix}:${name}`)).toBe(name);
      await direct.del(`${prefix}:${name}`);
    }
  });
});
