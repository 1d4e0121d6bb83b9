/**
 * The bot of the soak (bench/soak/memory.bench.ts): the Runtime alone in this process, against the sandbox the
 * parent runs, so that the heap measured here is the runtime's. Told over IPC: `sample` (heap + array buffers
 * after two full GCs), `view` (what its cache holds, for the parent to compare with the sandbox), `stop`.
 */
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { cacheView } from './churn.js';

interface Start {
  restUrl: string;
  token: string;
  applicationId: string;
  backend: 'memory' | 'redis';
  redisUrl?: string;
  redisPrefix: string;
  guildIds: string[];
}

const start = JSON.parse(process.env.SOAK_START!) as Start;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const config = loadConfig({
  cwd: process.cwd(),
  env: {},
  overrides: {
    token: start.token,
    apiUrl: start.restUrl,
    applicationId: start.applicationId,
    ...(start.backend === 'redis' ? { redisUrl: start.redisUrl, cluster: { enabled: false } } : {}),
    cache: { backend: start.backend, redisPrefix: start.redisPrefix },
    intents: ['GUILDS', 'GUILD_MEMBERS', 'GUILD_PRESENCES'],
    plugins: { dirs: ['plugins'] },
    http: { enabled: false },
    log: { level: 'warn' },
  },
});
const runtime = new Runtime({
  config,
  cwd: process.cwd(),
  log: createLogger({ level: 'warn', pretty: false }),
  // The churn ends a session on purpose every third cycle: without a cap the shard would double its wait before each
  // new IDENTIFY (sessions ended again and again within a minute), which protects a real bot's session starts.
  gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60, invalidSessionMaxDelayMs: 60 } },
});
await runtime.start();

process.on('message', (raw: unknown) => {
  const msg = raw as { cmd: string; id: number };
  void (async () => {
    if (msg.cmd === 'sample') {
      for (let i = 0; i < 3; i++) gc();
      await new Promise((r) => setTimeout(r, 50));
      gc();
      const m = process.memoryUsage();
      process.send!({ id: msg.id, heap: m.heapUsed, arrayBuffers: m.arrayBuffers, rss: m.rss });
    } else if (msg.cmd === 'view') {
      process.send!({ id: msg.id, view: await cacheView(runtime.cache, start.guildIds) });
    } else if (msg.cmd === 'stop') {
      await runtime.stop({ graceMs: 500 });
      process.send!({ id: msg.id, stopped: true });
      process.disconnect();
    }
  })().catch((err: unknown) => process.send!({ id: msg.id, error: String(err) }));
});
process.send!({ ready: true });
