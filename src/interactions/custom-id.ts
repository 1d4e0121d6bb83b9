/**
 * custom_id patterns for component and modal handlers: an exact id (`settings:open`) or a pattern with named
 * parameters (`poll:{id}:{choice}`). Everything a handler needs lives in the id itself, so routing needs no
 * in-memory collector and survives restarts.
 *
 * A parameter matches one or more characters and never contains the punctuation its pattern uses as literal
 * text: in `poll:{id}:{choice}` neither parameter contains ":"; in `vote/{id}` the id contains no "/". Two
 * parameters may not touch (`{a}{b}` has no defined split). Whether two patterns can match one id is decided
 * exactly (a product of their automata), so overlaps are refused when handlers are registered, never guessed
 * at when an interaction arrives.
 */

/** The service's limit on custom_id (components and modals). */
export const CUSTOM_ID_MAX_LENGTH = 100;

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Token = { kind: 'literal'; char: string } | { kind: 'param'; name: string; excluded: ReadonlySet<string> };

export interface CustomIdPattern {
  /** As written by the plugin. */
  readonly source: string;
  /** True when the pattern has no parameter (matched by a Map lookup). */
  readonly exact: boolean;
  readonly params: readonly string[];
  readonly tokens: readonly Token[];
  readonly regex: RegExp;
}

export class CustomIdPatternError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`custom_id pattern ${JSON.stringify(pattern)}: ${reason}`);
    this.name = 'CustomIdPatternError';
  }
}

function isPunctuation(ch: string): boolean {
  return !/[\p{L}\p{N}]/u.test(ch);
}

function escapeLiteral(ch: string): string {
  return ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function escapeInClass(ch: string): string {
  return ch.replace(/[\\\]\[^-]/g, '\\$&');
}

/** Parse a pattern; throws CustomIdPatternError saying what is wrong. */
export function compileCustomId(source: string): CustomIdPattern {
  if (typeof source !== 'string' || source.length === 0) throw new CustomIdPatternError(String(source), 'must be a non-empty string');
  const raw: Array<{ kind: 'literal'; char: string } | { kind: 'param'; name: string }> = [];
  const chars = [...source];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '}') throw new CustomIdPatternError(source, `"}" at position ${i + 1} closes no parameter`);
    if (ch !== '{') {
      raw.push({ kind: 'literal', char: ch });
      continue;
    }
    const end = chars.indexOf('}', i + 1);
    if (end === -1) throw new CustomIdPatternError(source, `"{" at position ${i + 1} is never closed`);
    const name = chars.slice(i + 1, end).join('');
    if (!PARAM_NAME.test(name)) {
      throw new CustomIdPatternError(source, `parameter name ${JSON.stringify(name)} must be letters, digits and "_", not starting with a digit`);
    }
    if (raw.some((t) => t.kind === 'param' && t.name === name)) throw new CustomIdPatternError(source, `parameter {${name}} appears twice`);
    if (raw.at(-1)?.kind === 'param') throw new CustomIdPatternError(source, `parameters {${(raw.at(-1) as { name: string }).name}} and {${name}} touch; put a separator between them`);
    raw.push({ kind: 'param', name });
    i = end;
  }
  const excluded = new Set(raw.flatMap((t) => (t.kind === 'literal' && isPunctuation(t.char) ? [t.char] : [])));
  const tokens: Token[] = raw.map((t) => (t.kind === 'literal' ? t : { kind: 'param', name: t.name, excluded }));
  const params = tokens.flatMap((t) => (t.kind === 'param' ? [t.name] : []));
  const shortest = tokens.length; // each literal is one character, each parameter at least one
  if (shortest > CUSTOM_ID_MAX_LENGTH) {
    throw new CustomIdPatternError(source, `matches nothing: its shortest id has ${shortest} characters and a custom_id has at most ${CUSTOM_ID_MAX_LENGTH}`);
  }
  const notExcluded = excluded.size === 0 ? '.' : `[^${[...excluded].map(escapeInClass).join('')}]`;
  const body = tokens.map((t) => (t.kind === 'literal' ? escapeLiteral(t.char) : `(${notExcluded}+)`)).join('');
  return { source, exact: params.length === 0, params, tokens, regex: new RegExp(`^${body}$`, 'su') };
}

