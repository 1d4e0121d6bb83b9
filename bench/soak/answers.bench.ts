/**
 * Issue 33 acceptance, at size: interaction answers against a server that closes idle connections after 5 s (the
 * sandbox's Node http.Server, keepAliveTimeout 5000, on 127.0.0.1). Bursts of interactions over the gateway, each
 * after an idle gap drawn from 4 to 6 s and a fresh IDENTIFY; every interaction must get its callback. Before the
 * transport closed idle sockets first and retried a callback a stale socket reset, answers were lost here.
 *
 *   npm run bench -- soak/answers                  100,000 answers (40 bursts of 2,500; about 5 minutes)
 *   npm run bench -- soak/answers --answers=20000  fewer
 *   npm run bench -- soak --quick                  2,000 answers
 */
import { createSandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import type { InteractionRecord } from '../../src/sandbox/index.js';

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
};
const quick = process.argv.includes('--quick');
const ANSWERS = arg('answers', quick ? 2_000 : 100_000);
const BURST = Math.min(2_500, ANSWERS);
const root = new URL('../..', import.meta.url).pathname;

const roomy = { limit: 1_000_000, windowMs: 1_000 };
const sandbox = await createSandbox({
  activities: true,
  seed: { guilds: 2, membersPerGuild: 10 },
  gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 },
  // The 3 s deadline of an initial response is not what this measures: a burst of 2,500 on a busy machine
  // takes longer than that to answer, and late answers would count as lost.
  rest: { interactionResponseMs: 300_000, globalPerSecond: 1_000_000, buckets: { 'interaction.callback': roomy, 'applications.me': roomy, webhook: roomy } },
});
const config = loadConfig({ cwd: root, env: {}, overrides: { plugins: { dirs: ['plugins'] }, http: { enabled: false }, log: { level: 'warn' } } });
const runtime = new Runtime({
  config,
  sandbox,
  cwd: root,
  log: createLogger({ level: 'warn', pretty: false }),
  // The service ending sessions again and again within a minute makes the shard double its wait before each new
  // IDENTIFY (protecting the day's session starts): after ten bursts it waited over 30 s, and the run stopped at
  // 25,000 with "no READY". This run ends a session on purpose before every burst, so it waits the first delay each time.
  gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60, invalidSessionMaxDelayMs: 60 } },
});
await runtime.start();

async function freshIdentify(): Promise<void> {
  const ready = new Promise<void>((resolve) => {
    const onDispatch = (d: { t: string }): void => {
      if (d.t !== 'READY') return;
      sandbox.gatewayEvents.off('dispatch', onDispatch);
      resolve();
    };
    sandbox.gatewayEvents.on('dispatch', onDispatch);
  });
  sandbox.faults.invalidateSession(0, false);
  await Promise.race([ready, new Promise((_, reject) => setTimeout(() => reject(new Error(`no READY within 30 s after a fresh IDENTIFY (${sent} sent so far)`)), 30_000))]);
}

let seed = 33;
const gap = (): number => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return 4_000 + (seed % 2_001);
};
const guildId = sandbox.state.guildIds[0]!;
let sent = 0;
let lost = 0;
let retried = 0;
const started = Date.now();
runtime.rest.on('request', (e) => {
  if (e.attempt > 0) retried++;
});
try {
  for (let burst = 0; sent < ANSWERS; burst++) {
    if (burst > 0) {
      await new Promise((r) => setTimeout(r, gap()));
      await freshIdentify();
    }
    const n = Math.min(BURST, ANSWERS - sent);
    const records: InteractionRecord[] = await Promise.all(Array.from({ length: n }, () => sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId })));
    await Promise.allSettled(records.map((r) => r.firstResponse(30_000)));
    lost += records.filter((r) => r.callbacks.length === 0).length;
    sent += n;
    if (burst % 10 === 9) console.log(`  ${sent.toLocaleString('en')} sent, ${lost} lost, ${Math.round((Date.now() - started) / 1000)} s`);
  }
} finally {
  await runtime.stop({ graceMs: 1_000 });
  await sandbox.close();
}
console.log(
  `answers after idle gaps of 4-6 s (server keep-alive 5 s), fresh IDENTIFY before each burst of ${BURST}: ${sent.toLocaleString('en')} sent, ` +
    `${lost} lost, ${retried} REST attempts repeated (stale sockets, 429s), ${Math.round((Date.now() - started) / 1000)} s`,
);
if (lost > 0) process.exitCode = 1;
