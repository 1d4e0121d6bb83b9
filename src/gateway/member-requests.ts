/**
 * Op 8 REQUEST_GUILD_MEMBERS and the GUILD_MEMBERS_CHUNK replies (protocol §10.4, §11.9, §11.3).
 *
 * Every request carries a nonce; chunks are assembled by it (members, not_found, presences) and the request
 * resolves once, when `chunk_count` distinct chunks arrived. A RATE_LIMITED dispatch naming the nonce makes
 * the request wait `retry_after` and ask again (bounded), or fail with a typed error when retrying is off.
 * Chunks with unknown nonces are left alone here; the shard delivers every dispatch as an event anyway.
 *
 * Deadline. `timeoutMs` is counted from the call, whatever the request is waiting for: a place in the send
 * queue (the shard may be disconnected or not READY yet), a rate-limit retry, or its chunks. A caller who
 * gives 2 s gets an answer or an error within 2 s; a request still queued at its deadline is taken out of the
 * queue, so it is never sent for nobody.
 */
import { randomBytes } from 'node:crypto';
import type { APIGuildMember, GatewayPresenceUpdate } from 'discord-api-types/v10';
import {
  GatewayPayloadError,
  MemberRequestRateLimitedError,
  MemberRequestTimeoutError,
} from './errors.js';
import { encodePayload, Op } from './protocol.js';
import { isSnowflake } from '../api/snowflake.js';

export interface RequestMembersOptions {
  guildId: string;
  /** Username prefix; "" with limit 0 asks for every member. Default "" when `userIds` is absent. */
  query?: string;
  /** Maximum members to return; 0 = no limit (only with query ""). Default 0. */
  limit?: number;
  /** Specific users (at most 100). Exclusive with `query`. */
  userIds?: string | readonly string[];
  /** Ask for presences too (needs GUILD_PRESENCES). */
  presences?: boolean;
  /** Nonce to use (at most 32 bytes, unique among pending requests). Default: generated. */
  nonce?: string;
  /**
   * Reject unless every chunk arrived this long after the call, time spent in the send queue (also while the
   * shard is disconnected), waiting out rate limits and receiving chunks included. Default 60000.
   */
  timeoutMs?: number;
  /** On RATE_LIMITED wait `retry_after` and ask again (true, default) or reject at once (false). */
  retryOnRateLimit?: boolean;
  /** Attempts in total, the first included, before a rate limit rejects. Default 5. */
  maxAttempts?: number;
}

export interface MemberRequestResult {
  guildId: string;
  nonce: string;
  members: APIGuildMember[];
  /** Ids from `userIds` that are not members (the service may echo non-snowflake input as numbers). */
  notFound: Array<string | number>;
  presences: GatewayPresenceUpdate[];
  chunkCount: number;
  /** How many times op 8 was sent for this result (rate limits and session restarts add attempts). */
  attempts: number;
}

/**
 * Writes one ordinary (rate-limited) payload; `onSent` reports when it left, or why it never will (a full
 * queue, a closed shard). Returns a function that takes the payload out of the queue if it has not left yet.
 */
export type QueueSend = (text: string, onSent: (error?: Error) => void) => () => void;

/** Default deadline of a member request: room for one all-members rate-limit window (30 s) and the answer. */
export const DEFAULT_MEMBER_REQUEST_TIMEOUT_MS = 60_000;

interface PendingRequest {
  readonly guildId: string;
  readonly nonce: string;
  readonly payload: string;
  readonly timeoutMs: number;
  readonly retry: boolean;
  readonly maxAttempts: number;
  attempts: number;
  chunkCount: number | null;
  readonly seen: Set<number>;
  members: APIGuildMember[];
  notFound: Array<string | number>;
  presences: GatewayPresenceUpdate[];
  /** The retry_after wait after RATE_LIMITED. */
  timer: NodeJS.Timeout | null;
  /** Fires `timeoutMs` after the call. */
  deadline: NodeJS.Timeout | null;
  /** performance.now() at which `deadline` fires. */
  deadlineAt: number;
  /** Takes the payload out of the send queue while it has not been written. */
  cancelSend: (() => void) | null;
  waitingRetry: boolean;
  /** Connection epoch it was last written on (null while queued): replies belong to that session. */
  writtenOn: number | null;
  resolve: (result: MemberRequestResult) => void;
  reject: (error: Error) => void;
}

const NONCE_PREFIX = randomBytes(4).toString('hex');
let nonceCounter = 0;

