/** Starting the runtime against a sandbox as a bot owner runs it, with its log lines kept for assertions. */
import { resolve } from 'node:path';
import { createSandbox, type InteractionRecord, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig, type ConfigInput } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { LogSink } from '../helpers/log-sink.js';

export { LogSink };

export const ROOT = resolve(import.meta.dirname, '../..');


export async function newSandbox(options: { roomyBuckets?: boolean } = {}): Promise<Sandbox> {
  // Roomy buckets for tests that make many requests of one route (a bot answering every event alike).
  const roomy = { limit: 1_000, windowMs: 1_000 };
  return createSandbox({
    activities: true,
    seed: { guilds: 2, membersPerGuild: 10 },
    gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 },
    ...(options.roomyBuckets === true ? { rest: { buckets: { 'applications.me': roomy, 'interaction.callback': roomy, webhook: roomy } } } : {}),
  });
}

export async function startBot(
  sandbox: Sandbox,
  dirs: string[],
  options: { overrides?: ConfigInput; env?: NodeJS.ProcessEnv; deferAfterMs?: number } = {},
): Promise<{ runtime: Runtime; logs: LogSink }> {
  const logs = new LogSink();
  const config = loadConfig({
    cwd: ROOT,
    env: options.env ?? {},
    overrides: { plugins: { dirs }, http: { enabled: false }, ...options.overrides },
  });
  const runtime = new Runtime({
    config,
    sandbox,
    cwd: ROOT,
    log: createLogger({ level: 'debug', pretty: false, destination: logs }),
    gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60 } },
    ...(options.deferAfterMs !== undefined ? { deferAfterMs: options.deferAfterMs } : {}),
  });
  try {
    await runtime.start();
  } catch (err) {
    await runtime.stop({ graceMs: 100 });
    throw err;
  }
  return { runtime, logs };
}

/** Wait (bounded) until `check` holds. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Wait until an interaction's answers stop changing (the first callback, then edits and follow-ups). */
export async function settled(record: InteractionRecord, quietMs = 150, timeoutMs = 5_000): Promise<void> {
  await record.firstResponse(timeoutMs);
  let last = '';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = JSON.stringify([record.callbacks, record.original, record.followups]);
    if (now === last || Date.now() > deadline) return;
    last = now;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

