/**
 * Shared pieces of the cluster suites: real Redis connections under a unique prefix, cleaned up after; and the
 * fixture of the suites that run real bot processes (./bot-process.ts) against one sandbox and one Redis.
 */
import { once } from 'node:events';
import { connect as tcpConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/contract.js';
import { REDIS_URL, redisUrlVia, uniquePrefix } from '../helpers/redis.js';
import { dropPrefix } from '../cache/redis-cleanup.js';
import { killAll } from './bot-process.js';

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

/** A sandbox and a Redis scope for one test of bot processes; see useClusterFixture. */
export interface ClusterFixture {
  /** The sandbox start() made (throws before it). */
  readonly sandbox: Sandbox;
  /** The scope start() or openScope() opened (throws before either). */
  readonly scope: RedisScope;
  /** A sandbox with `options` and a Redis scope named `scopeName`, for this test. */
  start(scopeName: string, options: SandboxOptions): Promise<Sandbox>;
  /** Only a Redis scope, for a test of the Redis stores on their own. */
  openScope(scopeName: string): RedisScope;
  /**
   * The environment of a bot process (fixtures/bot.ts) on the sandbox and the scope: token, API URL, Redis URL,
   * cluster and cache prefixes, LOG_LEVEL warn; `extra` on top.
   */
  botEnv(extra?: Record<string, string>): Record<string, string>;
}

/**
 * The cluster fixture of a describe block: after each test, every bot process is SIGKILLed first (whatever
 * happened in the test), then the sandbox is closed and the scope's keys dropped.
 */
export function useClusterFixture(): ClusterFixture {
  let sandbox: Sandbox | null = null;
  let scope: RedisScope | null = null;
  afterEach(async () => {
    await killAll();
    await sandbox?.close();
    sandbox = null;
    await scope?.close();
    scope = null;
  });
  const fixture: ClusterFixture = {
    get sandbox(): Sandbox {
      if (sandbox === null) throw new Error('the cluster fixture has no sandbox: call start() first');
      return sandbox;
    },
    get scope(): RedisScope {
      if (scope === null) throw new Error('the cluster fixture has no Redis scope: call start() or openScope() first');
      return scope;
    },
    async start(scopeName, options) {
      sandbox = await createSandbox(options);
      fixture.openScope(scopeName);
      return sandbox;
    },
    openScope(scopeName) {
      scope = redisScope(scopeName);
      return scope;
    },
    botEnv(extra = {}) {
      const s = fixture.sandbox;
      const prefix = fixture.scope.prefix;
      return {
        DISCORD_TOKEN: s.botToken,
        DISCORD_API_URL: s.restUrl,
        REDIS_URL,
        GATEHOUSE_CLUSTER_PREFIX: prefix,
        FIXTURE_CACHE_PREFIX: `${prefix}:cache`,
        LOG_LEVEL: 'warn',
        ...extra,
      };
    },
  };
  return fixture;
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
