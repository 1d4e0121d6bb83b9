/**
 * Path-template routing: `/applications/:applicationId/commands/:commandId`. The REST surface routes its
 * RouteDefs with it, the admin API (../admin/api.ts) its own entries.
 */
import type { HttpMethod, RouteDef } from './types.js';

/** What the router needs of an entry: a method and a path template. */
export interface RouteShape {
  readonly method: string;
  readonly path: string;
}

interface Compiled<R extends RouteShape> {
  route: R;
  segments: Array<{ literal: string } | { param: string }>;
}

export type Match<R extends RouteShape = RouteDef> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' }
  /** A segment is not valid percent-encoding: it names nothing. */
  | { kind: 'undecodable' };

export class Router<R extends RouteShape = RouteDef> {
  private readonly bySize = new Map<number, Array<Compiled<R>>>();

  add(routes: readonly R[]): void {
    for (const route of routes) {
      const segments = route.path
        .split('/')
        .filter((s) => s.length > 0)
        .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
      const list = this.bySize.get(segments.length) ?? [];
      // Literal segments win over params at the same position (commands/permissions vs commands/:id).
      list.push({ route, segments });
      list.sort((a, b) => literalScore(b) - literalScore(a));
      this.bySize.set(segments.length, list);
    }
  }

  match(method: HttpMethod | string, path: string): Match<R> {
    const parts = decodeSegments(path);
    if (parts === null) return { kind: 'undecodable' };
    return this.matchParts(method, parts);
  }

  /** Routes path segments as they are (the caller split them, and decoded them if it decodes). */
  matchParts(method: HttpMethod | string, parts: readonly string[]): Match<R> {
    const candidates = this.bySize.get(parts.length) ?? [];
    let pathMatched = false;
    for (const c of candidates) {
      const params = matchSegments(c.segments, parts);
      if (params === null) continue;
      pathMatched = true;
      if (c.route.method === method) return { kind: 'found', route: c.route, params };
    }
    return pathMatched ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
  }
}

function literalScore(c: Compiled<RouteShape>): number {
  let score = 0;
  for (let i = 0; i < c.segments.length; i++) if ('literal' in c.segments[i]!) score += 1 << (c.segments.length - i);
  return score;
}

/**
 * Path segments, percent-decoded: the service reads `/users/%40me` as `/users/@me` (discord-api-types encodes
 * `@me` when it is passed explicitly, and discord.js sends `/guilds/{id}/members/%40me`). Splitting comes first,
 * so an encoded slash stays inside its segment. null when a segment is not valid percent-encoding.
 */
export function decodeSegments(path: string): string[] | null {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    if (raw.length === 0) continue;
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return out;
}

function matchSegments(segments: Compiled<RouteShape>['segments'], parts: readonly string[]): Record<string, string> | null {
  // Params come from outside: a null-prototype object, never a plain one.
  const params = Object.create(null) as Record<string, string>;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = parts[i]!;
    if ('literal' in seg) {
      if (seg.literal !== part) return null;
    } else {
      params[seg.param] = part;
    }
  }
  return params;
}
