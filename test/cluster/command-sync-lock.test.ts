/** The command-sync lock against a real Redis: one runner among many, waiting, renewal, failure and timeout. */
import { afterEach, expect, it } from 'vitest';
import { describeWithRedis } from '../helpers/redis.js';
import { ClusterKeys } from '../../src/cluster/keys.js';
import { CommandSyncLock, commandSetFingerprint } from '../../src/cluster/command-sync-lock.js';
import { redisScope, sleep, type RedisScope } from './helpers.js';

describeWithRedis('CommandSyncLock', () => {
  let scope: RedisScope;
  afterEach(async () => {
    await scope?.close();
  });

  function locks(n: number, options: Partial<ConstructorParameters<typeof CommandSyncLock>[0]> = {}): CommandSyncLock[] {
    const keys = new ClusterKeys(scope.prefix);
    return Array.from({ length: n }, () => new CommandSyncLock({ redis: scope.connect(), keys, pollMs: 20, ...options }));
  }

  it('of three processes starting together exactly one syncs; the others wait for it and skip', async () => {
    scope = redisScope('cluster-sync');
    let running = 0;
    let runs = 0;
    let finishedAt = 0;
    const sync = async (): Promise<string> => {
      running++;
      runs++;
      expect(running).toBe(1);
      await sleep(200);
      running--;
      finishedAt = performance.now();
      return 'synced';
    };
    const results = await Promise.all(
      locks(3).map(async (lock) => {
        const result = await lock.run(sync, { fingerprint: 'v1' });
        return { result, at: performance.now() };
      }),
    );
    expect(runs).toBe(1);
    expect(results.filter((r) => r.result.ran)).toHaveLength(1);
    expect(results.find((r) => r.result.ran)!.result.result).toBe('synced');
    for (const r of results.filter((x) => !x.result.ran)) {
      expect(r.result).toEqual({ ran: false, reason: 'synced-elsewhere' });
      expect(r.at).toBeGreaterThanOrEqual(finishedAt); // they waited for the sync to end
    }
    expect(await scope.admin.exists(new ClusterKeys(scope.prefix).commandLock)).toBe(0);
  });

  it('a later process with the same command set skips; one with another fingerprint syncs', async () => {
    scope = redisScope('cluster-sync');
    const [a, b, c] = locks(3);
    expect((await a!.run(async () => 1, { fingerprint: 'v1' })).ran).toBe(true);
    expect(await b!.run(async () => 2, { fingerprint: 'v1' })).toEqual({ ran: false, reason: 'synced-elsewhere' });
    expect(await c!.run(async () => 3, { fingerprint: 'v2' })).toEqual({ ran: true, result: 3 });
  });

  it('when the holder fails, the error propagates to it and a waiter syncs instead', async () => {
    scope = redisScope('cluster-sync');
    const [a, b] = locks(2);
    const failing = a!.run(
      async () => {
        await sleep(100);
        throw new Error('REST down');
      },
      { fingerprint: 'v1' },
    );
    await sleep(20);
    const waiting = b!.run(async () => 'second try', { fingerprint: 'v1' });
    await expect(failing).rejects.toThrow('REST down');
    expect(await waiting).toEqual({ ran: true, result: 'second try' });
  });

  it('renews the lock while a sync outlasts its expiry, so nobody else starts syncing', async () => {
    scope = redisScope('cluster-sync');
    // The lock expires after 1.2 s and is renewed every 400 ms: a renewal would have to be late by 800 ms (the
    // event loop of a busy CI machine stalls, but not that long) for the other process to get in. The sync
    // outlasts the expiry 2.5 times over.
    const [a, b] = locks(2, { lockMs: 1_200 });
    let concurrent = false;
    let inside = false;
    const slow = a!.run(
      async () => {
        inside = true;
        await sleep(3_000);
        inside = false;
      },
      { fingerprint: 'v1' },
    );
    await sleep(20);
    const other = await b!.run(
      async () => {
        concurrent = inside;
      },
      { fingerprint: 'v1' },
    );
    await slow;
    expect(concurrent).toBe(false);
    expect(other).toEqual({ ran: false, reason: 'synced-elsewhere' });
  });

  it('a result that isComplete rejects is not recorded: the next process syncs again', async () => {
    scope = redisScope('cluster-sync');
    const [a, b] = locks(2);
    const partial = await a!.run(async () => ({ failedScopes: 1 }), { fingerprint: 'v1', isComplete: (r) => r.failedScopes === 0 });
    expect(partial.ran).toBe(true);
    expect(await b!.run(async () => ({ failedScopes: 0 }), { fingerprint: 'v1' })).toEqual({ ran: true, result: { failedScopes: 0 } });
  });

  it('fingerprints a command set by its definitions and scope, not its handlers', () => {
    const a = commandSetFingerprint([{ name: 'roll', description: 'Roll', run: () => 1 }]);
    const b = commandSetFingerprint([{ name: 'roll', description: 'Roll', run: () => 2 }]);
    expect(a).toBe(b);
    expect(commandSetFingerprint([{ name: 'roll', description: 'Roll!' }])).not.toBe(a);
    expect(commandSetFingerprint([{ name: 'roll', description: 'Roll' }], { devGuildId: '1' })).not.toBe(a);
  });

  it('gives up waiting after waitMs when the lock stays held', async () => {
    scope = redisScope('cluster-sync');
    const keys = new ClusterKeys(scope.prefix);
    await scope.admin.set(keys.commandLock, 'someone-else', 'PX', 10_000);
    const [lock] = locks(1, { waitMs: 150 });
    let ran = false;
    const result = await lock!.run(async () => {
      ran = true;
    });
    expect(result).toEqual({ ran: false, reason: 'timeout' });
    expect(ran).toBe(false);
  });

  it('a holder that died frees the lock after lockMs, and a waiter then syncs', async () => {
    scope = redisScope('cluster-sync');
    const keys = new ClusterKeys(scope.prefix);
    await scope.admin.set(keys.commandLock, 'dead-process', 'PX', 300);
    const [lock] = locks(1, { waitMs: 5_000 });
    expect(await lock!.run(async () => 'mine', { fingerprint: 'v1' })).toEqual({ ran: true, result: 'mine' });
  });
});
