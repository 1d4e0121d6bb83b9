/**
 * Prometheus metrics. Gauges are computed at scrape time from the components (no per-event work beyond
 * the counters the runtime already keeps), so metrics cost nothing on the hot path.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Cache } from '../cache/index.js';
import type { ShardManager } from '../gateway/index.js';
import type { RestClient } from '../rest/index.js';

const STATUSES = [
  'idle',
  'connecting',
  'waiting-identify',
  'identifying',
  'resuming',
  'ready',
  'reconnecting',
  'closed',
  'stopped',
] as const;

/** What the collectors read from the runtime (Runtime satisfies it; an interface so runtime.ts is not imported back). */
export interface MetricsSource {
  readonly parts: { readonly rest: RestClient | null; readonly cache: Cache | null; readonly gateway: ShardManager | null };
  readonly dispatches: number;
  readonly malformedPayloads: number;
  readonly interactionsInFlight: number;
  readonly endpointRequests?: ReadonlyMap<string, number>;
  readonly endpoint: { readonly responses: { readonly size: number } } | null;
  /** Interactions no plugin handles, by kind (command, autocomplete, component, modal), each answered "not available". */
  readonly unhandledInteractions?: ReadonlyMap<string, number>;
  /** Interactions a plugin's precondition denied, by `<precondition>\t<command or handler>`. */
  readonly preconditionDenials?: ReadonlyMap<string, number>;
}

export interface RuntimeMetrics {
  registry: Registry;
  /** Start counting REST responses (call once the REST client exists). */
  attach(): void;
  /** Stop listening to component events. */
  detach(): void;
}

/**
 * Build the registry for a runtime. Components appear during start(); collectors read whatever exists, so
 * a scrape during startup answers with what is known.
 */
export function createMetrics(runtime: MetricsSource, options: { processMetrics?: boolean } = {}): RuntimeMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'gatehouse_' });
  shardMetrics(registry, runtime);
  eventMetrics(registry, runtime);
  cacheMetrics(registry, runtime);
  interactionMetrics(registry, runtime);
  return { registry, ...restMetrics(registry, runtime) };
}

/** Per shard: heartbeat latency, status and queued sends. */
function shardMetrics(registry: Registry, runtime: MetricsSource): void {
  new Gauge({
    name: 'gatehouse_shard_latency_seconds',
    help: 'Heartbeat round trip per shard (-1 before the first acknowledgement)',
    labelNames: ['shard'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of runtime.parts.gateway?.status() ?? []) {
        this.set({ shard: String(s.id) }, s.latencyMs < 0 ? -1 : s.latencyMs / 1000);
      }
    },
  });
  new Gauge({
    name: 'gatehouse_shard_status',
    help: 'Shard connection status (1 for the current status)',
    labelNames: ['shard', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of runtime.parts.gateway?.status() ?? []) {
        for (const status of STATUSES) this.set({ shard: String(s.id), status }, s.status === status ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'gatehouse_shard_send_queue_depth',
    help: 'Gateway sends per shard waiting for the send rate limit or for the session to be live',
    labelNames: ['shard'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of runtime.parts.gateway?.status() ?? []) this.set({ shard: String(s.id) }, s.queuedSends);
    },
  });
}

/** Dispatches handled (a total and a rate) and payloads that broke the protocol. */
function eventMetrics(registry: Registry, runtime: MetricsSource): void {
  new Counter({
    name: 'gatehouse_gateway_events_total',
    help: 'Gateway dispatches handled',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(runtime.dispatches);
    },
  });
  new Counter({
    name: 'gatehouse_malformed_payloads_total',
    help: 'Received payloads that were not what the protocol says (each kind is logged at warn once a minute)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(runtime.malformedPayloads);
    },
  });
  let lastCount = runtime.dispatches;
  let lastAt = performance.now();
  new Gauge({
    name: 'gatehouse_gateway_events_per_second',
    help: 'Gateway dispatches per second since the previous scrape',
    registers: [registry],
    collect() {
      const now = performance.now();
      const count = runtime.dispatches;
      const seconds = (now - lastAt) / 1000;
      if (seconds > 0) this.set((count - lastCount) / seconds);
      lastCount = count;
      lastAt = now;
    },
  });
}

