/**
 * One gateway shard: a sequence of WebSocket connections carrying one session (protocol §5-§8).
 *
 * Invariants the rest of the runtime relies on:
 * - Every dispatch is delivered once and in seq order. Processing stops the moment a connection is given up
 *   (its later messages are ignored), RESUME carries the seq of the last delivered dispatch, and a dispatch
 *   whose seq is not above it is dropped as a replay duplicate.
 * - A socket close that follows messages still being inflated (node:zlib is asynchronous) is handled only
 *   after those messages.
 * - Fatal close codes stop the shard with a `GatewayFatalCloseError`; nothing retries them.
 * - The token never reaches a log line or an error message (it is registered with the redactor).
 */
import { EventEmitter } from 'eventemitter3';
import WebSocket from 'ws';
import type { GatewayPresenceUpdateData } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import { AnomalyLog } from '../util/anomaly-log.js';
import { registerSecret } from '../util/redact.js';
import { CLIENT_CLOSE, closePolicy } from './close-codes.js';
import {
  GatewayDecodeError,
  GatewayError,
  GatewayFatalCloseError,
  IdentifyBudgetExhaustedError,
  ShardClosedError,
  ShardFencedError,
} from './errors.js';
import type { DispatchHook, GatewayEventMap, ShardStatus } from './events.js';
import { Heartbeater, isValidHeartbeatInterval } from './heartbeat.js';
import type { ShardFence } from './fence.js';
import type { IdentifyBudget } from './identify-budget.js';
import { LocalIdentifyQueue, type IdentifyQueue } from './identify-queue.js';
import { PayloadDecoder } from './decoder.js';
import { inflaterFactory, transportCompression, type InflaterFactory, type InflatePreference, type TransportCompression } from './inflate.js';
import { MemberRequestAssembler, type MemberRequestResult, type RequestMembersOptions } from './member-requests.js';
import { describe, memberChunkProblem, rateLimitedProblem, type ShapeProblem } from './payload-shape.js';
import { encodePayload, gatewayConnectUrl, Op, type ReceivedPayload } from './protocol.js';
import { ReconnectPolicy, type ClientEndCause, type ReconnectMode } from './reconnect-policy.js';
import { SendQueue } from './send-queue.js';
import { isResumable, restoredSession, sessionState, type GatewaySession, type SessionState } from './session.js';

export type { SessionState } from './session.js';

export interface ShardTiming {
  /**
   * Wait before identifying anew after op 9 d=false (or a close that ends the session). Default: uniform
   * 1000-5000 ms. Doubled for every further one that comes before a session has lasted `stableSessionMs`.
   */
  invalidSessionDelayMs?: () => number;
  /** Cap of that doubled wait. Default 300000 (5 min). */
  invalidSessionMaxDelayMs?: number;
  /**
   * A session that lasts this long since READY resets the doubling; a connection that stays live (READY or
   * RESUMED) this long ends a row of zombie closes or of idle ends (see reconnect-policy.ts). Default
   * 60000.
   */
  stableSessionMs?: number;
  /** Reconnect backoff: first retry immediate, then base * 2^n with jitter, capped. Defaults 1000 / 30000. */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** Give up (stop the shard) after this many reconnects without reaching READY/RESUMED. Default Infinity. */
  maxReconnectAttempts?: number;
  /** Failed connects to resume_gateway_url before falling back to the main URL. Default 2. */
  resumeUrlFailuresBeforeFallback?: number;
  /** Reconnect when HELLO does not arrive this long after the socket opened. Default 20000. */
  helloTimeoutMs?: number;
  /** How long a client-initiated close waits for the close handshake before dropping the socket. Default 1000. */
  closeGraceMs?: number;
  /** WebSocket opening handshake timeout. Default 15000. */
  handshakeTimeoutMs?: number;
}

