import { describe, expect, it } from 'vitest';
import { PluginHost, type PluginHostOptions, type SharedServices } from '../../src/plugins/host.js';
import type { PluginDefinition } from '../../src/plugins/types.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createCache } from '../../src/cache/index.js';
import { DEFAULT_CACHE_OPTIONS } from '../../src/cache/types.js';
import { LogSink } from '../helpers/log-sink.js';


/** The host hands these to plugins; the lifecycle under test never calls them. */
const services = { applicationId: '1', cache: {}, rest: {}, requestMembers: async () => ({}) } as unknown as SharedServices;

function host(plugins: PluginDefinition[], options: Partial<PluginHostOptions> = {}): { host: PluginHost; logs: LogSink } {
  const logs = new LogSink();
  const h = new PluginHost({ log: createLogger({ level: 'debug', pretty: false, destination: logs }), services, ...options });
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

describe('PluginHost events that break the protocol', () => {
  const GUILD = '200000000000000001';
  const USER = '300000000000000001';
  const entitlement = { id: '400000000000000001', sku_id: '500000000000000001', application_id: '1', user_id: USER, type: 8, deleted: false };

  it('with the cache\'s verdict, typed listeners get only payloads the cache takes; raw and webhookEvent listeners get every one', async () => {
    const typed: string[] = [];
    const raw: string[] = [];
    const { host: h, logs } = host([
      {
        name: 'readme',
        on: {
          // docs/plugins.md's example: it would throw on a member without `user`.
          guildMemberAdd: (m) => void typed.push(`add ${m.user.id}`),
          guildMemberRemove: (m) => void typed.push(`remove ${m.user.id}`),
          guildDelete: (g) => void typed.push(`delete ${g.id}`),
          ready: (r) => void typed.push(`ready ${r.user.id}`),
          entitlementCreate: (e) => void typed.push(`entitlement ${e.id}`),
          commandPermissionsUpdate: (p) => void typed.push(`permissions ${p.permissions.map((x) => x.id).join(',')}`),
          raw: (p) => void raw.push(p.t),
          webhookEvent: (e) => void raw.push(`webhook ${e.type}`),
        },
      },
    ]);
    await h.setupAll();
    // As the runtime delivers: the cache applies each payload, and its verdict says whether typed listeners get it.
    const cache = createCache({ ...DEFAULT_CACHE_OPTIONS, backend: 'memory', redisPrefix: 'x' });
    const deliver = (t: string, d: unknown): void => h.dispatch(0, t, d, cache.apply(t, d));
    const deliverWebhook = (e: { type: string; timestamp: string; data: unknown }): void => h.dispatchWebhookEvent(e, cache.apply(e.type, e.data));
    deliver('GUILD_MEMBER_ADD', { guild_id: GUILD, roles: [], joined_at: '2024-01-01T00:00:00Z' });
    deliver('GUILD_MEMBER_ADD', { guild_id: GUILD, roles: 'admin', user: { id: USER } });
    deliver('GUILD_MEMBER_REMOVE', { guild_id: 'x', user: { id: USER } });
    deliver('GUILD_DELETE', null);
    deliver('READY', null);
    deliver('READY', { user: { id: { toString: 1 } }, guilds: [] });
    deliver('ENTITLEMENT_CREATE', { ...entitlement, sku_id: 5 });
    deliverWebhook({ type: 'ENTITLEMENT_CREATE', timestamp: '2025-01-01T00:00:00.000000', data: { ...entitlement, user_id: null } });
    const permissions = { id: '900000000000000001', application_id: '900000000000000002', guild_id: GUILD, permissions: [{ id: USER, type: 2, permission: true }] };
    deliver('APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...permissions, permissions: null });
    expect(typed).toEqual([]);
    // The valid ones still go through.
    deliver('GUILD_MEMBER_ADD', { guild_id: GUILD, roles: [], user: { id: USER } });
    deliver('GUILD_MEMBER_REMOVE', { guild_id: GUILD, user: { id: USER } });
    deliver('GUILD_DELETE', { id: GUILD, unavailable: true });
    deliver('READY', { user: { id: USER }, guilds: [{ id: 5 }] });
    deliver('ENTITLEMENT_CREATE', entitlement);
    deliverWebhook({ type: 'ENTITLEMENT_CREATE', timestamp: '2025-01-01T00:00:00.000000', data: entitlement });
    deliver('APPLICATION_COMMAND_PERMISSIONS_UPDATE', permissions);
    expect(typed).toEqual([
      `add ${USER}`,
      `remove ${USER}`,
      `delete ${GUILD}`,
      `ready ${USER}`,
      `entitlement ${entitlement.id}`,
      `entitlement ${entitlement.id}`,
      `permissions ${USER}`,
    ]);
    expect(raw).toEqual([
      ...['GUILD_MEMBER_ADD', 'GUILD_MEMBER_ADD', 'GUILD_MEMBER_REMOVE', 'GUILD_DELETE', 'READY', 'READY', 'ENTITLEMENT_CREATE', 'webhook ENTITLEMENT_CREATE'],
      'APPLICATION_COMMAND_PERMISSIONS_UPDATE',
      ...['GUILD_MEMBER_ADD', 'GUILD_MEMBER_REMOVE', 'GUILD_DELETE', 'READY', 'ENTITLEMENT_CREATE', 'webhook ENTITLEMENT_CREATE'],
      'APPLICATION_COMMAND_PERMISSIONS_UPDATE',
    ]);
    expect(logs.lines.filter((l) => l.msg === 'plugin event handler failed')).toEqual([]);
  });

  it('logs a handler that fails on every event once per window, with its stack and the count held back', async () => {
    let now = 1_000;
    const thrower = (name: string): PluginDefinition => ({
      name,
      on: {
        guildMemberRemove: () => {
          throw new Error(`${name} fails`);
        },
        guildDelete: async () => {
          throw new Error(`${name} rejects`);
        },
      },
    });
    const { host: h, logs } = host([thrower('a'), thrower('b')], { now: () => now, eventFailureWindowMs: 60_000 });
    await h.setupAll();
    const failures = (): Array<Record<string, unknown>> => logs.lines.filter((l) => l.msg === 'plugin event handler failed');
    const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
    for (let i = 0; i < 100; i++) {
      h.dispatch(0, 'GUILD_MEMBER_REMOVE', { guild_id: GUILD, user: { id: USER } });
      h.dispatch(0, 'GUILD_DELETE', { id: GUILD });
    }
    await settle();
    // The first failure of each plugin and event, with its stack; nothing of the other 99.
    expect(failures().map((l) => [l.plugin, l.event, l.level, l.repeats])).toEqual([
      ['a', 'guildMemberRemove', 50, undefined],
      ['b', 'guildMemberRemove', 50, undefined],
      ['a', 'guildDelete', 50, undefined],
      ['b', 'guildDelete', 50, undefined],
    ]);
    const first = failures()[0]!.err as { message: string; stack: string };
    expect(first.message).toBe('a fails');
    expect(first.stack).toMatch(/a fails\n\s+at /);

    // A window later the next failure is logged with the count of those held back.
    now += 60_000;
    h.dispatch(0, 'GUILD_MEMBER_REMOVE', { guild_id: GUILD, user: { id: USER } });
    await settle();
    expect(failures().slice(4).map((l) => [l.plugin, l.event, l.repeats])).toEqual([
      ['a', 'guildMemberRemove', 99],
      ['b', 'guildMemberRemove', 99],
    ]);

    // A new version of a plugin (dev reload) has its first failure logged at once.
    const old = h.loaded.find((p) => p.name === 'a')!;
    const replacement = h.prepare(thrower('a'), old.source, old);
    h.commit(replacement, old);
    await h.setup(replacement);
    h.dispatch(0, 'GUILD_MEMBER_REMOVE', { guild_id: GUILD, user: { id: USER } });
    await settle();
    expect(failures().slice(6).map((l) => [l.plugin, l.event, l.repeats])).toEqual([['a', 'guildMemberRemove', undefined]]);
  });
});
