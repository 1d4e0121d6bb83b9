/** Shared pieces of the cluster suites: real Redis connections under a unique prefix, cleaned up after. */
import { once } from 'node:events';
import { connect as tcpConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { REDIS_URL, redisUrlVia, uniquePrefix } from '../helpers/redis.js';
import { dropPrefix } from '../cache/redis-cleanup.js';

export interface RedisScope {
  prefix: string;
  /** A new connection (one per simulated process); closed by `close()`. */
  connect(): Redis;
  /** The first connection, for assertions. */
  readonly admin: Redis;
  close(): Promise<void>;
}

export function redisScope(name: string): RedisScope {
  const prefix = uniquePrefix(name);
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    r.on('error', () => undefined);
    connections.push(r);
    return r;
  };
  const admin = connect();
  return {
    prefix,
    connect,
    admin,
    async close() {
      await dropPrefix(admin, prefix).catch(() => undefined);
      for (const r of connections) r.disconnect();
    },
  };
}

/** Poll `check` every 20 ms until it holds; throw after `timeoutMs` naming `what`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 100_000 && Date.now() < deadline; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (!(await check())) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * A TCP proxy to Redis on loopback whose client-to-Redis direction can be held: while held, commands reach
 * nothing and get no answer (a stalled link, not a refused one), and are forwarded once released.
 */
export interface RedisGate {
  readonly url: string;
  readonly port: number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function redisGate(target: string, options: { held?: boolean } = {}): Promise<RedisGate> {
  const upstreamUrl = new URL(target);
  let held = options.held ?? false;
  const sockets = new Set<Socket>();
  const links: Array<{ upstream: Socket; backlog: Buffer[] }> = [];
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(upstreamUrl.port || 6379), upstreamUrl.hostname);
    const link = { upstream, backlog: [] as Buffer[] };
    links.push(link);
    sockets.add(client).add(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (d: Buffer) => client.write(d));
    client.on('data', (d: Buffer) => (held ? link.backlog.push(d) : upstream.write(d)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    // The target's database and credentials, through the gate.
    url: redisUrlVia(port, target),
    port,
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const link of links) for (const d of link.backlog.splice(0)) link.upstream.write(d);
    },
    close() {
      for (const sock of sockets) sock.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
