/**
 * Admin API entries for faults a test injects (a route table for ./api.ts):
 *
 *   POST   /_sandbox/faults/:shard                     { fault: stop-heartbeat-acks | reconnect | invalidate-session | close | corrupt-frame, resumable?, code? }
 *                                                      { fault: dispatch, t, d }  (a raw dispatch, malformed ones included)
 *   POST   /_sandbox/rest/faults                       { bucket, retryAfterMs, scope?: user | shared | global, count? }: forced 429s
 *   PUT    /_sandbox/gateway/recommended-shards        { count | null } -> { shards }: what GET /gateway/bot recommends
 */
import type { SandboxFaults } from '../contract.js';
import type { SandboxCore } from '../core.js';
import { bad, obj, optNumber, optString, type Json } from './fields.js';
import { param, type AdminReply, type AdminRoute } from './types.js';

function restFault(core: SandboxCore, body: unknown): AdminReply {
  const o = obj(body);
  const bucket = optString(o, 'bucket');
  const retryAfterMs = optNumber(o, 'retryAfterMs');
  if (!bucket || retryAfterMs === undefined) throw bad('bucket and retryAfterMs are required');
  const scope = o.scope === undefined ? 'user' : o.scope;
  if (scope !== 'user' && scope !== 'shared' && scope !== 'global') throw bad('scope must be user, shared or global');
  core.restFaults.rateLimit({ bucket, retryAfterMs, scope, count: optNumber(o, 'count') ?? 1 });
  return { status: 204 };
}

function recommendedShards(core: SandboxCore, body: unknown): AdminReply {
  const o = obj(body);
  const count = o.count === null ? null : optNumber(o, 'count');
  if (count === undefined) throw bad('count is required (a shard count, or null for the configured one)');
  core.gateway.setRecommendedShards(count);
  return { status: 200, body: { shards: core.gateway.recommendedShards() } };
}

function applyShardFault(faults: SandboxFaults, shard: number, o: Json): void {
  switch (o.fault) {
    case 'stop-heartbeat-acks':
      faults.stopHeartbeatAcks(shard);
      break;
    case 'reconnect':
      faults.reconnect(shard);
      break;
    case 'invalidate-session':
      faults.invalidateSession(shard, o.resumable === true);
      break;
    case 'close': {
      const code = optNumber(o, 'code') ?? 4000;
      if (!Number.isInteger(code) || code < 1000 || code > 4999) throw bad('code must be a WebSocket close code (1000-4999)');
      faults.close(shard, code);
      break;
    }
    case 'corrupt-frame':
      faults.corruptFrame(shard);
      break;
    case 'dispatch': {
      const t = optString(o, 't');
      if (!t) throw bad('t (the event name) is required');
      faults.dispatch(shard, t, Object.hasOwn(o, 'd') ? o.d : null);
      break;
    }
    default:
      throw bad('fault must be one of stop-heartbeat-acks, reconnect, invalidate-session, close, corrupt-frame, dispatch');
  }
}

function shardFault(core: SandboxCore, shardParam: string, body: unknown): AdminReply {
  const shard = Number(shardParam);
  if (!Number.isInteger(shard) || shard < 0) throw bad('the shard id must be a non-negative integer');
  applyShardFault(core.gateway.faults, shard, obj(body));
  return { status: 204 };
}

export function faultRoutes(core: SandboxCore): AdminRoute[] {
  return [
    { method: 'POST', path: '/faults/:shard', handler: (ctx) => shardFault(core, param(ctx, 'shard'), ctx.body) },
    { method: 'POST', path: '/rest/faults', handler: (ctx) => restFault(core, ctx.body) },
    { method: 'PUT', path: '/gateway/recommended-shards', handler: (ctx) => recommendedShards(core, ctx.body) },
  ];
}
