/**
 * The Redis connection of the fleet-wide limits (shared REST limits, the identify budget, resharding). Kept in
 * this one function so that it can follow the project's common way of creating Redis clients when there is one.
 *
 * The connection queues commands while it (re)connects; the users bound their own waits (the REST limits fall
 * back to local ones when a call is not answered in time), so a Redis outage never stalls a request for long.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export function openFleetRedis(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    connectTimeout: 5_000,
    // A command is retried once over a reconnect, then fails: its caller decides what a failure means.
    maxRetriesPerRequest: 1,
  });
  let down = false;
  redis.on('error', (error: Error) => {
    // Every reconnect attempt errors; say it once per outage (the limits say what they do about it).
    if (down) return;
    down = true;
    log.warn({ err: error }, 'fleet Redis connection failed (shared limits and resharding use it); reconnecting');
  });
  redis.on('ready', () => {
    if (down) log.info('fleet Redis connection is back');
    down = false;
  });
  return redis;
}
