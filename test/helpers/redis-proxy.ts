/**
 * A TCP proxy in front of a Redis that a test can cut (close the listener and every connection, so clients
 * see the server go away and reconnect attempts are refused) and restore on the same port.
 */
import { once } from 'node:events';
import { createServer, connect as tcpConnect, type AddressInfo, type Server, type Socket } from 'node:net';
import { redisUrlVia } from './redis-url.js';

export interface RedisProxy {
  readonly url: string;
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function redisProxy(target: string): Promise<RedisProxy> {
  const upstreamUrl = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = async (): Promise<void> => {
    const s = createServer((client) => {
      const upstream = tcpConnect(Number(upstreamUrl.port || 6379), upstreamUrl.hostname);
      sockets.add(client).add(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => {
        upstream.destroy();
        sockets.delete(client);
      });
      upstream.on('close', () => {
        client.destroy();
        sockets.delete(upstream);
      });
      client.pipe(upstream);
      upstream.pipe(client);
    });
    s.listen(port, '127.0.0.1');
    await once(s, 'listening');
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get url() {
      // The target's database and credentials, through the proxy.
      return redisUrlVia(port, target);
    },
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    close: stop,
  };
}
