/** Path-template routing: `/applications/:applicationId/commands/:commandId`. */
import type { HttpMethod, RouteDef } from './types.js';

interface Compiled {
  route: RouteDef;
  segments: Array<{ literal: string } | { param: string }>;
}

export type Match =
  | { kind: 'found'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' };

export class Router {
  private readonly bySize = new Map<number, Compiled[]>();

  add(routes: readonly RouteDef[]): void {
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

  match(method: HttpMethod | string, path: string): Match {
    const parts = path.split('/').filter((s) => s.length > 0);
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

function literalScore(c: Compiled): number {
  let score = 0;
  for (let i = 0; i < c.segments.length; i++) if ('literal' in c.segments[i]!) score += 1 << (c.segments.length - i);
  return score;
}

function matchSegments(segments: Compiled['segments'], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = parts[i]!;
    if ('literal' in seg) {
      if (seg.literal !== part) return null;
    } else {
      // Malformed percent-encoding names no resource: no match (404), not a handler failure.
      try {
        params[seg.param] = decodeURIComponent(part);
      } catch {
        return null;
      }
    }
  }
  return params;
}
