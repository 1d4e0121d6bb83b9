/**
 * Plugin setup and teardown timeouts (plugins.setupTimeoutMs / teardownTimeoutMs, default 5 s): a setup that never
 * settles fails the start after the timeout, naming the plugin and the phase, and leaves nothing running; a
 * teardown that never settles lets stop finish, naming the plugin. Through the Runtime against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { PluginHost, PluginTimeoutError, type SharedServices } from '../../src/plugins/host.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { LogSink, newSandbox, ROOT, startBot } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await newSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('plugin timeouts', () => {
  it('a setup that never settles fails the start after the timeout, naming the plugin; nothing is left running', async () => {
    const logs = new LogSink();
    const config = loadConfig({
      cwd: ROOT,
      env: {},
      overrides: { plugins: { dirs: ['test/fixtures/plugins/hanging-setup'], setupTimeoutMs: 300 }, http: { enabled: false } },
    });
    const runtime = new Runtime({ config, sandbox, cwd: ROOT, log: createLogger({ level: 'debug', pretty: false, destination: logs }) });
    const connections = sandbox.gatewayEvents.listenerCount('connection');
    let opened = 0;
    const onConnection = (): void => void opened++;
    sandbox.gatewayEvents.on('connection', onConnection);
    try {
      await expect(runtime.start()).rejects.toThrow('plugin "hangs-in-setup": setup did not settle within 300 ms (plugins.setupTimeoutMs)');
    } finally {
      sandbox.gatewayEvents.off('connection', onConnection);
    }
    expect(runtime.state).toBe('stopped');
    expect(opened).toBe(0);
    expect(sandbox.gatewayEvents.listenerCount('connection')).toBe(connections);
    expect(logs.lines.find((l) => l.msg === 'plugin "hangs-in-setup": setup did not settle within 300 ms (plugins.setupTimeoutMs)')).toMatchObject({ plugin: 'hangs-in-setup', level: 50 });
  });

  it('a teardown that never settles lets stop finish after the timeout, naming the plugin', async () => {
    const { runtime, logs } = await startBot(sandbox, ['test/fixtures/plugins/hanging-teardown'], {
      overrides: { plugins: { dirs: ['test/fixtures/plugins/hanging-teardown'], teardownTimeoutMs: 300 } },
    });
    expect(runtime.plugins.loaded.map((p) => [p.name, p.state])).toEqual([['hangs-in-teardown', 'ready']]);
    await runtime.stop({ graceMs: 100 });
    expect(runtime.state).toBe('stopped');
    const line = logs.lines.find((l) => String(l.msg).startsWith('plugin "hangs-in-teardown": teardown did not settle within 300 ms'));
    expect(line).toMatchObject({ plugin: 'hangs-in-teardown', level: 50 });
    expect(String(line!.msg)).toContain('(plugins.teardownTimeoutMs); stopping without it');
  });
});

describe('plugin timeouts in the host', () => {
  const source = { file: '/p/slow.ts', label: 'p/slow.ts' };
  const host = (): PluginHost => new PluginHost({ log: silentLogger(), services: {} as SharedServices, setupTimeoutMs: 50, teardownTimeoutMs: 50 });

  it('one setup (a dev reload) past the timeout disables its plugin without rejecting; setupAll rejects with it', async () => {
    const h = host();
    h.add({ name: 'slow', setup: () => new Promise<void>(() => undefined) }, source);
    const plugin = h.loaded[0]!;
    await h.setup(plugin);
    expect(plugin.state).toBe('failed');
    expect(plugin.error).toBeInstanceOf(PluginTimeoutError);
    const again = host();
    again.add({ name: 'slow', setup: () => new Promise<void>(() => undefined) }, source);
    await expect(again.setupAll()).rejects.toThrow('plugin "slow": setup did not settle within 50 ms (plugins.setupTimeoutMs)');
  });

  it('a setup that finishes after it timed out is torn down at once (its plugin never served)', async () => {
    let finish!: () => void;
    let tornDown = false;
    const h = host();
    h.add({ name: 'late', setup: () => new Promise<void>((r) => (finish = r)), teardown: () => void (tornDown = true) }, source);
    await expect(h.setupAll()).rejects.toThrow(PluginTimeoutError);
    finish();
    await new Promise((r) => setTimeout(r, 20));
    expect(tornDown).toBe(true);
    expect(h.loaded[0]!.state).toBe('failed');
  });
});

