/**
 * Path and query parameters of the resource routes, checked the way the service checks them: an id that is
 * not a snowflake is a 50035 at the parameter's name (`{"user_id": {"_errors": [{"code": "NUMBER_TYPE_COERCE",
 * "message": "Value \"abc\" is not snowflake."}]}}`; bots quoting the service in public code:
 * `user_id: Value "&" is not snowflake.`, `message_id: Value "..." is not snowflake.`), and query integers
 * outside their range are a 50035 at the query key.
 */
import { addTreeError, emptyErrorTree, invalidFormBody } from '../errors.js';
import type { RestContext } from './types.js';
import { isSnowflake } from '../../api/snowflake.js';

// The project's one id rule, re-exported for the routes that import it from here.
export { isSnowflake };

/** The path parameters named, each required to be a snowflake; `field` is the name the service reports. */
export function snowflakeParams(ctx: RestContext, fields: Record<string, string>): void {
  const tree = emptyErrorTree();
  let bad = false;
  for (const [param, field] of Object.entries(fields)) {
    const v = ctx.params[param];
    if (v === undefined || isSnowflake(v)) continue;
    addTreeError(tree, [field], { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` });
    bad = true;
  }
  if (bad) throw invalidFormBody(tree);
}

export interface QueryInt {
  min: number;
  max: number;
  fallback: number;
}

/**
 * Query integers and snowflakes: `ints` within their ranges, `snowflakes` when present. One 50035 naming every
 * bad key. (The range message follows the sandbox's other query checks; the service's exact wording for a query
 * range is not documented.)
 */
export function queryParams(
  ctx: RestContext,
  ints: Record<string, QueryInt>,
  snowflakes: readonly string[] = [],
): { ints: Map<string, number>; snowflakes: Map<string, string> } {
  const tree = emptyErrorTree();
  let bad = false;
  const outInts = new Map<string, number>();
  for (const [key, spec] of Object.entries(ints)) {
    const raw = ctx.query.get(key);
    if (raw === null) {
      outInts.set(key, spec.fallback);
      continue;
    }
    const n = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n)) {
      addTreeError(tree, [key], { code: 'NUMBER_TYPE_COERCE', message: `Value "${raw}" is not int.` });
      bad = true;
    } else if (n < spec.min || n > spec.max) {
      addTreeError(tree, [key], { code: n < spec.min ? 'NUMBER_TYPE_MIN' : 'NUMBER_TYPE_MAX', message: `Must be between ${spec.min} and ${spec.max}.` });
      bad = true;
    } else {
      outInts.set(key, n);
    }
  }
  const outSnowflakes = new Map<string, string>();
  for (const key of snowflakes) {
    const raw = ctx.query.get(key);
    if (raw === null) continue;
    if (!isSnowflake(raw)) {
      addTreeError(tree, [key], { code: 'NUMBER_TYPE_COERCE', message: `Value "${raw}" is not snowflake.` });
      bad = true;
    } else {
      outSnowflakes.set(key, raw);
    }
  }
  if (bad) throw invalidFormBody(tree);
  return { ints: outInts, snowflakes: outSnowflakes };
}

/** Compares two snowflakes numerically (they may exceed 2^53). */
export function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
