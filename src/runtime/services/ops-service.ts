/**
 * Health, readiness and metrics (/healthz, /readyz, /metrics) and the operator's POST /reshard. Up from the start
 * of `start()` so that /readyz can say "not yet", and the last thing to stop, so that it says "not ready" for the
 * whole shutdown.
 */
import { LOOPBACK_HOSTS } from '../config.js';
import { OpsServer, type Readiness } from '../http-server.js';
import type { Service, StopOptions } from '../lifecycle.js';
import { createMetrics, type MetricsSource, type RuntimeMetrics } from '../metrics.js';
import type { RuntimeContext } from '../options.js';
import { StartupError } from '../startup-error.js';

export interface OpsHooks {
  readonly metrics: MetricsSource;
  readiness(): Readiness;
  reshard(shards: number | undefined): Promise<{ status: number; body: unknown }>;
}

export class OpsService implements Service {
  readonly name = 'ops server';
  /** Where /healthz, /readyz and /metrics listen (null when disabled or not started). */
  address: { host: string; port: number } | null = null;
  private server: OpsServer | null = null;
  private metrics: RuntimeMetrics | null = null;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly hooks: OpsHooks,
  ) {}

  /** Count the REST client's responses from now on (called once it exists). */
  attachRest(): void {
    this.metrics?.attach();
  }

  async start(): Promise<void> {
    const http = this.ctx.config.http;
    if (!http.enabled) return;
    const metrics = createMetrics(this.hooks.metrics);
    this.metrics = metrics;
    metrics.attach();
    const log = this.ctx.log;
    const make = (port: number): OpsServer =>
      new OpsServer({
        host: http.host,
        port,
        registry: metrics.registry,
        readiness: () => this.hooks.readiness(),
        log: log.child({ component: 'http' }),
        reshard: (shards) => this.hooks.reshard(shards),
      });
    const where = `${http.host}:${http.port}`;
    let server = make(http.port);
    try {
      this.address = await server.listen();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      if (!this.ctx.embedded) {
        throw new StartupError(
          `the health and metrics port ${where} is in use (is another gatehouse running?). Set http.port in config/local.json or GATEHOUSE_HTTP_PORT to a free port (0 picks one), or http.enabled to false`,
          { cause: err },
        );
      }
      // On the embedded sandbox (a second checkout, a second `npm start`) any free port will do.
      server = make(0);
      this.address = await server.listen();
      log.warn(`port ${where} is in use; health and metrics moved to port ${this.address.port} (set GATEHOUSE_HTTP_PORT to choose)`);
    }
    this.server = server;
    const { host, port } = this.address;
    if (!LOOPBACK_HOSTS.has(http.host)) {
      log.warn({ host: http.host }, 'health and metrics listen on every interface (http.host); keep the port private');
    }
    log.info(`health and metrics on http://${host.includes(':') ? `[${host}]` : host}:${port} (/healthz /readyz /metrics)`);
  }

  async stop(_options: StopOptions): Promise<void> {
    this.metrics?.detach();
    await this.server?.close();
  }
}
