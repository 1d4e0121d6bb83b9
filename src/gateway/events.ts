/**
 * The gateway's event surface. Every event carries the shard id first, so the same map serves a lone shard
 * and the manager that owns many.
 *
 * Hot path: the runtime should pass one `onDispatch(shardId, t, d, s)` hook (no emitter lookup, no argument
 * array); the typed emitter events below are for everything else. eventemitter3 calls listeners with up to
 * five arguments without allocating.
 */
import type {
  GatewayApplicationCommandPermissionsUpdateDispatchData,
  GatewayEntitlementCreateDispatchData,
  GatewayEntitlementDeleteDispatchData,
  GatewayEntitlementUpdateDispatchData,
  GatewayGuildCreateDispatchData,
  GatewayGuildDeleteDispatchData,
  GatewayGuildMemberAddDispatchData,
  GatewayGuildMemberRemoveDispatchData,
  GatewayGuildMembersChunkDispatchData,
  GatewayGuildMemberUpdateDispatchData,
  GatewayGuildRoleCreateDispatchData,
  GatewayGuildRoleDeleteDispatchData,
  GatewayGuildRoleUpdateDispatchData,
  GatewayGuildUpdateDispatchData,
  GatewayInteractionCreateDispatchData,
  GatewayRateLimitedDispatchData,
  GatewayReadyDispatchData,
} from 'discord-api-types/v10';

export type ShardStatus =
  /** Created, not started. */
  | 'idle'
  /** Opening the socket / waiting for HELLO. */
  | 'connecting'
  /** HELLO received, waiting for the identify queue. */
  | 'waiting-identify'
  /** IDENTIFY sent, waiting for READY. */
  | 'identifying'
  /** RESUME sent, waiting for RESUMED (replayed dispatches flow meanwhile). */
  | 'resuming'
  /** READY or RESUMED: live. */
  | 'ready'
  /** Between connections (after a close, op 7, op 9, a zombie or a decode error). */
  | 'reconnecting'
  /** Closed on request (`close()`). */
  | 'closed'
  /** Stopped for good by a fatal close code (or too many failed reconnects). */
  | 'stopped';

/** `(shardId, t, d, s)` for every dispatch, in order, once. */
export type DispatchHook = (shardId: number, t: string, d: unknown, s: number) => void;

/** Dispatches the runtime consumes, with their wire types. */
export interface GatewayDispatchEventMap {
  READY: [shardId: number, data: GatewayReadyDispatchData];
  RESUMED: [shardId: number, data: unknown];
  GUILD_CREATE: [shardId: number, data: GatewayGuildCreateDispatchData];
  GUILD_UPDATE: [shardId: number, data: GatewayGuildUpdateDispatchData];
  GUILD_DELETE: [shardId: number, data: GatewayGuildDeleteDispatchData];
  GUILD_MEMBER_ADD: [shardId: number, data: GatewayGuildMemberAddDispatchData];
  GUILD_MEMBER_UPDATE: [shardId: number, data: GatewayGuildMemberUpdateDispatchData];
  GUILD_MEMBER_REMOVE: [shardId: number, data: GatewayGuildMemberRemoveDispatchData];
  GUILD_MEMBERS_CHUNK: [shardId: number, data: GatewayGuildMembersChunkDispatchData];
  GUILD_ROLE_CREATE: [shardId: number, data: GatewayGuildRoleCreateDispatchData];
  GUILD_ROLE_UPDATE: [shardId: number, data: GatewayGuildRoleUpdateDispatchData];
  GUILD_ROLE_DELETE: [shardId: number, data: GatewayGuildRoleDeleteDispatchData];
  ENTITLEMENT_CREATE: [shardId: number, data: GatewayEntitlementCreateDispatchData];
  ENTITLEMENT_UPDATE: [shardId: number, data: GatewayEntitlementUpdateDispatchData];
  ENTITLEMENT_DELETE: [shardId: number, data: GatewayEntitlementDeleteDispatchData];
  INTERACTION_CREATE: [shardId: number, data: GatewayInteractionCreateDispatchData];
  APPLICATION_COMMAND_PERMISSIONS_UPDATE: [shardId: number, data: GatewayApplicationCommandPermissionsUpdateDispatchData];
  RATE_LIMITED: [shardId: number, data: GatewayRateLimitedDispatchData];
}

export type GatewayDispatchName = keyof GatewayDispatchEventMap;

export interface ShardLifecycleEventMap {
  /** Every dispatch (including ones without a typed event), after the shard's own bookkeeping. */
  dispatch: [shardId: number, t: string, d: unknown, s: number];
  status: [shardId: number, status: ShardStatus, previous: ShardStatus];
  /** READY (resumed = false) or RESUMED (resumed = true). */
  ready: [shardId: number, resumed: boolean];
  /** The socket closed (by the service, the network, or the client). */
  close: [shardId: number, code: number, reason: string];
  /** A heartbeat ACK arrived; latency is the round trip in ms. */
  heartbeat: [shardId: number, latencyMs: number];
  /** Something went wrong that the shard recovers from (decode error, throwing listener, failed connect). */
  error: [shardId: number, error: Error];
  /** The shard will not reconnect: `error` is null after `close()`, the cause after a fatal close code. */
  stopped: [shardId: number, error: Error | null];
  /** Diagnostic lines (connection steps, reconnect reasons). */
  debug: [shardId: number, message: string];
}

export type GatewayEventMap = GatewayDispatchEventMap & ShardLifecycleEventMap;