export interface ShardOptions {
  id: number;
  shardCount: number;
  token: string;
  intents: number;
  /** `url` from GET /gateway/bot. */
  gatewayUrl: string;
  /** Transport compression: 'zlib-stream' (or true, the default), 'zstd-stream', or false for none. */
  compress?: boolean | TransportCompression;
  /**
   * Decompressor (or a factory, for tests). Default 'auto': the native one of the transport when installed
   * (zlib-sync, zstd-napi), else node:zlib / fzstd.
   */
  inflate?: InflatePreference | InflaterFactory;
  /** Identify field large_threshold (50-250). Default 50. */
  largeThreshold?: number;
  /** Initial presence sent with IDENTIFY. */
  presence?: GatewayPresenceUpdateData;
  /** Identify `properties`. Default { os: process.platform, browser: 'gatehouse', device: 'gatehouse' }. */
  properties?: { os: string; browser: string; device: string };
  /** Default: a private LocalIdentifyQueue (max_concurrency 1, 5 s). Share one across shards. */
  identifyQueue?: IdentifyQueue;
  /**
   * The daily session-start budget every IDENTIFY takes from (the manager shares one across its shards). A
   * refusal stops the shard with IdentifyBudgetExhaustedError. Default: none (not counted).
   */
  identifyBudget?: IdentifyBudget;
  /**
   * Cluster mode: whether this process still holds the shard, asked before handling inbound messages and
   * before every RESUME and IDENTIFY (see fence.ts). A no stops the shard with ShardFencedError.
   */
  fence?: ShardFence;
  /** A saved session: the first connection RESUMEs it (falling back to IDENTIFY on op 9). */
  session?: SessionState | null;
  /** Client send limit. Default 120 per 60000 ms (margin: see SendQueueOptions.marginMs). */
  sendLimit?: { count: number; windowMs: number; marginMs?: number };
  /** Ordinary sends that may wait at once (member requests, presence updates); more are refused. Default 1000. */
  maxQueuedSends?: number;
  timing?: ShardTiming;
  /** Heartbeat jitter and backoff jitter source. Default Math.random. */
  random?: () => number;
  logger?: Logger;
  /** Where payloads that break the protocol are reported (shared by the shards of a manager). Default: own. */
  anomalies?: AnomalyLog;
  /** Called for every dispatch before any emitter event: the allocation-free path for the runtime. */
  onDispatch?: DispatchHook;
  /** Where events go. Default: a private emitter, exposed as `shard.events`. The manager passes its own. */
  events?: EventEmitter<GatewayEventMap>;
}

export interface ShardCloseOptions {
  /** Keep the session resumable (close with a non-1000 code) and return its state. Default false. */
  resumable?: boolean;
}

interface Connection {
  readonly id: number;
  readonly ws: WebSocket;
  readonly decoder: PayloadDecoder;
  /** False once the shard gave this connection up: nothing it delivers is processed any more. */
  live: boolean;
  opened: boolean;
  helloReceived: boolean;
  helloTimer: NodeJS.Timeout | null;
  /** URL base used, to count failures of resume_gateway_url. */
  usedResumeUrl: boolean;
  /** performance.now() when it reached READY/RESUMED; null before (the reconnect policy's idle and zombie rows). */
  liveSince: number | null;
  /** It handed on a dispatch other than READY / RESUMED, replays included (see ReconnectPolicy's idle ends). */
  delivered: boolean;
  /** Aborts the wait for the identify queue while the connection waits in it. */
  identifyAbort: AbortController | null;
}

/**
 * The shard's state, carrying what each status needs: the timer of the next connection while reconnecting, the
 * cause of a stop. The connection itself is `Shard.connection` (it outlives a status: a close is handled while
 * the status still says what the connection was doing).
 */
type ShardState =
  | { readonly status: 'idle' | 'connecting' | 'waiting-identify' | 'identifying' | 'resuming' | 'ready' | 'closed' }
  | { readonly status: 'reconnecting'; timer: NodeJS.Timeout | null }
  | { readonly status: 'stopped'; readonly error: Error };

/** What the reconnect policy is told of a connection that never existed (a reconnect with none current). */
const NEVER_LIVE = Object.freeze({ liveSince: null, delivered: false });

const DEFAULT_PROPERTIES = Object.freeze({ os: process.platform, browser: 'gatehouse', device: 'gatehouse' });

export class Shard {
  readonly id: number;
  readonly shardCount: number;
  readonly events: EventEmitter<GatewayEventMap>;
  /** The same emitter, typed for emitting any dispatch name (untyped ones included). */
  private readonly namedEvents: EventEmitter<Record<string, [number, unknown]>>;
  private readonly options: ShardOptions;
  private readonly compress: TransportCompression | null;
  private readonly makeInflater: InflaterFactory | null;
  private readonly identifyQueue: IdentifyQueue;
  private readonly sendQueue: SendQueue;
  private readonly heartbeater: Heartbeater;
  private readonly members: MemberRequestAssembler;
  private readonly random: () => number;
  private readonly onDispatch: DispatchHook | undefined;
  private readonly fence: ShardFence | undefined;
  private readonly timing: Required<ShardTiming>;
  private readonly reconnectPolicy: ReconnectPolicy;
  private readonly logger: Logger | undefined;
  private readonly anomalies: AnomalyLog | null;

  private state: ShardState = { status: 'idle' };
  private connection: Connection | null = null;
  private connectionCounter = 0;
  /** The session, or none (seq -1): before the first IDENTIFY, and after one ended. */
  private gatewaySession: GatewaySession | null = null;
  /** close() was called or the shard stopped: nothing starts any more. */
  private ending = false;
  private startWaiter: { resolve: () => void; reject: (error: Error) => void } | null = null;
  private startPromise: Promise<void> | null = null;
  private closePromise: Promise<SessionState | null> | null = null;

