/**
 * The wire floor: the cheapest client that does the job's unavoidable part through the benchmark's service,
 * over a real socket. GET /gateway/bot, one WebSocket (`ws`, as gatehouse and discord.js use it), IDENTIFY and
 * heartbeats, every frame decoded as the decode floor decodes it (decode.ts) and parsed, dispatches counted by
 * name, and every INTERACTION_CREATE answered with one POST to its callback route over a keep-alive node:http
 * Agent. No cache, no validation, no rate limits, no reconnects: what any client must spend on the socket,
 * WebSocket framing and the REST answers on top of decoding, so the decode floor's figure can be read against
 * what a real client could reach at best.
 */
import http from 'node:http';
import WebSocket from 'ws';
import type { ChildConfig, EventCounts, StateMessage } from '../protocol.js';
import { frameDecoder, type Decode } from './decode.js';
import type { IngestSubject } from './types.js';

/** GUILDS | GUILD_MEMBERS: the intents the other subjects ask for. */
const INTENTS = (1 << 0) | (1 << 1);
/** The same answer gatehouse's plugin and discord.js's reply() send: a message saying "pong". */
const ANSWER = Buffer.from('{"type":4,"data":{"content":"pong"}}');

interface Payload {
  op: number;
  t: string | null;
  s: number | null;
  d: unknown;
}

/** A promise with its settle functions, made before anything can settle it. */
interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failure before anyone awaits it (the connection closing during the startup burst) is not unhandled:
  // whoever awaits it later still sees the rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