/** Cached records per resource and failed cache writes. */
function cacheMetrics(registry: Registry, runtime: MetricsSource): void {
  new Gauge({
    name: 'gatehouse_cache_entries',
    help: 'Cached records per resource',
    labelNames: ['resource'],
    registers: [registry],
    async collect() {
      const cache = runtime.parts.cache;
      if (cache === null) return;
      let sizes;
      try {
        sizes = await cache.sizes();
      } catch {
        // A Redis cache that cannot answer must not take every other metric down with it: no figures this time.
        this.reset();
        return;
      }
      for (const [resource, n] of Object.entries(sizes)) this.set({ resource }, n);
    },
  });

  new Counter({
    name: 'gatehouse_cache_write_errors_total',
    help: 'Cache writes to Redis that failed (each marks its guild stale until it is fetched again)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(runtime.parts.cache?.stats().writeErrors ?? 0);
    },
  });
}

/** REST responses and 429s (counted from the client's events), queued requests and where the limits live. */
function restMetrics(registry: Registry, runtime: MetricsSource): Omit<RuntimeMetrics, 'registry'> {
  const requests = new Counter({
    name: 'gatehouse_rest_requests_total',
    help: 'REST responses by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const limited = new Counter({
    name: 'gatehouse_rest_rate_limited_total',
    help: 'REST 429 responses by scope',
    labelNames: ['scope'],
    registers: [registry],
  });
  new Gauge({
    name: 'gatehouse_rest_queued_requests',
    help: 'REST requests waiting in bucket queues (including those being sent)',
    registers: [registry],
    collect() {
      this.set(runtime.parts.rest?.stats().queued ?? 0);
    },
  });
  new Gauge({
    name: 'gatehouse_rest_limits_mode',
    help: 'Where the REST limits are kept (1 for the current mode): local, shared (Redis, every process), shared-fallback (Redis unreachable: 1/N locally)',
    labelNames: ['mode'],
    registers: [registry],
    collect() {
      this.reset();
      const mode = runtime.parts.rest?.limitsMode;
      if (mode !== undefined) for (const m of ['local', 'shared', 'shared-fallback']) this.set({ mode: m }, m === mode ? 1 : 0);
    },
  });
  const onResponse = (e: { method: string; route: string; status: number }): void => {
    requests.inc({ method: e.method, route: e.route, status: String(e.status) });
  };
  const onLimited = (e: { scope: string }): void => {
    limited.inc({ scope: e.scope });
  };
  // The REST client exists once start() has connected; the runtime calls `attach` right after creating it.
  let attached: RestClient | null = null;
  return {
    attach() {
      const rest = runtime.parts.rest;
      if (rest === null || attached === rest) return;
      rest.on('response', onResponse);
      rest.on('rateLimited', onLimited);
      attached = rest;
    },
    detach() {
      attached?.off('response', onResponse);
      attached?.off('rateLimited', onLimited);
      attached = null;
    },
  };
}

/** Interactions in flight and unhandled ones; the signed endpoint's requests and open exchanges. */
function interactionMetrics(registry: Registry, runtime: MetricsSource): void {
  new Gauge({
    name: 'gatehouse_interactions_in_flight',
    help: 'Interactions whose handlers have not finished',
    registers: [registry],
    collect() {
      this.set(runtime.interactionsInFlight);
    },
  });

  new Counter({
    name: 'gatehouse_endpoint_requests_total',
    help: 'Requests to the signed HTTP endpoint by path, outcome (ok, bad-signature, stale, too-large, ...) and status',
    labelNames: ['path', 'outcome', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, n] of runtime.endpointRequests ?? []) {
        const [path = '', outcome = '', status = ''] = key.split('\t');
        this.inc({ path, outcome, status }, n);
      }
    },
  });
  new Gauge({
    name: 'gatehouse_endpoint_open_exchanges',
    help: 'Interactions received over HTTP whose initial response is not sent yet',
    registers: [registry],
    collect() {
      this.set(runtime.endpoint?.responses.size ?? 0);
    },
  });
  new Counter({
    name: 'gatehouse_interactions_unhandled_total',
    help: 'Interactions no plugin handles, by kind; each was answered "not available right now" (autocomplete: no choices)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of runtime.unhandledInteractions ?? []) this.inc({ kind }, n);
    },
  });
  new Counter({
    name: 'gatehouse_precondition_denials_total',
    help: 'Interactions a plugin\'s precondition denied (answered ephemerally; the handler did not run), by precondition and command or handler',
    labelNames: ['precondition', 'command'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, n] of runtime.preconditionDenials ?? []) {
        const [precondition = '', command = ''] = key.split('\t');
        this.inc({ precondition, command }, n);
      }
    },
  });
}
