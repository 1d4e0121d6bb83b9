/**
 * Issue 31 acceptance: a cooldown of 1 use per 10 s per user held across a fleet. Three real bot processes
 * (fixtures/bot.ts with fixtures/cooldown-plugins) share one bot on one sandbox and one Redis, one shard each;
 * the same user invokes /daily in a guild of each shard, so every process receives their invocations. Exactly
 * one runs per window fleet-wide; after all three are restarted the window still holds; once the window has
 * passed, exactly one runs again.
 *
 * The processes' precondition clock stands still (FIXTURE_CLOCK_MS) and is moved forward by a command, so that
 * "the window still holds after a restart" does not depend on how fast three processes restart on a busy machine.
 */
import { expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../../src/sandbox/contract.js';
import { shardForGuild } from '../../src/api/snowflake.js';
import { describeWithRedis } from '../helpers/redis.js';
import { BotProcess } from './bot-process.js';
import { useClusterFixture, waitUntil } from './helpers.js';

const SHARDS = 3;
/** Three processes compiling with tsx on a busy 2-core machine can take a minute to start. */
const START_TIMEOUT = 90_000;
const PLUGINS = fileURLToPath(new URL('./fixtures/cooldown-plugins', import.meta.url));
const COOLDOWN = /^You are doing that too often\. Try again <t:\d+:R>\.$/;

describeWithRedis('cooldown across a fleet (issue 31)', () => {
  const fixture = useClusterFixture();

  function fleet(names: string[], clockMs: number): BotProcess[] {
    return names.map(
      (name) =>
        new BotProcess(
          name,
          fixture.botEnv({
            GATEHOUSE_CLUSTER_LEASE_MS: '2000',
            GATEHOUSE_CLUSTER_RENEW_MS: '400',
            GATEHOUSE_CLUSTER_SETTLE_MS: '1500',
            GATEHOUSE_CLUSTER_MAX_SHARDS: '1',
            FIXTURE_IDENTIFY_WINDOW_MS: '300',
            FIXTURE_PLUGINS_DIR: PLUGINS,
            FIXTURE_CLOCK_MS: String(clockMs),
          }),
        ),
    );
  }

  /** Wait until each process runs one live shard; return, per process, a guild of its shard. */
  async function guildPerProcess(s: Sandbox, processes: BotProcess[]): Promise<string[]> {
    await Promise.all(processes.map((p) => p.waitFor(() => p.started() !== undefined, 'start', START_TIMEOUT)));
    await waitUntil(() => processes.every((p) => p.readyShards().length === 1) && new Set(processes.flatMap((p) => p.readyShards())).size === SHARDS, 'one live shard per process', 60_000);
    return processes.map((p) => s.state.guildIds.find((g) => shardForGuild(g, SHARDS) === p.readyShards()[0])!);
  }

  /** The user invokes /daily twice in each guild at once; the answers' contents. */
  async function round(s: Sandbox, guilds: string[], userId: string): Promise<string[]> {
    const records = await Promise.all(guilds.flatMap((guildId) => [0, 1].map(() => s.invoke({ name: 'daily', guildId, userId }))));
    const answers = await Promise.all(records.map((r) => r.firstResponse(10_000)));
    for (const a of answers) expect(a.type).toBe(4);
    for (const a of answers.filter((x) => COOLDOWN.test(String(x.data?.content)))) expect(a.data?.flags).toBe(64);
    return answers.map((a) => String(a.data?.content));
  }

  it(
    'exactly one use per window fleet-wide; the window survives a restart of every process',
    async () => {
      const s = await fixture.start('cooldown-fleet', { seed: { guilds: 12, membersPerGuild: 2, seed: 31 }, gateway: { recommendedShards: SHARDS, heartbeatIntervalMs: 5_000 } });
      const t0 = Date.now();
      let processes = fleet(['a', 'b', 'c'], t0);
      let guilds = await guildPerProcess(s, processes);
      // One user, member of a guild on every shard.
      const userId = s.state.addMember(guilds[0]!, { username: 'dana' });
      for (const g of guilds.slice(1)) s.state.addMember(g, { id: userId });

      const first = await round(s, guilds, userId);
      expect(first.filter((c) => c.startsWith('ran in '))).toHaveLength(1);
      expect(first.filter((c) => COOLDOWN.test(c))).toHaveLength(first.length - 1);
      const retry = Number(/<t:(\d+):R>/.exec(first.find((c) => COOLDOWN.test(c))!)![1]);
      expect(retry).toBe(Math.ceil((t0 + 10_000) / 1000));

      // Restart all three: the window is in Redis, not in any process.
      for (const p of processes) p.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.exited));
      processes = fleet(['d', 'e', 'f'], t0 + 5_000);
      guilds = await guildPerProcess(s, processes);
      const afterRestart = await round(s, guilds, userId);
      expect(afterRestart.filter((c) => COOLDOWN.test(c))).toHaveLength(afterRestart.length);

      // The window passes (every process's clock moves to t0 + 10 s): again exactly one runs.
      processes.forEach((p, i) => p.send({ id: i, op: 'advance', ms: 5_000 }));
      await Promise.all(processes.map((p) => p.waitFor(() => p.reports.some((r) => r.ev === 'advanced'), 'clock moved', 10_000)));
      const next = await round(s, guilds, userId);
      expect(next.filter((c) => c.startsWith('ran in '))).toHaveLength(1);
      expect(next.filter((c) => COOLDOWN.test(c))).toHaveLength(next.length - 1);
    },
    360_000,
  );
});
