/**
 * A raw gateway client for sandbox tests: `ws` plus node:zlib inflate (zlib-stream), with a message inbox
 * that tests await on. Deliberately not our own gateway client: the sandbox is tested against the protocol.
 */
import { constants, createInflate, type Inflate } from 'node:zlib';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export interface GatewayPayload {
  op: number;
  d: unknown;
  s: number | null;
  t: string | null;
}

export interface RawClientOptions {
  compress?: boolean;
  /** Extra/override query parameters (v, encoding...). */
  query?: Record<string, string>;
}

const SUFFIX = Buffer.from([0x00, 0x00, 0xff, 0xff]);

export class RawGatewayClient {
  readonly ws: WebSocket;
  readonly received: GatewayPayload[] = [];
  /** Binary frames received (to check splitting). */
  frames = 0;
  inflateError: Error | null = null;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  private waiters: Array<{ pred: (p: GatewayPayload) => boolean; resolve: (p: GatewayPayload) => void; from: number }> = [];
  private inflate: Inflate | null = null;
  private pending: Buffer[] = [];
  private inflated: Buffer[] = [];
  private chain: Promise<void> = Promise.resolve();
  private cursor = 0;

  constructor(url: string, options: RawClientOptions = {}) {
    const params = new URLSearchParams({ v: '10', encoding: 'json', ...(options.compress ? { compress: 'zlib-stream' } : {}), ...options.query });
    this.ws = new WebSocket(`${url}?${params.toString()}`);
    if (options.compress) {
      this.inflate = createInflate({ flush: constants.Z_SYNC_FLUSH, chunkSize: 65_536 });
      this.inflate.on('data', (c: Buffer) => this.inflated.push(c));
      this.inflate.on('error', (err) => {
        this.inflateError = err;
      });
    }
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => {
      this.ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    this.ws.on('error', () => {});
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) {
        this.push(data.toString('utf8'));
        return;
      }
      this.frames++;
      this.pending.push(data);
      if (data.length >= 4 && data.subarray(-4).equals(SUFFIX)) {
        const message = Buffer.concat(this.pending);
        this.pending = [];
        this.chain = this.chain.then(
          () =>
            new Promise<void>((resolve) => {
              if (!this.inflate || this.inflateError) return resolve();
              this.inflate.write(message, () => {
                const text = Buffer.concat(this.inflated).toString('utf8');
                this.inflated = [];
                if (!this.inflateError) this.push(text);
                resolve();
              });
            }),
        );
      }
    });
  }

  private push(text: string): void {
    let payload: GatewayPayload;
    try {
      payload = JSON.parse(text) as GatewayPayload;
    } catch {
      payload = { op: -1, d: text, s: null, t: 'UNPARSEABLE' };
    }
    this.received.push(payload);
    const index = this.received.length - 1;
    this.waiters = this.waiters.filter((w) => {
      if (index >= w.from && w.pred(payload)) {
        w.resolve(payload);
        return false;
      }
      return true;
    });
  }

  send(payload: unknown): void {
    this.ws.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
  }

  /** The next payload (after those already consumed by `next`) matching `pred`. */
  next(pred: (p: GatewayPayload) => boolean = () => true, timeoutMs = 5_000): Promise<GatewayPayload> {
    for (let i = this.cursor; i < this.received.length; i++) {
      if (pred(this.received[i]!)) {
        this.cursor = i + 1;
        return Promise.resolve(this.received[i]!);
      }
    }
    const from = this.received.length;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a gateway payload; got ${this.received.length} so far: ${this.received.slice(-5).map((p) => `op ${p.op} ${p.t ?? ''}`).join(', ')}`));
      }, timeoutMs);
      const done = (p: GatewayPayload): void => {
        clearTimeout(timer);
        this.cursor = this.received.indexOf(p) + 1;
        resolve(p);
      };
      this.waiters.push({ pred, resolve: done, from });
    });
  }

  nextDispatch(t: string, timeoutMs?: number): Promise<GatewayPayload> {
    return this.next((p) => p.op === 0 && p.t === t, timeoutMs);
  }

  dispatches(t?: string): GatewayPayload[] {
    return this.received.filter((p) => p.op === 0 && (t === undefined || p.t === t));
  }

  identify(token: string, extra: Record<string, unknown> = {}): void {
    this.send({ op: 2, d: { token, intents: 1 | 2, properties: { os: 'linux', browser: 'test', device: 'test' }, ...extra } });
  }

  close(code = 1000): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code);
  }

  terminate(): void {
    this.ws.terminate();
    this.inflate?.destroy();
  }
}

/** Connect, wait for HELLO, identify, wait for READY. */
export async function identified(url: string, token: string, extra: Record<string, unknown> = {}, options: RawClientOptions = {}): Promise<{ client: RawGatewayClient; ready: GatewayPayload }> {
  const client = new RawGatewayClient(url, options);
  await client.next((p) => p.op === 10);
  client.identify(token, extra);
  const ready = await client.nextDispatch('READY');
  return { client, ready };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** JSON fetch against the sandbox REST base. */
export async function api(
  base: string,
  method: string,
  path: string,
  options: { token?: string; bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bot ${options.token}`;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** The sandboxes and raw gateway clients of a test file, each closed after the test it was made in. */
export interface SandboxSuite {
  /** A sandbox with `options`. */
  start(options?: SandboxOptions): Promise<Sandbox>;
  /** A raw client on the sandbox's gateway, identified as the bot with `intents`. */
  connect(sb: Sandbox, intents: number): Promise<RawGatewayClient>;
  /** A client made otherwise, to be terminated with the others. */
  keep(client: RawGatewayClient): RawGatewayClient;
}

/** Registers the afterEach of a REST suite: its clients are terminated, then its sandboxes closed. */
export function useSandboxSuite(): SandboxSuite {
  const sandboxes: Sandbox[] = [];
  const clients: RawGatewayClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.terminate();
    for (const sb of sandboxes.splice(0)) await sb.close();
  });
  const keep = (client: RawGatewayClient): RawGatewayClient => {
    clients.push(client);
    return client;
  };
  return {
    async start(options = {}) {
      const sb = await createSandbox(options);
      sandboxes.push(sb);
      return sb;
    },
    async connect(sb, intents) {
      return keep((await identified(sb.gatewayUrl, sb.botToken, { intents })).client);
    },
    keep,
  };
}

/** A REST request to the sandbox as its bot. */
export function botCall(sb: Sandbox, method: string, path: string, body?: unknown, headers?: Record<string, string>): ReturnType<typeof api> {
  return api(sb.restUrl, method, path, { token: sb.botToken, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
}
