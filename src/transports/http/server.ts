/**
 * The signed endpoint: one HTTP listener for the paths the service POSTs to (the interactions endpoint and the
 * webhook events URL). Every request goes through the same gate, in this order, before a route sees it:
 *
 *   method POST (405) -> known path (404) -> body within the size limit (413; read bounded) -> signature headers
 *   present and the signature valid over timestamp + raw body (401) -> timestamp inside the window (401) ->
 *   JSON (400) -> route
 *
 * The signature is checked before the timestamp so that nobody learns anything about the window without a
 * valid signature. This layer knows nothing about interactions or plugins: routes are functions of a
 * verified, parsed request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { readBoundedBody } from './body.js';
import { checkSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER, timestampAge } from './signature.js';
import { listenOn } from '../../util/listen.js';

export interface SignedRequest {
  readonly path: string;
  /** The parsed JSON body. */
  readonly json: unknown;
  /** Bytes of the raw body. */
  readonly size: number;
}

export interface EndpointReply {
  status: number;
  /** A JSON text; sent with content-type application/json. */
  body?: string;
  /** Runs once the response has been handed to the socket (true) or could not be (false, the client left). */
  sent?(delivered: boolean): void;
  /** Runs after the response is out; for work the caller must not wait for. */
  after?(): void;
}

export type SignedRoute = (request: SignedRequest) => EndpointReply | Promise<EndpointReply>;

/** How each request ended, for metrics and tests. */
export type RequestOutcome =
  | 'ok'
  | 'not-found'
  | 'method-not-allowed'
  | 'too-large'
  | 'unsigned'
  | 'bad-signature'
  | 'stale'
  | 'bad-json'
  | 'aborted'
  | 'error';

export interface SignedEndpointOptions {
  host: string;
  port: number;
  publicKey: KeyObject;
  /** Largest accepted body in bytes. */
  maxBodyBytes: number;
  /** Accepted age of X-Signature-Timestamp, in seconds, either way (clock skew). */
  timestampWindowSeconds: number;
  /** Routes by exact path. */
  routes: ReadonlyMap<string, SignedRoute>;
  log: Logger;
  onOutcome?: (path: string, outcome: RequestOutcome, status: number) => void;
  now?: () => number;
}

/** The path outcomes are reported under for every request to a path without a route. */
export const OTHER_PATH = '(other)';

/** How long `close()` lets responses already under way finish before it cuts their connections. */
const CLOSE_DRAIN_MS = 2_000;

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export class SignedEndpoint {
  private server: Server | null = null;
  private accepting = true;
  /** Requests whose response is not out yet. */
  private readonly open = new Set<Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly options: SignedEndpointOptions) {
    this.now = options.now ?? Date.now;
  }

  async listen(): Promise<{ host: string; port: number }> {
    const server = createServer((req, res) => this.onRequest(req, res));
    // The service gives up after 3 s; a client that dribbles its headers or body for longer is not it.
    server.headersTimeout = 10_000;
    server.requestTimeout = 15_000;
    this.server = server;
    return listenOn(server, this.options.port, this.options.host);
  }

  /** Stop taking requests: the listener closes and requests still arriving on open connections get 503. */
  stopAccepting(): void {
    this.accepting = false;
    this.server?.close();
  }

  /**
   * Close the listener and every connection. Responses already decided (an exchange released with 202 just
   * before, say) are let out first, for at most `drainMs`: cutting their connections would turn an answer
   * into a failed request at the service.
   */
  async close(drainMs = CLOSE_DRAIN_MS): Promise<void> {
    const server = this.server;
    this.server = null;
    this.accepting = false;
    if (server === null) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.open.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.open]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, drainMs);
        }),
      ]);
      clearTimeout(timer);
    }
    server.closeAllConnections();
    await closed;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const requested = (req.url ?? '/').split('?', 1)[0]!;
    // Outcomes are counted (and logged) by path, and an unknown one is anyone's choice before any signature
    // check: they all go under one name.
    const path = this.options.routes.has(requested) ? requested : OTHER_PATH;
    // Open until the response is out or the connection is gone ('close' comes after 'finish' too).
    const done = new Promise<void>((resolve) => res.once('close', resolve));
    this.open.add(done);
    void done.then(() => this.open.delete(done));
    this.handle(path, req, res).catch((err: unknown) => {
      this.options.log.error({ err, path }, 'signed endpoint request failed');
      this.finish(path, res, 'error', { status: 500, body: '{"message":"internal error"}' });
    });
  }

  private async handle(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = this.options.routes.get(path);
    if (route === undefined) return this.finish(path, res, 'not-found', { status: 404, body: '{"message":"not found"}' }, req);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return this.finish(path, res, 'method-not-allowed', { status: 405, body: '{"message":"method not allowed"}' }, req);
    }
    const read = await readBoundedBody(req, this.options.maxBodyBytes);
    if (read.kind === 'aborted') return this.outcome(path, 'aborted', 0);
    if (read.kind === 'too-large') {
      return this.finish(path, res, 'too-large', { status: 413, body: '{"message":"request body too large"}' }, req);
    }
    const signature = single(req.headers[SIGNATURE_HEADER]);
    const timestamp = single(req.headers[TIMESTAMP_HEADER]);
    const check = checkSignature(this.options.publicKey, signature, timestamp, read.body);
    if (check !== 'valid') {
      const outcome = check === 'missing' ? 'unsigned' : 'bad-signature';
      return this.finish(path, res, outcome, { status: 401, body: '{"message":"invalid request signature"}' });
    }
    const age = timestampAge(timestamp, this.now());
    if (age === null || Math.abs(age) > this.options.timestampWindowSeconds) {
      return this.finish(path, res, 'stale', { status: 401, body: '{"message":"request timestamp outside the accepted window"}' });
    }
    if (!this.accepting) {
      res.setHeader('connection', 'close');
      return this.finish(path, res, 'ok', { status: 503, body: '{"message":"shutting down"}' });
    }
    let json: unknown;
    try {
      json = JSON.parse(read.body.toString('utf8'));
    } catch {
      return this.finish(path, res, 'bad-json', { status: 400, body: '{"message":"the body is not JSON"}' });
    }
    const reply = await route({ path, json, size: read.body.length });
    this.finish(path, res, 'ok', reply);
  }

  /**
   * Write the reply. `unread` is the request whose body was not (fully) read: the connection then closes after
   * the response, so that the rest of a refused body is never parsed as the next request.
   */
  private finish(path: string, res: ServerResponse, outcome: RequestOutcome, reply: EndpointReply, unread?: IncomingMessage): void {
    this.outcome(path, outcome, reply.status);
    if (res.writableEnded || res.destroyed) {
      reply.sent?.(false);
      return;
    }
    if (unread !== undefined && !unread.complete) res.setHeader('connection', 'close');
    let settled = false;
    const settle = (delivered: boolean): void => {
      if (settled) return;
      settled = true;
      reply.sent?.(delivered);
      if (delivered && reply.after !== undefined) setImmediate(reply.after);
    };
    res.once('finish', () => settle(true));
    res.once('close', () => {
      settle(false);
      if (unread !== undefined && !unread.complete) unread.destroy();
    });
    if (reply.body === undefined) {
      res.writeHead(reply.status);
      res.end();
    } else {
      res.writeHead(reply.status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(reply.body) });
      res.end(reply.body);
    }
  }

  private outcome(path: string, outcome: RequestOutcome, status: number): void {
    this.options.onOutcome?.(path, outcome, status);
  }
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
