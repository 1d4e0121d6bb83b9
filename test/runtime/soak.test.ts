/**
 * Issue 33: the soak, minutes-long in CI (bench/soak/churn.ts is the churn; `npm run bench -- soak/memory` runs
 * it for millions of events with the heap measured). A Runtime with the repository's plugins, on each cache
 * backend, takes members joining, leaving and changing, entitlements granted and deleted (3% deletions), roles
 * created, changed and deleted over REST, commands, and the bot leaving guilds and joining them again; each cycle
 * ends with a RESUME, every third with a fresh IDENTIFY, and the cache must then equal the sandbox's state (the
 * guilds, members and roles of every guild, live entitlements), and every command must be answered.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { cacheView, runChurn, soakSandboxOptions } from '../../bench/soak/churn.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { dropPrefix } from '../cache/redis-cleanup.js';
import { startBot } from '../plugins/helpers.js';
import type { ConfigInput } from '../../src/runtime/config.js';

const CYCLES = 6;
const EVENTS = 4_000;

const opened: Array<{ runtime: Runtime; sandbox: Sandbox }> = [];
afterAll(async () => {
  for (const { runtime, sandbox } of opened) {
    await runtime.stop({ graceMs: 500 });
    await sandbox.close();
  }
});

async function soak(overrides: ConfigInput): Promise<void> {
  const sandbox = await createSandbox(soakSandboxOptions());
  const { runtime } = await startBot(sandbox, ['plugins'], { overrides: { ...overrides, intents: ['GUILDS', 'GUILD_MEMBERS', 'GUILD_PRESENCES'] } });
  opened.push({ runtime, sandbox });
  // Every guild of the seed, asked about also while the bot has left one.
  const guildIds = [...sandbox.state.guildIds];
  const result = await runChurn({
    sandbox,
    bot: { view: () => cacheView(runtime.cache, guildIds) },
    cycles: CYCLES,
    eventsPerCycle: EVENTS,
  });
  expect(result.cycles.map((c) => c.mismatched)).toEqual(result.cycles.map(() => []));
  expect(result.unanswered).toEqual([]);
  expect(result.answered).toBe(result.invoked);
  expect(result.invoked).toBeGreaterThan(0);
  expect(result.guildFlips).toBeGreaterThan(0);
}

describe('soak: the cache equals the sandbox after every cycle of churn', () => {
  it('memory backend', { timeout: 300_000 }, async () => {
    await soak({ cache: { backend: 'memory' } });
  });
});

describeWithRedis('soak: the cache equals the sandbox after every cycle of churn (Redis)', () => {
  const prefix = uniquePrefix('soak');
  afterAll(async () => {
    const admin = new Redis(REDIS_URL);
    await dropPrefix(admin, prefix);
    admin.disconnect();
  });
  it('redis backend', { timeout: 300_000 }, async () => {
    await soak({ redisUrl: REDIS_URL, cluster: { enabled: false }, cache: { backend: 'redis', redisPrefix: prefix } });
  });
});
