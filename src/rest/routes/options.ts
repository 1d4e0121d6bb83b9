import type { CallOptions, Query, QueryValue, RestFile } from '../types.js';

/** Options of an endpoint that records an audit-log entry. */
export interface ReasonOptions extends CallOptions {
  /** Shown in the guild's audit log (X-Audit-Log-Reason: 1-512 characters, URL-encoded by the client; protocol §2.2). */
  reason?: string;
}

/**
 * Options of an endpoint that takes uploads: each file travels as a `files[n]` part and the JSON body as
 * `payload_json`. To give a file a description or keep older attachments, list them in the body's
 * `attachments` (`{ id: n }` is the file at index n).
 */
export interface FileOptions {
  files?: readonly RestFile[];
}

export type ReasonFileOptions = ReasonOptions & FileOptions;

/**
 * Picks the named keys of a typed query object into the client's query shape (lists repeat their key,
 * protocol §2.3). Only the listed keys go out: a query object built elsewhere (a form, a plugin's options) cannot add parameters the endpoint
 * does not have.
 */
export function pickQuery<T extends object>(query: T | undefined, keys: readonly (keyof T & string)[]): Query {
  const out: Record<string, QueryValue> = Object.create(null) as Record<string, QueryValue>;
  if (query === undefined) return out;
  for (const key of keys) {
    const value = (query as Readonly<Record<string, unknown>>)[key];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) out[key] = value as readonly (string | number | boolean | bigint)[];
    else if (
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      typeof value === 'bigint'
    )
      out[key] = value;
    else throw new TypeError(`query parameter "${key}" must be a string, number, boolean or an array of them`);
  }
  return out;
}
