/**
 * Shape checks for the dispatches the gateway layer itself reads (besides READY, checked where it is handled):
 * the op 8 replies. The member request assembler ignores what it cannot use; these say what was wrong, so the
 * shard can report it (protocol §11.3, §11.9). They run only for these two rare events.
 */

export interface ShapeProblem {
  /** Field path inside `d`. */
  field: string;
  reason: string;
}

/** A received value's type, for reports (never the value: it may be long, or not meant for logs). */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (v === '') return 'an empty string';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonNegativeInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** GUILD_MEMBERS_CHUNK: guild_id, chunk_index < chunk_count, members (and the optional lists) as lists. */
export function memberChunkProblem(d: unknown): ShapeProblem | null {
  if (!isObj(d)) return { field: '(payload)', reason: `expected an object, got ${describe(d)}` };
  if (typeof d.guild_id !== 'string') return { field: 'guild_id', reason: `expected a snowflake string, got ${describe(d.guild_id)}` };
  if (!nonNegativeInt(d.chunk_count) || d.chunk_count < 1) {
    return { field: 'chunk_count', reason: `expected a positive integer, got ${describe(d.chunk_count)}` };
  }
  if (!nonNegativeInt(d.chunk_index) || d.chunk_index >= d.chunk_count) {
    return { field: 'chunk_index', reason: `expected an integer from 0 to chunk_count - 1, got ${describe(d.chunk_index)}` };
  }
  for (const list of ['members', 'not_found', 'presences'] as const) {
    if (d[list] !== undefined && !Array.isArray(d[list])) return { field: list, reason: `expected a list, got ${describe(d[list])}` };
  }
  if (d.nonce !== undefined && typeof d.nonce !== 'string') {
    return { field: 'nonce', reason: `expected a string, got ${describe(d.nonce)}` };
  }
  return null;
}

/** RATE_LIMITED: opcode, retry_after (seconds) and meta. */
export function rateLimitedProblem(d: unknown): ShapeProblem | null {
  if (!isObj(d)) return { field: '(payload)', reason: `expected an object, got ${describe(d)}` };
  if (!nonNegativeInt(d.opcode)) return { field: 'opcode', reason: `expected an opcode number, got ${describe(d.opcode)}` };
  if (typeof d.retry_after !== 'number' || !(d.retry_after >= 0)) {
    return { field: 'retry_after', reason: `expected a number of seconds, got ${describe(d.retry_after)}` };
  }
  if (!isObj(d.meta)) return { field: 'meta', reason: `expected an object, got ${describe(d.meta)}` };
  return null;
}
