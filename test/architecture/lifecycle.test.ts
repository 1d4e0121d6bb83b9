/**
 * The runtime's service lifecycle: services start in list order and stop in reverse, also when a start fails
 * halfway (the failing service stops too, to undo its part) or a stop comes while starting. Checked on the
 * Lifecycle itself with recording services, failing at every position, and on a real Runtime against the sandbox:
 * a full start and stop, and a start that fails halfway (a plugin whose setup never settles).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lifecycle, type LifecycleEvent, type Service, type StopOptions } from '../../src/runtime/lifecycle.js';
import { silentLogger } from '../../src/runtime/logger.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, startBot } from '../plugins/helpers.js';

const STOP: StopOptions = { graceMs: 100, resumable: false, drainMs: 0, since: 0 };

function recorder(names: string[], failAt: number | null, log: string[]): Service[] {
  return names.map((name, i) => ({
    name,
    start: async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setImmediate(r));
      if (i === failAt) throw new Error(`${name} failed`);
    },
    stop: () => {
      log.push(`stop ${name}`);
    },
  }));
}

/** Which services stopped, in order, and which started (their start was called), in order. */
function orders(events: readonly LifecycleEvent[]): { started: string[]; stopped: string[] } {
  return {
    started: events.filter((e) => e.phase === 'start').map((e) => e.service),
    stopped: events.filter((e) => e.phase === 'stopped' || e.phase === 'stop-failed').map((e) => e.service),
  };
}

describe('Lifecycle', () => {
  const names = ['a', 'b', 'c', 'd', 'e'];

  it('starts in order and stops in reverse', async () => {
    const log: string[] = [];
    const life = new Lifecycle(recorder(names, null, log), silentLogger());
    await life.start(new AbortController().signal);
    await life.stop(STOP);
    expect(log).toEqual([...names.map((n) => `start ${n}`), ...[...names].reverse().map((n) => `stop ${n}`)]);
  });

  for (let failAt = 0; failAt < names.length; failAt++) {
    it(`a start failing at ${names[failAt]}: nothing after it starts, and every service whose start ran stops in reverse`, async () => {
      const log: string[] = [];
      const life = new Lifecycle(recorder(names, failAt, log), silentLogger());
      await expect(life.start(new AbortController().signal)).rejects.toThrow(`${names[failAt]} failed`);
      await life.stop(STOP);
      const ran = names.slice(0, failAt + 1);
      expect(log).toEqual([...ran.map((n) => `start ${n}`), ...[...ran].reverse().map((n) => `stop ${n}`)]);
    });
  }

  it('a stop while a start hangs: the start is cut short at the abort, and the started ones stop in reverse', async () => {
    const log: string[] = [];
    const services = recorder(names, null, log);
    services[2] = { name: 'c', start: () => new Promise<void>(() => log.push('start c')), stop: () => void log.push('stop c') };
    const life = new Lifecycle(services, silentLogger());
    const abort = new AbortController();
    const starting = life.start(abort.signal);
    while (!log.includes('start c')) await new Promise((r) => setImmediate(r));
    abort.abort(new Error('stopped while starting'));
    await expect(starting).rejects.toThrow('stopped while starting');
    await life.stop(STOP);
    expect(log).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('a service that fails to stop is logged and the others still stop', async () => {
    const log: string[] = [];
    const services = recorder(names, null, log);
    services[1] = { ...services[1]!, stop: () => Promise.reject(new Error('b will not stop')) };
    const life = new Lifecycle(services, silentLogger());
    const events: LifecycleEvent[] = [];
    life.onEvent((e) => events.push(e));
    await life.start(new AbortController().signal);
    await life.stop(STOP);
    expect(orders(events).stopped).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(events.find((e) => e.service === 'b' && e.phase === 'stop-failed')).toBeDefined();
  });
});

describe('the Runtime\'s services', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await newSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  async function watched(start: () => Promise<Runtime>): Promise<LifecycleEvent[]> {
    const events: LifecycleEvent[] = [];
    const { Lifecycle: L } = await import('../../src/runtime/lifecycle.js');
    const original = L.prototype.start;
    // Watch the one lifecycle this test's runtime makes, from its first start.
    L.prototype.start = function (this: Lifecycle, signal: AbortSignal) {
      this.onEvent((e) => events.push(e));
      L.prototype.start = original;
      return original.call(this, signal);
    };
    try {
      const runtime = await start();
      await runtime.stop({ graceMs: 500 });
    } finally {
      L.prototype.start = original;
    }
    return events;
  }

  it('transport "both": every service starts in list order and stops in reverse', async () => {
    const events = await watched(async () => (await startBot(sandbox, ['plugins'], { overrides: { transport: 'both', endpoint: { port: 0 } } })).runtime);
    const { started, stopped } = orders(events);
    expect(started).toEqual(['ops server', 'rest', 'cache', 'plugins', 'cluster', 'commands', 'intake', 'http endpoint', 'shard sets']);
    expect(stopped).toEqual([...started].reverse());
  });

  it('a start that fails halfway (a plugin setup that never settles): the services that started stop in reverse', async () => {
    let failure: unknown;
    const events = await watched(async () => {
      try {
        await startBot(sandbox, ['test/fixtures/plugins/hanging-setup'], { overrides: { transport: 'both', endpoint: { port: 0 }, plugins: { dirs: ['test/fixtures/plugins/hanging-setup'], setupTimeoutMs: 200 } } });
      } catch (err) {
        failure = err;
      }
      return { stop: async () => undefined } as unknown as Runtime;
    });
    expect(String(failure)).toContain('plugin "hangs-in-setup": setup did not settle within 200 ms (plugins.setupTimeoutMs)');
    const { started, stopped } = orders(events);
    expect(started).toEqual(['ops server', 'rest', 'cache', 'plugins', 'cluster', 'commands', 'intake']);
    expect(stopped).toEqual([...started].reverse());
  });
});
