/**
 * The one HTTP server of a sandbox: REST under /api, the admin API under /_sandbox, and WebSocket upgrades
 * on /gateway (main URL) and /resume (resume_gateway_url). Loopback only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestHasBody } from '../util/http-body.js';
import type { Logger } from 'pino';
import type { GatewayServer } from './gateway/server.js';
import type { RestApi } from './rest/api.js';

export interface AdminHandler {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

export const GATEWAY_PATH = '/gateway';
export const RESUME_PATH = '/resume';
export const ADMIN_PREFIX = '/_sandbox';

export class SandboxHttpServer {
  readonly server: Server;
  admin: AdminHandler | null = null;

  constructor(
    private readonly rest: RestApi,
    private readonly gateway: GatewayServer,
    private readonly logger: Logger,
  ) {
    this.server = createServer((req, res) => this.onRequest(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
      const url = requestUrl(req);
      if (url === null) {
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
        return;
      }
      const path = url.pathname.replace(/\/+$/, '');
      if (path === GATEWAY_PATH || path === RESUME_PATH) {
        this.gateway.handleUpgrade(req, socket, head, path === GATEWAY_PATH ? 'gateway' : 'resume', url.searchParams);
      } else {
        socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      }
    });
    // Keep-alive sockets must not hold close() up.
    this.server.keepAliveTimeout = 5_000;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = requestUrl(req);
    if (url === null) {
      res.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
      res.end('{"message":"400: Bad Request","code":0}');
      return;
    }
    let work: Promise<void>;
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) work = this.rest.handle(req, res, url);
    else if (this.admin && (url.pathname === ADMIN_PREFIX || url.pathname.startsWith(`${ADMIN_PREFIX}/`))) work = this.admin.handle(req, res, url);
    else {
      // Nothing here reads a body: close after answering rather than swallow one.
      res.writeHead(404, { 'content-type': 'application/json', ...(requestHasBody(req) ? { connection: 'close' } : {}) });
      res.end('{"message":"404: Not Found","code":0}');
      return;
    }
    work.catch((err: unknown) => {
      this.logger.error({ err }, 'sandbox request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"message":"500: Internal Server Error","code":0}');
    });
  }

  async listen(host: '127.0.0.1' | '::1', port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.server.once('error', onError);
      this.server.listen({ host, port, exclusive: true }, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/**
 * The request target as a URL, or null when it is not one. Node's parser lets absolute-form targets with a bad
 * host or port through (`GET http://a:b/ HTTP/1.1`), and `new URL` throws on them: thrown in a listener of the
 * server, that would take the whole process down.
 */
function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://sandbox.invalid');
  } catch {
    return null;
  }
}
