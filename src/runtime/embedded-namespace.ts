/**
 * The Redis namespace of a bot on an embedded sandbox. Every sandbox is the same application (one fixed id, the
 * same seeded guild and user ids), so namespacing by application id alone, as real bots are, would give every
 * embedded bot sharing a Redis one cache: each would see the others' members and entitlements. A sandbox is a
 * world of its own that ends with it, so its bot's keys get a namespace of their own, `<prefix>:{<application
 * id>:sandbox-<random>}`, removed when the bot stops.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

const ids = new WeakMap<object, string>();

/** What the cache (and webhook-event) keys of a bot on this sandbox are namespaced by: one per sandbox. */
export function embeddedNamespaceId(applicationId: string, sandbox: object): string {
  let id = ids.get(sandbox);
  if (id === undefined) {
    id = randomBytes(6).toString('hex');
    ids.set(sandbox, id);
  }
  return `${applicationId}:sandbox-${id}`;
}

/** A SCAN pattern matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Remove every key under `namespace` (SCAN + UNLINK, bounded); returns how many went. */
export async function dropNamespace(redis: Redis, namespace: string): Promise<number> {
  let cursor = '0';
  let removed = 0;
  let rounds = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${literal(namespace)}:*`, 'COUNT', 500);
    if (keys.length > 0) removed += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0' && ++rounds < 100_000);
  return removed;
}
