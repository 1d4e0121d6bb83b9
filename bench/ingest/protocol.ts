/** Messages between the ingest benchmark's parent and its subject processes (over the IPC channel). */
import type { Transport } from './frames.js';
import type { ExpectedEntitlement, ExpectedMember } from './workload.js';

export type SubjectKind = 'gatehouse' | 'gatehouse-redis' | 'discordjs' | 'floor' | 'wire';

export interface ChildConfig {
  subject: SubjectKind;
  transport: Transport;
  /** Decoder for gatehouse and the floors: zlib-sync, zstd-napi or fzstd ('auto' for gatehouse's own choice). */
  decoder: 'auto' | 'zlib-sync' | 'zstd-napi' | 'fzstd';
  apiBase: string;
  token: string;
  /** Folder of the frames (the floor decodes them from there). */
  framesDir: string;
  guilds: number;
  /** GUILD_MEMBER_* + ENTITLEMENT_CREATE/UPDATE + INTERACTION_CREATE events the subject must see. */
  targets: { memberEvents: number; entitlementEvents: number; interactions: number; liveEvents: number };
  /** Give up after this long (the child exits non-zero). */
  timeoutMs: number;
  /** Write a CPU profile of the live-events phase to this path. */
  profilePath?: string;
  /** Which phase the CPU profile covers (default: the live events). */
  profilePhase?: 'startup' | 'live';
  /** Write a sampling heap profile (allocations, collected ones included) of this phase to `path`. */
  allocProfile?: { phase: 'startup' | 'live'; path: string };
  /** gatehouse with `cache.channels: false` (the --channel-bytes variant). */
  cacheChannels?: boolean;
  /** gatehouse's REST client on bench/lib/undici-transport.ts instead of node:http (the --rest-transport=undici variant). */
  restTransport?: 'undici';
  /** Redis subject: URL and a private key prefix. */
  redisUrl?: string;
  redisPrefix?: string;
}

export interface EventCounts {
  memberAdds: number;
  memberUpdates: number;
  memberRemoves: number;
  entitlementCreates: number;
  entitlementUpdates: number;
  interactions: number;
  answered: number;
  /** The first error an answer failed with. */
  answerError?: string;
  /** The floors only (decode and wire): dispatches decoded per event name. */
  byType?: Record<string, number>;
}

export interface ReadyMessage {
  type: 'ready';
  /** login()/start() to every guild cached (or the floor: decoding READY + every GUILD_CREATE). */
  loginToReadyMs: number;
  startupCpuMs: number;
  /** process.hrtime.bigint() at that moment, as a string (one clock for every process on the machine). */
  readyAt: string;
  rssBytes: number;
  /** RSS before login (after imports and a full GC): what the process costs with nothing cached. */
  rssBeforeBytes: number;
  /** JS heap + array buffers after load minus before login, both after full GCs. */
  heapDeltaBytes: number;
  members: number;
}

export interface DoneMessage {
  type: 'done';
  eventsCpuMs: number;
  /**
   * Of eventsCpuMs, the CPU of threads other than the main one (V8's workers: JIT compilation, GC helpers;
   * libuv's pool), from /proc/self/task; null where that is not readable.
   */
  helperThreadsCpuMs: number | null;
  doneAt: string;
  counts: EventCounts;
  rssBytes: number;
}

export interface VerifyRequest {
  type: 'verify';
  guildIds: string[];
  sample: Array<{ guildId: string; userId: string }>;
  removed: Array<{ guildId: string; userId: string }>;
  entitlementIds: string[];
}

export interface StateMessage {
  type: 'state';
  membersPerGuild: number[];
  sample: Array<ExpectedMember | null>;
  /** Of the removed sample, those the subject still holds. */
  removedPresent: number;
  entitlements: Array<ExpectedEntitlement | null>;
  /** Extra figures (Redis: server CPU and memory). */
  extra: Record<string, number>;
}

export type ChildMessage = ReadyMessage | DoneMessage | StateMessage | { type: 'error'; message: string };
export type ParentMessage = { type: 'verify-request' } | VerifyRequest | { type: 'stop' };
