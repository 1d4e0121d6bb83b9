/**
 * The LIMIT script's arguments (scripts.ts), built from named fields: the script reads them by position, so
 * every flag, sentinel and count is named here, where the positions are made, and nowhere else.
 */
import type { LimitKey } from '../rate-limits.js';
import { FLAG_DISCOVERING, FLAG_PROVISIONAL, HEADER_FIELDS, LimitedKind, Mode, NEVER_SENT, RECORD_FIELDS, STILL_OUT } from './scripts.js';

type Args = Array<string | number>;
type LimitedKind = (typeof LimitedKind)[keyof typeof LimitedKind];

/** What one response said, to be recorded (only responses with news, see shared-rate-limits.ts). */
export interface ResponseRecord {
  /** Unique within this process (the invalid log's member is `<process>:<id>`). */
  readonly id: number;
  readonly identity: string;
  readonly routeId: string;
  readonly major: string;
  /** The bucket hash the request was admitted under ('' = the route's bucket was not known). */
  readonly admitted: string;
  /** X-RateLimit-Bucket of the response ('' = none). */
  readonly hash: string;
  /** -1 = the header was absent (the same for the two below). */
  readonly limit: number;
  readonly remaining: number;
  readonly resetAfterMs: number;
  /** Local clock when the response arrived: resetAfter is shortened by the time the record waited. */
  readonly at: number;
  readonly kind: LimitedKind;
  readonly retryAfterMs: number;
  /** A 401, 403 or non-shared 429: it counts against the invalid-request budget. */
  readonly invalid: boolean;
  /** The request held the bucket's discovery lock: its end releases it and wakes the waiters. */
  readonly locked: boolean;
}

/** Where one of this process's global slots stands. */
export interface SlotUpdate {
  readonly identity: string;
  readonly slot: number;
  /** Local clock of the response that released it; 'never-sent': the request never left; 'out': still out. */
  readonly releasedAt: number | 'never-sent' | 'out';
}

export interface Reservation {
  readonly key: LimitKey;
  /** The bucket hash this process knows for the route ('' = none). */
  readonly localHash: string;
  readonly globalLimit: number;
  /** This process's id of the global slot the request takes (the log's member is `<process>:<slot>`). */
  readonly slot: number;
  /** Lease of a discovery lock taken now. */
  readonly lockMs: number;
}

export interface LimitCall {
  readonly ns: string;
  readonly mode: Mode;
  /** This process's id. */
  readonly token: string;
  readonly invalidLimit: number;
  readonly invalidWindowMs: number;
  readonly globalWindowMs: number;
  /** How long a slot whose request is out is held without news of its response. */
  readonly slotLeaseMs: number;
  /** How long this process counts as alive when registering (Mode.Rejoin). */
  readonly memberTtlMs: number;
  readonly records: readonly ResponseRecord[];
  readonly slots: readonly SlotUpdate[];
  readonly reservation?: Reservation;
}

const flag = (on: boolean): string => (on ? '1' : '0');

/** The arguments of one LIMIT call, at `now` (local clock: a record's relative times are counted from it). */
export function limitArgs(call: LimitCall, now: number): Args {
  const args: Args = [
    call.ns,
    call.mode,
    call.token,
    call.invalidLimit,
    call.invalidWindowMs,
    call.globalWindowMs,
    call.slotLeaseMs,
    call.records.length,
    call.slots.length,
    call.memberTtlMs,
  ];
  if (args.length !== HEADER_FIELDS) throw new Error('LIMIT call header does not match the script');
  for (const r of call.records) pushRecord(args, r, now);
  for (const s of call.slots) args.push(s.identity, s.slot, slotAge(s, now)); // SLOT_FIELDS each
  const v = call.reservation;
  if (v !== undefined) {
    const k = v.key;
    args.push(k.identity, k.routeId, k.major, v.localHash, flag(k.globalExempt), v.globalLimit, v.slot, v.lockMs);
  }
  return args;
}

function pushRecord(args: Args, r: ResponseRecord, now: number): void {
  // A record that waited: the window's end is that much closer.
  const resetAfter = r.resetAfterMs < 0 ? -1 : Math.max(0, Math.round(r.resetAfterMs - (now - r.at)));
  const before = args.length;
  args.push(
    r.identity,
    r.routeId,
    r.major,
    r.admitted,
    r.hash,
    r.limit,
    r.remaining,
    resetAfter,
    r.kind,
    Math.ceil(r.retryAfterMs),
    flag(r.invalid),
    r.id,
    flag(r.locked),
  );
  if (args.length - before !== RECORD_FIELDS) throw new Error('response record does not match the script');
}

/**
 * How long ago the slot's response came, in whole ms rounded down: Redis stamps it that much before its own
 * now, which is no earlier than the response really came (the call leaves after `now`).
 */
function slotAge(s: SlotUpdate, now: number): number {
  if (s.releasedAt === 'never-sent') return NEVER_SENT;
  if (s.releasedAt === 'out') return STILL_OUT;
  return Math.max(0, Math.floor(now - s.releasedAt));
}

/** The reply of a LIMIT call, by name. */
export interface LimitReply {
  readonly code: number;
  /** The route's bucket hash as Redis knows it (null: not known). */
  readonly hash: string | null;
  /** Go: remaining in the bucket after this request (null while discovering). Waits and refusals: ms. */
  readonly remainingOrMs: number;
  /** Go: ms until the bucket's window ends (null: unknown). Refusal: the invalid count. */
  readonly resetInOrCount: number;
  readonly provisional: boolean;
  /** The request holds the bucket's discovery lock. */
  readonly discovering: boolean;
  /** Invalid responses in the window when the call counted one (-1: not counted in this call). */
  readonly invalidCount: number;
  readonly limit: number | null;
  /** Go: the slot is booked; send after this many ms. */
  readonly delayMs: number;
  /** Go: free global slots after this one (-1: exempt). */
  readonly free: number;
  /** Processes registered as sharing the limits. */
  readonly live: number;
}

export function parseLimitReply(raw: unknown): LimitReply {
  if (!Array.isArray(raw) || raw.length < 10) throw new Error('shared REST limits: unexpected reply from the LIMIT script');
  const r = raw as unknown[];
  const num = (i: number): number => Number(r[i]);
  const flags = num(4);
  const limit = num(6);
  return {
    code: num(0),
    hash: typeof r[1] === 'string' && r[1] !== '' ? r[1] : null,
    remainingOrMs: num(2),
    resetInOrCount: num(3),
    provisional: (flags & FLAG_PROVISIONAL) !== 0,
    discovering: (flags & FLAG_DISCOVERING) !== 0,
    invalidCount: num(5),
    limit: limit >= 0 ? limit : null,
    delayMs: num(7),
    free: num(8),
    live: num(9),
  };
}
