/**
 * The Redis connection of the fleet-wide limits (shared REST limits, the identify budget, resharding), opened like
 * every other Redis client of the process (util/redis-connection.ts: errors through the redacting logger, one line
 * per outage naming host:port, reconnection with backoff).
 *
 * A command is retried once over a reconnect, then fails: its callers bound their own waits (the REST limits fall
 * back to local ones when a call is not answered in time), so a Redis outage never stalls a request for long.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { openRedis } from '../util/redis-connection.js';

export function openFleetRedis(url: string, log: Logger): Redis {
  return openRedis(url, {
    name: 'fleet limits',
    logger: log,
    redisOptions: { connectTimeout: 5_000, maxRetriesPerRequest: 1 },
  });
}
