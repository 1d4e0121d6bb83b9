import { EventEmitter } from 'eventemitter3';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { registerSecret, redact } from '../util/redact.js';
import {
  ApiError,
  InvalidRequestGuardError,
  NetworkError,
  RateLimitError,
  RequestAbortedError,
  RequestRefusedError,
  RestClientClosedError,
  TimeoutError,
  type HttpMethod,
  type RateLimitScope,
} from './errors.js';
import { onAbort } from './abort-fanout.js';
import { AdmissionGate, type GateVerdict } from './admission-gate.js';
import { BucketQueue } from './bucket-queue.js';
import { parseRateLimitHeaders, type RateLimitInfo } from './headers.js';
import { LocalRateLimits } from './local-rate-limits.js';
import { isPromise, type Admission, type LimitReport, type RateLimitStore } from './rate-limits.js';
import { encodeMultipart } from './multipart.js';
import { encodeQuery, parseBody, type Entry } from './request-entry.js';
import type { RequestTracer } from './request-trace.js';
import { compileRoute, digest, majorKey, renderPath, routeId } from './route.js';
import { HttpTransport, TransportFailure, type TransportResponse } from './transport.js';
import type { RequestOptions, RestAuth, RestRequester, RestResponse } from './types.js';
import { userAgent } from './user-agent.js';
import { isObject } from '../util/is-object.js';

export const DEFAULT_API_URL = 'https://discord.com/api/v10';

export interface RestClientOptions {
  /** REST base including the version segment (config `apiUrl`). Default: the real service's v10 base. */
  baseUrl?: string;
  /** Default credentials; a request may override them with `auth`. */
  token?: string;
  /** Scheme of `token`. Default `Bot`. */
  tokenType?: 'Bot' | 'Bearer';
  /** Text appended to the User-Agent after the required `DiscordBot (url, version)` part. */
  userAgentSuffix?: string;
  logger?: Logger;
  /** Requests per `globalWindowMs` per token, across buckets (protocol §3.3). Default 50. */
  globalLimit?: number;
  /** Default 1000. */
  globalWindowMs?: number;
  /** Per-attempt timeout. Default 15000. */
  timeoutMs?: number;
  /** Retries of 5xx responses and network errors, after the first attempt (see the class on which). Default 3. */
  retries?: number;
  /** First retry delay; doubles each retry, with jitter. Default 250. */
  retryBaseDelayMs?: number;
  /** Cap of one retry delay. Default 5000. */
  retryMaxDelayMs?: number;
  /** 429 responses one request may absorb before failing with RateLimitError. Default 5. */
  maxRateLimitRetries?: number;
  /**
   * Longest rate-limit wait (bucket reset, retry_after, global pause) a request sits out; beyond it the
   * request fails at once with RateLimitError. Keeps a day-long command-create limit from hanging a
   * caller. Default 60000.
   */
  maxRateLimitWaitMs?: number;
  /**
   * Invalid responses (401, 403, non-shared 429) tolerated per window before the client stops sending.
   * The service bans at 10,000 per 10 minutes; the default 9000 leaves room for requests in flight.
   */
  invalidRequestLimit?: number;
  /** Default 600000 (10 minutes). */
  invalidRequestWindowMs?: number;
  /** Emit `invalidRequestWarning` every this many invalid responses in the window. Default 1000. */
  invalidRequestWarningInterval?: number;
  /** Sockets to the API host. Default 128. */
  maxSockets?: number;
  /**
   * Close a kept-alive socket idle this long, before the server (or a proxy in front of it) does: a request
   * written to a socket the server is closing is lost. Default 4000 (transport.ts DEFAULT_KEEP_ALIVE_IDLE_MS).
   */
  keepAliveIdleMs?: number;
  /**
   * Where the limits are kept (see rate-limits.ts). Default: a LocalRateLimits built from `globalLimit`,
   * `globalWindowMs`, `invalidRequestLimit` and `invalidRequestWindowMs`. The client owns its store: close()
   * closes it. `useLimits` swaps it later (e.g. for a shared store once the application id is known).
   */
  limits?: RateLimitStore;
  /** Told around each request: waits, sends, 429s and the end (tracing; see request-trace.ts). */
  tracer?: RequestTracer;
}

export interface RequestEvent {
  method: HttpMethod;
  route: string;
  /** Queue (bucket) the request runs in; tokens in it are digested. */
  bucket: string;
  /** 0 for the first attempt. */
  attempt: number;
}

export interface ResponseEvent extends RequestEvent {
  status: number;
  durationMs: number;
}

export interface RateLimitedEvent {
  method: HttpMethod;
  route: string;
  bucket: string;
  scope: RateLimitScope;
  global: boolean;
  retryAfterMs: number;
  /** X-RateLimit-Limit of the bucket when known. */
  limit: number | null;
}

export interface InvalidRequestWarningEvent {
  /** Invalid responses in the current window. */
  count: number;
  limit: number;
  windowMs: number;
}

export interface RestEvents {
  request: [RequestEvent];
  response: [ResponseEvent];
  /** A 429 response (every one; proactive waits on known limits are not 429s and are not reported). */
  rateLimited: [RateLimitedEvent];
  invalidRequestWarning: [InvalidRequestWarningEvent];
}

