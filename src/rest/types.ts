import type { HttpMethod } from './errors.js';
import type { RouteParams } from './route.js';

/** Credentials for one request. `Basic` is for the OAuth2 token endpoint (client id + secret). */
export interface RestAuth {
  scheme: 'Bot' | 'Bearer' | 'Basic';
  token: string;
}

export const botAuth = (token: string): RestAuth => ({ scheme: 'Bot', token });
export const bearerAuth = (token: string): RestAuth => ({ scheme: 'Bearer', token });
export const basicAuth = (clientId: string, clientSecret: string): RestAuth => ({
  scheme: 'Basic',
  token: Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64'),
});

export type QueryScalar = string | number | boolean | bigint;
/** Arrays repeat the key (`?id=1&id=2`, protocol §2.3); `undefined` and `null` are left out. */
export type QueryValue = QueryScalar | null | undefined | readonly QueryScalar[];
export type Query = Readonly<Record<string, QueryValue>>;

/** A file for a multipart request; the JSON body then travels as `payload_json`. */
export interface RestFile {
  name: string;
  data: Uint8Array | Blob;
  contentType?: string;
  /** The form part's name; default `files[n]` (n: the file's index). */
  key?: string;
}

export interface RequestBase {
  method: HttpMethod;
  query?: Query;
  /** JSON body. */
  body?: unknown;
  /**
   * application/x-www-form-urlencoded body (OAuth2 token endpoint). With `files`, its fields become plain
   * text parts of the multipart body instead (sticker upload).
   */
  form?: Readonly<Record<string, string | undefined>>;
  /** Multipart upload: `files[n]` parts plus `body` as `payload_json`. */
  files?: readonly RestFile[];
  /** Default: the client's token. `false`: send no Authorization header. */
  auth?: false | RestAuth;
  /** X-Audit-Log-Reason (1-512 characters, URL-encoded on the wire). */
  reason?: string;
  /** Cancels the request wherever it is: queued, waiting for a limit, or on the wire. */
  signal?: AbortSignal;
  /** Per-attempt timeout; defaults to the client's. */
  timeoutMs?: number;
  /** Extra headers (X-Discord-Locale...). Authorization, User-Agent and Content-Type are the client's. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Whether sending the request twice has the effect of sending it once; decides whether a 5xx answer or a
   * lost connection is retried. Default: true for GET, PUT, PATCH and DELETE, false for POST (a repeated
   * follow-up is a second message, a repeated callback a 40060). See RestClient on retries.
   */
  idempotent?: boolean;
  /**
   * A request that is not idempotent but safe to send again after a stale keep-alive socket reset it before any
   * response byte, because a repeat of one that did arrive is refused with this error code and nothing else
   * (an interaction callback: 40060, "already acknowledged"). That answer to the repeat is then the success the
   * first one was.
   */
  repeatRefusedCode?: number;
}

type ParamsField<R extends string> = [keyof RouteParams<R>] extends [never]
  ? { params?: Readonly<Record<string, string>> }
  : { params: RouteParams<R> };

/** `route` is a template such as `/applications/{application_id}/commands/{command_id}`. */
export type RequestOptions<R extends string = string> = RequestBase & { route: R } & ParamsField<R>;

export interface RestResponse<T> {
  status: number;
  data: T;
}

/** The part of the client that endpoint functions (and other layers' ports) need. */
export interface RestRequester {
  request<T = unknown, R extends string = string>(options: RequestOptions<R>): Promise<T>;
  requestWithStatus<T = unknown, R extends string = string>(options: RequestOptions<R>): Promise<RestResponse<T>>;
}

/** Options every endpoint function accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Override the credentials (e.g. a client-credentials Bearer token for command endpoints, protocol §S5). */
  auth?: false | RestAuth;
}
