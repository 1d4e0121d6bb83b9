/**
 * Readers for the fields of an admin API request body (the sandbox's /_sandbox routes): each refuses a value of
 * the wrong type with an INVALID error naming the field, so every admin route answers bad input the same way.
 */
import { SandboxError } from '../errors.js';

export type Json = Record<string, unknown>;

export function bad(message: string): SandboxError {
  return new SandboxError('INVALID', message);
}

/** The body as an object; `undefined` (no body) is an empty one where every field is optional. */
export function obj(v: unknown, missing: 'refuse' | 'empty' = 'refuse'): Json {
  if (v === undefined && missing === 'empty') return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('the body must be a JSON object');
  return v as Json;
}

export function optString(o: Json, key: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(`${key} must be a string`);
  return v;
}

export function optNumber(o: Json, key: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`${key} must be a number`);
  return v;
}

export function optStrings(o: Json, key: string): string[] | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad(`${key} must be an array of strings`);
  return v as string[];
}
