import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that speaks the service's rate-limit dialect: per-bucket
 * X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket headers over fixed windows per major parameter,
 * 429 bodies with `retry_after`, Retry-After and X-RateLimit-Scope, global 429s, scripted 5xx and slow
 * responses. Windows are set per test so suites stay fast.
 */

export interface RecordedRequest {
  /** Index in arrival order. */
  seq: number;
  method: string;
  /** Path below the base (e.g. `/channels/1/messages`), without query. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** performance.now() at arrival (same clock as the client when in the same process). */
  at: number;
  status: number;
  /** X-RateLimit-Scope of a 429 ('user', 'global', 'shared'), null otherwise. */
  scope: string | null;
}

export interface BucketRule {
  /** Which requests this bucket governs. */
  match: (method: string, path: string) => boolean;
  /** X-RateLimit-Bucket value. */
  hash: string;
  limit: number;
  windowMs: number;
  /** Major parameter of a path (windows are per hash + major); default: the first id after /channels|/guilds. */
  major?: (path: string) => string;
  /** Windows per Authorization value too, as the service keeps them per bot or user. Default false. */
  perCredential?: boolean;
}

export interface ScriptedResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Drop the connection without answering. */
  destroy?: boolean;
}

export type Handler = (req: RecordedRequest) => ScriptedResponse | undefined;

export interface FakeApiOptions {
  buckets?: BucketRule[];
  /** Server-side global limit per Authorization value (sliding window); over it a global 429 is sent. */
  global?: { limit: number; windowMs: number; retryAfterMs: number };
}

function defaultMajor(path: string): string {
  const m = /^\/(?:channels|guilds)\/(\d+)/.exec(path) ?? /^\/(?:webhooks|interactions)\/([^/]+\/[^/]+)/.exec(path);
  return m ? m[1]! : '-';
}

export class FakeApi {
  readonly requests: RecordedRequest[] = [];
  private server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly scripts: Array<{ method: string; path: RegExp; responses: ScriptedResponse[] }> = [];
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly globalLog = new Map<string, number[]>();
  private handler: Handler = () => undefined;
  private port = 0;

  constructor(private readonly options: FakeApiOptions = {}) {
    this.server = http.createServer((req, res) => this.onRequest(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** REST base, as the config's apiUrl would hold it. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v10`;
  }

  /** Answer the next matching requests with these responses, in order (then fall back to the default). */
  script(method: string, path: RegExp, responses: ScriptedResponse[]): void {
    this.scripts.push({ method, path, responses: [...responses] });
  }

  /** Default answer for anything unscripted; return undefined for `200 {"ok":true,...}`. */
  onAny(handler: Handler): void {
    this.handler = handler;
  }

  countWhere(pred: (r: RecordedRequest) => boolean): number {
    return this.requests.filter(pred).length;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/api\/v10/, '');
      const rec: RecordedRequest = {
        seq: this.requests.length,
        method: req.method ?? 'GET',
        path,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
        status: 0,
        scope: null,
      };
      this.requests.push(rec);
      const answer = this.decide(rec);
      rec.status = answer.destroy ? 0 : answer.status;
      rec.scope = answer.status === 429 ? (answer.headers?.['x-ratelimit-scope'] ?? null) : null;
      const send = (): void => {
        if (answer.destroy) {
          req.socket.destroy();
          return;
        }
        const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        const headers: Record<string, string> = { ...answer.headers };
        if (body !== '' && !headers['content-type']) headers['content-type'] = 'application/json';
        res.writeHead(answer.status, headers);
        res.end(body);
      };
      if (answer.delayMs) {
        const t = setTimeout(send, answer.delayMs);
        res.on('close', () => clearTimeout(t));
      } else {
        send();
      }
    });
  }

  private decide(rec: RecordedRequest): ScriptedResponse {
    const now = rec.at;

    // Server-side global limit, per credential.
    if (this.options.global) {
      const g = this.options.global;
      const who = String(rec.headers.authorization ?? 'anonymous');
      const log = this.globalLog.get(who) ?? [];
      while (log.length > 0 && log[0]! <= now - g.windowMs) log.shift();
      if (log.length >= g.limit) {
        return globalRateLimited(g.retryAfterMs);
      }
      log.push(now);
      this.globalLog.set(who, log);
    }

    // Per-bucket windows.
    let limitHeaders: Record<string, string> = {};
    const rule = this.options.buckets?.find((b) => b.match(rec.method, rec.path));
    if (rule) {
      const who = rule.perCredential === true ? `${String(rec.headers.authorization ?? '')}|` : '';
      const key = `${who}${rule.hash}:${(rule.major ?? defaultMajor)(rec.path)}`;
      let w = this.windows.get(key);
      if (!w || now >= w.start + rule.windowMs) {
        w = { start: now, count: 0 };
        this.windows.set(key, w);
      }
      const resetAfter = Math.max(0, w.start + rule.windowMs - now) / 1000;
      const base = {
        'x-ratelimit-bucket': rule.hash,
        'x-ratelimit-limit': String(rule.limit),
        'x-ratelimit-reset-after': resetAfter.toFixed(3),
        'x-ratelimit-reset': ((Date.now() + resetAfter * 1000) / 1000).toFixed(3),
      };
      if (w.count >= rule.limit) {
        return {
          status: 429,
          headers: {
            ...base,
            'x-ratelimit-remaining': '0',
            'x-ratelimit-scope': 'user',
            'retry-after': String(Math.ceil(resetAfter)),
          },
          body: { message: 'You are being rate limited.', retry_after: Number(resetAfter.toFixed(3)), global: false },
        };
      }
      w.count++;
      limitHeaders = { ...base, 'x-ratelimit-remaining': String(rule.limit - w.count) };
    }

    const script = this.scripts.find((s) => s.method === rec.method && s.path.test(rec.path) && s.responses.length > 0);
    const scripted = script?.responses.shift();
    const answer = scripted ?? this.handler(rec) ?? { status: 200, body: { ok: true, seq: rec.seq, echo: safeJson(rec.body) } };
    return { ...answer, headers: { ...limitHeaders, ...answer.headers } };
  }
}

function safeJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A 429 of global scope, as the service sends it. */
export function globalRateLimited(retryAfterMs: number): ScriptedResponse {
  return {
    status: 429,
    headers: {
      'x-ratelimit-global': 'true',
      'x-ratelimit-scope': 'global',
      'retry-after': String(Math.ceil(retryAfterMs / 1000)),
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfterMs / 1000, global: true },
  };
}

/** A 429 of user scope with only the body's retry_after (and an integer Retry-After header). */
export function userRateLimited(retryAfterMs: number, scope: 'user' | 'shared' = 'user'): ScriptedResponse {
  return {
    status: 429,
    headers: { 'x-ratelimit-scope': scope, 'retry-after': String(Math.ceil(retryAfterMs / 1000)) },
    body: { message: 'You are being rate limited.', retry_after: retryAfterMs / 1000, global: false },
  };
}

export async function startFakeApi(options: FakeApiOptions = {}): Promise<FakeApi> {
  return new FakeApi(options).listen();
}

/** Largest number of timestamps falling in any window of `windowMs` (sorted input not required). */
export function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