export class WireSubject implements IngestSubject {
  private readonly decode: Decode;
  /** Same agent options as gatehouse's REST transport, so the two differ in what runs on top, not in sockets. */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 128, scheduling: 'lifo' });
  private readonly host: string;
  private readonly port: number;
  /** The API's path with the version, e.g. /api/v10 (gatehouse and discord.js call v10). */
  private readonly apiPath: string;
  private ws: WebSocket | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private seq: number | null = null;
  private stopping = false;

  private readonly byType = new Map<string, number>();
  private guilds = 0;
  /** Member, entitlement and interaction dispatches: what the targets count. */
  private live = 0;
  private readonly liveTarget: number;
  private answered = 0;
  private answerErrors = 0;
  private answerError: string | null = null;
  private readonly allGuilds = deferred();
  private readonly allEvents = deferred();

  constructor(private readonly cfg: ChildConfig) {
    this.decode = frameDecoder(cfg);
    const api = new URL(cfg.apiBase);
    this.host = api.hostname;
    this.port = Number(api.port);
    this.apiPath = `${api.pathname.replace(/\/+$/, '')}/v10`;
    const t = cfg.targets;
    this.liveTarget = t.memberEvents + t.entitlementEvents + t.interactions;
  }

  async start(): Promise<void> {
    const info = await this.getJson('/gateway/bot');
    const url = typeof info === 'object' && info !== null ? (info as { url?: unknown }).url : undefined;
    if (typeof url !== 'string') throw new Error('GET /gateway/bot: no url in the answer');
    const gateway = new URL(url);
    gateway.searchParams.set('v', '10');
    gateway.searchParams.set('encoding', 'json');
    if (this.cfg.transport !== 'json') gateway.searchParams.set('compress', this.cfg.transport);
    // No per-message deflate (the transport compresses), and no UTF-8 check of text frames: JSON.parse reads
    // the text anyway, and gatehouse's shard skips the check too.
    const ws = new WebSocket(gateway, { perMessageDeflate: false, skipUTF8Validation: true });
    ws.binaryType = 'nodebuffer';
    this.ws = ws;
    // With binaryType 'nodebuffer' a message is one Buffer (ws joins fragments).
    ws.on('message', (data: Buffer) => this.onFrame(data));
    ws.on('error', (error: Error) => this.fail(error));
    ws.on('close', (code: number) => {
      if (!this.stopping) this.fail(new Error(`the gateway connection closed (${code}) before the end`));
    });
    if (this.cfg.guilds === 0) this.allGuilds.resolve();
    await this.allGuilds.promise;
  }

  async eventsDone(): Promise<EventCounts> {
    await this.allEvents.promise;
    const n = (t: string): number => this.byType.get(t) ?? 0;
    return {
      memberAdds: n('GUILD_MEMBER_ADD'),
      memberUpdates: n('GUILD_MEMBER_UPDATE'),
      memberRemoves: n('GUILD_MEMBER_REMOVE'),
      entitlementCreates: n('ENTITLEMENT_CREATE'),
      entitlementUpdates: n('ENTITLEMENT_UPDATE'),
      interactions: n('INTERACTION_CREATE'),
      answered: this.answered,
      ...(this.answerError !== null ? { answerError: this.answerError } : {}),
      byType: Object.fromEntries(this.byType),
    };
  }

  async settle(): Promise<void> {}

  /** Nothing is cached. */
  async members(): Promise<number> {
    return 0;
  }

  /** Nothing is held to check: the parent checks the counts and the answers only, as for the decode floor. */
  async verify(): Promise<Omit<StateMessage, 'type'>> {
    return { membersPerGuild: [], sample: [], removedPresent: 0, entitlements: [], extra: {} };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    const ws = this.ws;
    if (ws !== null && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close(1000);
      });
    }
    this.agent.destroy();
  }

  private onFrame(frame: Buffer): void {
    try {
      const text = this.decode(frame);
      if (text === null) return;
      const p = JSON.parse(text) as Payload;
      if (p.op === 0) this.onDispatch(p);
      else if (p.op === 10) this.onHello(p.d as { heartbeat_interval: number });
      else if (p.op === 7 || p.op === 9) throw new Error(`the gateway sent op ${p.op}; the wire floor does not resume or reconnect`);
      // op 11 (heartbeat ACK): nothing to do, the server does not expect a missed ACK to be acted on.
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private onDispatch(p: Payload): void {
    this.seq = p.s;
    const t = p.t!;
    this.byType.set(t, (this.byType.get(t) ?? 0) + 1);
    switch (t) {
      case 'GUILD_CREATE':
        if (++this.guilds === this.cfg.guilds) this.allGuilds.resolve();
        return;
      case 'INTERACTION_CREATE':
        this.answer(p.d as { id: string; token: string });
        break;
      case 'GUILD_MEMBER_ADD':
      case 'GUILD_MEMBER_UPDATE':
      case 'GUILD_MEMBER_REMOVE':
      case 'ENTITLEMENT_CREATE':
      case 'ENTITLEMENT_UPDATE':
        break;
      default:
        return;
    }
    if (++this.live >= this.liveTarget) this.checkDone();
  }

  private onHello(d: { heartbeat_interval: number }): void {
    const ws = this.ws!;
    // The service answers heartbeats but does not require them; they are sent as a client must, at the interval.
    this.heartbeat = setInterval(() => ws.send(JSON.stringify({ op: 1, d: this.seq })), d.heartbeat_interval);
    ws.send(
      JSON.stringify({
        op: 2,
        d: {
          token: this.cfg.token,
          intents: INTENTS,
          properties: { os: process.platform, browser: 'gatehouse-bench-wire', device: 'gatehouse-bench-wire' },
          shard: [0, 1],
        },
      }),
    );
  }

  /** One POST to the callback route; interaction callbacks carry no Authorization (the token is in the path). */
  private answer(interaction: { id: string; token: string }): void {
    const req = http.request(
      {
        host: this.host,
        port: this.port,
        method: 'POST',
        path: `${this.apiPath}/interactions/${interaction.id}/${interaction.token}/callback`,
        headers: { 'content-type': 'application/json', 'content-length': ANSWER.length },
        agent: this.agent,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) this.answered++;
          else this.answerFailed(`HTTP ${status}`);
          this.checkDone();
        });
      },
    );
    req.on('error', (error: Error) => {
      this.answerFailed(`${error.name}: ${error.message}`);
      this.checkDone();
    });
    req.end(ANSWER);
  }

  private answerFailed(why: string): void {
    this.answerErrors++;
    this.answerError ??= why;
  }

  private checkDone(): void {
    if (this.live >= this.liveTarget && this.answered + this.answerErrors >= this.cfg.targets.interactions) this.allEvents.resolve();
  }

  private fail(error: Error): void {
    this.allGuilds.reject(error);
    this.allEvents.reject(error);
  }

  /** GET a REST route (with the bot token, as /gateway/bot requires) over the same agent and parse the JSON. */
  private getJson(route: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: this.host, port: this.port, method: 'GET', path: `${this.apiPath}${route}`, headers: { authorization: `Bot ${this.cfg.token}` }, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`GET ${route}: HTTP ${res.statusCode ?? 0}`));
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString()) as unknown);
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }
}
