/**
 * Trustworthy state through the Runtime, as a bot owner runs it against the sandbox: entitlements known after
 * a restart and after a fresh IDENTIFY, a failed Redis write reported and its guild fetched again, and a Redis
 * that goes away and comes back (logged once, /readyz 503 meanwhile, normal service after).
 */
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type InteractionRecord, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig, type ConfigInput } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { redisProxy, type RedisProxy } from '../helpers/redis-proxy.js';
import { dropPrefix } from '../cache/redis-cleanup.js';
import { LogSink } from '../helpers/log-sink.js';

const ROOT = resolve(import.meta.dirname, '../..');


const running: Runtime[] = [];

async function startBot(sandbox: Sandbox, overrides: ConfigInput = {}): Promise<{ runtime: Runtime; logs: LogSink }> {
  const logs = new LogSink();
  const config = loadConfig({ cwd: ROOT, env: {}, overrides: { plugins: { dirs: ['plugins'] }, http: { enabled: false }, ...overrides } });
  const runtime = new Runtime({
    config,
    sandbox,
    cwd: ROOT,
    log: createLogger({ level: 'debug', pretty: false, destination: logs }),
    gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60 } },
  });
  running.push(runtime);
  await runtime.start();
  return { runtime, logs };
}

async function stop(runtime: Runtime): Promise<void> {
  running.splice(running.indexOf(runtime), 1);
  await runtime.stop({ graceMs: 1_000 });
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function content(record: InteractionRecord): string {
  return String(record.callbacks[0]?.data?.content ?? '');
}

async function newSandbox(): Promise<Sandbox> {
  // All-member requests may repeat quickly (recovery retries): the 30 s window of the service is shortened.
  return createSandbox({
    activities: true,
    seed: { guilds: 2, membersPerGuild: 20 },
    gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000, memberRequestWindowMs: 100 },
  });
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop({ graceMs: 1_000 })));
});

describe('entitlements across restarts', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await newSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('the premium example answers a subscriber after a restart: entitlements are synced from REST at startup', async () => {
    const guildId = sandbox.state.guildIds[0]!;
    const [first, second] = sandbox.state.memberIds(guildId).filter((id) => id !== sandbox.applicationId);
    // Every SKU: the example gates on the application's subscription SKU.
    const skuId = sandbox.state.skuIds[0]!;
    const { runtime: before } = await startBot(sandbox);
    for (const sku of sandbox.state.skuIds) sandbox.state.grantEntitlement({ skuId: sku, userId: first!, subscription: true });
    await until(() => before.cache.hasEntitlement({ userId: first!, skuId }), 'the entitlement event');
    await stop(before);
    // Granted while no process runs: no event will ever say so.
    for (const sku of sandbox.state.skuIds) sandbox.state.grantEntitlement({ skuId: sku, userId: second!, subscription: true });

    const { runtime: after } = await startBot(sandbox);
    // Known before any interaction or event about it.
    expect(await after.cache.hasEntitlement({ userId: first!, skuId })).toBe(true);
    expect(await after.cache.hasEntitlement({ userId: second!, skuId })).toBe(true);
    for (const userId of [first!, second!]) {
      const record = await sandbox.invoke({ name: 'perks', guildId, userId });
      await record.firstResponse(5_000);
      expect(content(record)).toMatch(/^Thank you for supporting us/);
    }
  });

  it('after a fresh IDENTIFY the entitlements are synced again (one granted while no session was live is known)', async () => {
    const guildId = sandbox.state.guildIds[1]!;
    const userId = sandbox.state.memberIds(guildId).filter((id) => id !== sandbox.applicationId)[3]!;
    const skuId = sandbox.state.skuIds[0]!;
    const { runtime } = await startBot(sandbox);
    let identified = 0;
    sandbox.gatewayEvents.on('identify', () => identified++);
    // The session ends (op 9, not resumable); the grant's ENTITLEMENT_CREATE goes to no session.
    sandbox.faults.invalidateSession(0, false);
    sandbox.state.grantEntitlement({ skuId, userId, subscription: true });
    await until(() => identified > 0 && runtime.readiness().ready, 'a new session');
    await until(() => runtime.cache.hasEntitlement({ userId, skuId }), 'the entitlement synced from REST');
  });
});

