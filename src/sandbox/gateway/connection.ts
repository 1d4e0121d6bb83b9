/**
 * One gateway WebSocket: HELLO, heartbeats and their deadline, the client send limit, payload checks, and
 * an ordered outbound queue (through zlib-stream when asked) with backpressure, so the sandbox sends as
 * fast as the socket drains and never buffers without bound in the socket.
 */
import { GatewayCloseCodes, GatewayOpcodes } from 'discord-api-types/v10';
import { deflateSync } from 'node:zlib';
import WebSocket from 'ws';
import { corruptZlibFrame, corruptZstdFrame, createStreamEncoder, type StreamCompression, type StreamEncoder } from './compress.js';
import type { ResolvedGatewayOptions } from '../options.js';
import type { Session } from './session.js';

export type ConnectionKind = 'gateway' | 'resume';

type ConnectionSession = Session<Connection>;

/** What a connection asks of the gateway server (server.ts implements it; an interface so neither imports the other). */
export interface ConnectionHost {
  readonly options: Pick<
    ResolvedGatewayOptions,
    'compressionLevel' | 'asyncCompression' | 'heartbeatTimeoutMs' | 'heartbeatIntervalMs' | 'reconnectCloseDelayMs' | 'sendLimit' | 'maxFrameBytes'
  >;
  emitDispatch(conn: Connection, t: string, s: number): void;
  emitHeartbeat(conn: Connection): void;
  identify(conn: Connection, d: unknown): void;
  resume(conn: Connection, d: unknown): void;
  requestGuildMembers(conn: Connection, session: ConnectionSession, d: unknown): void;
  requestSoundboardSounds(conn: Connection, session: ConnectionSession, d: unknown): void;
  requestChannelInfo(conn: Connection, session: ConnectionSession, d: unknown): void;
  connectionClosed(conn: Connection, code: number, by: 'client' | 'server'): void;
}

type OutItem =
  | { kind: 'text'; data: string }
  | { kind: 'dispatch'; head: string; body: string | Buffer }
  | { kind: 'corrupt' }
  | { kind: 'close'; code: number; reason: string };

/** Socket bytes above which the queue stops feeding the socket until it drains. */
const HIGH_WATER = 4 * 1024 * 1024;
/** Messages in the deflater at once (keeps the thread pool busy while the main thread builds frames). */
const MAX_INFLIGHT = 64;
/** Client payload cap (protocol §5.2); larger -> 4002. */
const MAX_CLIENT_PAYLOAD = 4096;
/** Payload compression (`compress: true` in IDENTIFY) compresses frames from this size on. */
const PAYLOAD_COMPRESSION_MIN = 1024;

const OP_ACK = '{"t":null,"s":null,"op":11,"d":null}';

