/**
 * Typed gateway errors. Messages name the shard, the code and the cause, never a token: shards register the
 * token with the redactor, and nothing here interpolates payloads that could carry one.
 */

/** Base class, so callers can tell gateway failures from everything else with one `instanceof`. */
export class GatewayError extends Error {
  override readonly name: string = 'GatewayError';
}

/** A close code after which reconnecting cannot help: the shard stops and never retries. */
export class GatewayFatalCloseError extends GatewayError {
  override readonly name = 'GatewayFatalCloseError';
  constructor(
    readonly shardId: number,
    readonly code: number,
    /** Short name of the code, e.g. "Authentication failed". */
    readonly codeName: string,
    /** What probably caused it and what to do. */
    readonly hint: string,
    readonly reason: string,
  ) {
    super(
      `Shard ${shardId} stopped: the gateway closed the connection with ${code} (${codeName}). ${hint}` +
        (reason ? ` Server reason: "${reason}".` : ''),
    );
  }
}

/** The manager refuses to start because the daily session budget cannot cover the identifies it needs. */
export class SessionStartLimitError extends GatewayError {
  override readonly name = 'SessionStartLimitError';
  constructor(
    readonly remaining: number,
    readonly needed: number,
    readonly resetAfterMs: number,
    /** Identifies kept back (see IdentifyBudget); 0 when none. */
    readonly reserve = 0,
  ) {
    super(
      `Refusing to start: ${needed} shard(s) need to identify but session_start_limit.remaining is ${remaining}` +
        (reserve > 0 ? `, of which ${reserve} are kept in reserve` : '') +
        ` (resets in ${Math.ceil(resetAfterMs / 1000)} s). Identifying beyond the limit gets the bot token reset.`,
    );
  }
}

/**
 * A shard stopped instead of identifying once more: that identify would leave fewer of the day's session
 * starts than the reserve. Fatal on purpose: a bot that runs out gets its token reset by the service.
 */
export class IdentifyBudgetExhaustedError extends GatewayError {
  override readonly name = 'IdentifyBudgetExhaustedError';
  constructor(
    readonly shardId: number,
    readonly remaining: number,
    readonly reserve: number,
    readonly resetAfterMs: number,
  ) {
    super(
      `Shard ${shardId} stopped instead of identifying: only ${remaining} of today's session starts ` +
        `(session_start_limit) are left and ${reserve} are kept in reserve; the budget resets in ` +
        `${formatDuration(resetAfterMs)}. Something keeps ending sessions (repeated op 9 INVALID_SESSION or ` +
        'closes that need a new IDENTIFY): fix that, then restart after the reset. Running out gets the bot token reset.',
    );
  }
}

function formatDuration(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  return minutes >= 120 ? `${Math.ceil(minutes / 60)} h` : `${minutes} min`;
}

/** An op 8 member request the service rate limited, when the caller asked not to retry (or retries ran out). */
export class MemberRequestRateLimitedError extends GatewayError {
  override readonly name = 'MemberRequestRateLimitedError';
  constructor(
    readonly guildId: string,
    readonly nonce: string,
    /** Seconds the service asked to wait. */
    readonly retryAfter: number,
    readonly attempts: number,
  ) {
    super(
      `Member request for guild ${guildId} (nonce ${nonce}) was rate limited after ${attempts} attempt(s); ` +
        `the gateway asked to retry after ${retryAfter} s.`,
    );
  }
}

/** An op 8 member request not answered in full within its deadline (counted from the call). */
export class MemberRequestTimeoutError extends GatewayError {
  override readonly name = 'MemberRequestTimeoutError';
  constructor(
    readonly guildId: string,
    readonly nonce: string,
    readonly timeoutMs: number,
    readonly chunksReceived: number,
    readonly chunkCount: number | null,
    /** True when it never left the send queue (the shard was not connected and READY in time). */
    readonly neverSent = false,
  ) {
    super(
      `Member request for guild ${guildId} (nonce ${nonce}) timed out after ${timeoutMs} ms ` +
        (neverSent
          ? 'before it could be sent (the shard was not connected and READY in time).'
          : `with ${chunksReceived}/${chunkCount ?? '?'} chunk(s) received.`),
    );
  }
}

/**
 * The shard's outbound queue holds as many ordinary sends as it may (they wait for the rate limit or for the
 * session to be READY); the send was refused instead of growing the queue without bound.
 */
export class SendQueueFullError extends GatewayError {
  override readonly name = 'SendQueueFullError';
  constructor(
    readonly shardId: number | null,
    readonly maxQueued: number,
  ) {
    super(
      `${shardId === null ? 'The' : `Shard ${shardId}'s`} send queue is full (${maxQueued} payloads waiting for the ` +
        'rate limit or for the session to be ready); the payload was not queued.',
    );
  }
}

/** A pending operation ended because its shard was closed or stopped. */
export class ShardClosedError extends GatewayError {
  override readonly name = 'ShardClosedError';
  constructor(
    readonly shardId: number,
    what: string,
  ) {
    super(`Shard ${shardId} closed before ${what} completed.`);
  }
}

/**
 * The shard stopped because this process no longer holds it (cluster mode: its lease lapsed or another
 * process took it). The session is left alive for the new owner.
 */
export class ShardFencedError extends GatewayError {
  override readonly name = 'ShardFencedError';
  constructor(
    readonly shardId: number,
    readonly reason: string,
  ) {
    super(`Shard ${shardId} stopped: this process no longer holds it (${reason}); its session is left to the new owner.`);
  }
}

/** A payload the client was about to send breaks a gateway rule (size cap, missing field). */
export class GatewayPayloadError extends GatewayError {
  override readonly name = 'GatewayPayloadError';
}

/** A received message could not be decoded (inflate failure or invalid JSON). The connection is reset. */
export class GatewayDecodeError extends GatewayError {
  override readonly name = 'GatewayDecodeError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