describeWithRedis('the Redis cache through the runtime', () => {
  let sandbox: Sandbox;
  let admin: Redis;
  const prefixes: string[] = [];
  beforeAll(async () => {
    sandbox = await newSandbox();
    admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop({ graceMs: 1_000 })));
    for (const p of prefixes) await dropPrefix(admin, p);
    await admin.quit();
    await sandbox.close();
  });

  function prefix(): string {
    const p = uniquePrefix('runtime-cache');
    prefixes.push(p);
    return p;
  }

  it('namespaces the cache by application id; a failed write is logged with guild and event, counted, and the guild fetched again', async () => {
    const p = prefix();
    const guildId = sandbox.state.guildIds[0]!;
    const { runtime, logs } = await startBot(sandbox, { redisUrl: REDIS_URL, cache: { redisPrefix: p } });
    // On an embedded sandbox the application id is every sandbox's: the namespace names this sandbox too.
    const ns = runtime.cacheNamespace;
    expect(ns).toMatch(new RegExp(`^${p}:\\{${sandbox.applicationId}:sandbox-[0-9a-f]+\\}$`));
    await until(async () => (await runtime.cache.getGuild(guildId))?.unavailable === false, 'the guild in the cache');
    expect(await admin.sismember(`${ns}:guilds`, guildId)).toBe(1);

    // Users become a string: every member write fails inside its script.
    await admin.del(`${ns}:u`);
    await admin.set(`${ns}:u`, 'not a hash');
    const joined = sandbox.state.addMember(guildId, { username: 'late' });
    await until(() => logs.matching(/cache write failed/).length > 0, 'the failure logged');
    expect(logs.matching(/cache write failed/)[0]).toMatchObject({ level: 40, guild: guildId, event: 'GUILD_MEMBER_ADD', component: 'cache' });
    expect(runtime.cache.stats().writeErrors).toBeGreaterThan(0);
    expect(await admin.smembers(`${ns}:stale`)).toEqual([guildId]);

    // Redis takes writes again: the guild is fetched again (every member, by op 8) and the mark cleared.
    await admin.del(`${ns}:u`);
    await until(async () => (await admin.exists(`${ns}:stale`)) === 0, 'the guild recovered', 20_000);
    await runtime.cache.settled();
    const page = await runtime.cache.getMembers(guildId, { limit: 1000 });
    expect(page.members.map((m) => m.userId).sort()).toEqual([...sandbox.state.memberIds(guildId)].sort());
    expect((await runtime.cache.getMember(guildId, joined))?.user?.username).toBe('late');
    expect(logs.matching(/recovered stale cache state/)[0]).toMatchObject({ guild: guildId });
  }, 40_000);

  describe('Redis unreachable', () => {
    let proxy: RedisProxy;
    beforeAll(async () => {
      proxy = await redisProxy(REDIS_URL);
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('logs one clear line naming host:port, answers /readyz 503 while down, and serves normally after', async () => {
      const p = prefix();
      const guildId = sandbox.state.guildIds[1]!;
      const { runtime, logs } = await startBot(sandbox, {
        redisUrl: proxy.url,
        cache: { redisPrefix: p },
        http: { enabled: true, port: 0 },
      });
      const readyz = async (): Promise<{ status: number; body: Record<string, unknown> }> => {
        const res = await fetch(`http://127.0.0.1:${runtime.opsAddress!.port}/readyz`);
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      expect((await readyz()).status).toBe(200);

      await proxy.cut();
      const unreachable = new RegExp(`^Redis at 127\\.0\\.0\\.1:${proxy.port} is unreachable`);
      await until(() => logs.matching(unreachable).length > 0, 'the unreachable line');
      await until(async () => (await readyz()).status === 503, '/readyz 503');
      expect((await readyz()).body).toMatchObject({ status: 'not ready', redis: 'unreachable' });
      // Interactions are still answered meanwhile.
      const roll = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
      await roll.firstResponse(5_000);
      // Let reconnection attempts fail a few times: still one line, at warn, through the logger.
      await new Promise((r) => setTimeout(r, 1_500));
      const lines = logs.matching(unreachable);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, redis: `127.0.0.1:${proxy.port}`, connection: 'cache', component: 'cache' });

      await proxy.restore();
      await until(() => logs.matching(/is reachable again/).length > 0, 'the reconnection', 20_000);
      await until(async () => (await readyz()).status === 200, '/readyz 200 again', 20_000);
      const member = sandbox.state.addMember(guildId, { username: 'after' });
      await until(async () => (await runtime.cache.getMember(guildId, member))?.user?.username === 'after', 'cache writes again');
      const profile = await sandbox.invoke({ name: 'Show profile', type: 2, targetId: member, guildId });
      await profile.firstResponse(5_000);
      expect(content(profile)).toContain('after');
    }, 60_000);
  });
});
