import type { Redis } from 'ioredis';

/** Remove every key under a test prefix (SCAN, bounded). */
export async function dropPrefix(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  let rounds = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    if (keys.length > 0) await client.unlink(...keys);
    cursor = next;
  } while (cursor !== '0' && ++rounds < 10_000);
}
