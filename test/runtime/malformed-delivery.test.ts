/**
 * Dispatches that break the protocol, through the Runtime as a bot owner runs it (sandbox gateway, real
 * sockets): each is reported once per kind, reaches `raw` listeners, never reaches a typed listener the cache's
 * checks would not let it reach, and never throws inside delivery (a throw there is logged per event and the
 * event is lost for the plugins). A handler that fails on every event is logged once, not once per event.
 */
import { resolve } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import type { RecentKeys } from '../../src/transports/http/index.js';
import { LogSink } from '../helpers/log-sink.js';
import { seen } from '../fixtures/plugins/malformed/readme-member.js';

const ROOT = resolve(import.meta.dirname, '../..');
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
});

async function start(transport: 'gateway' | 'both'): Promise<{ sandbox: Sandbox; runtime: Runtime; logs: LogSink }> {
  const sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 2 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
  cleanup.push(() => sandbox.close());
  const logs = new LogSink();
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: { plugins: { dirs: ['test/fixtures/plugins/malformed'] }, http: { enabled: false }, transport, ...(transport === 'both' ? { endpoint: { port: 0 } } : {}) },
  });
  const runtime = new Runtime({ config, sandbox, cwd: ROOT, log: createLogger({ level: 'info', pretty: false, destination: logs }), gateway: { identifyWindowMs: 50 } });
  cleanup.push(() => runtime.stop({ graceMs: 200 }));
  await runtime.start();
  seen.typed.length = 0;
  seen.raw.length = 0;
  return { sandbox, runtime, logs };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const count = (list: readonly string[], item: string): number => list.filter((x) => x === item).length;
/** The gateway's line for a throw inside delivery (one per event). */
const deliveryThrows = (logs: LogSink, t: string): number => logs.lines.filter((l) => String(l.msg).startsWith(`A listener for ${t}`)).length;
const protocolWarnings = (logs: LogSink, t: string): Array<Record<string, unknown>> =>
  logs.lines.filter((l) => l.level === 40 && l.component === 'protocol' && l.event === t);
const handlerFailures = (logs: LogSink): Array<Record<string, unknown>> => logs.lines.filter((l) => l.msg === 'plugin event handler failed');

it('a GUILD_MEMBER_ADD the cache rejects reaches raw listeners only: no handler runs on it, nothing is logged per event', async () => {
  const { sandbox, runtime, logs } = await start('gateway');
  const guildId = sandbox.state.guildIds[0]!;
  for (let i = 0; i < 100; i++) sandbox.faults.dispatch(0, 'GUILD_MEMBER_ADD', { guild_id: guildId, roles: [], joined_at: '2024-01-01T00:00:00Z' });
  const joined = sandbox.state.addMember(guildId, { username: 'real' });
  await until(() => seen.typed.includes(`guildMemberAdd ${joined}`), 'the valid join');
  expect(count(seen.raw, 'GUILD_MEMBER_ADD')).toBe(101);
  expect(seen.typed).toEqual([`guildMemberAdd ${joined}`]);
  expect(handlerFailures(logs)).toEqual([]);
  expect(deliveryThrows(logs, 'GUILD_MEMBER_ADD')).toBe(0);
  // Reported once (the cache's check), counted every time.
  expect(protocolWarnings(logs, 'GUILD_MEMBER_ADD').map((l) => l.field)).toEqual(['user']);
  expect(runtime.malformedPayloads).toBeGreaterThanOrEqual(100);
});

it('a handler that throws on every event is logged once, with its plugin, event and stack', async () => {
  const { sandbox, logs } = await start('gateway');
  const guildId = sandbox.state.guildIds[0]!;
  const userId = sandbox.state.memberIds(guildId)[0]!;
  for (let i = 0; i < 100; i++) sandbox.faults.dispatch(0, 'GUILD_MEMBER_REMOVE', { guild_id: guildId, user: { id: userId, username: 'x' } });
  await until(() => count(seen.raw, 'GUILD_MEMBER_REMOVE') === 100, '100 leaves');
  await new Promise((r) => setTimeout(r, 100));
  const lines = handlerFailures(logs);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 50, plugin: 'always-throws', event: 'guildMemberRemove' });
  expect(String((lines[0]!.err as { stack?: unknown }).stack)).toMatch(/always-throws cannot handle a leave\n\s+at /);
});

