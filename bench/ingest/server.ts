/**
 * The ingest benchmark's service: one HTTP server on 127.0.0.1 with the REST routes the subjects call and
 * the gateway (WebSocket upgrade on any path), speaking just enough of the protocol: HELLO, IDENTIFY ->
 * READY and the GUILD_CREATEs, heartbeat ACKs, and on `streamEvents()` the live events. Every frame was made
 * before the run (frames.ts); the server only copies bytes to the socket, as fast as the client reads them.
 *
 * One subject connects at a time. A second connection, a RESUME or a close before the end means the run
 * went wrong, and is reported as such (`problems`).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { bytesOf, frameAt, isResetPoint, type TransportFrames } from './frames.js';
import { APPLICATION_ID, BENCH_COMMAND, BOT_USER_ID } from './workload.js';

/** Bytes queued on the socket above which the server waits for it to drain. */
const HIGH_WATER = 4 * 1024 * 1024;

export interface RunTrace {
  /** process.hrtime.bigint() when IDENTIFY arrived, when the startup burst was queued, when events started. */
  identifyAt: bigint | null;
  eventsAt: bigint | null;
  eventsSentAt: bigint | null;
  heartbeats: number;
  acks: number;
  callbacks: number;
  restRequests: number;
  /** TCP connections opened to the service (the gateway's one included). */
  connections: number;
  /** Bytes of gateway frames sent (payload bytes, not WebSocket headers). */
  startupBytes: number;
  eventBytes: number;
  problems: string[];
}

function freshTrace(): RunTrace {
  return {
    identifyAt: null,
    eventsAt: null,
    eventsSentAt: null,
    heartbeats: 0,
    acks: 0,
    callbacks: 0,
    restRequests: 0,
    connections: 0,
    startupBytes: 0,
    eventBytes: 0,
    problems: [],
  };
}

export const BENCH_TOKEN = 'MTEwMDAwMDAwMDAwMDAwMDAwMg.bench.ingest-benchmark-token-not-a-secret';

