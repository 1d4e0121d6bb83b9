/**
 * The REST surface: version prefix, routing, authentication, global and per-bucket rate limits with the
 * service's headers and 429 bodies (protocol §3), body parsing, and the service's error shapes (protocol §2.5).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { EventEmitter } from 'node:events';
import type { SandboxCounters, SandboxRestEvents, SandboxRestFaults } from '../contract.js';
import { SandboxApiError, Errors, SandboxError, UNMODELLED, unmodelled } from '../errors.js';
import { requesterLocale } from '../locales.js';
import type { ResolvedRestOptions } from '../options.js';
import { bucketHeaders, type RateLimiter } from '../ratelimit.js';
import type { OAuthStore } from '../state/oauth.js';
import { parseBody, readRaw, refuseRestOfBody } from './body.js';
import { journalPath, type RequestJournal } from './journal.js';
import { decodeSegments, Router } from './router.js';
import { isServiceOnlyPath } from './service-literals.js';
import type { Auth, HttpMethod, RestContext, RestResult, RouteDef } from './types.js';

export interface RestDeps {
  options: ResolvedRestOptions;
  botToken: string;
  oauth: OAuthStore;
  limiter: RateLimiter;
  counters: SandboxCounters;
  logger: Logger;
  /** Where answered requests are kept for the admin API (`GET /_sandbox/requests`). */
  journal?: RequestJournal;
  /** Told every answer, when someone listens. */
  events?: EventEmitter<SandboxRestEvents>;
}

/** What the journal and the response event need to know of a request, filled in while it is handled. */
interface Seen {
  path?: string;
  auth?: 'bot' | 'bearer' | 'none';
  body?: unknown;
  /** The bucket and major parameter the request was counted in. */
  bucket: string | null;
  major: string | null;
}

type ForcedLimit = { retryAfterMs: number; scope: 'user' | 'shared' | 'global'; count: number };

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);

export class RestApi {
  private readonly router = new Router();
  private readonly log: Logger;
  /** Forced 429s per bucket name (faults.rateLimit). */
  private readonly forced = new Map<string, ForcedLimit>();

  constructor(private readonly deps: RestDeps) {
    this.log = deps.logger.child({ component: 'sandbox.rest' });
  }

  add(routes: readonly RouteDef[]): void {
    this.router.add(routes);
  }

  readonly faults: SandboxRestFaults = {
    rateLimit: ({ bucket, retryAfterMs, scope = 'user', count = 1 }) => {
      if (typeof bucket !== 'string' || bucket === '') throw new SandboxError('INVALID', 'bucket must be a bucket name');
      if (!(retryAfterMs >= 0) || !Number.isFinite(retryAfterMs)) throw new SandboxError('INVALID', 'retryAfterMs must be a non-negative number');
      if (!Number.isInteger(count) || count < 1) throw new SandboxError('INVALID', 'count must be a positive integer');
      if (scope !== 'user' && scope !== 'shared' && scope !== 'global') throw new SandboxError('INVALID', 'scope must be user, shared or global');
      this.forced.set(bucket, { retryAfterMs, scope, count });
    },
  };