export interface QueueDepth {
  bucket: string;
  /** Requests waiting, including the one being sent. */
  queued: number;
  limit: number | null;
  remaining: number | null;
  /** Milliseconds until the bucket resets, when known and in the future. */
  resetInMs: number | null;
}

export interface RestStats {
  requests: number;
  responses: number;
  rateLimited: number;
  retries: number;
  invalidInWindow: number;
  queues: number;
  queued: number;
}

/** Requests the service refuses, or has disabled, recognised before sending. */
const BEARER_ONLY = new Set(['PUT /applications/{application_id}/guilds/{guild_id}/commands/{command_id}/permissions']);
const DISABLED = new Map([
  [
    'PUT /applications/{application_id}/guilds/{guild_id}/commands/permissions',
    'batch editing of command permissions is disabled (permissions v2): edit one command at a time',
  ],
  ['POST /guilds', 'guild creation is no longer available to apps'],
]);

/** A bot token: base64 user id, timestamp part, HMAC part. Used only to refuse one where a Bearer is required. */
const BOT_TOKEN_SHAPE = /^[A-Za-z0-9_-]{17,40}\.[A-Za-z0-9_-]{4,10}\.[A-Za-z0-9_-]{20,}$/;

const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);
/**
 * 502 is "no gateway was available to process your request" (protocol §2.4): the request was not processed,
 * so it is retried whatever the method. The other 5xx may come after the work was done.
 */
const UNPROCESSED_STATUS = 502;
const IDLE_QUEUE_SWEEP_MS = 60_000;
const NO_INFO: RateLimitInfo = Object.freeze({
  bucket: null,
  limit: null,
  remaining: null,
  resetAfterMs: null,
  global: false,
  scope: null,
  retryAfterMs: null,
});
/** Reported for an admitted request that was never sent (aborted while its admission was pending): its slots are returned. */
const NOT_SENT: LimitReport = Object.freeze({ status: 0, sent: false, info: NO_INFO, at: 0, limited: null });

type WaitAdmission = Extract<Admission, { kind: 'wait' }>;
type RateLimitOutcome = { retryAfterMs: number; scope: RateLimitScope; global: boolean };
/** An admitted attempt: the store that admitted it (the client's may be swapped meanwhile) and its ticket. */
type Grant = { readonly store: RateLimitStore; readonly ticket: unknown };
/** The attempts of one request so far. */
/** `staleRetry`: the request was sent again once after a pooled socket reset it before any response byte. */
type Tries = { retries: number; rateLimitHits: number; staleRetry: boolean };
/**
 * How an attempt ended: the request's answer (settled by `execute`, so that the queue moves on in the same
 * turn as its caller hears of it), AGAIN (a retry, a 429), or SETTLED (it was settled on the way: aborted,
 * client closed).
 */
type Outcome = RestResponse<unknown> | Error | typeof AGAIN | typeof SETTLED;
const AGAIN = Symbol('again');
const SETTLED = Symbol('settled');

/**
 * The REST client: per-bucket FIFO queues, the global limit, 429 handling, the invalid-request guard,
 * retries and timeouts, typed errors. Endpoint functions (routes/*.ts) call `request`.
 *
 * Ordering and discovery: each bucket runs one request at a time, in arrival order, so responses come back
 * in order and the first request of an unknown bucket goes alone; its X-RateLimit-* headers then govern the
 * rest. A route's bucket hash is learnt from X-RateLimit-Bucket and keyed per major parameter
 * (`${hash}:${major}`); requests that queued before the hash was known move over to that queue.
 *
 * Retries. A 429 is always retried (the service did not process the request). A 5xx answer or a lost
 * connection is retried, with backoff and at most `retries` times, only when repeating the request is
 * harmless: idempotent requests (GET, PUT, PATCH, DELETE, and POSTs that say so, such as the command create,
 * which upserts by name), or when the request cannot have been processed (a 502, a connection that was never
 * made). Other POSTs fail at once with the error: a repeated
 * follow-up would post a second message, a repeated interaction callback would fail with 40060 after the
 * first one worked, a repeated code exchange would fail because the code is spent. Timeouts are never
 * retried (the caller's budget is spent, and the request may have been processed).
 *
 * Stale sockets. Idle kept-alive sockets are closed after `keepAliveIdleMs`, before the server closes them; a
 * pooled socket that resets before any response byte all the same (the server closed it as the request was
 * written) is retried once at once on a new connection, outside `retries`, when repeating is harmless: idempotent
 * requests, and interaction callbacks, whose repeat after one that arrived is refused 40060 and then counts as
 * the success it reports.
 */
