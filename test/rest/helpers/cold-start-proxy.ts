/**
 * A TCP proxy on 127.0.0.1 that holds the first bytes of every new connection for `delayMs` before passing
 * them on: the cold start of a client (a new socket's handshake, TLS, a busy event loop) between the moment
 * a request is admitted and the moment it reaches the server. Later requests on a kept-alive connection pass
 * at once, as they do on the service's keep-alive sockets.
 */
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface ColdStartProxy {
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function coldStartProxy(targetBaseUrl: string, delayMs: number): Promise<ColdStartProxy> {
  const target = new URL(targetBaseUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let held: Buffer[] | null = [];
    const timer = setTimeout(() => {
      for (const chunk of held ?? []) upstream.write(chunk);
      held = null;
    }, delayMs);
    client.on('data', (chunk: Buffer) => (held !== null ? held.push(chunk) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = (): void => {
      clearTimeout(timer);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
