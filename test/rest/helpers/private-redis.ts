/**
 * A redis-server of a test's own, on a free loopback port, started and stopped by the test: for what the
 * shared one cannot give (a stop and a restart, empty, and `INFO commandstats` counting only this test's
 * calls). Never persisted; stop() and restart() act on this process only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** Stop the server (SIGKILL: what a crash or a failover looks like to its clients); its data is gone. */
  stop(): Promise<void>;
  /** Start it again on the same port, empty. */
  start(): Promise<void>;
  /** `calls` of each command since the server started (INFO commandstats). */
  commandCalls(): Promise<Map<string, number>>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One command over a raw socket (no client library: the helper must not share the code under test's). */
function command(port: number, line: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on ${port}: no answer to ${line} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (d: Buffer) => {
      text += d.toString('utf8');
      // A bulk string: $<len>\r\n<body>\r\n; a status: +OK\r\n.
      const bulk = /^\$(\d+)\r\n/.exec(text);
      if ((bulk && text.length >= bulk[0].length + Number(bulk[1]) + 2) || (!bulk && text.endsWith('\r\n') && !text.startsWith('$'))) {
        clearTimeout(timer);
        socket.destroy();
        resolve(bulk ? text.slice(bulk[0].length, bulk[0].length + Number(bulk[1])) : text.trim());
      }
    });
  });
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
      stdio: 'ignore',
    });
    running.add(c);
    c.once('exit', () => running.delete(c));
    child = c;
    for (let i = 0; i < 200; i++) {
      if (c.exitCode !== null) throw new Error(`redis-server on port ${port} exited (${c.exitCode})`);
      if (await command(port, 'PING', 500).then((r) => r === '+PONG', () => false)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`redis-server on port ${port} did not answer`);
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = null;
    if (c === null || c.exitCode !== null || c.signalCode !== null) return;
    const exited = once(c, 'exit');
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async commandCalls() {
      const info = await command(port, 'INFO commandstats');
      const calls = new Map<string, number>();
      for (const m of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
      return calls;
    },
  };
}
