/**
 * One process of a bot's fleet for the fleet tests and `npm run bench -- rest-shared`: a RestClient on
 * SharedRateLimits over the fleet connection, as the Runtime builds them in cluster mode
 * (runtime.ts useSharedRestLimits, runtime/fleet-redis.ts). Driven over the IPC channel by fleet.ts: it runs
 * batches of requests and reports what came of them, its 429s as they happen, and its store's counters.
 */
import pino from 'pino';
import { RestClient } from '../../../src/rest/index.js';
import { SharedRateLimits, type SharedRateLimitsOptions } from '../../../src/rest/redis/index.js';
import { openFleetRedis } from '../../../src/runtime/fleet-redis.js';
import type { ChildCommand, ChildConfig, ChildReport } from './fleet-protocol.js';

const config = JSON.parse(process.env.FLEET_CHILD ?? '{}') as ChildConfig;
const log = pino({ level: process.env.FLEET_LOG_LEVEL ?? 'warn', base: { fleet: config.name } }, pino.destination(2));
const redis = openFleetRedis(config.redisUrl, log);
const store = new SharedRateLimits({ redis, namespace: config.namespace, logger: log, ...(config.store as Partial<SharedRateLimitsOptions>) });
const rest = new RestClient({ baseUrl: config.baseUrl, token: config.token, limits: store, logger: log, ...config.client });

function report(r: ChildReport): void {
  process.send?.(r);
}

rest.on('rateLimited', (e) => report({ ev: 'rl', route: e.route, scope: e.scope, global: e.global, retryAfterMs: e.retryAfterMs }));

async function run(command: Extract<ChildCommand, { op: 'run' }>): Promise<void> {
  const started = performance.now();
  const failures: string[] = [];
  let ok = 0;
  let next = 0;
  const one = async (): Promise<void> => {
    for (let i = next++; i < command.requests.length; i = next++) {
      const r = command.requests[i]!;
      if (command.intervalMs !== undefined) {
        const due = started + i * command.intervalMs;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      }
      try {
        await rest.request({ method: r.method, route: r.route, params: r.params, headers: { 'x-fleet-member': config.name } });
        ok++;
      } catch (err) {
        failures.push(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
      }
    }
  };
  const lanes = Math.max(1, Math.min(command.concurrency ?? command.requests.length, command.requests.length));
  await Promise.all(Array.from({ length: lanes }, one));
  report({ ev: 'done', id: command.id, ok, failures, ms: performance.now() - started });
}

process.on('message', (message: ChildCommand) => {
  if (message.op === 'run') void run(message);
  else if (message.op === 'stats') {
    report({ ev: 'stats', id: message.id, store: store.stats(), mode: rest.limitsMode, processes: store.processes });
  } else if (message.op === 'exit') {
    rest.close();
    redis.disconnect();
    setTimeout(() => process.exit(0), 50).unref();
  }
});
process.on('disconnect', () => process.exit(0));

// Ready once the fleet connection answers and this process has been counted.
const readyAt = performance.now();
const ready = setInterval(() => {
  if (redis.status === 'ready' && store.processes >= 1) {
    clearInterval(ready);
    report({ ev: 'ready', ms: performance.now() - readyAt });
  }
}, 10);
