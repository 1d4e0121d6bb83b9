/**
 * The session a shard is in, as one value: its id and resume URL (from READY, protocol §7.3, or a saved state)
 * and the seq of the last dispatch delivered in it. A shard holds one of these or none; "can it RESUME" is one
 * question (isResumable), asked the same way everywhere.
 */

/** What a later process needs to RESUME this shard's session instead of identifying. */
export interface SessionState {
  sessionId: string;
  /** Seq of the last dispatch delivered. */
  sequence: number;
  resumeGatewayUrl: string;
}

/** A session READY named (or a saved one): it can be resumed at `resumeUrl` with `seq`. */
export interface ResumableSession {
  readonly id: string;
  readonly resumeUrl: string;
  /** Seq of the last dispatch delivered, -1 before the first. */
  seq: number;
}

/**
 * Dispatches are counted but there is nothing to resume: IDENTIFY was sent and READY has not named the session
 * yet, READY named none (a malformed payload), or the shard was fenced (the session is the new owner's).
 */
export interface UnnamedSession {
  readonly id: null;
  /** Always null; present so that both kinds have one shape (the seq is written per dispatch). */
  readonly resumeUrl: null;
  seq: number;
}

export type GatewaySession = ResumableSession | UnnamedSession;

export function isResumable(session: GatewaySession | null): session is ResumableSession {
  return session !== null && session.id !== null;
}

/** A saved state checked and turned into the session the first connection resumes. */
export function restoredSession(state: SessionState, shardId: number): ResumableSession {
  if (
    typeof state.sessionId !== 'string' ||
    typeof state.resumeGatewayUrl !== 'string' ||
    !Number.isSafeInteger(state.sequence) ||
    state.sequence < 0
  ) {
    throw new TypeError(`Saved session for shard ${shardId} is malformed (needs sessionId, sequence, resumeGatewayUrl).`);
  }
  return { id: state.sessionId, resumeUrl: state.resumeGatewayUrl, seq: state.sequence };
}

/** The saved form of a resumable session. */
export function sessionState(session: ResumableSession): SessionState {
  return { sessionId: session.id, sequence: session.seq, resumeGatewayUrl: session.resumeUrl };
}
