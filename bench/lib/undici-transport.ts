/**
 * The REST transport on undici (issue 33's question: is undici, what @discordjs/rest and Node's fetch use, cheaper
 * on the answer path, and does it lose nothing?). Bench only: it implements what RestClient asks of
 * src/rest/transport.ts's HttpTransport (`send`, `close`, failures as TransportFailure) over an undici Pool with
 * the same socket settings: as many connections, idle sockets closed after the same time, a server's
 * `Keep-Alive: timeout=N` hint shortening that to N less a second (Node's agent rule), never lengthening it.
 *
 * Differences from HttpTransport, all on failure paths:
 * - undici does not say whether a socket was reused, so every reset before a response byte is marked as a
 *   possibly stale socket; RestClient then repeats it once only when repeating is harmless (idempotent
 *   requests, interaction callbacks), the same requests HttpTransport's stale retry covers.
 * The timeout is HttpTransport's: one timer from `send` to the end of the body, waiting for a socket included
 * (undici's own headers and body timeouts start only once the request is on a socket).
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { Client, Pool, errors } from 'undici';
import {
  DEFAULT_KEEP_ALIVE_IDLE_MS,
  TransportFailure,
  type HttpTransport,
  type TransportOptions,
  type TransportRequest,
  type TransportResponse,
} from '../../src/rest/transport.js';

/** What RestClient uses of its transport. */
export type RestTransport = Pick<HttpTransport, 'send' | 'close'>;

/** Connection failures before any byte of the request could leave (as transport.ts's CONNECT_ERRORS). */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
/** A socket closed or reset under the request: undici's "other side closed" and the raw socket errors. */
const RESET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
const TIMEOUT_ERRORS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** The reasons `send` aborts undici's request with. */
const TIMED_OUT = new Error('timed out');
const ABORTED = new Error('aborted');

type RequestOptions = Parameters<Pool['request']>[0];

/** The per-request signal: an EventEmitter with AbortSignal's `aborted` and `reason`, as undici reads them. */
class Abort extends EventEmitter {
  aborted = false;
  reason: Error | null = null;

  fire(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

export class UndiciTransport implements RestTransport {
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly clientOptions: Client.Options;

  constructor(baseUrl: string, options: TransportOptions = {}) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`REST base URL must be http(s): ${url.protocol}`);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    const idleMs = Math.max(1, options.keepAliveIdleMs ?? DEFAULT_KEEP_ALIVE_IDLE_MS);
    this.clientOptions = {
      keepAliveTimeout: idleMs,
      // A hint of N s gives N s less this; the maximum keeps a longer hint from lengthening our own idle time.
      keepAliveTimeoutThreshold: 1000,
      keepAliveMaxTimeout: idleMs,
      maxResponseSize: options.maxResponseBytes ?? 32 * 1024 * 1024,
    };
    this.pool = new Pool(this.origin, { ...this.clientOptions, connections: options.maxSockets ?? 128 });
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    if (req.signal?.aborted === true) throw new TransportFailure('aborted', null, 'aborted');
    // undici takes an EventEmitter as a signal: cheaper per request than an AbortController.
    const abort = new Abort();
    const timer = setTimeout(() => abort.fire(TIMED_OUT), req.timeoutMs);
    const onAbort = (): void => abort.fire(ABORTED);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const options: RequestOptions = {
      method: req.method as RequestOptions['method'],
      path: this.basePath + req.path,
      headers: req.headers as Record<string, string>,
      body: req.body,
      signal: abort,
    };
    // The retry after a stale socket goes out on a connection of its own, closed after the response.
    const dispatcher: Pool | Client = req.freshConnection === true ? new Client(this.origin, this.clientOptions) : this.pool;
    let responded = false;
    try {
      const res = await dispatcher.request(options);
      responded = true;
      const body = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers as IncomingHttpHeaders, body };
    } catch (err) {
      if (abort.aborted) {
        throw abort.reason === TIMED_OUT
          ? new TransportFailure('timeout', null, `no response within ${req.timeoutMs} ms`)
          : new TransportFailure('aborted', null, 'aborted');
      }
      throw failureOf(err, responded);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      if (dispatcher !== this.pool) void dispatcher.close();
    }
  }

  close(): void {
    void this.pool.destroy();
  }
}

function failureOf(err: unknown, responded: boolean): TransportFailure {
  if (err instanceof TransportFailure) return err;
  const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : null;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof errors.RequestAbortedError || code === 'UND_ERR_ABORTED' || (err instanceof Error && err.name === 'AbortError')) {
    return new TransportFailure('aborted', null, 'aborted');
  }
  if (code !== null && TIMEOUT_ERRORS.has(code)) return new TransportFailure('timeout', code, message);
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new TransportFailure('network', 'ERESPONSETOOLARGE', message);
  const undelivered = code !== null && CONNECT_ERRORS.has(code);
  const stale = !responded && code !== null && RESET_ERRORS.has(code);
  return new TransportFailure('network', code, message, undelivered, stale);
}
