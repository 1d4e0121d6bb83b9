/**
 * `gatehouse/rest`: one function per REST endpoint, typed with discord-api-types (`listSkus(ctx.rest, appId)`
 * returns `RESTGetAPISKUsResult`). Each takes the requester first: `ctx.rest` in a plugin, a RestClient from
 * `gatehouse/runtime` elsewhere. The errors they reject with are exported by `gatehouse`.
 */
export * from '../rest/routes/index.js';
export type { RestRequester, CallOptions, RequestOptions, RestResponse, RestFile, Query, QueryValue } from '../rest/index.js';
export { compileRoute, renderPath, type RouteParams, type CompiledRoute } from '../rest/index.js';
