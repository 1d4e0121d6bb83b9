/** Gateway layer: shard connections, inflate, heartbeat, resume, identify queue, shard manager, op 8. */
export { ShardManager, type GatewayBotPort, type SessionStore, type ShardInfo, type ShardManagerOptions } from './manager.js';
export { Shard, type SessionState, type ShardCloseOptions, type ShardOptions, type ShardTiming } from './shard.js';
export type {
  DispatchHook,
  GatewayDispatchEventMap,
  GatewayDispatchName,
  GatewayEventMap,
  ShardLifecycleEventMap,
  ShardStatus,
} from './events.js';
export {
  LocalIdentifyBudget,
  type IdentifyBudget,
  type IdentifyBudgetSnapshot,
  type LocalIdentifyBudgetOptions,
} from './identify-budget.js';
export type { ShardFence } from './fence.js';
export { LocalReshardCoordination, type ReshardCoordination, type ReshardPlan } from './reshard-coordination.js';
export { Cutover, eventKey, receivingShard, MAX_BUFFERED_PER_SHARD, type CutoverOptions, type DeliverHook } from './cutover.js';
export { LocalIdentifyQueue, type IdentifyQueue, type LocalIdentifyQueueOptions } from './identify-queue.js';
export { DEFAULT_MAX_QUEUED_SENDS, SendQueue, type SendQueueOptions } from './send-queue.js';
export { PayloadDecoder, type DecoderSink } from './decoder.js';
export {
  Heartbeater,
  isValidHeartbeatInterval,
  MAX_HEARTBEAT_INTERVAL_MS,
  MIN_HEARTBEAT_INTERVAL_MS,
  type HeartbeatHooks,
  type HeartbeatOptions,
} from './heartbeat.js';
export {
  createInflater,
  endsWithSyncFlush,
  inflaterFactory,
  loadZlibSync,
  resolveInflateImplementation,
  TRANSPORT_COMPRESSIONS,
  transportCompression,
  type Inflater,
  type InflaterFactory,
  type InflaterSink,
  type InflateImplementation,
  type InflatePreference,
  type TransportCompression,
} from './inflate.js';
export {
  MemberRequestAssembler,
  buildRequestData,
  DEFAULT_MEMBER_REQUEST_TIMEOUT_MS,
  type MemberRequestResult,
  type QueueSend,
  type RequestMembersOptions,
} from './member-requests.js';
export {
  CLIENT_CLOSE,
  FATAL_CLOSE_CODES,
  GATEWAY_CLOSE_POLICIES,
  closePolicy,
  isFatalCloseCode,
  type CloseAction,
  type ClosePolicy,
} from './close-codes.js';
export {
  GATEWAY_VERSION,
  MAX_OUTBOUND_PAYLOAD_BYTES,
  Op,
  asReceivedPayload,
  encodePayload,
  gatewayConnectUrl,
  type ReceivedPayload,
} from './protocol.js';
export {
  GatewayDecodeError,
  GatewayError,
  GatewayFatalCloseError,
  GatewayPayloadError,
  IdentifyBudgetExhaustedError,
  MemberRequestRateLimitedError,
  MemberRequestTimeoutError,
  SendQueueFullError,
  SessionStartLimitError,
  ShardClosedError,
  ShardFencedError,
} from './errors.js';