export class RestClient extends EventEmitter<RestEvents> implements RestRequester {
  readonly baseUrl: string;
  private readonly transport: HttpTransport;
  private readonly log: Logger | null;
  private readonly defaultAuth: RestAuth | null;
  private readonly defaultIdentity: string;
  private readonly userAgent: string;
  private limits: RateLimitStore;
  /** Invalid responses in the window at the last report (warnings fire when a multiple of the interval is crossed). */
  private lastInvalidCount = 0;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseDelayMs: number;
  private readonly retryMaxDelayMs: number;
  private readonly maxRateLimitRetries: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly warningInterval: number;
  /** Route id (`METHOD /template`) -> the service's bucket hash. Bounded by the number of templates. */
  private readonly hashes = new Map<string, string>();
  private readonly queues = new Map<string, BucketQueue>();
  /**
   * Queues still learning their route's hash, by key. While one exists, later requests of its route and
   * major parameter join it even if another major parameter has already revealed the hash: they must not
   * overtake the requests queued before them.
   */
  private readonly discovering = new Map<string, BucketQueue>();
  /** Per identity: the order in which requests ask for a global slot (admission-gate.ts). */
  private readonly gates = new Map<string, AdmissionGate>();
  /** Entries waiting (a limit, a retry delay, their turn at a gate): close() ends every one of these waits. */
  private readonly parked = new Set<Entry>();
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;
  private calls = 0;
  private readonly counters = { requests: 0, responses: 0, rateLimited: 0, retries: 0 };
  private readonly tracer: RequestTracer | null;

