/**
 * Issue 33: an interaction answer was lost when it was written to a kept-alive socket the server was closing
 * (ECONNRESET on the reused socket; the client treated it as possibly delivered and did not retry). A raw TCP
 * server on 127.0.0.1 plays the server: it answers the first request of each connection and resets the
 * connection on the second, having read it or not, so the race is the same every run.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createFollowup, createInteractionResponse, NetworkError, RestClient } from '../../src/rest/index.js';

interface ResettingServer {
  baseUrl: string;
  /** Requests the server processed (read in full), by request line. */
  processed: string[];
  connections: number;
  close(): Promise<void>;
}

/**
 * Answers the first request of a connection (204, or 400 code 40060 for a callback it processed before) and resets
 * the connection on the second. `processSecond`: the second request counts as processed before the reset (the
 * server read it, then the socket died), else it is dropped unread.
 */
async function resettingServer(processSecond: boolean): Promise<ResettingServer> {
  const processed: string[] = [];
  const state = { connections: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    let requests = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        const line = head.split('\r\n')[0]!;
        requests++;
        if (requests >= 2) {
          if (processSecond) processed.push(line);
          socket.resetAndDestroy();
          return;
        }
        const repeat = processed.includes(line) && line.includes('/callback');
        processed.push(line);
        const body = repeat ? '{"message":"Interaction has already been acknowledged.","code":40060}' : '';
        socket.write(
          repeat
            ? `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nkeep-alive: timeout=60\r\n\r\n${body}`
            : 'HTTP/1.1 204 No Content\r\nkeep-alive: timeout=60\r\n\r\n',
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`,
    processed,
    get connections() {
      return state.connections;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(processSecond: boolean): Promise<{ server: ResettingServer; rest: RestClient }> {
  const server = await resettingServer(processSecond);
  open.push(server);
  // retries: 0, so that only the stale-socket retry can send anything twice.
  const rest = new RestClient({ baseUrl: server.baseUrl, token: 'stale-socket-test-token', retries: 0 });
  open.push(rest);
  return { server, rest };
}

const callback = (rest: RestClient, id: string) => createInteractionResponse(rest, id, `token-${id}`, { type: 4, data: { content: 'pong' } });

describe('a kept-alive socket the server resets under the request', () => {
  it('an interaction callback the server never read is sent again on a new connection and answered', async () => {
    const { server, rest } = await setup(false);
    await callback(rest, '800000000000000001');
    await expect(callback(rest, '800000000000000002')).resolves.toBeUndefined();
    expect(server.processed.filter((l) => l.includes('800000000000000002'))).toHaveLength(1);
    expect(server.connections).toBe(2);
  });

  it('a callback the server did read before the reset: the repeat is refused 40060, which counts as the success', async () => {
    const { server, rest } = await setup(true);
    await callback(rest, '800000000000000001');
    await expect(callback(rest, '800000000000000002')).resolves.toBeUndefined();
    expect(server.processed.filter((l) => l.includes('800000000000000002'))).toHaveLength(2);
  });

  it('an idempotent GET is sent again; a follow-up (a second message if repeated) is not', async () => {
    const { server, rest } = await setup(false);
    await rest.request({ method: 'GET', route: '/users/@me' });
    await expect(rest.request({ method: 'GET', route: '/users/@me' })).resolves.toBeUndefined();
    const second = await setup(false);
    await createFollowup(second.rest, '100000000000000001', 'tok', { content: 'one' });
    await expect(createFollowup(second.rest, '100000000000000001', 'tok', { content: 'two' })).rejects.toBeInstanceOf(NetworkError);
    expect(server.connections).toBe(2);
  });

  it('a 40060 to a callback sent once is still an error', async () => {
    const { rest } = await setup(false);
    // Without a reset in between, the server refuses the same callback on a new client's first connection.
    await callback(rest, '800000000000000003');
    const other = new RestClient({ baseUrl: rest.baseUrl, token: 'stale-socket-test-token', retries: 0 });
    open.push(other);
    await expect(callback(other, '800000000000000003')).rejects.toMatchObject({ code: 40060 });
  });
});

describe('idle kept-alive sockets', () => {
  it('are closed after keepAliveIdleMs, before the server would', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    const closed: number[] = [];
    const server = createHttpServer((_req, res) => res.writeHead(204).end());
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s) => s.on('close', () => closed.push(Date.now())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const rest = new RestClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`, token: 'idle-test-token', keepAliveIdleMs: 200 });
    open.push(rest);
    const sent = Date.now();
    await rest.request({ method: 'GET', route: '/users/@me' });
    // 10x the idle time; bounded by count and time.
    for (let i = 0; i < 40 && closed.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(closed).toHaveLength(1);
    expect(closed[0]! - sent).toBeGreaterThanOrEqual(150);
  });
});
