import { describe, expect, it } from 'vitest';
import { PluginHost, type SharedServices } from '../../src/plugins/host.js';
import type { PluginDefinition } from '../../src/plugins/types.js';
import { createLogger } from '../../src/runtime/logger.js';
import { LogSink } from '../helpers/log-sink.js';


/** The host hands these to plugins; the lifecycle under test never calls them. */
const services = { applicationId: '1', cache: {}, rest: {}, requestMembers: async () => ({}) } as unknown as SharedServices;

function host(plugins: PluginDefinition[]): { host: PluginHost; logs: LogSink } {
  const logs = new LogSink();
  const h = new PluginHost({ log: createLogger({ level: 'debug', pretty: false, destination: logs }), services });
  for (const p of plugins) h.add(p, { file: `/plugins/${p.name}.ts`, label: `plugins/${p.name}.ts` });
  return { host: h, logs };
}

describe('PluginHost lifecycle', () => {
  it('runs setup in load order and teardown in reverse; a throwing setup disables only its plugin', async () => {
    const calls: string[] = [];
    const plugin = (name: string, extra: Partial<PluginDefinition> = {}): PluginDefinition => ({
      name,
      setup: () => void calls.push(`setup ${name}`),
      teardown: () => void calls.push(`teardown ${name}`),
      ...extra,
    });
    const { host: h, logs } = host([
      plugin('a'),
      plugin('b', {
        setup: () => {
          calls.push('setup b');
          throw new Error('b cannot start');
        },
      }),
      plugin('c', {
        async teardown() {
          calls.push('teardown c');
          throw new Error('c cannot stop');
        },
      }),
      plugin('d'),
    ]);
    await h.setupAll();
    expect(h.loaded.map((p) => [p.name, p.state])).toEqual([['a', 'ready'], ['b', 'failed'], ['c', 'ready'], ['d', 'ready']]);
    await h.teardownAll();
    // b never started, so it is not torn down; c's failure does not stop a's turn.
    expect(calls).toEqual(['setup a', 'setup b', 'setup c', 'setup d', 'teardown d', 'teardown c', 'teardown a']);
    expect(h.loaded.map((p) => p.state)).toEqual(['stopped', 'failed', 'stopped', 'stopped']);
    expect(logs.lines.filter((l) => l.level === 50).map((l) => [l.plugin, l.msg])).toEqual([
      ['b', 'plugin setup failed; the plugin is disabled'],
      ['c', 'plugin teardown failed'],
    ]);
  });

  it('delivers events to ready plugins only, each failure isolated and logged with plugin and event', async () => {
    const got: string[] = [];
    const { host: h, logs } = host([
      { name: 'sync-thrower', on: { guildDelete: () => { throw new Error('sync'); } } },
      { name: 'async-thrower', on: { guildDelete: async () => { throw new Error('async'); } } },
      { name: 'failed', setup: () => { throw new Error('no'); }, on: { guildDelete: () => void got.push('failed') } },
      { name: 'ok', on: { guildDelete: (g) => void got.push(`ok ${g.id}`), raw: (r) => void got.push(`raw ${r.t} ${r.shardId}`) } },
    ]);
    await h.setupAll();
    h.dispatch(3, 'GUILD_DELETE', { id: '42', unavailable: true });
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['ok 42', 'raw GUILD_DELETE 3']);
    expect(logs.lines.filter((l) => l.msg === 'plugin event handler failed').map((l) => [l.plugin, l.event])).toEqual([
      ['sync-thrower', 'guildDelete'],
      ['async-thrower', 'guildDelete'],
    ]);
  });

  it('gives each plugin its own config section; a section that is not an object is reported by key', () => {
    const logs = new LogSink();
    const h = new PluginHost({
      log: createLogger({ level: 'debug', pretty: false, destination: logs }),
      services,
      pluginConfig: { good: { skuId: '5' }, bad: 'oops' },
    });
    h.add({ name: 'good' }, { file: '/p/good.ts', label: 'p/good.ts' });
    h.add({ name: 'bad' }, { file: '/p/bad.ts', label: 'p/bad.ts' });
    h.add({ name: 'none' }, { file: '/p/none.ts', label: 'p/none.ts' });
    expect(h.loaded.map((p) => p.context.config)).toEqual([{ skuId: '5' }, {}, {}]);
    expect(logs.lines.find((l) => l.level === 50)).toMatchObject({ plugin: 'bad', key: 'plugins.config.bad' });
  });

  it('refuses a second plugin of the same name, naming both files', () => {
    const { host: h } = host([{ name: 'twin' }]);
    expect(() => h.add({ name: 'twin' }, { file: '/x/twin2.ts', label: 'x/twin2.ts' })).toThrow(/x\/twin2\.ts: name: "twin" is already used by plugins\/twin\.ts/);
  });
});