  constructor(options: RestClientOptions = {}) {
    super();
    this.tracer = options.tracer ?? null;
    this.baseUrl = (options.baseUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.transport = new HttpTransport(this.baseUrl, { maxSockets: options.maxSockets, keepAliveIdleMs: options.keepAliveIdleMs });
    this.log = options.logger ? options.logger.child({ component: 'rest' }) : null;
    if (options.token) {
      // A second net behind "never put it in a message": the logger's redactor now knows it too.
      registerSecret(options.token);
      this.defaultAuth = { scheme: options.tokenType ?? 'Bot', token: options.token };
    } else {
      this.defaultAuth = null;
    }
    this.defaultIdentity = this.defaultAuth ? 'default' : 'anonymous';
    this.userAgent = userAgent(options.userAgentSuffix);
    this.limits =
      options.limits ??
      new LocalRateLimits({
        globalLimit: options.globalLimit ?? 50,
        globalWindowMs: options.globalWindowMs ?? 1000,
        invalidRequestLimit: options.invalidRequestLimit ?? 9000,
        invalidRequestWindowMs: options.invalidRequestWindowMs ?? 600_000,
      });
    this.limits.onInvalid((count) => this.onInvalidCount(count));
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retries = Math.max(0, options.retries ?? 3);
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 250;
    this.retryMaxDelayMs = options.retryMaxDelayMs ?? 5000;
    this.maxRateLimitRetries = Math.max(0, options.maxRateLimitRetries ?? 5);
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 60_000;
    this.warningInterval = Math.max(1, options.invalidRequestWarningInterval ?? 1000);
    this.sweepTimer = setInterval(() => this.sweep(), IDLE_QUEUE_SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Send a request and resolve with the parsed body (undefined for 204). */
  async request<T = unknown, R extends string = string>(options: RequestOptions<R>): Promise<T> {
    return (await this.requestWithStatus<T, R>(options)).data;
  }

  /** As `request`, with the status (e.g. 201 for a new command, 200 for an overwritten one). */
  requestWithStatus<T = unknown, R extends string = string>(options: RequestOptions<R>): Promise<RestResponse<T>> {
    let entry: Entry;
    try {
      entry = this.prepare(options);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (this.tracer !== null) entry.trace = this.tracer.start(entry.method, entry.route.template);
    const promise = new Promise<RestResponse<T>>((resolve, reject) => {
      entry.resolve = resolve as (value: RestResponse<unknown>) => void;
      entry.reject = reject;
    });
    this.enqueue(entry);
    return promise;
  }

  /** Depth and known limits of every queue with work or state (for /metrics). */
  queueDepths(): QueueDepth[] {
    const out: QueueDepth[] = [];
    for (const q of this.queues.values()) {
      const view = this.limits.bucket(q.limitKey, q.hash);
      out.push({
        bucket: q.key,
        queued: q.depth,
        limit: view?.limit ?? null,
        remaining: view?.remaining ?? null,
        resetInMs: view?.resetInMs ?? null,
      });
    }
    return out;
  }

  stats(): RestStats {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.depth;
    return { ...this.counters, invalidInWindow: this.limits.invalidCount(), queues: this.queues.size, queued };
  }

  /** Where the limits are kept now ("local", "shared", "shared-fallback"). */
  get limitsMode(): string {
    return this.limits.mode;
  }

  /**
   * Keep the limits in another store from now on (the runtime switches to the shared store once it knows the
   * application id). Requests already admitted report to the store that admitted them; the old store is closed.
   */
  useLimits(store: RateLimitStore): void {
    if (store === this.limits) return;
    const previous = this.limits;
    this.limits = store;
    store.onInvalid((count) => this.onInvalidCount(count));
    if (this.closed) store.close();
    previous.close();
  }

  /**
   * Reject at once, with RestClientClosedError, every request not answered yet: queued ones, ones waiting out
   * a bucket reset, a global pause or a retry delay, and ones in flight (their sockets are destroyed). No
   * timer of the client survives this call.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    for (const q of this.queues.values()) {
      if (q.current !== null) this.settle(q.current, new RestClientClosedError(q.current.method, q.current.route.template));
      for (const e of q.takeAll()) this.settle(e, new RestClientClosedError(e.method, e.route.template));
    }
    for (const e of [...this.parked]) e.interrupt?.();
    for (const gate of this.gates.values()) gate.close();
    this.limits.close();
    this.transport.close();
  }

  // ---------------------------------------------------------------------------------------------------

  private identityOf(auth: RestAuth | null): string {
    if (!auth) return 'anonymous';
    const d = this.defaultAuth;
    if (auth === d || (d !== null && auth.scheme === d.scheme && auth.token === d.token)) return this.defaultIdentity;
    return `${auth.scheme}:${digest(auth.token)}`;
  }

  /** A request the service would refuse (disabled, or needing a Bearer token it was not given) fails here. */
  private refuseUnsendable(method: HttpMethod, template: string, id: string, auth: RestAuth | null): void {
    const disabled = DISABLED.get(id);
    if (disabled) throw new RequestRefusedError(method, template, 'endpoint-disabled', disabled);
    if (auth && (typeof auth.token !== 'string' || auth.token.trim() === '')) {
      throw new RequestRefusedError(method, template, 'invalid-input', `empty ${auth.scheme} token`);
    }
    if (!BEARER_ONLY.has(id)) return;
    const given =
      auth === null
        ? 'a request without a token'
        : auth.scheme !== 'Bearer'
          ? `a ${auth.scheme} token`
          : BOT_TOKEN_SHAPE.test(auth.token) || (this.defaultAuth?.scheme === 'Bot' && auth.token === this.defaultAuth.token)
            ? 'a bot token sent as Bearer'
            : null;
    if (given !== null) {
      throw new RequestRefusedError(
        method,
        template,
        'bearer-required',
        'editing command permissions needs the Bearer token of a user who can manage the guild and its ' +
          `roles (scope applications.commands.permissions.update); ${given} is rejected by the service`,
      );
    }
  }

  /** Headers and body of a request (a multipart body is encoded later, in its turn). */
  private encode<R extends string>(
    options: RequestOptions<R>,
    template: string,
    auth: RestAuth | null,
  ): { headers: OutgoingHttpHeaders; body: Buffer | null; pendingBody: Entry['pendingBody'] } {
    const method = options.method;
    const headers: OutgoingHttpHeaders = { 'user-agent': this.userAgent, accept: 'application/json' };
    if (options.headers) {
      for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = v;
    }
    if (auth) headers.authorization = `${auth.scheme} ${auth.token}`;
    if (options.reason !== undefined) {
      if (options.reason.length < 1 || options.reason.length > 512) {
        throw new RequestRefusedError(method, template, 'invalid-input', 'audit log reason must be 1-512 characters');
      }
      headers['x-audit-log-reason'] = encodeURIComponent(options.reason);
    }
    let body: Buffer | null = null;
    let pendingBody: Entry['pendingBody'] = null;
    if (options.files && options.files.length > 0) {
      pendingBody = encodeMultipart(options.body, options.files, options.form);
    } else if (options.form !== undefined) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) if (v !== undefined) form.append(k, v);
      body = Buffer.from(form.toString(), 'utf8');
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (options.body !== undefined) {
      body = Buffer.from(JSON.stringify(options.body), 'utf8');
      headers['content-type'] = 'application/json';
    }
    if (body) headers['content-length'] = body.length;
    else if (!pendingBody && method !== 'GET' && method !== 'DELETE') headers['content-length'] = 0;
    return { headers, body, pendingBody };
  }

  private prepare<R extends string>(options: RequestOptions<R>): Entry {
    const method = options.method;
    const route = compileRoute(options.route);
    const id = routeId(method, route);
    if (this.closed) throw new RestClientClosedError(method, route.template);
    const auth = options.auth === false ? null : (options.auth ?? this.defaultAuth);
    this.refuseUnsendable(method, route.template, id, auth);
    const params = (options as { params?: Readonly<Record<string, unknown>> }).params;
    const path = renderPath(route, params) + encodeQuery(options.query);
    const { headers, body, pendingBody } = this.encode(options, route.template, auth);
    const signal = options.signal;
    if (signal?.aborted) throw new RequestAbortedError(method, route.template, signal.reason);
    const wire = signal ? new AbortController() : null;
    const entry: Entry = {
      method,
      route,
      routeId: id,
      major: majorKey(route, params),
      globalExempt: route.globalExempt,
      path,
      headers,
      body,
      pendingBody,
      identity: this.identityOf(auth),
      idempotent: options.idempotent ?? method !== 'POST',
      repeatRefusedCode: options.repeatRefusedCode,
      signal,
      wireSignal: wire?.signal,
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      order: ++this.calls,
      started: false,
      settled: false,
      interrupt: null,
      resolve: () => undefined,
      reject: () => undefined,
      detach: () => undefined,
    };
    if (signal) {
      // Queued: answered at once (the queue skips settled entries). Waiting: the wait ends. On the wire: the
      // transport drops the request.
      entry.detach = onAbort(signal, () => {
        wire!.abort();
        if (!entry.started) this.settle(entry, new RequestAbortedError(method, route.template));
        else entry.interrupt?.();
      });
    }
    return entry;
  }

  /** `hash:major` for the bot token; other tokens (Bearer, Basic) prefix their digest. */
  private queueKey(identity: string, bucket: string, major: string): string {
    return identity === this.defaultIdentity ? `${bucket}:${major}` : `${identity}|${bucket}:${major}`;
  }

  private enqueue(entry: Entry): void {
    let queue: BucketQueue | undefined;
    const unknownKey =
      this.discovering.size > 0 || !this.hashes.has(entry.routeId)
        ? this.queueKey(entry.identity, `unknown(${entry.routeId})`, entry.major)
        : null;
    if (unknownKey !== null) queue = this.discovering.get(unknownKey);
    if (!queue) {
      const hash = this.hashes.get(entry.routeId);
      const key = hash !== undefined ? this.queueKey(entry.identity, hash, entry.major) : unknownKey!;
      queue = this.queues.get(key);
      if (!queue) {
        queue = new BucketQueue(
          key,
          hash === undefined ? { routeId: entry.routeId, major: entry.major, identity: entry.identity } : null,
          entry,
          hash ?? null,
        );
        this.queues.set(key, queue);
        if (queue.discovering) this.discovering.set(key, queue);
      }
    }
    queue.push(entry);
    if (!queue.running) void this.drain(queue);
  }

  private dropQueue(queue: BucketQueue): void {
    if (this.queues.get(queue.key) === queue) this.queues.delete(queue.key);
    if (this.discovering.get(queue.key) === queue) this.discovering.delete(queue.key);
  }

  private async drain(queue: BucketQueue): Promise<void> {
    queue.running = true;
    try {
      for (let entry = queue.shift(); entry !== undefined || queue.waiting > 0; entry = queue.shift()) {
        if (!entry || entry.settled) continue;
        entry.started = true;
        queue.current = entry;
        try {
          await this.execute(queue, entry);
        } catch (err) {
          // execute settles its entry; this only guards against a bug leaving a caller hanging.
          this.settle(entry, err instanceof Error ? err : new Error(String(err)));
        }
        queue.current = null;
        if (queue.discovering) this.migrateIfDiscovered(queue);
      }
    } finally {
      queue.running = false;
      queue.current = null;
      if (queue.depth === 0 && !this.holdsState(queue)) this.dropQueue(queue);
    }
  }

  /** The hash of a discovering queue's route became known: its waiting requests join the real bucket. */
  private migrateIfDiscovered(queue: BucketQueue): void {
    const d = queue.discovering!;
    const hash = this.hashes.get(d.routeId);
    if (hash === undefined) return;
    const key = this.queueKey(d.identity, hash, d.major);
    let target = this.queues.get(key);
    if (!target) {
      target = new BucketQueue(key, null, queue.limitKey, hash);
      this.queues.set(key, target);
    }
    for (const e of queue.takeAll()) target.push(e);
    this.dropQueue(queue);
    if (!target.running && target.waiting > 0) void this.drain(target);
  }

  private settle(entry: Entry, result: Error | RestResponse<unknown>): void {
    if (entry.settled) return;
    entry.settled = true;
    entry.detach();
    entry.trace?.end(result instanceof Error ? ((result as { status?: unknown }).status as number | undefined) ?? 0 : result.status, result instanceof Error ? result : null);
    if (result instanceof Error) entry.reject(result);
    else entry.resolve(result);
  }

  /** Whether the entry is done with: settled, or (now settled) aborted by its caller or cut by close(). */
  private stopped(entry: Entry): boolean {
    if (entry.settled) return true;
    if (entry.signal?.aborted) {
      this.settle(entry, new RequestAbortedError(entry.method, entry.route.template));
      return true;
    }
    if (this.closed) {
      this.settle(entry, new RestClientClosedError(entry.method, entry.route.template));
      return true;
    }
    return false;
  }

  /**
   * Park an entry until `start`'s `done` is called (true), or until its caller aborts or the client closes
   * (false; the entry is settled then). `start` sets the wait up and returns how to take it down. No
   * AbortSignal listener per wait: a wait is ended through `entry.interrupt`.
   */
  private park(entry: Entry, start: (done: () => void) => () => void): Promise<boolean> {
    if (this.stopped(entry)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let undo: (() => void) | null = null;
      const finish = (ok: boolean): void => {
        if (entry.interrupt !== interrupt) return;
        entry.interrupt = null;
        this.parked.delete(entry);
        undo?.();
        if (!ok) this.stopped(entry);
        resolve(ok);
      };
      const interrupt = (): void => finish(false);
      entry.interrupt = interrupt;
      this.parked.add(entry);
      undo = start(() => finish(true));
      if (entry.interrupt !== interrupt) undo();
    });
  }

  /** Wait `ms`, or until `wake` settles. */
  private pause(entry: Entry, ms: number, wake?: Promise<void>): Promise<boolean> {
    return this.park(entry, (done) => {
      const timer = setTimeout(done, Math.max(0, Math.ceil(ms)));
      wake?.then(done, done);
      return () => clearTimeout(timer);
    });
  }

  private backoff(retry: number): number {
    const exp = Math.min(this.retryMaxDelayMs, this.retryBaseDelayMs * 2 ** (retry - 1));
    return exp / 2 + (Math.random() * exp) / 2;
  }

  /** Run one entry to completion: waits, attempts, retries. Settles the entry; never throws. */
  private async execute(queue: BucketQueue, entry: Entry): Promise<void> {
    if (entry.pendingBody && !(await this.encodeBody(entry))) return;
    const tries: Tries = { retries: 0, rateLimitHits: 0, staleRetry: false };
    for (;;) {
      const grant = await this.admit(queue, entry);
      if (grant === null) return;
      const outcome = await this.attempt(queue, entry, grant, tries);
      if (outcome === AGAIN) continue;
      if (outcome !== SETTLED) this.settle(entry, outcome);
      return;
    }
  }

  /** A multipart body, encoded in the request's turn so the queue's order holds. False: it could not be. */
  private async encodeBody(entry: Entry): Promise<boolean> {
    try {
      const encoded = await entry.pendingBody!;
      entry.body = encoded.body;
      entry.headers['content-type'] = encoded.contentType;
      entry.headers['content-length'] = encoded.body.length;
      return true;
    } catch (err) {
      this.settle(entry, new RequestRefusedError(entry.method, entry.route.template, 'invalid-input', `cannot encode files: ${(err as Error).message}`));
      return false;
    }
  }

  /**
   * The limits: the bucket's window, the global limit (interaction callbacks and webhook-with-token routes
   * are exempt), the invalid-request budget. Asks until the store lets the request go (waiting as it says);
   * an admitted request holds its slots. Null when the entry was settled instead.
   */
  private async admit(queue: BucketQueue, entry: Entry): Promise<Grant | null> {
    for (;;) {
      const store = this.limits;
      const admission = await this.ask(store, entry);
      if (admission === null) return null;
      // A shared store may know the route's bucket before this process does (another process learnt it).
      if (admission.kind !== 'refuse' && admission.hash !== null && this.hashes.get(entry.routeId) !== admission.hash) {
        this.hashes.set(entry.routeId, admission.hash);
      }
      if (admission.kind === 'refuse') {
        const { count, limit, retryAfterMs } = admission;
        this.settle(entry, new InvalidRequestGuardError(entry.method, entry.route.template, { count, limit, retryAfterMs }));
        return null;
      }
      if (admission.kind === 'wait') {
        if (!(await this.sitOut(queue, entry, admission))) return null;
        continue; // ask again: a 429 elsewhere may have moved the reset
      }
      if (admission.delayMs !== undefined && admission.delayMs > 0) {
        const waited = await this.waitForBooking(entry, admission.delayMs);
        if (!waited || store.confirm?.(entry, admission.ticket) === false) {
          store.report(entry, admission.ticket, NOT_SENT);
          if (!waited) return null;
          continue; // what was heard while it waited holds it: ask again
        }
      }
      return { store, ticket: admission.ticket };
    }
  }

  /**
   * One question to the store. A request under the global limit asks in its turn at its identity's gate (see
   * admission-gate.ts); the store's answer tells the gate how much room the window has.
   */
  private async ask(store: RateLimitStore, entry: Entry): Promise<Admission | null> {
    if (this.stopped(entry)) return null;
    const gate = entry.globalExempt ? null : this.gateOf(entry.identity);
    if (gate !== null && !gate.tryEnter() && !(await this.turnAt(gate, entry))) return null;
    let admission: Admission | null = null;
    try {
      const asked = store.admit(entry, this.hashes.get(entry.routeId) ?? null);
      admission = isPromise(asked) ? await asked : asked;
    } catch (err) {
      // A store must answer (a shared one falls back to local limits itself); this guards against a bug.
      this.settle(entry, err instanceof Error ? err : new Error(String(err)));
    } finally {
      gate?.leave(this.gateVerdict(admission));
    }
    if (admission !== null && this.stopped(entry)) {
      if (admission.kind === 'go') store.report(entry, admission.ticket, NOT_SENT);
      return null;
    }
    return admission;
  }

  /**
   * What a store's answer tells the identity's gate. A wait longer than maxRateLimitWaitMs does not close it:
   * every request asks and fails at once, as this one does, instead of sitting the wait out at the gate.
   */
  private gateVerdict(admission: Admission | null): GateVerdict {
    if (admission === null) return {};
    if (admission.kind === 'wait') return admission.scope === 'global' && admission.ms <= this.maxRateLimitWaitMs ? { closedForMs: admission.ms } : {};
    if (admission.kind === 'go') return admission.parallel !== undefined ? { parallel: admission.parallel } : {};
    return {};
  }

  private gateOf(identity: string): AdmissionGate {
    let gate = this.gates.get(identity);
    if (gate === undefined) {
      if (this.gates.size >= 512) {
        for (const [id, g] of this.gates) {
          if (g.waiting > 0) continue;
          g.close();
          this.gates.delete(id);
        }
      }
      gate = new AdmissionGate();
      this.gates.set(identity, gate);
    }
    return gate;
  }

  /** Wait for the entry's turn to ask at the gate. */
  private turnAt(gate: AdmissionGate, entry: Entry): Promise<boolean> {
    return this.park(entry, (done) => {
      const waiter = { order: entry.order, admit: done };
      gate.wait(waiter);
      return () => gate.cancel(waiter);
    });
  }

  /**
   * Sit out what the store asked to wait for: the bucket's reset, another request's discovery of the bucket,
   * or the global window (the gate holds every request of the identity then, this one in its turn).
   */
  private async sitOut(queue: BucketQueue, entry: Entry, admission: WaitAdmission): Promise<boolean> {
    const global = admission.scope === 'global';
    if (admission.ms > this.maxRateLimitWaitMs) {
      this.settle(
        entry,
        new RateLimitError(entry.method, entry.route.template, {
          retryAfterMs: admission.ms,
          scope: global ? 'global' : 'bucket',
          global,
          why: global
            ? `global limit pause longer than maxRateLimitWaitMs (${this.maxRateLimitWaitMs} ms)`
            : `bucket exhausted for longer than maxRateLimitWaitMs (${this.maxRateLimitWaitMs} ms)`,
        }),
      );
      return false;
    }
    entry.trace?.wait(admission.ms, admission.scope);
    if (global && !entry.globalExempt) return true;
    if (admission.scope === 'bucket') {
      this.log?.debug(
        { method: entry.method, route: entry.route.template, bucket: queue.key, waitMs: Math.round(admission.ms), scope: admission.scope },
        'bucket exhausted, waiting for reset',
      );
    }
    return this.pause(entry, admission.ms, admission.wake);
  }

  /** A slot booked for later: wait for it by the clock (a timer may fire a little early), then send. */
  private async waitForBooking(entry: Entry, delayMs: number): Promise<boolean> {
    entry.trace?.wait(delayMs, 'global');
    const at = performance.now() + delayMs;
    for (let left = delayMs; left > 0; left = at - performance.now()) {
      if (!(await this.pause(entry, left))) return false;
    }
    return !this.stopped(entry);
  }

  /** Send once and say what comes of it. */
  private async attempt(queue: BucketQueue, entry: Entry, grant: Grant, tries: Tries): Promise<Outcome> {
    const { method } = entry;
    const template = entry.route.template;
    const attempt = tries.retries + tries.rateLimitHits + (tries.staleRetry ? 1 : 0);
    this.counters.requests++;
    this.emit('request', { method, route: template, bucket: queue.key, attempt });
    entry.trace?.send(attempt);
    const started = performance.now();
    let res: TransportResponse;
    try {
      res = await this.transport.send({
        method,
        path: entry.path,
        headers: entry.headers,
        body: entry.body,
        timeoutMs: entry.timeoutMs,
        signal: entry.wireSignal,
        freshConnection: tries.staleRetry,
      });
    } catch (err) {
      const failure = err instanceof TransportFailure ? err : new TransportFailure('network', null, String(err));
      // The request may or may not have reached the service: its slots count from now (unless it never left).
      grant.store.report(entry, grant.ticket, { status: 0, sent: !failure.undelivered, info: NO_INFO, at: performance.now(), limited: null });
      return this.afterFailure(entry, failure, tries);
    }
    return this.afterResponse(queue, entry, grant, res, started, tries);
  }

  /** No response: a typed error, or a retry when repeating the request is harmless. */
  private afterFailure(entry: Entry, failure: TransportFailure, tries: Tries): Outcome | Promise<Outcome> {
    const { method } = entry;
    const template = entry.route.template;
    if (failure.kind === 'aborted') return new RequestAbortedError(method, template);
    // A pooled socket the server closed under the request: once more at once, on a connection of its own.
    if (failure.staleSocket && !tries.staleRetry && (entry.idempotent || entry.repeatRefusedCode !== undefined || failure.undelivered)) {
      tries.staleRetry = true;
      this.counters.retries++;
      this.log?.debug({ method, route: template, errorCode: failure.errorCode }, 'kept-alive socket closed under the request; sending it again');
      return AGAIN;
    }
    if (failure.kind === 'timeout') {
      this.log?.warn({ method, route: template, timeoutMs: entry.timeoutMs }, 'request timed out');
      return new TimeoutError(method, template, entry.timeoutMs);
    }
    if ((entry.idempotent || failure.undelivered) && tries.retries < this.retries) {
      tries.retries++;
      this.counters.retries++;
      const delay = this.backoff(tries.retries);
      this.log?.warn(
        { method, route: template, errorCode: failure.errorCode, retry: tries.retries, delayMs: Math.round(delay) },
        'network error, retrying',
      );
      return this.retryAfter(entry, delay);
    }
    return new NetworkError(method, template, tries.retries + 1, failure.errorCode, redact(failure.message), failure);
  }

  private async retryAfter(entry: Entry, delayMs: number): Promise<Outcome> {
    entry.trace?.wait(delayMs, 'retry');
    return (await this.pause(entry, delayMs)) ? AGAIN : SETTLED;
  }

  /** A response: recorded in the store, then the answer, a retry (429, 5xx) or an ApiError. */
  private afterResponse(queue: BucketQueue, entry: Entry, grant: Grant, res: TransportResponse, started: number, tries: Tries): Outcome | Promise<Outcome> {
    const { method } = entry;
    const template = entry.route.template;
    const now = performance.now();
    this.counters.responses++;
    const info = parseRateLimitHeaders(res.headers);
    if (info.bucket !== null && this.hashes.get(entry.routeId) !== info.bucket) this.hashes.set(entry.routeId, info.bucket);
    const body = res.status >= 200 && res.status < 300 ? undefined : parseBody(res);
    const limited = res.status === 429 ? this.rateLimitOutcome(info, body) : null;
    grant.store.report(entry, grant.ticket, { status: res.status, sent: true, info, at: now, limited });
    if (limited !== null) this.emitRateLimited(queue, entry, limited);
    const attempt = tries.retries + tries.rateLimitHits + (tries.staleRetry ? 1 : 0);
    this.emit('response', { method, route: template, bucket: queue.key, attempt, status: res.status, durationMs: now - started });
    this.log?.debug({ method, route: template, status: res.status, ms: Math.round(now - started), bucket: queue.key }, 'response');

    if (res.status >= 200 && res.status < 300) return { status: res.status, data: parseBody(res) };
    if (limited !== null) return this.afterRateLimited(entry, limited, tries);

    const retryable = entry.idempotent ? RETRYABLE_STATUS.has(res.status) : res.status === UNPROCESSED_STATUS;
    if (retryable && tries.retries < this.retries) {
      tries.retries++;
      this.counters.retries++;
      // A 503 may say when to come back; honour it within the retry delay cap.
      const delay = Math.max(this.backoff(tries.retries), Math.min(info.retryAfterMs ?? 0, this.retryMaxDelayMs));
      this.log?.warn({ method, route: template, status: res.status, retry: tries.retries, delayMs: Math.round(delay) }, 'server error, retrying');
      return this.retryAfter(entry, delay);
    }
    const error = new ApiError(method, template, res.status, body);
    // The first copy did arrive before its socket was reset: the refusal of the repeat is that copy's success.
    if (tries.staleRetry && entry.repeatRefusedCode !== undefined && error.code === entry.repeatRefusedCode) return { status: 204, data: undefined };
    this.log?.debug({ method, route: template, status: res.status, code: error.code }, 'request failed');
    return error;
  }

  /** A 429: asked again (the store now holds its wait), unless the wait is too long or it keeps happening. */
  private afterRateLimited(entry: Entry, outcome: RateLimitOutcome, tries: Tries): Outcome {
    tries.rateLimitHits++;
    if (outcome.retryAfterMs <= this.maxRateLimitWaitMs && tries.rateLimitHits <= this.maxRateLimitRetries) return AGAIN;
    return new RateLimitError(entry.method, entry.route.template, {
      retryAfterMs: outcome.retryAfterMs,
      scope: outcome.scope,
      global: outcome.global,
      why:
        tries.rateLimitHits > this.maxRateLimitRetries
          ? `${tries.rateLimitHits} rate-limited attempts`
          : `retry_after longer than maxRateLimitWaitMs (${this.maxRateLimitWaitMs} ms)`,
    });
  }

  /** Warn each time the invalid count crosses a multiple of the warning interval. */
  private onInvalidCount(count: number): void {
    const previous = this.lastInvalidCount;
    this.lastInvalidCount = count;
    if (Math.floor(count / this.warningInterval) <= Math.floor(previous / this.warningInterval)) return;
    const event = { count, limit: this.limits.invalidLimit, windowMs: this.limits.invalidWindowMs };
    this.log?.warn(event, 'many invalid (401/403/429) responses: the service bans the IP at 10,000 per 10 minutes');
    this.emit('invalidRequestWarning', event);
  }

  /** What a 429 asks for: the wait (body's float retry_after first), its scope, whether it is global. */
  private rateLimitOutcome(info: RateLimitInfo, body: unknown): RateLimitOutcome {
    const bodyRetry = isObject(body) && typeof body.retry_after === 'number' ? body.retry_after * 1000 : null;
    const retryAfterMs = Math.max(0, bodyRetry ?? info.retryAfterMs ?? info.resetAfterMs ?? 1000);
    const bodyGlobal = isObject(body) && body.global === true;
    const global = info.global || bodyGlobal || info.scope === 'global';
    const scope: RateLimitScope = info.scope === 'shared' ? 'shared' : global ? 'global' : 'user';
    return { retryAfterMs, scope, global };
  }

  /** Told after the store has recorded the 429, so a listener's new requests already see its wait. */
  private emitRateLimited(queue: BucketQueue, entry: Entry, outcome: RateLimitOutcome): void {
    this.counters.rateLimited++;
    const event: RateLimitedEvent = {
      method: entry.method,
      route: entry.route.template,
      bucket: queue.key,
      scope: outcome.scope,
      global: outcome.global,
      retryAfterMs: outcome.retryAfterMs,
      limit: this.limits.bucket(entry, this.hashes.get(entry.routeId) ?? null)?.limit ?? null,
    };
    entry.trace?.rateLimited(outcome.retryAfterMs, outcome.scope, outcome.global);
    this.log?.warn(event, 'rate limited (429)');
    this.emit('rateLimited', event);
  }

  /** Whether an idle queue is still worth keeping: its store says its window is exhausted. */
  private holdsState(queue: BucketQueue): boolean {
    const view = this.limits.bucket(queue.limitKey, queue.hash);
    return view !== null && view.remaining === 0 && view.resetInMs !== null;
  }

  /** Forget idle queues whose window is over. */
  private sweep(): void {
    for (const q of [...this.queues.values()]) {
      if (!q.running && q.depth === 0 && !this.holdsState(q)) this.dropQueue(q);
    }
  }
}