function generateNonce(): string {
  nonceCounter = (nonceCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${NONCE_PREFIX}${nonceCounter.toString(36)}`;
}

export class MemberRequestAssembler {
  private readonly pending = new Map<string, PendingRequest>();
  /** Bumped for every new connection, to tell which requests went out on a connection now gone. */
  private epoch = 0;

  constructor(private readonly send: QueueSend) {}

  get size(): number {
    return this.pending.size;
  }

  request(options: RequestMembersOptions): Promise<MemberRequestResult> {
    let d: RequestData;
    let payload: string;
    try {
      d = buildRequestData(options);
      payload = encodePayload(Op.RequestGuildMembers, d);
    } catch (error) {
      return Promise.reject(error);
    }
    const nonce = d.nonce;
    if (this.pending.has(nonce)) {
      return Promise.reject(new GatewayPayloadError(`A member request with nonce "${nonce}" is already pending.`));
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_MEMBER_REQUEST_TIMEOUT_MS;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      return Promise.reject(new GatewayPayloadError(`requestMembers: timeoutMs must be a positive number of ms, got ${timeoutMs}.`));
    }
    return new Promise<MemberRequestResult>((resolve, reject) => {
      const request: PendingRequest = {
        guildId: options.guildId,
        nonce,
        payload,
        timeoutMs,
        retry: options.retryOnRateLimit ?? true,
        maxAttempts: Math.max(1, options.maxAttempts ?? 5),
        attempts: 0,
        chunkCount: null,
        seen: new Set(),
        members: [],
        notFound: [],
        presences: [],
        timer: null,
        deadline: null,
        deadlineAt: performance.now() + timeoutMs,
        cancelSend: null,
        waitingRetry: false,
        writtenOn: null,
        resolve,
        reject,
      };
      this.pending.set(nonce, request);
      request.deadline = setTimeout(() => this.expire(request), timeoutMs);
      this.transmit(request);
    });
  }

  /** A GUILD_MEMBERS_CHUNK dispatch. Returns true when it belonged to a pending request. */
  handleChunk(d: unknown): boolean {
    if (typeof d !== 'object' || d === null) return false;
    const chunk = d as {
      nonce?: unknown;
      guild_id?: unknown;
      members?: unknown;
      chunk_index?: unknown;
      chunk_count?: unknown;
      not_found?: unknown;
      presences?: unknown;
    };
    if (typeof chunk.nonce !== 'string') return false;
    const request = this.pending.get(chunk.nonce);
    if (request === undefined || chunk.guild_id !== request.guildId) return false;
    if (typeof chunk.chunk_index !== 'number' || typeof chunk.chunk_count !== 'number') return false;
    if (request.seen.has(chunk.chunk_index)) return true; // delivered twice: keep the first
    request.seen.add(chunk.chunk_index);
    request.chunkCount = chunk.chunk_count;
    appendAll(request.members, chunk.members as APIGuildMember[] | undefined);
    appendAll(request.notFound, chunk.not_found as Array<string | number> | undefined);
    appendAll(request.presences, chunk.presences as GatewayPresenceUpdate[] | undefined);
    if (request.seen.size >= chunk.chunk_count) {
      this.finish(request);
      request.resolve({
        guildId: request.guildId,
        nonce: request.nonce,
        members: request.members,
        notFound: request.notFound,
        presences: request.presences,
        chunkCount: chunk.chunk_count,
        attempts: request.attempts,
      });
    }
    return true;
  }

  /** A RATE_LIMITED dispatch. Returns true when it named a pending request. */
  handleRateLimited(d: unknown): boolean {
    if (typeof d !== 'object' || d === null) return false;
    const limited = d as { opcode?: unknown; retry_after?: unknown; meta?: { nonce?: unknown; guild_id?: unknown } };
    if (limited.opcode !== Op.RequestGuildMembers || typeof limited.meta !== 'object' || limited.meta === null) {
      return false;
    }
    const nonce = limited.meta.nonce;
    if (typeof nonce !== 'string') return false;
    const request = this.pending.get(nonce);
    if (request === undefined) return false;
    const retryAfter = typeof limited.retry_after === 'number' && limited.retry_after >= 0 ? limited.retry_after : 1;
    // Waiting would pass the deadline: say why now rather than time out later.
    const pastDeadline = performance.now() + retryAfter * 1000 >= request.deadlineAt;
    if (!request.retry || request.attempts >= request.maxAttempts || pastDeadline) {
      this.finish(request);
      request.reject(new MemberRequestRateLimitedError(request.guildId, nonce, retryAfter, request.attempts));
      return true;
    }
    this.clearTimer(request);
    request.waitingRetry = true;
    request.timer = setTimeout(() => {
      request.timer = null;
      request.waitingRetry = false;
      if (this.pending.get(nonce) === request) this.transmit(request);
    }, Math.ceil(retryAfter * 1000));
    return true;
  }

  /** The shard opened a new connection. */
  connectionChanged(): void {
    this.epoch++;
  }

  /**
   * The session RESUMED, replay done. A request written on an earlier connection that got no chunk at all
   * may never have reached the service (a socket dies with what was in flight), so ask again; if the service
   * did get it, the duplicate chunks are dropped by chunk index, and late ones arrive only as events.
   */
  resendUnanswered(): void {
    for (const request of this.pending.values()) {
      if (request.waitingRetry || request.writtenOn === null) continue;
      if (request.writtenOn < this.epoch && request.seen.size === 0) this.transmit(request);
    }
  }

  /**
   * A new session started (READY after a fresh IDENTIFY): replies to requests sent in the old one will never
   * come, so ask again from scratch.
   */
  restartAll(): void {
    for (const request of this.pending.values()) {
      // Still queued (never written) or waiting out a rate limit: it will be sent in the new session anyway.
      if (request.waitingRetry || request.writtenOn === null) continue;
      this.clearTimer(request);
      request.seen.clear();
      request.chunkCount = null;
      request.members = [];
      request.notFound = [];
      request.presences = [];
      this.transmit(request);
    }
  }

  rejectAll(error: Error): void {
    const requests = [...this.pending.values()];
    for (const request of requests) {
      this.finish(request);
      request.reject(error);
    }
  }

  private transmit(request: PendingRequest): void {
    request.attempts++;
    request.writtenOn = null;
    request.cancelSend?.();
    request.cancelSend = this.send(request.payload, (error) => {
      request.cancelSend = null;
      if (this.pending.get(request.nonce) !== request) return;
      if (error) {
        this.finish(request);
        request.reject(error);
        return;
      }
      request.writtenOn = this.epoch;
    });
  }

  /** The deadline passed: the request leaves the send queue if it is still there, and rejects. */
  private expire(request: PendingRequest): void {
    request.deadline = null;
    if (this.pending.get(request.nonce) !== request) return;
    const queued = request.writtenOn === null && !request.waitingRetry;
    this.finish(request);
    request.reject(
      new MemberRequestTimeoutError(request.guildId, request.nonce, request.timeoutMs, request.seen.size, request.chunkCount, queued),
    );
  }

  private clearTimer(request: PendingRequest): void {
    if (request.timer !== null) {
      clearTimeout(request.timer);
      request.timer = null;
    }
  }

  private finish(request: PendingRequest): void {
    this.clearTimer(request);
    if (request.deadline !== null) {
      clearTimeout(request.deadline);
      request.deadline = null;
    }
    if (request.cancelSend !== null) {
      request.cancelSend();
      request.cancelSend = null;
    }
    this.pending.delete(request.nonce);
  }
}

function appendAll<T>(target: T[], items: readonly T[] | undefined): void {
  if (!Array.isArray(items)) return;
  for (let i = 0; i < items.length; i++) target.push(items[i]!);
}

interface RequestData {
  guild_id: string;
  query?: string;
  limit: number;
  presences?: boolean;
  user_ids?: string | string[];
  nonce: string;
}

/** Validate the options against the op 8 rules and build `d`. Errors name the offending option. */
export function buildRequestData(options: RequestMembersOptions): RequestData {
  const { guildId, query, limit, userIds, presences, nonce } = options;
  if (!isSnowflake(guildId)) {
    throw new GatewayPayloadError(`requestMembers: guildId must be a snowflake string, got ${JSON.stringify(guildId)}.`);
  }
  if (query !== undefined && userIds !== undefined) {
    throw new GatewayPayloadError('requestMembers: pass either query or userIds, not both.');
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
    throw new GatewayPayloadError(`requestMembers: limit must be a non-negative integer, got ${limit}.`);
  }
  const finalNonce = nonce ?? generateNonce();
  if (Buffer.byteLength(finalNonce, 'utf8') > 32) {
    throw new GatewayPayloadError('requestMembers: nonce must be at most 32 bytes.');
  }
  const d: RequestData = { guild_id: guildId, limit: limit ?? 0, nonce: finalNonce };
  if (userIds !== undefined) {
    const ids = typeof userIds === 'string' ? [userIds] : [...userIds];
    if (ids.length === 0 || ids.length > 100) {
      throw new GatewayPayloadError(`requestMembers: userIds must hold 1 to 100 ids, got ${ids.length}.`);
    }
    d.user_ids = typeof userIds === 'string' ? userIds : ids;
  } else {
    d.query = query ?? '';
  }
  if (presences !== undefined) d.presences = presences;
  return d;
}
