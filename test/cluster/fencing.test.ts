/**
 * Fencing through the Runtime in cluster mode (sandbox + real Redis, one process): the lease in Redis is
 * given to another member while this process's local timers still say it holds the shard (as after a Redis
 * failover that lost the key, or a renewal that reached Redis too late). Renewals are 10 s apart here, so only
 * the new checks can notice in time: before RESUME, before IDENTIFY, and at the session checkpoint.
 */
import { afterEach, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/contract.js';
import { clusterNamespace } from '../../src/cluster/keys.js';
import { ClusterKeys } from '../../src/cluster/keys.js';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { Shard } from '../../src/gateway/shard.js';
import { describeWithRedis, REDIS_URL } from '../helpers/redis.js';
import { redisScope, sleep, waitUntil, type RedisScope } from './helpers.js';

describeWithRedis('fencing in cluster mode', () => {
  let sandbox: Sandbox | null = null;
  let scope: RedisScope | null = null;
  let runtime: Runtime | null = null;
  const shards: Shard[] = [];
  afterEach(async () => {
    await runtime?.stop({ graceMs: 500 });
    runtime = null;
    for (const s of shards.splice(0)) await s.close();
    await sandbox?.close();
    sandbox = null;
    await scope?.close();
    scope = null;
  });

  async function start(): Promise<{ runtime: Runtime; sandbox: Sandbox; lease: string; seen: { resumes: number[]; identifies: number[] } }> {
    const s = await createSandbox({
      seed: { guilds: 2, membersPerGuild: 3, seed: 4 },
      gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000, recommendedShards: 1 },
    });
    sandbox = s;
    scope = redisScope('cluster-fencing');
    const config = loadConfig({
      cwd: process.cwd(),
      env: {},
      overrides: {
        token: s.botToken,
        apiUrl: s.restUrl,
        redisUrl: REDIS_URL,
        http: { enabled: false },
        plugins: { dirs: ['test/cluster/fixtures/plugins'] },
        cache: { redisPrefix: `${scope.prefix}:cache` },
        cluster: { prefix: scope.prefix, leaseMs: 20_000, renewMs: 10_000, settleMs: 0, checkpointMs: 100 },
      },
    });
    const r = new Runtime({
      config,
      log: createLogger({ level: 'silent', pretty: false }),
      gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 100, closeGraceMs: 300 } },
    });
    runtime = r;
    await r.start();
    const seen = { resumes: [] as number[], identifies: [] as number[] };
    s.gatewayEvents.on('resume', (e) => seen.resumes.push(e.shard[0]));
    s.gatewayEvents.on('identify', (e) => seen.identifies.push(e.shard[0]));
    const lease = new ClusterKeys(clusterNamespace(scope.prefix, r.applicationId)).lease(0);
    expect(await scope.admin.get(lease)).toBe(r.cluster!.memberId);
    return { runtime: r, sandbox: s, lease, seen };
  }

  it('checks the lease in Redis before a RESUME: a process whose lease moved drops the shard instead of taking the session back', async () => {
    const { runtime: r, sandbox: s, lease, seen } = await start();
    const session = r.gateway.sessions().get(0)!;
    await scope!.admin.set(lease, 'another-member', 'PX', 60_000);
    s.faults.close(0, 4000); // a socket drop: resumable
    await waitUntil(() => !r.gateway.shardIds.includes(0), 'the shard to be dropped', 5_000);
    await sleep(300);
    expect(seen.resumes).toEqual([]);
    expect(seen.identifies).toEqual([]);
    expect(r.cluster!.ownedShards).toEqual([]);
    // The session was left alive for its owner: it can still be resumed.
    const owner = new Shard({ id: 0, shardCount: 1, token: s.botToken, intents: 1, gatewayUrl: s.gatewayUrl, session, timing: { closeGraceMs: 300 } });
    shards.push(owner);
    await owner.start();
    expect(seen.resumes).toEqual([0]);
    expect(owner.session!.sessionId).toBe(session.sessionId);
  });

  it('checks the lease in Redis before an IDENTIFY', async () => {
    const { runtime: r, sandbox: s, lease, seen } = await start();
    await scope!.admin.set(lease, 'another-member', 'PX', 60_000);
    s.faults.invalidateSession(0, false); // the next connection must identify
    await waitUntil(() => !r.gateway.shardIds.includes(0), 'the shard to be dropped', 5_000);
    await sleep(300);
    expect(seen.identifies).toEqual([]);
    expect(seen.resumes).toEqual([]);
  });

  it('a session checkpoint refused for not holding the lease drops the shard, long before the next renewal', async () => {
    const { runtime: r, sandbox: s, lease, seen } = await start();
    const lost: string[] = [];
    r.cluster!.on('shardLost', (id, why) => lost.push(`${id} ${why}`));
    await scope!.admin.set(lease, 'another-member', 'PX', 60_000);
    const at = Date.now();
    s.state.addMember(s.state.guildIds[0]!); // the seq moves: the next checkpoint (100 ms) writes
    await waitUntil(() => lost.length > 0, 'the fence', 5_000);
    expect(lost).toEqual(['0 fenced']);
    // The renewal tick that would have noticed is 10 s away.
    expect(Date.now() - at).toBeLessThan(5_000);
    await waitUntil(() => !r.gateway.shardIds.includes(0), 'the shard to be dropped', 5_000);
    expect(seen.resumes).toEqual([]);
  });
});
