/**
 * The bot of the soak (bench/soak/memory.bench.ts): the Runtime alone in this process, against the sandbox the
 * parent runs, so that the heap measured here is the runtime's. Told over IPC: `sample` (heap + array buffers
 * after two full GCs), `view` (what its cache holds, for the parent to compare with the sandbox), `stop`.
 */
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';

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
    intents: ['GUILDS', 'GUILD_MEMBERS'],
    plugins: { dirs: ['plugins'] },
    http: { enabled: false },
    log: { level: 'warn' },
  },
});
const runtime = new Runtime({
  config,
  cwd: process.cwd(),
  log: createLogger({ level: 'warn', pretty: false }),
  gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60 } },
});
await runtime.start();

async function view(): Promise<{ members: Record<string, string[]>; entitlements: number }> {
  const members: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const guildId of start.guildIds) {
    const ids: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 1_000; page++) {
      const got = await runtime.cache.getMembers(guildId, { limit: 1_000, ...(after !== undefined ? { after } : {}) });
      for (const m of got.members) ids.push(m.userId);
      if (got.next === null) break;
      after = got.next;
    }
    members[guildId] = ids;
  }
  return { members, entitlements: (await runtime.cache.sizes()).entitlements };
}

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
      process.send!({ id: msg.id, view: await view() });
    } else if (msg.cmd === 'stop') {
      await runtime.stop({ graceMs: 500 });
      process.send!({ id: msg.id, stopped: true });
      process.disconnect();
    }
  })().catch((err: unknown) => process.send!({ id: msg.id, error: String(err) }));
});
process.send!({ ready: true });