it('a malformed READY (null, or a user id that is an object) is reported once per kind and still reaches raw listeners', async () => {
  const { sandbox, runtime, logs } = await start('gateway');
  const botId = runtime.readyInfo?.userId;
  expect(botId).toBe(runtime.applicationId);
  for (let i = 0; i < 50; i++) {
    sandbox.faults.dispatch(0, 'READY', null);
    sandbox.faults.dispatch(0, 'READY', { v: 10, user: { id: { toString: 1 }, username: 'bot' }, guilds: [], session_id: 's', resume_gateway_url: 'ws://127.0.0.1:1' });
  }
  await until(() => count(seen.raw, 'READY') === 100, '100 READY at raw listeners');
  expect(deliveryThrows(logs, 'READY')).toBe(0);
  expect(seen.typed.filter((t) => t.startsWith('ready'))).toEqual([]);
  const byField = protocolWarnings(logs, 'READY').map((l) => l.field);
  expect(byField.filter((f) => f === 'payload')).toHaveLength(1);
  expect(byField.filter((f) => f === 'user.id')).toHaveLength(1);
  // What could not be read did not replace what the bot knows of itself.
  expect(runtime.readyInfo?.userId).toBe(botId);
});

it('transport "both": an entitlement event whose ends_at is an odd object never throws in delivery; the cache refuses it, raw listeners get every copy', async () => {
  const { sandbox, runtime, logs } = await start('both');
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const id = String(940000000000000000n + BigInt(i));
    ids.push(id);
    const e = { id, sku_id: '500000000000000001', application_id: runtime.applicationId, user_id: '81384788765712384', type: 8, starts_at: null, ends_at: { toString: 1 } };
    // The same event twice (as by gateway and by webhook): plugins get it typed once.
    sandbox.faults.dispatch(0, 'ENTITLEMENT_CREATE', e);
    sandbox.faults.dispatch(0, 'ENTITLEMENT_CREATE', e);
  }
  await until(() => count(seen.raw, 'ENTITLEMENT_CREATE') === 100, '100 entitlement events at raw listeners');
  expect(deliveryThrows(logs, 'ENTITLEMENT_CREATE')).toBe(0);
  // An unreadable end is refused (fail closed: it would read as "never ends"), so typed listeners get none.
  expect(seen.typed).toEqual([]);
  expect(await runtime.cache.getEntitlement(ids[49]!)).toBeUndefined();
  expect(protocolWarnings(logs, 'ENTITLEMENT_CREATE')).toHaveLength(1);
});

it('transport "both": a throw in the duplicate check delivers the event (as a first copy) instead of dropping it', async () => {
  const { sandbox, runtime, logs } = await start('both');
  // The intake pipeline's memory of entitlement copies (transport "both"), reached through its private fields.
  const pipeline = (runtime as unknown as { intake: { pipeline: { seenEntitlements: RecentKeys } } }).intake.pipeline;
  const keys = pipeline.seenEntitlements;
  vi.spyOn(keys, 'add').mockImplementation(() => {
    throw new Error('the key store broke');
  });
  const ids = ['950000000000000001', '950000000000000002', '950000000000000003'];
  for (const id of ids) {
    sandbox.faults.dispatch(0, 'ENTITLEMENT_CREATE', { id, sku_id: '500000000000000001', application_id: runtime.applicationId, user_id: '81384788765712384', type: 8, starts_at: null, ends_at: null });
  }
  await until(() => count(seen.raw, 'ENTITLEMENT_CREATE') === 3, 'three entitlement events at raw listeners');
  expect(deliveryThrows(logs, 'ENTITLEMENT_CREATE')).toBe(0);
  expect(seen.typed).toEqual(ids.map((id) => `entitlementCreate ${id}`));
  expect(await runtime.cache.getEntitlement(ids[2]!)).toBeDefined();
  const warnings = protocolWarnings(logs, 'ENTITLEMENT_CREATE');
  expect(warnings).toHaveLength(1);
  expect(String(warnings[0]!.reason)).toContain('the duplicate check threw (the key store broke)');
});