  constructor(options: ShardOptions) {
    if (!Number.isInteger(options.id) || !Number.isInteger(options.shardCount) || options.shardCount < 1) {
      throw new RangeError(`Shard id and shardCount must be integers (got id ${options.id}, count ${options.shardCount}).`);
    }
    if (options.id < 0 || options.id >= options.shardCount) {
      throw new RangeError(`Shard id ${options.id} is outside 0..${options.shardCount - 1}.`);
    }
    if (typeof options.token !== 'string' || options.token.length === 0) {
      throw new TypeError('Shard token must be a non-empty string.');
    }
    registerSecret(options.token);
    this.options = options;
    this.id = options.id;
    this.shardCount = options.shardCount;
    this.events = options.events ?? new EventEmitter<GatewayEventMap>();
    this.namedEvents = this.events as unknown as EventEmitter<Record<string, [number, unknown]>>;
    this.compress = transportCompression(options.compress);
    const inflate = options.inflate ?? 'auto';
    this.makeInflater =
      this.compress === null ? null : typeof inflate === 'function' ? inflate : inflaterFactory(inflate, this.compress);
    this.identifyQueue = options.identifyQueue ?? new LocalIdentifyQueue();
    this.random = options.random ?? Math.random;
    this.onDispatch = options.onDispatch;
    this.fence = options.fence;
    this.logger = options.logger?.child({ component: 'gateway', shard: options.id });
    this.anomalies = options.anomalies ?? (this.logger !== undefined ? new AnomalyLog(this.logger) : null);
    const t = options.timing ?? {};
    this.timing = {
      invalidSessionDelayMs: t.invalidSessionDelayMs ?? (() => 1000 + Math.floor(this.random() * 4000)),
      invalidSessionMaxDelayMs: t.invalidSessionMaxDelayMs ?? 300_000,
      stableSessionMs: t.stableSessionMs ?? 60_000,
      reconnectBaseMs: t.reconnectBaseMs ?? 1000,
      reconnectMaxMs: t.reconnectMaxMs ?? 30_000,
      maxReconnectAttempts: t.maxReconnectAttempts ?? Infinity,
      resumeUrlFailuresBeforeFallback: t.resumeUrlFailuresBeforeFallback ?? 2,
      helloTimeoutMs: t.helloTimeoutMs ?? 20_000,
      closeGraceMs: t.closeGraceMs ?? 1000,
      handshakeTimeoutMs: t.handshakeTimeoutMs ?? 15_000,
    };
    this.reconnectPolicy = new ReconnectPolicy({
      timing: this.timing,
      now: () => performance.now(),
      random: this.random,
      note: (message) => this.debug(message),
    });
    this.sendQueue = new SendQueue({
      limit: options.sendLimit?.count,
      windowMs: options.sendLimit?.windowMs,
      marginMs: options.sendLimit?.marginMs,
      maxQueued: options.maxQueuedSends,
      shardId: options.id,
    });
    this.heartbeater = new Heartbeater(
      { send: () => this.sendHeartbeat(), zombie: () => this.onZombie() },
      { random: this.random },
    );
    this.members = new MemberRequestAssembler((text, onSent) => this.sendQueue.enqueue(text, onSent));
    if (options.session) this.gatewaySession = restoredSession(options.session, this.id);
  }

  get status(): ShardStatus {
    return this.state.status;
  }

  /** Round trip of the last heartbeat in ms, -1 before the first ACK. */
  get latency(): number {
    return this.heartbeater.latency;
  }

  /** Ordinary sends (member requests, presence updates, ...) waiting for the rate limit or the session. */
  get queuedSends(): number {
    return this.sendQueue.pending;
  }

  /** Seq of the last dispatch delivered, -1 before the first. */
  get sequence(): number {
    return this.gatewaySession?.seq ?? -1;
  }

  /** The resumable session, or null before READY / after it was invalidated. */
  get session(): SessionState | null {
    return isResumable(this.gatewaySession) ? sessionState(this.gatewaySession) : null;
  }

  /** Open the first connection. Resolves at the first READY or RESUMED; rejects if the shard stops before. */
  start(): Promise<void> {
    if (this.startPromise) return this.startPromise;
    if (this.ending) return Promise.reject(new ShardClosedError(this.id, 'start'));
    this.startPromise = new Promise<void>((resolve, reject) => {
      this.startWaiter = { resolve, reject };
    });
    this.connect();
    return this.startPromise;
  }