/** The parameters of `id` under `pattern`, or null when it does not match. */
export function matchCustomId(pattern: CustomIdPattern, id: string): Record<string, string> | null {
  if (pattern.exact) return id === pattern.source ? (Object.create(null) as Record<string, string>) : null;
  const m = pattern.regex.exec(id);
  if (m === null) return null;
  const params = Object.create(null) as Record<string, string>;
  pattern.params.forEach((name, i) => {
    params[name] = m[i + 1]!;
  });
  return params;
}

// ---- overlap ----------------------------------------------------------------------------------------------

/** NFA state: position in the token list, and whether a parameter at that position has begun. */
type State = number; // index * 2 + (inParam ? 1 : 0)

function closure(states: Iterable<State>): Set<State> {
  const out = new Set<State>();
  const stack = [...states];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (out.has(s)) continue;
    out.add(s);
    // Inside a parameter (at least one character read) the parameter may end here.
    if (s % 2 === 1) stack.push(((s - 1) / 2 + 1) * 2);
  }
  return out;
}

function step(p: CustomIdPattern, states: ReadonlySet<State>, ch: string): Set<State> {
  const next: State[] = [];
  for (const s of states) {
    const index = Math.floor(s / 2);
    const token = p.tokens[index];
    if (token === undefined) continue;
    if (token.kind === 'literal') {
      if (s % 2 === 0 && token.char === ch) next.push((index + 1) * 2);
    } else if (!token.excluded.has(ch)) {
      next.push(index * 2 + 1);
    }
  }
  return closure(next);
}

function accepts(p: CustomIdPattern, states: ReadonlySet<State>): boolean {
  return states.has(p.tokens.length * 2);
}

/** A character that appears in neither pattern, standing for every such character. */
function otherChar(used: ReadonlySet<string>): string {
  for (const candidate of ['x', 'q', 'z', '0', '7', 'Z']) if (!used.has(candidate)) return candidate;
  for (let code = 0x4e00; ; code++) if (!used.has(String.fromCharCode(code))) return String.fromCharCode(code);
}

/**
 * A custom_id that both patterns match (the shortest), or null when none exists. Characters that neither
 * pattern mentions behave alike, so one stands for all of them and the search is over a finite alphabet.
 */
export function overlapExample(a: CustomIdPattern, b: CustomIdPattern): string | null {
  if (a.exact) return matchCustomId(b, a.source) !== null ? a.source : null;
  if (b.exact) return matchCustomId(a, b.source) !== null ? b.source : null;
  const used = new Set<string>();
  for (const t of [...a.tokens, ...b.tokens]) if (t.kind === 'literal') used.add(t.char);
  // The stand-in first, so examples read as "poll:x" rather than reusing pattern text.
  const alphabet = [otherChar(used), ...used];
  const key = (x: ReadonlySet<State>, y: ReadonlySet<State>): string => `${[...x].sort().join(',')}|${[...y].sort().join(',')}`;
  const start: [Set<State>, Set<State>, string] = [closure([0]), closure([0]), ''];
  const seen = new Set([key(start[0], start[1])]);
  const queue = [start];
  // Breadth first, bounded by the id length limit: the first hit is a shortest common id.
  while (queue.length > 0) {
    const [x, y, text] = queue.shift()!;
    if (accepts(a, x) && accepts(b, y)) return text;
    if ([...text].length >= CUSTOM_ID_MAX_LENGTH) continue;
    for (const ch of alphabet) {
      const nx = step(a, x, ch);
      const ny = step(b, y, ch);
      if (nx.size === 0 || ny.size === 0) continue;
      const k = key(nx, ny);
      if (seen.has(k)) continue;
      seen.add(k);
      queue.push([nx, ny, text + ch]);
    }
  }
  return null;
}