export class Connection {
  session: ConnectionSession | null = null;
  /** Fault: when false, heartbeats get no op 11. */
  acking = true;
  /** The close code the server sent, when it closed the socket. */
  closedByServer: number | null = null;
  /** IDENTIFY asked for legacy payload compression (only without transport compression). */
  payloadCompression = false;
  readonly openedAt = Date.now();
  private readonly encoder: StreamEncoder | null;
  private queue: OutItem[] = [];
  private head = 0;
  private inflight = 0;
  private blocked = false;
  private pumping = false;
  private closing = false;
  /**
   * A session this connection had until op 9 `d: true` detached it: the client may RESUME it on this very socket
   * (as discord.js does) as well as on resume_gateway_url.
   */
  invalidatedSession: ConnectionSession | null = null;
  private readonly heartbeatTimer: NodeJS.Timeout;
  /** Send limit: start of the current fixed window (performance.now()) and payloads counted in it. */
  private sendWindowStart = performance.now();
  private sendCount = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly id: number,
    private readonly ws: WebSocket,
    readonly kind: ConnectionKind,
    /** Transport compression the client asked for (null: none). */
    readonly compression: StreamCompression | null,
    private readonly server: ConnectionHost,
  ) {
    const o = server.options;
    this.encoder =
      compression === null ? null : createStreamEncoder(compression, { zlibLevel: o.compressionLevel, forceAsync: o.asyncCompression });
    this.heartbeatTimer = setTimeout(() => this.closeNow(GatewayCloseCodes.SessionTimedOut, 'Session timed out'), o.heartbeatTimeoutMs);
    this.heartbeatTimer.unref();
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(data, isBinary));
    ws.on('close', (code: number) => this.onClose(code));
    ws.on('error', () => {
      /* 'close' follows */
    });
    this.enqueue(
      `{"t":null,"s":null,"op":10,"d":{"heartbeat_interval":${o.heartbeatIntervalMs},"_trace":["[\\"gatehouse-sandbox\\",{\\"micros\\":0}]"]}}`,
    );
  }

  get compressed(): boolean {
    return this.compression !== null;
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN && !this.closing;
  }

  /** A dispatch from the session (live or replayed); `d` is its JSON. */
  sendDispatch(t: string, s: number, d: string | Buffer): void {
    if (!this.open) return;
    this.queue.push({ kind: 'dispatch', head: `{"t":"${t}","s":${s},"op":0,"d":`, body: d });
    this.schedulePump();
    this.server.emitDispatch(this, t, s);
  }

  sendOp(op: number, d: string): void {
    this.enqueue(`{"t":null,"s":null,"op":${op},"d":${d}}`);
  }

  sendCorruptFrame(): void {
    this.queue.push({ kind: 'corrupt' });
    this.schedulePump();
  }

  /** Send op 7 and, like the service, drop the socket a little later if the client has not. */
  sendReconnect(): void {
    this.sendOp(GatewayOpcodes.Reconnect, 'null');
    const delay = this.server.options.reconnectCloseDelayMs;
    this.reconnectTimer = setTimeout(() => this.closeAfterQueue(4000, 'Reconnect requested'), delay);
    this.reconnectTimer.unref();
  }

  /** Close at once, dropping anything queued (protocol violations, faults). */
  closeNow(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.closedByServer = code;
    this.queue = [];
    this.head = 0;
    this.stopTimers();
    this.encoder?.close();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.close(code, reason);
    }
  }

  /** Close after everything queued so far went out. */
  closeAfterQueue(code: number, reason: string): void {
    if (this.closing) return;
    this.queue.push({ kind: 'close', code, reason });
    this.schedulePump();
  }

  /** Hard-drop the TCP connection (sandbox shutdown). */
  terminate(): void {
    this.closing = true;
    this.stopTimers();
    this.encoder?.close();
    this.ws.terminate();
  }

  private stopTimers(): void {
    clearTimeout(this.heartbeatTimer);
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
  }

  // ---- inbound ----------------------------------------------------------------------------------------

  private onMessage(data: Buffer, _isBinary: boolean): void {
    if (this.closing) return;
    if (data.length > MAX_CLIENT_PAYLOAD) return this.closeNow(GatewayCloseCodes.DecodeError, 'Decode error');
    if (!this.countSend()) return this.closeNow(GatewayCloseCodes.RateLimited, 'Rate limited');

    let payload: unknown;
    try {
      payload = JSON.parse(data.toString('utf8'));
    } catch {
      return this.closeNow(GatewayCloseCodes.DecodeError, 'Decode error');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return this.closeNow(GatewayCloseCodes.DecodeError, 'Decode error');
    const { op, d } = payload as { op?: unknown; d?: unknown };
    if (typeof op !== 'number' || !Number.isInteger(op)) return this.closeNow(GatewayCloseCodes.DecodeError, 'Decode error');

    if (op === GatewayOpcodes.Heartbeat) return this.onHeartbeat(d);
    if (this.session === null && op !== GatewayOpcodes.Identify && op !== GatewayOpcodes.Resume) {
      if (KNOWN_OPS.has(op)) return this.closeNow(GatewayCloseCodes.NotAuthenticated, 'Not authenticated');
      return this.closeNow(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode');
    }
    switch (op) {
      case GatewayOpcodes.Identify:
        if (this.session !== null) return this.closeNow(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated');
        return this.server.identify(this, d);
      case GatewayOpcodes.Resume:
        if (this.session !== null) return this.closeNow(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated');
        return this.server.resume(this, d);
      case GatewayOpcodes.PresenceUpdate:
      case GatewayOpcodes.VoiceStateUpdate:
        // Presence and voice state: accepted, nothing to answer in the sandbox.
        if (typeof d !== 'object' || d === null) return this.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
        return;
      case GatewayOpcodes.RequestGuildMembers:
        return this.server.requestGuildMembers(this, this.session!, d);
      case GatewayOpcodes.RequestSoundboardSounds:
        return this.server.requestSoundboardSounds(this, this.session!, d);
      case GatewayOpcodes.RequestChannelInfo:
        return this.server.requestChannelInfo(this, this.session!, d);
      default:
        return this.closeNow(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode');
    }
  }

  /**
   * The send limit (protocol §8.1): `count` payloads per connection per `windowMs`, every payload counted
   * (heartbeats, IDENTIFY and RESUME included: "all payloads sent count", discord-api-docs#315), in fixed
   * windows that start when the connection opens and follow each other every `windowMs`. The service does not
   * document the window's shape; fixed windows from the open are what discord.js (@discordjs/ws) assumes (it
   * resets its counter when the socket opens and budgets 115 non-heartbeat payloads per 60 s), so a sliding
   * window would flag clients the service accepts. Returns false for the payload that goes over.
   */
  private countSend(): boolean {
    const { count, windowMs } = this.server.options.sendLimit;
    const now = performance.now();
    const elapsed = now - this.sendWindowStart;
    if (elapsed >= windowMs) {
      this.sendWindowStart = now - (elapsed % windowMs);
      this.sendCount = 0;
    }
    return ++this.sendCount <= count;
  }

  private onHeartbeat(d: unknown): void {
    if (d !== null && d !== undefined && !(typeof d === 'number' && Number.isInteger(d))) {
      return this.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    }
    this.heartbeatTimer.refresh();
    this.server.emitHeartbeat(this);
    if (this.acking) this.enqueue(OP_ACK);
  }

  private onClose(code: number): void {
    this.closing = true;
    this.stopTimers();
    this.encoder?.close();
    this.queue = [];
    this.server.connectionClosed(this, this.closedByServer ?? code, this.closedByServer !== null ? 'server' : 'client');
  }

  // ---- outbound ---------------------------------------------------------------------------------------

  private enqueue(data: string): void {
    if (this.closing) return;
    this.queue.push({ kind: 'text', data });
    this.schedulePump();
  }

  private pumpScheduled = false;

  /**
   * Frames queued in one synchronous stretch (a GUILD_CREATE burst, a loop of state changes) go out together
   * at the end of it: one corked write instead of a syscall per frame. Order is the queue's.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private readonly afterSend = (): void => {
    if (this.blocked && this.ws.bufferedAmount < HIGH_WATER / 2) {
      this.blocked = false;
      this.pump();
    }
  };

  private pump(): void {
    // A synchronous encoder calls back inside the loop; the outer loop carries on.
    if (this.pumping) return;
    this.pumping = true;
    // One syscall for a run of frames instead of one each (ws writes every frame separately).
    const socket = (this.ws as unknown as { _socket?: { cork?: () => void; uncork?: () => void } })._socket;
    const cork = typeof socket?.cork === 'function' && typeof socket.uncork === 'function';
    if (cork) socket.cork!();
    try {
      this.drain();
    } finally {
      if (cork) socket.uncork!();
      this.pumping = false;
    }
  }

  private drain(): void {
    while (this.head < this.queue.length) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      if (this.ws.bufferedAmount > HIGH_WATER) {
        this.blocked = true;
        return;
      }
      const item = this.queue[this.head]!;
      const message = item.kind === 'text' || item.kind === 'dispatch';
      if (!message && this.inflight > 0) return; // keep order behind the deflater
      if (message && this.inflight >= MAX_INFLIGHT) return;
      this.head++;
      if (item.kind === 'text') this.sendMessage([item.data]);
      // Small JSON bodies go as one string (one native deflate call); cached payload buffers are not copied.
      else if (item.kind === 'dispatch') this.sendMessage(typeof item.body === 'string' ? [`${item.head}${item.body}}`] : [item.head, item.body, '}']);
      else if (item.kind === 'corrupt') this.sendCorrupt();
      else {
        this.queue = [];
        this.head = 0;
        this.closeNow(item.code, item.reason);
        return;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private sendMessage(parts: ReadonlyArray<string | Buffer>): void {
    if (this.encoder !== null) {
      this.inflight++;
      this.encoder.encode(parts, (out) => {
        this.inflight--;
        this.sendBinary(out);
        this.pump();
      });
      return;
    }
    const text = parts.every((p) => typeof p === 'string') ? (parts as string[]).join('') : null;
    const length = text !== null ? text.length : parts.reduce((n, p) => n + p.length, 0);
    if (this.payloadCompression && length >= PAYLOAD_COMPRESSION_MIN) {
      this.ws.send(deflateSync(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))), { binary: true }, this.afterSend);
    } else if (text !== null) {
      this.ws.send(text, { binary: false }, this.afterSend);
    } else {
      // JSON encoding sends text frames; a cached payload is UTF-8 already.
      this.ws.send(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))), { binary: false }, this.afterSend);
    }
  }

  private sendBinary(out: Buffer): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const max = this.server.options.maxFrameBytes;
    // zstd-stream carries exactly one gateway message per WebSocket message: never split it.
    if (max === null || out.length <= max || this.compression === 'zstd-stream') {
      this.ws.send(out, { binary: true }, this.afterSend);
      return;
    }
    for (const part of splitFrames(out, max)) this.ws.send(part, { binary: true }, this.afterSend);
  }

  private sendCorrupt(): void {
    if (this.compression === 'zstd-stream') this.ws.send(corruptZstdFrame(), { binary: true }, this.afterSend);
    else if (this.encoder !== null || this.payloadCompression) this.ws.send(corruptZlibFrame(), { binary: true }, this.afterSend);
    else this.ws.send('{"t":"GUILD_CREATE","s":', { binary: false }, this.afterSend);
  }
}

/** Opcodes a client may send (anything else is 4001 even before IDENTIFY). */
const KNOWN_OPS = new Set<number>([
  GatewayOpcodes.Heartbeat,
  GatewayOpcodes.Identify,
  GatewayOpcodes.PresenceUpdate,
  GatewayOpcodes.VoiceStateUpdate,
  GatewayOpcodes.Resume,
  GatewayOpcodes.RequestGuildMembers,
  GatewayOpcodes.RequestSoundboardSounds,
  GatewayOpcodes.RequestChannelInfo,
]);

/**
 * Split one compressed message into frames of at most `max` bytes. Clients find the end of a message by
 * the 00 00 ff ff suffix at the end of a frame, so the last frame carries the whole suffix and no earlier
 * frame may end with it.
 */
export function splitFrames(out: Buffer, max: number): Buffer[] {
  const parts: Buffer[] = [];
  let at = 0;
  while (out.length - at > max) {
    let end = at + max;
    if (out.length - end < 4) end = out.length - 4;
    if (end - at >= 4 && out.readUInt32BE(end - 4) === 0x0000ffff) end -= 1;
    if (end <= at) break;
    parts.push(out.subarray(at, end));
    at = end;
  }
  parts.push(out.subarray(at));
  return parts;
}