  /** Handle a request whose path starts with /api. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    this.deps.counters.restRequests++;
    const headers: Record<string, string> = {};
    const seen: Seen = { bucket: null, major: null };
    let result: RestResult;
    try {
      // The body is read (up to its cap) before anything else is decided, so that every answer, a 401 or a
      // 429 included, leaves the connection clean for the next request.
      const raw = await readRaw(req);
      result = await this.dispatch(req, url, headers, raw, seen);
    } catch (err) {
      result = this.errorResult(err);
      if (err instanceof SandboxApiError && err.extraHeaders) Object.assign(headers, err.extraHeaders);
    }
    refuseRestOfBody(req, headers);
    if (result.status === 429) this.deps.counters.rest429s++;
    if (seen.path !== undefined) {
      this.deps.journal?.record({
        method: (req.method ?? 'GET').toUpperCase(),
        path: seen.path,
        status: result.status,
        auth: seen.auth ?? 'none',
        ...(seen.body !== undefined ? { body: seen.body } : {}),
      });
    }
    const events = this.deps.events;
    if (events !== undefined && events.listenerCount('response') > 0) {
      events.emit('response', {
        method: (req.method ?? 'GET').toUpperCase(),
        path: maskTokens(url.pathname),
        bucket: seen.bucket,
        major: seen.major,
        status: result.status,
        at: Date.now(),
      });
    }
    Object.assign(headers, result.headers);
    const reason = result.status === UNMODELLED.status ? UNMODELLED.reason : undefined;
    if (result.body === undefined) {
      res.writeHead(result.status, headers);
      res.end();
      return;
    }
    const json = JSON.stringify(result.body);
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(json));
    if (reason !== undefined) res.writeHead(result.status, reason, headers);
    else res.writeHead(result.status, headers);
    res.end(json);
  }

  private errorResult(err: unknown): RestResult {
    if (err instanceof SandboxApiError) return { status: err.status, body: err.body() };
    this.log.error({ err }, 'sandbox REST handler failed');
    return { status: 500, body: { message: '500: Internal Server Error', code: 0 } };
  }

  private async dispatch(req: IncomingMessage, url: URL, headers: Record<string, string>, raw: Buffer, seen: Seen): Promise<RestResult> {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = this.versionedPath(url.pathname);
    const match = this.router.match(method, path);
    if (match.kind === 'undecodable') throw Errors.notFound();
    // Anything else the router cannot place is not modelled: the marker error, never a plausible service answer
    // (the sandbox cannot tell a route the service lacks from one it does not model).
    if (match.kind !== 'found' || !METHODS.has(method)) throw unmodelled(method, maskTokens(path));
    if (isServiceOnlyPath(decodeSegments(path) ?? [])) throw unmodelled(method, maskTokens(path));
    const { route, params } = match;
    seen.path = journalPath(route.path, params);

    const auth = this.authenticate(req.headers.authorization);
    seen.auth = auth.kind;
    if (route.auth === 'bot' && auth.kind !== 'bot') throw Errors.unauthorized();
    if (route.auth === 'bot-or-bearer' && auth.kind === 'none') throw Errors.unauthorized();

    const now = Date.now();
    const identity = auth.kind === 'bot' ? 'bot' : auth.kind === 'bearer' ? `bearer:${auth.token.accessToken}` : `ip:${req.socket.remoteAddress ?? '?'}`;
    if (route.global !== false) {
      const g = this.deps.limiter.takeGlobal(identity, now);
      if (!g.allowed) {
        const retryAfter = Math.max(0.001, (g.resetAt - now) / 1000);
        return {
          status: 429,
          headers: { 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' },
          body: { message: 'You are being rate limited.', retry_after: Number(retryAfter.toFixed(3)), global: true },
        };
      }
    }
    if (route.bucket !== null) {
      const major = typeof route.major === 'function' ? route.major(params) : route.major ? (params[route.major] ?? '') : '';
      seen.bucket = route.bucket;
      seen.major = major;
      const forced = this.forced.get(route.bucket);
      if (forced !== undefined) {
        if (--forced.count <= 0) this.forced.delete(route.bucket);
        const retryAfter = forced.retryAfterMs / 1000;
        const global = forced.scope === 'global';
        // The bucket headers go with a user or shared 429 as with the service's (protocol §3.2): a user one
        // has used the bucket up until retry_after (clients such as @discordjs/rest read Remaining 0 as the
        // bucket being limited, not as a sublimit); a shared one leaves the bucket as it is. A global one has none.
        if (!global) {
          const state = this.deps.limiter.peek(identity, route.bucket, major, this.deps.options.buckets[route.bucket], now);
          if (forced.scope === 'user') Object.assign(state, { remaining: 0, resetAt: now + forced.retryAfterMs });
          Object.assign(headers, bucketHeaders(state, now));
        }
        return {
          status: 429,
          headers: {
            'retry-after': String(Math.ceil(retryAfter)),
            'x-ratelimit-scope': forced.scope,
            ...(global ? { 'x-ratelimit-global': 'true' } : {}),
          },
          body: { message: 'You are being rate limited.', retry_after: Number(retryAfter.toFixed(3)), global },
        };
      }
      const state = this.deps.limiter.take(identity, route.bucket, major, this.deps.options.buckets[route.bucket], now);
      Object.assign(headers, bucketHeaders(state, now));
      if (!state.allowed) {
        const retryAfter = Math.max(0.001, (state.resetAt - now) / 1000);
        return {
          status: 429,
          headers: { 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-scope': 'user' },
          body: { message: 'You are being rate limited.', retry_after: Number(retryAfter.toFixed(3)), global: false },
        };
      }
    }

    const body = await parseBody(raw, req.headers['content-type']);
    if (body.kind === 'json' || body.kind === 'multipart') seen.body = body.value;
    const locale = requesterLocale(single(req.headers['x-discord-locale']), single(req.headers['accept-language']));
    const ctx: RestContext = { method: method as HttpMethod, path, params, query: url.searchParams, headers: req.headers, auth, body, locale };
    return route.handler(ctx);
  }

  /** /api/v10/x -> /x. v9 is accepted too; other versions get 50041. Only /oauth2/* works without a version. */
  private versionedPath(pathname: string): string {
    const rest = pathname.slice('/api'.length);
    const m = /^\/v(\d+)(\/.*)?$/.exec(rest);
    if (m) {
      if (m[1] !== '10' && m[1] !== '9') throw Errors.invalidVersion();
      return m[2] ?? '/';
    }
    if (rest.startsWith('/oauth2/')) return rest;
    throw Errors.invalidVersion();
  }

  private authenticate(header: string | undefined): Auth {
    if (!header) return { kind: 'none' };
    const space = header.indexOf(' ');
    const scheme = space === -1 ? header : header.slice(0, space);
    const credential = space === -1 ? '' : header.slice(space + 1).trim();
    if (scheme === 'Bot') {
      if (credential !== this.deps.botToken) throw Errors.unauthorized();
      return { kind: 'bot' };
    }
    if (scheme === 'Bearer') {
      const token = this.deps.oauth.get(credential);
      if (!token) throw Errors.unauthorized();
      return { kind: 'bearer', token };
    }
    // Basic is for the token endpoint only; it reads the header itself.
    if (scheme === 'Basic') return { kind: 'none' };
    throw Errors.unauthorized();
  }
}

/** A path for an error body: interaction and webhook tokens replaced, so an answer never echoes a secret. */
export function maskTokens(path: string): string {
  return path.replace(/\/(webhooks|interactions)\/([^/]+)\/[^/]+/, '/$1/$2/{token}');
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
