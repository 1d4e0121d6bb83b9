import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { requestHasBody } from '../util/http-body.js';
import { listenOn } from '../util/listen.js';

/** The ops endpoints read no request body at all. */
export const MAX_BODY_BYTES = 0;

export interface Readiness {
  ready: boolean;
  /** Human-readable detail per component (shown on /readyz). */
  detail: Record<string, unknown>;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  readiness: () => Readiness;
  log: Logger;
  /**
   * POST /reshard[?shards=N]: the operator's reshard (docs/cluster.md "Resharding"). Answered only to loopback peers,
   * whatever address the server listens on: the metrics port may be open to a scraper, this must not be.
   */
  reshard?: (shards: number | undefined) => Promise<{ status: number; body: unknown }>;
}

const LOOPBACK_PEERS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * /healthz (the process is alive and its event loop turns), /readyz (every owned shard is ready) and
 * /metrics (Prometheus text). Bound to loopback unless configured otherwise.
 */
export class OpsServer {
  private server: Server | null = null;

  constructor(private readonly options: OpsServerOptions) {}

  async listen(): Promise<{ host: string; port: number }> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.options.log.error({ err }, 'ops endpoint failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    this.server = server;
    return listenOn(server, this.options.port, this.options.host);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (requestHasBody(req)) {
      // Nothing here takes a body, so none is read: the answer says so and the connection closes, instead of
      // the server swallowing whatever the client keeps sending.
      res
        .writeHead(413, { 'content-type': 'application/json', connection: 'close' })
        .end(JSON.stringify({ message: `request body too large: ${MAX_BODY_BYTES} bytes accepted, these endpoints take no body` }));
      return;
    }
    if (path === '/reshard') {
      await this.reshard(req, res);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    switch (path) {
      case '/healthz':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
        return;
      case '/readyz': {
        const readiness = this.options.readiness();
        res
          .writeHead(readiness.ready ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: readiness.ready ? 'ready' : 'not ready', ...readiness.detail }));
        return;
      }
      case '/metrics': {
        const body = await this.options.registry.metrics();
        res.writeHead(200, { 'content-type': this.options.registry.contentType }).end(body);
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
    }
  }

  private async reshard(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    if (!LOOPBACK_PEERS.has(req.socket.remoteAddress ?? '')) {
      json(403, { message: 'POST /reshard is answered on loopback only' });
      return;
    }
    const handler = this.options.reshard;
    if (handler === undefined) {
      json(503, { message: 'resharding is not available in this process (transport "http", or fixed shard ids)' });
      return;
    }
    const raw = new URL(req.url ?? '/', 'http://ops').searchParams.get('shards');
    const shards = raw === null ? undefined : Number(raw);
    if (shards !== undefined && (!Number.isInteger(shards) || shards < 1 || shards > 65_536)) {
      json(400, { message: 'shards must be a whole number from 1 to 65536' });
      return;
    }
    const answer = await handler(shards);
    json(answer.status, answer.body);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