  /**
   * Close for good. With `resumable`, the socket closes with a non-1000 code so the service keeps the session,
   * and its state is returned for a later process to RESUME; otherwise the session ends (code 1000).
   */
  close(options: ShardCloseOptions = {}): Promise<SessionState | null> {
    if (this.closePromise) return this.closePromise;
    const resumable = options.resumable ?? false;
    this.closePromise = (async () => {
      const wasStopped = this.state.status === 'stopped';
      this.ending = true;
      this.cancelPending();
      const connection = this.connection;
      if (connection) {
        await this.dropConnection(connection, resumable ? CLIENT_CLOSE.resumableShutdown : CLIENT_CLOSE.normal);
      }
      const state = resumable ? this.session : null;
      if (!resumable) this.clearSession();
      this.finishPending(new ShardClosedError(this.id, 'the request'));
      if (!wasStopped) {
        this.setState({ status: 'closed' });
        this.events.emit('stopped', this.id, null);
      }
      return state;
    })();
    return this.closePromise;
  }

  /**
   * Ask for guild members (op 8); resolves once with every chunk assembled. Goes through the send queue; its
   * `timeoutMs` counts from this call, time queued while the shard is not READY included.
   */
  requestMembers(options: RequestMembersOptions): Promise<MemberRequestResult> {
    if (this.ending) return Promise.reject(new ShardClosedError(this.id, 'the member request'));
    return this.members.request(options);
  }

