import crypto from 'node:crypto';
import { isSnowflake, SNOWFLAKE_RULE } from '../api/snowflake.js';
import type { HttpMethod } from './errors.js';

/**
 * Routes are named by TEMPLATE (`/channels/{channel_id}/voice-status`) plus a params object. The template
 * is what logs, errors, events and bucket keys show; the real path (which may carry an interaction or
 * webhook token) is built only to be written to the socket.
 */

/** The params a template names, e.g. `{ application_id: string; command_id: string }`. */
export type RouteParams<R extends string> = R extends `${string}{${infer P}}${infer Rest}`
  ? { [K in P]: string } & RouteParams<Rest>
  : Record<never, never>;

/**
 * Top-level resources the service keys its buckets on (protocol §3.1): a limit hit on one channel does not
 * block another. Interaction callbacks and interaction webhooks are keyed per interaction.
 */
const MAJOR_PARAMS = new Set(['channel_id', 'guild_id', 'webhook_id', 'webhook_token', 'interaction_id', 'interaction_token']);

export interface CompiledRoute {
  readonly template: string;
  /** Literal text around the params: literals.length === params.length + 1. */
  readonly literals: readonly string[];
  readonly params: readonly string[];
  /** Indexes into `params` of the major parameters. */
  readonly major: readonly number[];
  /** Params whose values are secrets (tokens): hashed before they enter a bucket key. */
  readonly secret: readonly boolean[];
  /** Params that are ids (`*_id`): checked by the snowflake rule before a request goes out. */
  readonly ids: readonly boolean[];
  /**
   * Interaction callbacks and webhook-with-token routes do not count against the global limit
   * (protocol §3.3).
   */
  readonly globalExempt: boolean;
}

const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;
const compiled = new Map<string, CompiledRoute>();
const MAX_CACHED_ROUTES = 2_000;

export function compileRoute(template: string): CompiledRoute {
  const hit = compiled.get(template);
  if (hit) return hit;
  if (!template.startsWith('/') || template.includes('?') || template.includes('#')) {
    throw new TypeError(`route template must be a path starting with "/" and without query: ${template}`);
  }
  const literals: string[] = [];
  const params: string[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    literals.push(template.slice(last, m.index));
    params.push(m[1]!);
    last = m.index + m[0].length;
  }
  literals.push(template.slice(last));
  if (literals.some((l) => l.includes('{') || l.includes('}'))) {
    throw new TypeError(`malformed placeholder in route template: ${template}`);
  }
  const major: number[] = [];
  params.forEach((p, i) => {
    if (MAJOR_PARAMS.has(p)) major.push(i);
  });
  const secret = params.map((p) => p.endsWith('token'));
  const ids = params.map((p) => p.endsWith('_id'));
  const globalExempt =
    template.startsWith('/interactions/') || (template.startsWith('/webhooks/') && secret.some(Boolean));
  const route: CompiledRoute = { template, literals, params, major, secret, ids, globalExempt };
  if (compiled.size < MAX_CACHED_ROUTES) compiled.set(template, route);
  return route;
}

function paramValue(route: CompiledRoute, params: Readonly<Record<string, unknown>> | undefined, i: number): string {
  const name = route.params[i]!;
  const value = params?.[name];
  if (route.ids[i] === true && value !== undefined && value !== '') {
    // An id param: the one snowflake rule, so a request never goes out with an id the service would refuse.
    const id = typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value)) ? String(value) : value;
    if (isSnowflake(id)) return id;
    throw new TypeError(`route ${route.template}: param "${name}" must be ${SNOWFLAKE_RULE}; got ${JSON.stringify(typeof value === 'bigint' ? String(value) : value) ?? 'undefined'}`);
  }
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) return String(value);
  // The value is not echoed: it may be a token.
  throw new TypeError(`route ${route.template}: param "${name}" must be a non-empty string`);
}

/** The real path, with every param URL-encoded. Never log it. */
export function renderPath(route: CompiledRoute, params: Readonly<Record<string, unknown>> | undefined): string {
  let out = route.literals[0]!;
  for (let i = 0; i < route.params.length; i++) {
    out += encodeURIComponent(paramValue(route, params, i)) + route.literals[i + 1]!;
  }
  return out;
}

const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** A short stable digest, so that a token can key a map without being kept or shown. */
export function digest(secret: string): string {
  // The one-shot hash (Node >= 20.12) costs a third of a Hash object: it runs for every interaction answer.
  const text = oneShotHash !== undefined ? oneShotHash('sha256', secret, 'base64url') : crypto.createHash('sha256').update(secret).digest('base64url');
  return text.slice(0, 16);
}

/** The major parameter values joined, tokens digested; `-` when the route has none. */
export function majorKey(route: CompiledRoute, params: Readonly<Record<string, unknown>> | undefined): string {
  if (route.major.length === 0) return '-';
  let out = '';
  for (const i of route.major) {
    const v = paramValue(route, params, i);
    out += (out === '' ? '' : '/') + (route.secret[i] ? digest(v) : v);
  }
  return out;
}

/** Identity of a route for bucket-hash discovery: the service's bucket hash excludes top-level ids. */
export function routeId(method: HttpMethod, route: CompiledRoute): string {
  return `${method} ${route.template}`;
}