// ---- a routing table --------------------------------------------------------------------------------------

export interface CustomIdRoute<T> {
  readonly owner: string;
  readonly pattern: CustomIdPattern;
  readonly value: T;
}

export class CustomIdConflictError extends Error {
  constructor(
    readonly route: { owner: string; pattern: string },
    readonly existing: { owner: string; pattern: string },
    readonly example: string,
  ) {
    const same = route.pattern === existing.pattern;
    const other = route.owner === existing.owner ? 'the same plugin' : `plugin "${existing.owner}"`;
    super(
      same
        ? `custom_id ${JSON.stringify(route.pattern)} of plugin "${route.owner}" is already handled by ${other}`
        : `custom_id pattern ${JSON.stringify(route.pattern)} of plugin "${route.owner}" overlaps ${JSON.stringify(existing.pattern)} of ${other}: ${JSON.stringify(example)} would match both`,
    );
    this.name = 'CustomIdConflictError';
  }
}

/**
 * Exact ids in a Map, patterns in a list; at most one route matches any id. Within one plugin an exact id
 * may sit inside one of its own patterns (the exact id wins, as static routes do in HTTP routers); across
 * plugins any overlap is refused, because it would make one plugin's id reach another's handler.
 */
export class CustomIdTable<T> {
  private readonly exactRoutes = new Map<string, CustomIdRoute<T>>();
  private readonly patternRoutes: Array<CustomIdRoute<T>> = [];

  /**
   * The conflict this route would have, or null. Routes of `ignoreOwner` are left out (a plugin being
   * replaced by its next version).
   */
  conflict(owner: string, pattern: CustomIdPattern, ignoreOwner: string | null = null): CustomIdConflictError | null {
    const existing = pattern.exact ? this.exactRoutes.get(pattern.source) : this.patternRoutes.find((r) => r.pattern.source === pattern.source);
    if (existing !== undefined && existing.owner !== ignoreOwner) {
      return new CustomIdConflictError({ owner, pattern: pattern.source }, { owner: existing.owner, pattern: existing.pattern.source }, pattern.source);
    }
    const candidates = pattern.exact ? this.patternRoutes : [...this.patternRoutes, ...this.exactRoutes.values()];
    for (const route of candidates) {
      if (route.owner === ignoreOwner) continue;
      if (route.owner === owner && (pattern.exact || route.pattern.exact)) continue;
      const example = overlapExample(pattern, route.pattern);
      if (example !== null) {
        return new CustomIdConflictError({ owner, pattern: pattern.source }, { owner: route.owner, pattern: route.pattern.source }, example);
      }
    }
    return null;
  }

  /** Add a route; throws CustomIdConflictError when another could match the same id. */
  add(owner: string, pattern: CustomIdPattern, value: T): void {
    const clash = this.conflict(owner, pattern);
    if (clash !== null) throw clash;
    const route = { owner, pattern, value };
    if (pattern.exact) this.exactRoutes.set(pattern.source, route);
    else this.patternRoutes.push(route);
  }

  removeOwner(owner: string): void {
    for (const [id, route] of this.exactRoutes) if (route.owner === owner) this.exactRoutes.delete(id);
    for (let i = this.patternRoutes.length - 1; i >= 0; i--) if (this.patternRoutes[i]!.owner === owner) this.patternRoutes.splice(i, 1);
  }

  /** The route for an id and its parameters, or undefined. */
  find(id: string): { route: CustomIdRoute<T>; params: Record<string, string> } | undefined {
    const exact = this.exactRoutes.get(id);
    if (exact !== undefined) return { route: exact, params: Object.create(null) as Record<string, string> };
    for (const route of this.patternRoutes) {
      const params = matchCustomId(route.pattern, id);
      if (params !== null) return { route, params };
    }
    return undefined;
  }

  get size(): number {
    return this.exactRoutes.size + this.patternRoutes.length;
  }
}