  /**
   * Send any payload through the rate-limited queue (waits until the session is live). Resolves when written.
   * For presence updates, voice state, op 31 / op 43 requests.
   */
  send(op: number, d: unknown): Promise<void> {
    if (this.ending) return Promise.reject(new ShardClosedError(this.id, `the op ${op} send`));
    let text: string;
    try {
      text = encodePayload(op, d);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<void>((resolve, reject) => {
      this.sendQueue.enqueue(text, (error) => (error ? reject(error) : resolve()));
    });
  }

  // ---- connection lifecycle ---------------------------------------------------------------------------------

  private connect(): void {
    if (this.ending) return;
    const session = this.gatewaySession;
    const useResumeUrl = isResumable(session) && this.reconnectPolicy.useResumeUrl();
    const base = useResumeUrl ? session.resumeUrl : this.options.gatewayUrl;
    let url: string;
    try {
      url = gatewayConnectUrl(base, this.compress);
    } catch (error) {
      this.stop(error as Error);
      return;
    }
    this.setState({ status: 'connecting' });
    this.debug(`connecting to ${url}${isResumable(session) ? ' (to resume)' : ''}`);
    const id = ++this.connectionCounter;
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      skipUTF8Validation: true,
      handshakeTimeout: this.timing.handshakeTimeoutMs,
    });
    ws.binaryType = 'nodebuffer';
    // The sink's closures run only after `connection` exists (messages arrive on later ticks).
    const decoder = new PayloadDecoder(
      {
        payload: (payload) => {
          if (connection.live) this.onPayload(connection, payload);
        },
        error: (error) => {
          if (connection.live) this.onDecodeError(connection, error);
        },
      },
      this.makeInflater,
    );
    const connection: Connection = {
      id,
      ws,
      decoder,
      live: true,
      opened: false,
      helloReceived: false,
      helloTimer: null,
      usedResumeUrl: useResumeUrl,
      liveSince: null,
      delivered: false,
      identifyAbort: null,
    };
    this.connection = connection;
    this.members.connectionChanged();
    this.sendQueue.attach((text) => this.write(connection, text));
    this.listen(connection);
  }

  private listen(connection: Connection): void {
    const ws = connection.ws;
    ws.on('open', () => {
      if (!connection.live) return;
      connection.opened = true;
      connection.helloTimer = setTimeout(() => {
        if (!connection.live || connection.helloReceived) return;
        this.debug('no HELLO in time');
        this.reconnect({ kind: 'hello-timeout' }, CLIENT_CLOSE.helloTimeout, 'hello timeout');
      }, this.timing.helloTimeoutMs);
    });
    ws.on('message', (data, isBinary) => {
      if (connection.live) connection.decoder.push(toBuffer(data), isBinary);
    });
    ws.on('error', (error) => {
      if (!connection.live) return;
      this.debug(`socket error: ${error.message}`);
    });
    ws.on('close', (code, reason) => {
      if (!connection.live) return;
      const handle = () => {
        if (connection.live) this.onSocketClose(connection, code, reason.toString('utf8'));
      };
      // Messages that arrived before the close may still be inflating: handle them first.
      connection.decoder.whenIdle(handle);
    });
  }

  /** The service or the network ended the connection. */
  private onSocketClose(connection: Connection, code: number, reason: string): void {
    this.abandon(connection);
    this.events.emit('close', this.id, code, reason);
    if (this.ending) return;
    const close = closePolicy(code);
    this.debug(`closed with ${code} (${close.name})${reason ? `: ${reason}` : ''}`);
    if (close.action !== 'fatal' && !connection.opened) {
      this.emitError(new GatewayError(`Shard ${this.id} could not connect (close code ${code}).`));
    }
    const decision = this.reconnectPolicy.afterServerClose(
      { code, helloReceived: connection.helloReceived, usedResumeUrl: connection.usedResumeUrl },
      isResumable(this.gatewaySession),
      connection,
    );
    if (decision.action === 'stop') {
      this.stop(new GatewayFatalCloseError(this.id, code, decision.close.name, decision.close.hint, reason));
      return;
    }
    if (decision.mode === 'identify') this.clearSession();
    this.scheduleReconnect(decision.delayMs);
  }

  /**
   * Give up the current connection on the client's initiative (op 7, op 9, zombie, decode error, ...) and open a
   * new one after the old socket closed and the reconnect policy's wait passed.
   */
  private reconnect(cause: ClientEndCause, code: number, why: string): void {
    if (this.ending) return;
    const connection = this.connection;
    const { mode, delayMs } = this.reconnectPolicy.afterClientEnd(cause, isResumable(this.gatewaySession), connection ?? NEVER_LIVE);
    this.debug(`reconnecting (${why}) to ${mode}`);
    if (mode === 'identify') this.clearSession();
    // A timer already set stays (scheduleReconnect replaces it).
    if (this.state.status !== 'reconnecting') this.setState({ status: 'reconnecting', timer: null });
    const closed = connection ? this.dropConnection(connection, code) : Promise.resolve();
    void closed.then(() => this.scheduleReconnect(delayMs));
  }

  private scheduleReconnect(delayMs: number): void {
    if (this.ending) return;
    const attempt = this.reconnectPolicy.nextAttempt();
    if (!attempt.allowed) {
      this.stop(new GatewayError(`Shard ${this.id} gave up after ${attempt.attempts} reconnect attempt(s).`));
      return;
    }
    this.cancelReconnectTimer();
    const state: ShardState & { status: 'reconnecting' } = { status: 'reconnecting', timer: null };
    this.setState(state);
    state.timer = setTimeout(() => {
      state.timer = null;
      this.connect();
    }, delayMs);
  }

  private cancelReconnectTimer(): void {
    const state = this.state;
    if (state.status !== 'reconnecting' || state.timer === null) return;
    clearTimeout(state.timer);
    state.timer = null;
  }

  /** Stop processing a connection: nothing it delivers after this is handled. */
  private abandon(connection: Connection): void {
    connection.live = false;
    if (connection.helloTimer !== null) clearTimeout(connection.helloTimer);
    connection.decoder.destroy();
    if (this.connection !== connection) return;
    this.connection = null;
    this.heartbeater.stop();
    this.sendQueue.detach();
    this.abortIdentifyWait(connection);
  }

  private abortIdentifyWait(connection: Connection): void {
    if (connection.identifyAbort === null) return;
    connection.identifyAbort.abort(new ShardClosedError(this.id, 'identify'));
    connection.identifyAbort = null;
  }

  /** Abandon a connection and close its socket with `code`; resolves once closed (or dropped after the grace). */
  private dropConnection(connection: Connection, code: number): Promise<void> {
    this.abandon(connection);
    const ws = connection.ws;
    return new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      const grace = setTimeout(() => {
        ws.terminate();
        resolve();
      }, this.timing.closeGraceMs);
      ws.once('close', () => {
        clearTimeout(grace);
        this.events.emit('close', this.id, code, 'closed by client');
        resolve();
      });
      ws.on('error', () => {}); // errors after abandoning are expected (e.g. closing while connecting)
      try {
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(code);
      } catch {
        ws.terminate();
      }
    });
  }

  /**
   * Stop for good: fatal close code, bad configuration, or reconnects exhausted. The session ends with it (a
   * live socket closes with 1000), so none is left for a checkpoint or a later process to resume.
   */
  private stop(error: Error): void {
    if (this.ending) return;
    this.ending = true;
    this.cancelPending();
    const connection = this.connection;
    if (connection) void this.dropConnection(connection, CLIENT_CLOSE.normal);
    this.clearSession();
    this.logger?.error({ err: error }, 'shard stopped');
    this.finishPending(error);
    this.setState({ status: 'stopped', error });
    this.events.emit('stopped', this.id, error);
  }

  /**
   * This process no longer holds the shard: stop at once, handling nothing more. The socket closes with a
   * resumable code and nothing is cleared or saved: the session is the new owner's.
   */
  private fenced(reason: string): void {
    if (this.ending) return;
    this.ending = true;
    this.cancelPending();
    const connection = this.connection;
    if (connection) void this.dropConnection(connection, CLIENT_CLOSE.resumableShutdown);
    const error = new ShardFencedError(this.id, reason);
    this.logger?.warn({ err: error }, 'shard fenced');
    // Nothing left to resume here; the seq stays readable.
    if (this.gatewaySession !== null) this.gatewaySession = { id: null, resumeUrl: null, seq: this.gatewaySession.seq };
    this.finishPending(error);
    this.setState({ status: 'stopped', error });
    this.events.emit('stopped', this.id, error);
  }

  private cancelPending(): void {
    this.cancelReconnectTimer();
    this.heartbeater.stop();
    if (this.connection !== null) this.abortIdentifyWait(this.connection);
  }

  private finishPending(error: Error): void {
    this.sendQueue.clear(error);
    this.members.rejectAll(error);
    if (this.startWaiter) {
      this.startWaiter.reject(error);
      this.startWaiter = null;
    }
  }

  // ---- inbound ----------------------------------------------------------------------------------------------

  private onDecodeError(connection: Connection, error: GatewayDecodeError): void {
    if (this.connection !== connection) return;
    this.emitError(error);
    this.reconnect({ kind: 'decode-error' }, CLIENT_CLOSE.decodeError, error.message);
  }

  private onPayload(connection: Connection, payload: ReceivedPayload): void {
    // After a stall past the lease, nothing the connection buffered meanwhile may be handled: the new owner
    // has it (or will, by replay).
    if (this.fence !== undefined && !this.fence.holds(this.id)) {
      this.fenced('its claim lapsed (renewal deadline passed)');
      return;
    }
    switch (payload.op) {
      case Op.Dispatch:
        this.onDispatchPayload(connection, payload);
        return;
      case Op.HeartbeatAck:
        this.heartbeater.ack();
        this.events.emit('heartbeat', this.id, this.heartbeater.latency);
        return;
      case Op.Heartbeat:
        this.heartbeater.beatNow();
        return;
      case Op.Hello:
        this.onHello(connection, payload.d);
        return;
      case Op.Reconnect:
        this.reconnect({ kind: 'reconnect-requested' }, CLIENT_CLOSE.reconnect, 'op 7 RECONNECT');
        return;
      case Op.InvalidSession: {
        const resumable = payload.d === true;
        const why = `op 9 INVALID_SESSION (${resumable && isResumable(this.gatewaySession) ? 'resumable' : 'not resumable'})`;
        this.reconnect({ kind: 'invalid-session', resumable }, CLIENT_CLOSE.reconnect, why);
        return;
      }
      default:
        this.debug(`ignoring op ${payload.op}`);
    }
  }

  private onDispatchPayload(connection: Connection, payload: ReceivedPayload): void {
    const t = payload.t;
    if (t === null) return;
    const last = this.gatewaySession?.seq ?? -1;
    // A dispatch without seq (not expected from the service) is delivered but does not move the seq.
    let s = payload.s;
    if (s === null) {
      s = last;
    } else if (!Number.isSafeInteger(s) || s < 0) {
      // A seq is a count from 1 (protocol §5.2: int). Any other number (1e300, 2.5, -3) cannot be the session's
      // position: taken as one, a huge value made every later dispatch look like a replay duplicate (dropped)
      // and went out in heartbeats and RESUME. It is a malformed field, treated like the others the gateway
      // reports (docs/operations.md, logs): the payload is still delivered, as a dispatch without seq is, since
      // its `d` may be sound and dropping it would lose an event for a broken envelope; the seq does not move (the hook
      // gets the last good one), so duplicate detection, heartbeats and RESUME keep counting from real seqs.
      // Reported through the anomaly log, so a peer that sends thousands makes one line per minute.
      this.reportBadSeq(t, s);
      s = last;
    } else {
      if (s <= last) {
        this.debug(`dropping duplicate dispatch ${t} s=${s} (last ${last})`);
        return;
      }
      if (last >= 0 && s !== last + 1) {
        this.logger?.warn({ expected: last + 1, got: s, t }, 'gap in dispatch sequence');
      }
      if (this.gatewaySession === null) this.gatewaySession = { id: null, resumeUrl: null, seq: s };
      else this.gatewaySession.seq = s;
    }
    const d = payload.d;
    switch (t) {
      case 'READY':
        this.onReady(connection, d);
        break;
      case 'RESUMED':
        this.onLive(connection, true);
        this.members.resendUnanswered();
        break;
      case 'GUILD_MEMBERS_CHUNK':
        connection.delivered = true;
        this.reportShape(t, memberChunkProblem(d));
        this.members.handleChunk(d);
        break;
      case 'RATE_LIMITED':
        connection.delivered = true;
        this.reportShape(t, rateLimitedProblem(d));
        this.members.handleRateLimited(d);
        break;
      default:
        connection.delivered = true;
    }
    try {
      this.onDispatch?.(this.id, t, d, s);
      this.events.emit('dispatch', this.id, t, d, s);
      this.namedEvents.emit(t, this.id, d);
    } catch (error) {
      this.emitError(
        new GatewayError(`A listener for ${t} on shard ${this.id} threw: ${(error as Error)?.message ?? error}`, {
          cause: error,
        }),
      );
    }
  }

  private onReady(connection: Connection, d: unknown): void {
    const ready = typeof d === 'object' && d !== null ? (d as { session_id?: unknown; resume_gateway_url?: unknown }) : null;
    // A READY starts a new session: without a session id there is nothing to resume later (an old id would
    // be another session's), so the shard identifies again after the next disconnect.
    const sessionId = ready?.session_id;
    const named = typeof sessionId === 'string' && sessionId !== '';
    if (!named) {
      this.anomalies?.report({
        event: 'READY',
        field: 'session_id',
        reason: `expected a non-empty string, got ${describe(sessionId)}; shard ${this.id} will identify again instead of resuming`,
      });
    }
    // Without a usable resume_gateway_url, resume on the main URL rather than not at all.
    const resumeUrl = ready?.resume_gateway_url;
    const usableUrl = typeof resumeUrl === 'string' && /^wss?:\/\//.test(resumeUrl);
    if (!usableUrl) {
      this.anomalies?.report({
        event: 'READY',
        field: 'resume_gateway_url',
        reason: `expected a ws:// or wss:// URL, got ${describe(resumeUrl)}; shard ${this.id} resumes on the main gateway URL`,
      });
    }
    const seq = this.sequence;
    this.gatewaySession = named
      ? { id: sessionId, resumeUrl: usableUrl ? resumeUrl : this.options.gatewayUrl, seq }
      : { id: null, resumeUrl: null, seq };
    this.reconnectPolicy.sessionStarted();
    // Replies to member requests of the previous session will never come: queue them again before the queue
    // opens, so that requests still waiting in it (never written) are not sent twice.
    this.members.restartAll();
    this.onLive(connection, false);
  }

  /** One kind for every dispatch name, so that made-up names cannot multiply the lines. */
  private reportBadSeq(t: string, s: number): void {
    this.anomalies?.report({
      event: 'DISPATCH',
      field: 's',
      reason: `expected a non-negative safe integer, got ${Number.isNaN(s) ? 'something that is not a number' : s} (in ${t.length > 64 ? `${t.slice(0, 64)}...` : t}); delivered without moving the seq of shard ${this.id} (last ${this.sequence})`,
    });
  }

  private reportShape(event: string, problem: ShapeProblem | null): void {
    if (problem !== null) this.anomalies?.report({ event, field: problem.field, reason: `${problem.reason} (shard ${this.id})` });
  }

  private onLive(connection: Connection, resumed: boolean): void {
    this.reconnectPolicy.live();
    connection.liveSince = performance.now();
    this.setState({ status: 'ready' });
    this.sendQueue.open();
    this.events.emit('ready', this.id, resumed);
    if (this.startWaiter) {
      this.startWaiter.resolve();
      this.startWaiter = null;
    }
  }

  private onHello(connection: Connection, d: unknown): void {
    if (connection.helloReceived) return;
    connection.helloReceived = true;
    if (connection.helloTimer !== null) {
      clearTimeout(connection.helloTimer);
      connection.helloTimer = null;
    }
    const interval = (d as { heartbeat_interval?: unknown } | null)?.heartbeat_interval;
    // HELLO is the one place the service says how often to heartbeat (protocol §7.1-§7.2), so a HELLO without a
    // usable interval is a broken connection, like one that cannot be decoded: give it up and reconnect with the
    // ordinary backoff (no READY/RESUMED comes in between, so the waits grow to reconnectMaxMs instead of
    // looping). "Usable" is a finite number of ms Node's timers can hold, within [1, 2^31-1]: a longer delay
    // (1e12) is run after 1 ms, and a sub-millisecond one (0.001) is as good as none; either made the next beat
    // find the last one unanswered and drop the connection as a zombie on every beat. Values in range but
    // below 100 ms are raised to MIN_HEARTBEAT_INTERVAL_MS by the heartbeater (see there for why).
    if (!isValidHeartbeatInterval(interval)) {
      this.onDecodeError(
        connection,
        new GatewayDecodeError(
          `HELLO without a valid heartbeat_interval (expected a number of ms within [1, 2^31-1], got ${
            typeof interval === 'number' ? interval : describe(interval)
          })`,
        ),
      );
      return;
    }
    this.heartbeater.start(interval);
    // Keep every window's heartbeats (plus server-requested ones and IDENTIFY/RESUME) out of ordinary sends.
    const beatMs = this.heartbeater.interval;
    this.sendQueue.setReserved(Math.ceil((this.sendQueue.windowMs + this.sendQueue.marginMs) / beatMs) + 2);
    if (isResumable(this.gatewaySession)) void this.resume(connection);
    else void this.identify(connection);
  }

  private async resume(connection: Connection): Promise<void> {
    this.setState({ status: 'resuming' });
    if (!(await this.confirmOwnership(connection, 'resume'))) return;
    const session = this.gatewaySession;
    if (!isResumable(session)) return;
    this.debug(`resuming session at seq ${session.seq}`);
    this.sendQueue.sendPriority(encodePayload(Op.Resume, { token: this.options.token, session_id: session.id, seq: session.seq }));
  }

  /**
   * Right before RESUME or IDENTIFY: ask the fence (an atomic check in Redis, in cluster mode) whether this
   * process still holds the shard. False when the shard stopped or the connection went meanwhile.
   */
  private async confirmOwnership(connection: Connection, mode: ReconnectMode): Promise<boolean> {
    const fence = this.fence;
    if (fence === undefined) return true;
    let held: boolean;
    try {
      held = await fence.confirm(this.id);
    } catch (error) {
      if (!connection.live || this.connection !== connection) return false;
      // Unknown is not yes: never RESUME or IDENTIFY unconfirmed; try again on a new connection.
      this.emitError(error instanceof Error ? error : new GatewayError(String(error)));
      this.reconnect({ kind: 'lease-unconfirmed', mode }, CLIENT_CLOSE.reconnect, 'could not confirm the shard lease');
      return false;
    }
    if (!held) {
      this.fenced(`another process holds it (checked before ${mode === 'resume' ? 'RESUME' : 'IDENTIFY'})`);
      return false;
    }
    return connection.live && this.connection === connection;
  }

  private async identify(connection: Connection): Promise<void> {
    this.setState({ status: 'waiting-identify' });
    const abort = new AbortController();
    connection.identifyAbort = abort;
    try {
      await this.identifyQueue.acquire(this.id, abort.signal);
    } catch (error) {
      if (abort.signal.aborted) return;
      // A failing queue (e.g. its store is down): never identify unthrottled; try again on a new connection.
      this.emitError(error instanceof Error ? error : new GatewayError(String(error)));
      if (connection.live && this.connection === connection) {
        this.reconnect({ kind: 'identify-queue-failed' }, CLIENT_CLOSE.reconnect, 'identify queue failed');
      }
      return;
    } finally {
      if (connection.identifyAbort === abort) connection.identifyAbort = null;
    }
    if (!connection.live || this.connection !== connection) return;
    if (!(await this.confirmOwnership(connection, 'identify'))) return;
    if (this.options.identifyBudget !== undefined) {
      try {
        await this.options.identifyBudget.take(this.id);
      } catch (error) {
        if (error instanceof IdentifyBudgetExhaustedError) {
          this.stop(error);
          return;
        }
        this.emitError(error instanceof Error ? error : new GatewayError(String(error)));
      }
      if (!connection.live || this.connection !== connection) return;
    }
    // A new session starts: nothing counted so far belongs to it.
    this.gatewaySession = { id: null, resumeUrl: null, seq: -1 };
    this.setState({ status: 'identifying' });
    this.debug('identifying');
    const d: Record<string, unknown> = {
      token: this.options.token,
      properties: this.options.properties ?? DEFAULT_PROPERTIES,
      intents: this.options.intents,
      shard: [this.id, this.shardCount],
      large_threshold: this.options.largeThreshold ?? 50,
      compress: false,
    };
    if (this.options.presence) d.presence = this.options.presence;
    this.sendQueue.sendPriority(encodePayload(Op.Identify, d));
  }

  // ---- outbound ---------------------------------------------------------------------------------------------

  private sendHeartbeat(): void {
    const seq = this.sequence;
    this.sendQueue.sendPriority(seq >= 0 ? `{"op":1,"d":${seq}}` : '{"op":1,"d":null}');
  }

  private write(connection: Connection, text: string): void {
    if (!connection.live || connection.ws.readyState !== WebSocket.OPEN) return;
    connection.ws.send(text);
  }

  private onZombie(): void {
    this.debug('no heartbeat ACK since the last heartbeat: zombie connection');
    this.reconnect({ kind: 'zombie' }, CLIENT_CLOSE.zombie, 'zombie connection');
  }

  // ---- state ------------------------------------------------------------------------------------------------

  private clearSession(): void {
    this.gatewaySession = null;
  }

  /** Enter `next`; the status event fires when the status changes (not for a new timer while reconnecting). */
  private setState(next: ShardState): void {
    const previous = this.state.status;
    this.state = next;
    if (previous !== next.status) this.events.emit('status', this.id, next.status, previous);
  }

  private emitError(error: Error): void {
    this.logger?.warn({ err: error }, error.message);
    this.events.emit('error', this.id, error);
  }

  private debug(message: string): void {
    this.logger?.debug(message);
    if (this.events.listenerCount('debug') > 0) this.events.emit('debug', this.id, message);
  }
}

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
