/** Types shared by the REST router and its route modules. */
import type { IncomingHttpHeaders } from 'node:http';
import type { BucketName } from '../options.js';
import type { BearerToken } from '../state/oauth.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Who made the request. */
export type Auth =
  | { kind: 'bot' }
  | { kind: 'bearer'; token: BearerToken }
  | { kind: 'none' };

/** A parsed body: JSON, form fields, or multipart (payload_json + files). */
export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: URLSearchParams }
  | {
      kind: 'multipart';
      value: unknown;
      files: Array<{ field: string; filename: string; size: number; contentType: string }>;
      /** Plain form fields other than payload_json (sticker uploads send name, tags, description so). */
      fields?: ReadonlyMap<string, string>;
    };

export interface RestContext {
  method: HttpMethod;
  /** Path below the version segment, e.g. /applications/1/commands. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  auth: Auth;
  body: Body;
  /** X-Discord-Locale, else the first Accept-Language tag; null when neither is set. */
  locale: string | null;
}

export interface RestResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type AuthRequirement = 'bot' | 'bot-or-bearer' | 'none';

export interface RouteDef {
  method: HttpMethod;
  /** Template with :params, relative to the version base. */
  path: string;
  /** Rate-limit bucket; null = no per-route limit. */
  bucket: BucketName | null;
  /** Param naming the top-level resource the bucket is split by (guild_id, webhook+token, interaction). */
  major?: string | ((params: Record<string, string>) => string);
  auth: AuthRequirement;
  /** Counts toward the global limit (interaction and webhook routes do not). Default true. */
  global?: boolean;
  handler: (ctx: RestContext) => RestResult | Promise<RestResult>;
}
