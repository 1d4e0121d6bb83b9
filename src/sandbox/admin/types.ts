/**
 * The admin API's route entries (./api.ts routes them with rest/router.ts, as the REST surface routes its own):
 * a method, a path template below /_sandbox, and a handler over the request's parsed JSON body.
 */
import type { HttpMethod } from '../rest/types.js';

export interface AdminReply {
  status: number;
  body?: unknown;
}

export interface AdminContext {
  /** The template's parameters, as the path spelled them (the admin API does not percent-decode). */
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  /** The JSON body; undefined when the request had none. */
  readonly body: unknown;
}

export interface AdminRoute {
  readonly method: HttpMethod;
  /** Template with :params, relative to /_sandbox ('' is /_sandbox itself). */
  readonly path: string;
  /** null: the path is not one the entry answers after all (the API answers NOT_FOUND). */
  readonly handler: (ctx: AdminContext) => AdminReply | null | Promise<AdminReply | null>;
}

/** A parameter the template declares: the router always fills it. */
export function param(ctx: AdminContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`admin route has no :${name} parameter`);
  return value;
}
