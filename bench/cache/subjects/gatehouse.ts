/** gatehouse's cache, both backends, fed the same packets (t and d of each dispatch). */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryCache, RedisCache, type Cache } from '../../../src/cache/index.js';
import type { DispatchPacket } from '../workload.js';
import type { CacheSubject, SubjectCounts } from './types.js';

abstract class GatehouseSubject implements CacheSubject {
  abstract readonly name: string;
  abstract readonly inProcess: boolean;
  protected cache!: Cache;

  abstract setup(): Promise<void>;

  feed(packets: DispatchPacket[]): void | Promise<void> {
    const cache = this.cache;
    for (let i = 0; i < packets.length; i++) {
      const p = packets[i]!;
      cache.apply(p.t, p.d);
    }
    // Redis: until the writes and the work they started (a complete member list's sync) are done.
    return this.cache.backend === 'redis' ? cache.settled() : undefined;
  }

  async counts(): Promise<SubjectCounts> {
    const s = await this.cache.sizes();
    return { guilds: s.guilds, members: s.members, users: s.users, roles: s.roles };
  }

  async teardown(): Promise<void> {
    await this.cache.close();
  }
}

export class GatehouseMemorySubject extends GatehouseSubject {
  readonly name = 'gatehouse memory';
  readonly inProcess = true;

  async setup(): Promise<void> {
    this.cache = new MemoryCache();
  }
}

export class GatehouseRedisSubject extends GatehouseSubject {
  readonly name = 'gatehouse redis';
  readonly inProcess = false;
  private redis!: Redis;
  private prefix = '';
  private usedBefore = 0;

  async setup(): Promise<void> {
    this.redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
    await this.redis.connect();
    this.prefix = `gh-bench:${randomBytes(4).toString('hex')}`;
    this.usedBefore = await usedMemory(this.redis);
    this.cache = new RedisCache(this.redis, { prefix: this.prefix });
  }

  async extra(): Promise<Record<string, number>> {
    const members = (await this.cache.sizes()).members;
    const used = await usedMemory(this.redis);
    return { redisBytesPerMember: members > 0 ? (used - this.usedBefore) / members : 0 };
  }

  override async teardown(): Promise<void> {
    await this.cache.close();
    // The benchmark's keys go with it, however many there are.
    let cursor = '0';
    let rounds = 0;
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0' && ++rounds < 100_000);
    this.redis.disconnect();
  }
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const m = /used_memory:(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}
