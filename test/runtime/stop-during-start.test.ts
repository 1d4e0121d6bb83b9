/**
 * stop() called while start() is still under way (a SIGTERM during a long identify, say): when both have
 * settled, nothing start() went on to create may be left running: no gateway connection open at the sandbox,
 * no endpoint listening, and the runtime says "stopped". Over real sockets against the sandbox.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';

const ROOT = resolve(import.meta.dirname, '../..');
const cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function setUp(transport: 'both' | 'http'): Promise<{ sandbox: Sandbox; runtime: Runtime; open: Set<number> }> {
  const sandbox = await createSandbox({ seed: { guilds: 2, membersPerGuild: 5 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
  cleanup.push(() => sandbox.close());
  const open = new Set<number>();
  sandbox.gatewayEvents.on('connection', (c) => open.add(c.connectionId));
  sandbox.gatewayEvents.on('close', (c) => open.delete(c.connectionId));
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: { plugins: { dirs: ['plugins'] }, http: { enabled: false }, transport, endpoint: { port: 0 }, ...(transport === 'both' ? { shards: { total: 2 } } : {}) },
  });
  const runtime = new Runtime({ config, sandbox, cwd: ROOT, log: silentLogger(), gateway: { identifyWindowMs: 50 } });
  cleanup.push(() => runtime.stop({ graceMs: 100 }));
  return { sandbox, runtime, open };
}

describe('stop() while start() is under way', () => {
  for (const [transport, when, wait] of [
    ['both', 'at once', async (): Promise<void> => undefined],
    ['both', 'once the first shard connected', null],
    ['http', 'at once', async (): Promise<void> => undefined],
  ] as const) {
    it(`transport "${transport}", ${when}: nothing start() created afterwards is left running`, async () => {
      const { sandbox, runtime, open } = await setUp(transport);
      const connected = new Promise<void>((r) => sandbox.gatewayEvents.once('connection', () => r()));
      const starting = runtime.start();
      await (wait ?? (() => connected))();
      await runtime.stop({ graceMs: 100 });
      await starting.catch(() => undefined);
      expect(runtime.state).toBe('stopped');
      const url = runtime.endpoint?.url ?? null;
      if (url !== null) await expect(fetch(`${url}/interactions`, { method: 'POST', body: '{}' })).rejects.toThrow();
      // Give connections a client opened after the stop time to show up, then every one must be closed.
      await new Promise((r) => setTimeout(r, 300));
      expect([...open]).toEqual([]);
      expect((runtime.parts.gateway?.status() ?? []).filter((s) => s.status === 'ready')).toEqual([]);
    });
  }
});

describe('stop() while a plugin is still setting up', () => {
  it('transport "http": the endpoint never starts listening after the stop, and the runtime stays stopped', async () => {
    const { gate } = (await import('../fixtures/plugins/gated-setup/gated.js')) as typeof import('../fixtures/plugins/gated-setup/gated.js');
    let release!: () => void;
    gate.open = new Promise<void>((r) => (release = r));
    const entered = new Promise<void>((r) => (gate.entered = r));
    const sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 2 } });
    cleanup.push(() => sandbox.close());
    const config = loadConfig({
      cwd: ROOT,
      env: {},
      overrides: { plugins: { dirs: ['test/fixtures/plugins/gated-setup'] }, http: { enabled: false }, transport: 'http', endpoint: { port: 0 } },
    });
    const runtime = new Runtime({ config, sandbox, cwd: ROOT, log: silentLogger() });
    cleanup.push(() => runtime.stop({ graceMs: 100 }));
    const starting = runtime.start();
    await entered;
    await runtime.stop({ graceMs: 100 });
    expect(runtime.state).toBe('stopped');
    release();
    await expect(starting).rejects.toThrow(/stopped while starting/);
    expect(runtime.state).toBe('stopped');
    expect(runtime.endpoint).toBeNull();
    expect(sandbox.webhooks.interactionsEndpointUrl).toBeNull();
  });
});
