/** /healthz, /readyz and /metrics of a running bot, over real HTTP on loopback. */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { silentLogger } from '../../src/runtime/logger.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('ops endpoints', () => {
  let sandbox: Sandbox;
  let runtime: Runtime;
  let base: string;
  let readyDuringStart: number | null = null;

  beforeAll(async () => {
    sandbox = await createSandbox({ seed: { guilds: 3, membersPerGuild: 10 }, gateway: { identifyWindowMs: 50, recommendedShards: 2 } });
    const config = loadConfig({
      cwd: ROOT,
      env: {},
      overrides: { plugins: { dirs: ['plugins'] }, http: { enabled: true, host: '127.0.0.1', port: 0 } },
    });
    runtime = new Runtime({ config, sandbox, cwd: ROOT, log: silentLogger(), gateway: { identifyWindowMs: 400 } });
    const starting = runtime.start();
    // While the second shard waits for its identify window, /readyz must say not ready.
    for (let i = 0; i < 200 && runtime.opsAddress === null; i++) await new Promise((r) => setTimeout(r, 5));
    base = `http://127.0.0.1:${runtime.opsAddress!.port}`;
    readyDuringStart = (await fetch(`${base}/readyz`)).status;
    await starting;
  });
  afterAll(async () => {
    await runtime.stop();
    await sandbox.close();
  });

  it('binds to loopback', () => {
    expect(runtime.opsAddress?.host).toBe('127.0.0.1');
  });

  it('/healthz answers while alive; /readyz turns ready only when every shard is', async () => {
    expect(readyDuringStart).toBe(503);
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; shards: Array<{ id: number; status: string }> };
    expect(body.status).toBe('ready');
    expect(body.shards.map((s) => s.status)).toEqual(['ready', 'ready']);
  });

  it('/metrics parses as Prometheus text and carries shard, event, cache and REST figures', async () => {
    sandbox.state.addMember(sandbox.state.guildIds[0]!);
    const res = await fetch(`${base}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const families = parsePrometheusTextFormat(await res.text());
    const byName = new Map(families.map((f) => [f.name, f]));
    for (const name of [
      'gatehouse_shard_latency_seconds',
      'gatehouse_shard_status',
      'gatehouse_shard_send_queue_depth',
      'gatehouse_gateway_events_total',
      'gatehouse_gateway_events_per_second',
      'gatehouse_cache_entries',
      'gatehouse_rest_requests_total',
      'gatehouse_rest_rate_limited_total',
      'gatehouse_rest_queued_requests',
      'gatehouse_interactions_in_flight',
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    const ready = byName.get('gatehouse_shard_status')!.metrics.filter((m) => m.labels?.status === 'ready' && m.value === '1');
    expect(ready.map((m) => m.labels?.shard).sort()).toEqual(['0', '1']);
    const depths = byName.get('gatehouse_shard_send_queue_depth')!.metrics;
    expect(depths.map((m) => [m.labels?.shard, m.value]).sort()).toEqual([['0', '0'], ['1', '0']]);
    expect(Number(byName.get('gatehouse_gateway_events_total')!.metrics[0]!.value)).toBeGreaterThan(0);
    const members = byName.get('gatehouse_cache_entries')!.metrics.find((m) => m.labels?.resource === 'members');
    expect(Number(members?.value)).toBeGreaterThan(0);
    const gatewayBot = byName
      .get('gatehouse_rest_requests_total')!
      .metrics.find((m) => m.labels?.route === '/gateway/bot' && m.labels?.status === '200');
    expect(Number(gatewayBot?.value)).toBe(1);
  });

  it('answers unknown paths and methods plainly', async () => {
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});