export class IngestServer {
  readonly server: http.Server;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });
  private frames: TransportFrames | null = null;
  private ws: WebSocket | null = null;
  private socket: Socket | null = null;
  private cursor = 0;
  private limit = 0;
  private pendingAcks = 0;
  /** POSTs to an interaction's callback route in this run (the first answer of each). */
  private interactionCallbacks = 0;
  private waitingDrain = false;
  trace: RunTrace = freshTrace();
  private port = 0;
  /** Set once the subject reported the end: it may close the connection from then on. */
  private finishing = false;

  /**
   * At most this many live events sent and not yet answered by an interaction callback (null: no limit, the
   * events go out as fast as the socket takes them). Only meaningful when every live event is an interaction
   * (--interaction-share=100): it keeps the subject at its pace instead of thousands of answers behind, where
   * the answers would time out waiting for a socket.
   */
  constructor(private readonly answerWindow: number | null = null) {
    this.server = http.createServer((req, res) => this.rest(req, res));
    // Node closes idle keep-alive sockets after 5 s; a client whose event loop is that far behind (a slow
    // subject on a busy machine) would then reuse a closed socket and lose a POST ("socket hang up"), which
    // says nothing about the path being measured. The service keeps them longer too.
    this.server.keepAliveTimeout = 120_000;
    this.server.on('connection', () => this.trace.connections++);
    this.server.on('upgrade', (req, socket, head) => {
      if (this.frames === null || this.ws !== null) {
        this.trace.problems.push(this.ws !== null ? 'a second gateway connection (the subject reconnected)' : 'a connection between runs');
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get apiBase(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }
  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}/gateway`;
  }

  /** Arm for one run with these frames. */
  begin(frames: TransportFrames): void {
    this.frames = frames;
    this.ws = null;
    this.cursor = 0;
    this.limit = 0;
    this.pendingAcks = 0;
    this.interactionCallbacks = 0;
    this.finishing = false;
    this.trace = freshTrace();
  }

  /** The subject has seen everything: a close from here on is its shutdown. */
  finish(): void {
    this.finishing = true;
  }

  /** Send the live events (after the subject reported that every guild is cached). */
  streamEvents(): void {
    const frames = this.frames;
    if (frames === null || this.ws === null) {
      this.trace.problems.push('events asked for without a connection');
      return;
    }
    this.trace.eventsAt = process.hrtime.bigint();
    this.limit = frames.startupCount + frames.eventCount + 1;
    this.pump();
  }

  /** Disarm; closes a connection still open. */
  end(): RunTrace {
    const trace = this.trace;
    this.frames = null;
    const ws = this.ws;
    if (ws !== null) {
      ws.removeAllListeners('close');
      ws.terminate();
    }
    this.ws = null;
    this.socket = null;
    return trace;
  }

  async close(): Promise<void> {
    this.end();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.ws = ws;
    this.socket = (ws as unknown as { _socket: Socket })._socket;
    this.socket.setNoDelay(true);
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onClientMessage(data, isBinary));
    ws.on('close', (code: number) => {
      if (this.ws === ws && this.frames !== null && !this.finishing) this.trace.problems.push(`the subject closed the gateway connection (${code}) before the end`);
      if (this.ws === ws) this.ws = null;
    });
    ws.on('error', () => {});
    this.limit = 1; // HELLO
    this.pump();
  }

  private onClientMessage(data: Buffer, isBinary: boolean): void {
    let payload: { op?: unknown };
    try {
      payload = JSON.parse(isBinary ? data.toString() : data.toString()) as { op?: unknown };
    } catch {
      this.trace.problems.push('the subject sent a frame that is not JSON');
      return;
    }
    switch (payload.op) {
      case 1:
        this.trace.heartbeats++;
        this.pendingAcks++;
        this.sendAcksIfAtResetPoint();
        return;
      case 2:
        if (this.trace.identifyAt !== null) {
          this.trace.problems.push('a second IDENTIFY');
          return;
        }
        this.trace.identifyAt = process.hrtime.bigint();
        this.limit = this.frames!.startupCount + 1;
        this.pump();
        return;
      case 6:
        this.trace.problems.push('the subject tried to RESUME');
        return;
      default:
        return;
    }
  }

  private sendAcksIfAtResetPoint(): void {
    const frames = this.frames;
    const ws = this.ws;
    if (frames === null || ws === null || this.pendingAcks === 0) return;
    // Between frames that are not a reset point the compressor's history must not be disturbed.
    if (this.cursor === 0 || !isResetPoint(frames, this.cursor - 1)) return;
    for (; this.pendingAcks > 0; this.pendingAcks--) {
      ws.send(frames.ack, { binary: frames.binary });
      this.trace.acks++;
    }
  }

  private pump = (): void => {
    this.waitingDrain = false;
    const frames = this.frames;
    const ws = this.ws;
    const socket = this.socket;
    if (frames === null || ws === null || socket === null) return;
    const binary = { binary: frames.binary };
    while (this.cursor < this.limit) {
      if (this.answerWindow !== null && this.cursor > frames.startupCount && this.cursor - frames.startupCount - 1 - this.interactionCallbacks >= this.answerWindow) {
        return; // a callback pumps again
      }
      if (socket.writableLength > HIGH_WATER) {
        if (!this.waitingDrain) {
          this.waitingDrain = true;
          socket.once('drain', this.pump);
        }
        return;
      }
      const i = this.cursor++;
      const frame = frameAt(frames, i);
      ws.send(frame, binary);
      if (i <= frames.startupCount) this.trace.startupBytes += frame.length;
      else this.trace.eventBytes += frame.length;
      if (this.pendingAcks > 0 && isResetPoint(frames, i)) this.sendAcksIfAtResetPoint();
    }
    if (this.cursor === frames.startupCount + frames.eventCount + 1 && this.trace.eventsSentAt === null) {
      this.trace.eventsSentAt = process.hrtime.bigint();
    }
    this.sendAcksIfAtResetPoint();
  };

  // ---- REST -----------------------------------------------------------------------------------------------

  private registered: Array<Record<string, unknown>> = [
    {
      id: '1100000000000000201',
      application_id: APPLICATION_ID,
      version: '1100000000000000202',
      default_member_permissions: null,
      type: BENCH_COMMAND.type,
      name: BENCH_COMMAND.name,
      description: BENCH_COMMAND.description,
      dm_permission: true,
      contexts: null,
      integration_types: [0],
      nsfw: false,
    },
  ];

  private rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.trace.restRequests++;
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/api(\/v\d+)?/, '');
      const method = req.method ?? 'GET';
      const json = (status: number, body: unknown): void => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          'x-ratelimit-bucket': 'bench',
          'x-ratelimit-limit': '1000000',
          'x-ratelimit-remaining': '999999',
          'x-ratelimit-reset-after': '60.000',
        });
        res.end(text);
      };
      if (/^\/interactions\/\d+\/[^/]+\/callback$/.test(path) && method === 'POST') {
        this.trace.callbacks++;
        this.interactionCallbacks++;
        if (this.answerWindow !== null && !this.waitingDrain) this.pump();
        if (url.searchParams.get('with_response') === 'true') {
          json(200, { interaction: { id: path.split('/')[2], type: 2 }, resource: { type: 4 } });
        } else {
          res.writeHead(204).end();
        }
        return;
      }
      // A reply that comes after the automatic defer (the client fell behind) edits the deferred message.
      if (/^\/webhooks\/\d+\/[^/]+(\/messages\/@original)?$/.test(path) && (method === 'PATCH' || method === 'POST')) {
        this.trace.callbacks++;
        json(200, { id: '1100000000000000401', channel_id: '1', content: 'pong', type: 20, author: { id: BOT_USER_ID, username: 'ingest-bench' } });
        return;
      }
      if (path === '/gateway/bot' && method === 'GET') {
        json(200, {
          url: this.gatewayUrl,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 },
        });
        return;
      }
      if (path === '/gateway' && method === 'GET') return json(200, { url: this.gatewayUrl });
      if (path === '/applications/@me' && method === 'GET') {
        json(200, { id: APPLICATION_ID, name: 'ingest-bench', icon: null, description: '', flags: 0, bot_public: true, bot_require_code_grant: false, verify_key: '0'.repeat(64), team: null });
        return;
      }
      if (path === '/users/@me' && method === 'GET') {
        json(200, { id: BOT_USER_ID, username: 'ingest-bench', discriminator: '0', global_name: null, avatar: null, bot: true, flags: 0 });
        return;
      }
      // The Runtime syncs entitlements from REST at startup and after a fresh READY; the service has none before
      // the live events create them.
      if (path === `/applications/${APPLICATION_ID}/entitlements` && method === 'GET') return json(200, []);
      const commands = /^\/applications\/\d+\/commands$/.exec(path);
      if (commands !== null) {
        if (method === 'GET') return json(200, this.registered);
        if (method === 'PUT') {
          this.registered = (JSON.parse(Buffer.concat(chunks).toString() || '[]') as Array<Record<string, unknown>>).map((c, i) => ({
            id: String(1100000000000000300n + BigInt(i)),
            application_id: APPLICATION_ID,
            version: '1',
            ...c,
          }));
          return json(200, this.registered);
        }
      }
      if (/^\/applications\/\d+\/(guilds\/\d+\/)?commands(\/\d+)?$/.test(path)) {
        // Not expected (sync finds the command registered); answered so a stray write cannot hang a subject.
        this.trace.problems.push(`unexpected ${method} ${path}`);
        return json(200, this.registered[0]);
      }
      this.trace.problems.push(`unexpected REST call ${method} ${path}`);
      json(404, { message: '404: Not Found', code: 0 });
    });
  }
}

export function traceBytes(frames: TransportFrames): { startup: number; events: number } {
  return { startup: bytesOf(frames, 0, frames.startupCount + 1), events: bytesOf(frames, frames.startupCount + 1, frames.startupCount + frames.eventCount + 1) };
}
