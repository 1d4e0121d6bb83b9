/** REST layer: the client (buckets, global limit, retries, typed errors) and one function per endpoint. */
export {
  RestClient,
  DEFAULT_API_URL,
  type RestClientOptions,
  type RestEvents,
  type RequestEvent,
  type ResponseEvent,
  type RateLimitedEvent,
  type InvalidRequestWarningEvent,
  type QueueDepth,
  type RestStats,
} from './client.js';
export {
  RestError,
  ApiError,
  RateLimitError,
  TimeoutError,
  RequestAbortedError,
  RestClientClosedError,
  NetworkError,
  InvalidRequestGuardError,
  RequestRefusedError,
  type HttpMethod,
  type RateLimitScope,
  type RefusalReason,
} from './errors.js';
export { restClientFromConfig } from './from-config.js';
export {
  bucketKey,
  type Admission,
  type BucketView,
  type LimitKey,
  type LimitReport,
  type RateLimitStore,
  type WaitScope,
} from './rate-limits.js';
export { LocalRateLimits, type LocalRateLimitsOptions } from './local-rate-limits.js';
export { parseRateLimitHeaders, type RateLimitInfo } from './headers.js';
export { flattenErrorTree, formatFieldError, type FieldError } from './error-tree.js';
export { compileRoute, renderPath, type RouteParams, type CompiledRoute } from './route.js';
export { userAgent, LIBRARY_URL, LIBRARY_VERSION } from './user-agent.js';
export {
  botAuth,
  bearerAuth,
  basicAuth,
  type RestAuth,
  type RestFile,
  type Query,
  type QueryValue,
  type RequestOptions,
  type RequestBase,
  type RestResponse,
  type RestRequester,
  type CallOptions,
} from './types.js';
export * from './routes/index.js';
