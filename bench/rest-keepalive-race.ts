/**
 * Does a REST transport lose interaction answers to kept-alive sockets the server closes (issue 33)? Bursts of
 * interaction callbacks (POST, each interaction once) with idle gaps of 4-6 s between them, against servers
 * whose keep-alive timeout is 5 s, counting for each transport the callbacks that failed (lost: the bot's
 * answer never arrived or the bot was told it failed) and those the server received twice.
 *
 * Servers (one per scenario, 127.0.0.1):
 *   fin     Node's http.Server, keepAliveTimeout 5 s: closes an idle socket (FIN) after 5 s and says so in a
 *           `Keep-Alive: timeout=5` header, which both clients use to shorten their idle time.
 *   silent  a peer that forgets an idle connection after 5 s without a word (no FIN, no Keep-Alive hint), as a
 *           NAT or a load balancer that dropped it does: a request on it is answered with a reset (RST) and never
 *           read. Only a client's own idle timeout (or a retry) saves the request.
 * A repeated callback is refused 400 with code 40060, as the service refuses it.
 *
 * Transports (settings as src/rest/transport.ts: 128 sockets, idle sockets closed after 4 s):
 *   node:http raw        HttpTransport.send, no retry
 *   undici raw           undici Pool.request (keepAliveTimeout 4 s, hint less 1 s), no retry
 *   RestClient node:http the REST client as gatehouse runs it (stale-socket retry of callbacks)
 *   RestClient undici    the same client on bench/lib/undici-transport.ts
 *   ... idle 60 s        an idle time above the server's: the raw transports are the control, which must lose
 *                        answers on the silent server (else this script could not see a loss at all); the
 *                        RestClients show what their stale-socket retry alone saves
 *
 * Every scenario runs at once (one process, own server each), on the same seeded gaps.
 *
 *   npx tsx --conditions=gatehouse-source bench/rest-keepalive-race.ts [--bursts=12] [--burst=20] [--seed=33] [--gaps=4000-6000]
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { createInteractionResponse, RestClient } from '../src/rest/index.js';
import { HttpTransport } from '../src/rest/transport.js';
import { Prng } from './lib/prng.js';
import { UndiciTransport, type RestTransport } from './lib/undici-transport.js';

function arg(name: string, fallback: number): number {
  const v = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  return v === undefined ? fallback : Number(v);
}
const BURSTS = Math.max(1, Math.min(200, arg('bursts', 12)));
const BURST = Math.max(1, Math.min(128, arg('burst', 20)));
const SEED = arg('seed', 33);
/** --gaps=MIN-MAX in ms (default 4000-6000, issue 33's acceptance). */
const [GAP_MIN, GAP_MAX] = (process.argv.find((a) => a.startsWith('--gaps='))?.slice(7) ?? '4000-6000').split('-').map(Number) as [number, number];
if (!(GAP_MIN >= 0 && GAP_MAX >= GAP_MIN && GAP_MAX <= 60_000)) throw new Error('--gaps=MIN-MAX (ms, at most 60000)');
const SERVER_IDLE_MS = 5_000;
const CLIENT_IDLE_MS = 4_000;
const CONTROL_IDLE_MS = 60_000;
const ANSWER = { type: 4, data: { content: 'pong' } };

type ServerKind = 'fin' | 'silent';

/** A callback service whose idle connections end after 5 s, the way `kind` says. */
class CallbackServer {
  readonly server: http.Server;
  /** Interaction id -> times received. */
  readonly received = new Map<string, number>();
  resets = 0;
  connections = 0;
  private readonly lastActive = new WeakMap<Socket, number>();

