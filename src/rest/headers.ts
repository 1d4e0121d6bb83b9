import type { IncomingHttpHeaders } from 'node:http';

/** What the service says about limits on one response (protocol §3.1, §3.2). */
export interface RateLimitInfo {
  /** X-RateLimit-Bucket: opaque id shared by routes that share a limit. */
  bucket: string | null;
  limit: number | null;
  remaining: number | null;
  /** X-RateLimit-Reset-After in ms (falls back to X-RateLimit-Reset against the local clock). */
  resetAfterMs: number | null;
  /** X-RateLimit-Global on a 429. */
  global: boolean;
  /** X-RateLimit-Scope on a 429: user, global or shared. */
  scope: string | null;
  /** Retry-After in ms. */
  retryAfterMs: number | null;
}

function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function num(headers: IncomingHttpHeaders, name: string): number | null {
  const raw = one(headers, name);
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

export function parseRateLimitHeaders(headers: IncomingHttpHeaders, nowEpochMs = Date.now()): RateLimitInfo {
  const resetAfter = num(headers, 'x-ratelimit-reset-after');
  const reset = num(headers, 'x-ratelimit-reset');
  const retryAfter = num(headers, 'retry-after');
  return {
    bucket: one(headers, 'x-ratelimit-bucket') ?? null,
    limit: num(headers, 'x-ratelimit-limit'),
    remaining: num(headers, 'x-ratelimit-remaining'),
    resetAfterMs:
      resetAfter !== null ? Math.max(0, resetAfter * 1000) : reset !== null ? Math.max(0, reset * 1000 - nowEpochMs) : null,
    global: (one(headers, 'x-ratelimit-global') ?? '').toLowerCase() === 'true',
    scope: one(headers, 'x-ratelimit-scope')?.toLowerCase() ?? null,
    retryAfterMs: retryAfter !== null ? Math.max(0, retryAfter * 1000) : null,
  };
}
