/**
 * One subject of the HTTP endpoint benchmark, in its own process so that its CPU time is its own:
 *
 *   gatehouse  the Runtime with transport "http" (the sandbox in the same process serves the startup REST calls
 *              only): read bounded, verify, parse, route to the plugin, answer inline;
 *   floor      a bare node:http server that reads the body, verifies the same signature and answers a fixed body.
 *
 * Protocol over IPC: the child sends { ready, url }; then for each round the parent sends 'start' and 'stop',
 * and the child answers 'stop' with its CPU time (user + system, microseconds) since 'start'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { checkSignature, ed25519PublicKey } from '../../src/transports/http/index.js';

const [subject, publicKeyHex] = process.argv.slice(2) as [string, string];
const send = (m: unknown): void => void process.send!(m);

async function startGatehouse(): Promise<{ url: string; stop(): Promise<void> }> {
  const { createSandbox } = await import('../../src/sandbox/index.js');
  const { loadConfig } = await import('../../src/runtime/config.js');
  const { Runtime } = await import('../../src/runtime/runtime.js');
  const { silentLogger } = await import('../../src/runtime/logger.js');
  const sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 5 }, logger: silentLogger() });
  const config = loadConfig({
    cwd: resolve(import.meta.dirname, '../..'),
    env: {},
    overrides: {
      transport: 'http',
      http: { enabled: false },
      plugins: { dirs: ['bench/http-endpoint/plugins'] },
      // The parent signs with its own key; a generous window, since requests are signed before each round.
      endpoint: { port: 0, publicKey: publicKeyHex, timestampWindowSeconds: 600 },
      log: { level: 'silent' },
    },
  });
  const runtime = new Runtime({ config, sandbox, log: silentLogger() });
  await runtime.start();
  return {
    url: `${runtime.endpoint!.url!}/interactions`,
    stop: async () => {
      await runtime.stop({ graceMs: 1_000 });
      await sandbox.close();
    },
  };
}

async function startFloor(): Promise<{ url: string; stop(): Promise<void> }> {
  const key = ed25519PublicKey(publicKeyHex);
  const answer = '{"type":4,"data":{"content":"pong"}}';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const ok = checkSignature(key, req.headers['x-signature-ed25519'] as string, req.headers['x-signature-timestamp'] as string, body) === 'valid';
      if (!ok) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/interactions`, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

const started = subject === 'gatehouse' ? await startGatehouse() : await startFloor();
let cpuAtStart = process.cpuUsage();
process.on('message', (m: unknown) => {
  if (m === 'start') {
    cpuAtStart = process.cpuUsage();
    send({ started: true });
  } else if (m === 'stop') {
    const used = process.cpuUsage(cpuAtStart);
    send({ cpuMicros: used.user + used.system });
  } else if (m === 'exit') {
    void started.stop().then(() => process.exit(0));
  }
});
send({ ready: true, url: started.url });