  constructor(readonly kind: ServerKind) {
    this.server = http.createServer((req, res) => this.handle(req, res));
    // fin: Node's own idle close and hint. silent: no idle close of Node's (0), no hint; the handler resets instead.
    this.server.keepAliveTimeout = kind === 'fin' ? SERVER_IDLE_MS : 0;
    this.server.on('connection', (socket: Socket) => {
      this.connections++;
      this.lastActive.set(socket, performance.now());
    });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const socket = req.socket;
    const idle = performance.now() - (this.lastActive.get(socket) ?? performance.now());
    if (this.kind === 'silent' && idle >= SERVER_IDLE_MS) {
      // Forgotten: the request is never read and the client gets a reset.
      this.resets++;
      socket.resetAndDestroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      const id = /^\/interactions\/(\d+)\/[^/]+\/callback/.exec(req.url ?? '')?.[1] ?? '';
      const seen = this.received.get(id) ?? 0;
      this.received.set(id, seen + 1);
      if (seen > 0) {
        const body = JSON.stringify({ message: 'Interaction has already been acknowledged.', code: 40060 });
        res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      } else {
        res.writeHead(204).end();
      }
      res.on('finish', () => this.lastActive.set(socket, performance.now()));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** Sends one callback; resolves with null when it was answered as a success, else with why not. */
type Send = (id: string) => Promise<string | null>;

interface Client {
  send: Send;
  close(): Promise<void>;
  retries?: () => number;
}

const body = Buffer.from(JSON.stringify(ANSWER));
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
const path = (id: string): string => `/interactions/${id}/aW50ZXJhY3Rpb24${id}/callback`;
const why = (err: unknown): string => {
  const e = err as { code?: unknown; errorCode?: unknown; name?: unknown };
  return String(e.errorCode ?? e.code ?? e.name ?? err);
};

function rawHttp(base: string, idleMs: number): Client {
  const t = new HttpTransport(base, { keepAliveIdleMs: idleMs });
  return {
    send: async (id) => {
      try {
        const res = await t.send({ method: 'POST', path: path(id), headers, body, timeoutMs: 10_000 });
        return res.status === 204 ? null : `status ${res.status}`;
      } catch (err) {
        return why(err);
      }
    },
    close: async () => t.close(),
  };
}

function rawUndici(base: string, idleMs: number): Client {
  const pool = new Pool(base, { connections: 128, keepAliveTimeout: idleMs, keepAliveMaxTimeout: idleMs, keepAliveTimeoutThreshold: 1000 });
  return {
    send: async (id) => {
      try {
        const res = await pool.request({ method: 'POST', path: path(id), headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
        await res.body.dump();
        return res.statusCode === 204 ? null : `status ${res.statusCode}`;
      } catch (err) {
        return why(err);
      }
    },
    close: () => pool.close(),
  };
}

function restClient(base: string, transport: 'node:http' | 'undici', idleMs: number): Client {
  const rest = new RestClient({ baseUrl: base, token: 'bench-token', keepAliveIdleMs: idleMs, retryBaseDelayMs: 10 });
  if (transport === 'undici') {
    // As bench/ingest/subjects/gatehouse.ts does: RestClient builds its transport itself.
    const fields = rest as unknown as { transport: RestTransport };
    fields.transport.close();
    fields.transport = new UndiciTransport(base, { keepAliveIdleMs: idleMs });
  }
  return {
    send: async (id) => {
      try {
        await createInteractionResponse(rest, id, `aW50ZXJhY3Rpb24${id}`, ANSWER);
        return null;
      } catch (err) {
        return why(err);
      }
    },
    close: async () => rest.close(),
    retries: () => rest.stats().retries,
  };
}

interface Scenario {
  name: string;
  server: ServerKind;
  make: (base: string) => Client;
}

const SCENARIOS: Scenario[] = [];
for (const server of ['fin', 'silent'] as const) {
  SCENARIOS.push(
    { name: 'node:http raw', server, make: (b) => rawHttp(b, CLIENT_IDLE_MS) },
    { name: 'undici raw', server, make: (b) => rawUndici(b, CLIENT_IDLE_MS) },
    { name: 'RestClient node:http', server, make: (b) => restClient(b, 'node:http', CLIENT_IDLE_MS) },
    { name: 'RestClient undici', server, make: (b) => restClient(b, 'undici', CLIENT_IDLE_MS) },
    { name: `node:http raw, idle ${CONTROL_IDLE_MS / 1000} s (control)`, server, make: (b) => rawHttp(b, CONTROL_IDLE_MS) },
    { name: `undici raw, idle ${CONTROL_IDLE_MS / 1000} s (control)`, server, make: (b) => rawUndici(b, CONTROL_IDLE_MS) },
    { name: `RestClient node:http, idle ${CONTROL_IDLE_MS / 1000} s (retry only)`, server, make: (b) => restClient(b, 'node:http', CONTROL_IDLE_MS) },
    { name: `RestClient undici, idle ${CONTROL_IDLE_MS / 1000} s (retry only)`, server, make: (b) => restClient(b, 'undici', CONTROL_IDLE_MS) },
  );
}

interface Outcome {
  sent: number;
  lost: number;
  errors: Map<string, number>;
}

async function burst(client: Client, ids: string[], out: Outcome): Promise<void> {
  const results = await Promise.all(ids.map((id) => client.send(id)));
  for (const r of results) {
    out.sent++;
    if (r !== null) {
      out.lost++;
      out.errors.set(r, (out.errors.get(r) ?? 0) + 1);
    }
  }
}

async function main(): Promise<void> {
  const rng = new Prng(SEED);
  const gaps = Array.from({ length: BURSTS - 1 }, () => GAP_MIN + rng.int(GAP_MAX - GAP_MIN + 1));
  console.log(
    `rest-keepalive-race: ${BURSTS} bursts of ${BURST} interaction callbacks, gaps ${gaps.map((g) => (g / 1000).toFixed(3)).join(', ')} s; ` +
      `server idle close ${SERVER_IDLE_MS / 1000} s; ${SCENARIOS.length} scenarios at once\n`,
  );
  const runs = await Promise.all(
    SCENARIOS.map(async (s) => {
      const server = new CallbackServer(s.server);
      const client = s.make(await server.listen());
      return { s, server, client, out: { sent: 0, lost: 0, errors: new Map<string, number>() } satisfies Outcome };
    }),
  );
  let next = 1;
  for (let b = 0; b < BURSTS; b++) {
    const ids = Array.from({ length: BURST }, () => String(800_000_000_000_000_000n + BigInt(next++)));
    await Promise.all(runs.map((r) => burst(r.client, ids, r.out)));
    if (b < gaps.length) await sleep(gaps[b]!);
  }
  console.log('| server | transport | sent | lost | errors | received twice | server resets | connections | client retries |');
  console.log('|---|---|---:|---:|---|---:|---:|---:|---:|');
  for (const { s, server, client, out } of runs) {
    const twice = [...server.received.values()].filter((n) => n > 1).length;
    const errors = [...out.errors].map(([k, n]) => `${k} x${n}`).join(', ') || '—';
    console.log(`| ${s.server} | ${s.name} | ${out.sent} | ${out.lost} | ${errors} | ${twice} | ${server.resets} | ${server.connections} | ${client.retries?.() ?? '—'} |`);
    await client.close();
    await server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
