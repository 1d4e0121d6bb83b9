/**
 * Payloads from the gateway side, through the Runtime as a bot owner runs it, against the sandbox over real
 * sockets: option names that are prototype keys reach handlers as values; an object where a string belongs is
 * never routed; payloads that are not what the protocol says are warned about once per kind (naming the event
 * and the field), while the connection keeps going and the cache stays consistent.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { prototypeSnapshot } from '../helpers/prototypes.js';
import { LogSink } from '../helpers/log-sink.js';

const ROOT = resolve(import.meta.dirname, '../..');

class GatewayLogSink extends LogSink {
  warnings(event: string): Array<Record<string, unknown>> {
    return this.lines.filter((l) => l.level === 40 && l.component === 'protocol' && l.event === event);
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let sandbox: Sandbox;
let runtime: Runtime;
let logs: GatewayLogSink;
let guildId: string;
const before = prototypeSnapshot();

beforeAll(async () => {
  sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 5 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
  guildId = sandbox.state.guildIds[0]!;
  logs = new GatewayLogSink();
  const config = loadConfig({ cwd: ROOT, env: {}, overrides: { plugins: { dirs: ['test/fixtures/plugins/hostile'] }, http: { enabled: false } } });
  runtime = new Runtime({
    config,
    sandbox,
    cwd: ROOT,
    log: createLogger({ level: 'debug', pretty: false, destination: logs }),
    gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60 } },
  });
  await runtime.start();
});

afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
  await sandbox?.close();
});

async function invokeKeys(options: Record<string, string>): Promise<Record<string, unknown>> {
  const record = await sandbox.invoke({ name: 'keys', guildId, options });
  const first = await record.firstResponse(5_000);
  return JSON.parse(String(first.data?.content)) as Record<string, unknown>;
}

/** A real INTERACTION_CREATE payload for `keys`, to alter before sending it raw. */
async function keysPayload(): Promise<Record<string, any>> {
  const record = await sandbox.invoke({ name: 'keys', guildId, options: JSON.parse('{"__proto__":"p"}') as Record<string, string> });
  await record.firstResponse(5_000);
  return JSON.parse(JSON.stringify(record.payload)) as Record<string, any>;
}

describe('ctx.options through the runtime', () => {
  it('options named __proto__, constructor and prototype reach the handler with their string values', async () => {
    const seen = await invokeKeys(JSON.parse('{"__proto__":"p-value","constructor":"c-value","prototype":"x-value"}') as Record<string, string>);
    expect(seen).toEqual({ proto: 'p-value', ctor: 'c-value', prototype: 'x-value', keys: ['__proto__', 'constructor', 'prototype'], admin: null, toString: 'undefined' });
  });

  it('an optional option named constructor that was not sent is undefined, not Object', async () => {
    const seen = await invokeKeys(JSON.parse('{"__proto__":"only"}') as Record<string, string>);
    expect(seen).toMatchObject({ proto: 'only', ctor: null, prototype: null, keys: ['__proto__'] });
  });

  it('an object value for a STRING option is never routed, so no handler sees it as properties', async () => {
    const payload = await keysPayload();
    const answered = runtime.dispatches;
    payload.id = '1200000000000000001';
    payload.data.options = JSON.parse('[{"type":3,"name":"__proto__","value":{"admin":true}}]');
    sandbox.faults.dispatch(0, 'INTERACTION_CREATE', payload);
    await until(() => logs.warnings('INTERACTION_CREATE').length > 0, 'the INTERACTION_CREATE warning');
    const [warning] = logs.warnings('INTERACTION_CREATE');
    expect(warning).toMatchObject({ event: 'INTERACTION_CREATE', field: 'data.options[0].value' });
    expect(String(warning!.reason)).toContain('expected a string (STRING), got an object');
    expect(runtime.dispatches).toBeGreaterThan(answered);
    // The handler never ran: it would have logged an answer failure (the sandbox does not know this id).
    expect(logs.lines.some((l) => l.msg === 'command handler failed')).toBe(false);
    expect(prototypeSnapshot()).toEqual(before);
  });

  it('dispatch names that are prototype keys reach raw listeners and nothing else', async () => {
    for (const t of ['constructor', '__proto__', 'toString']) sandbox.faults.dispatch(0, t, { x: 1 });
    await until(() => logs.lines.filter((l) => l.msg === 'raw dispatch seen').length === 3, 'three raw dispatches');
    expect(logs.lines.filter((l) => l.msg === 'raw dispatch seen').map((l) => l.rawEvent)).toEqual(['constructor', '__proto__', 'toString']);
    expect(logs.lines.some((l) => l.msg === 'plugin event handler failed')).toBe(false);
    expect(prototypeSnapshot()).toEqual(before);
  });
});

describe('malformed dispatches', () => {
  it('members that break the protocol are warned about per kind, not cached, and the connection keeps going', async () => {
    const connections = sandbox.gatewayEvents.listenerCount('connection');
    let opened = 0;
    const onConnection = (): void => void opened++;
    sandbox.gatewayEvents.on('connection', onConnection);
    const countBefore = await runtime.cache.memberCount(guildId);
    const rejectedBefore = runtime.malformedPayloads;
    const user = (id: unknown) => ({ id, username: 'ghost', discriminator: '0', global_name: null, avatar: null });
    for (let i = 0; i < 20; i++) {
      sandbox.faults.dispatch(0, 'GUILD_MEMBER_ADD', { guild_id: guildId, roles: [], joined_at: new Date().toISOString() });
      sandbox.faults.dispatch(0, 'GUILD_MEMBER_ADD', { guild_id: guildId, roles: [], user: user(1_300_000_000_000_000 + i), joined_at: new Date().toISOString() });
      sandbox.faults.dispatch(0, 'GUILD_MEMBER_ADD', { guild_id: guildId, roles: 'admin', user: user(`13000000000000000${10 + i}`), joined_at: new Date().toISOString() });
    }
    await until(() => runtime.malformedPayloads - rejectedBefore >= 60, '60 rejected members');
    const warnings = logs.warnings('GUILD_MEMBER_ADD');
    // One line per kind (missing user, numeric id, roles not a list), however many arrived.
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(3);
    for (const w of warnings) expect(String(w.reason)).not.toBe('');

    // Nothing of it was cached; a valid member after it is, and the same connection carries it.
    expect(await runtime.cache.memberCount(guildId)).toBe(countBefore);
    const added = sandbox.state.addMember(guildId, { username: 'real' });
    await until(async () => (await runtime.cache.getMember(guildId, added)) !== undefined, 'the valid member to be cached');
    expect(await runtime.cache.memberCount(guildId)).toBe((countBefore ?? 0) + 1);
    expect(runtime.gateway.status().every((s) => s.status === 'ready')).toBe(true);
    expect(opened).toBe(0);
    sandbox.gatewayEvents.off('connection', onConnection);
    expect(sandbox.gatewayEvents.listenerCount('connection')).toBe(connections);
  });

  it('op 8 replies that break the protocol are warned about with their field', async () => {
    sandbox.faults.dispatch(0, 'GUILD_MEMBERS_CHUNK', { guild_id: guildId, members: [], chunk_index: '0', chunk_count: 1 });
    sandbox.faults.dispatch(0, 'RATE_LIMITED', { opcode: 8, retry_after: 'soon', meta: { guild_id: guildId } });
    await until(() => logs.warnings('GUILD_MEMBERS_CHUNK').length > 0 && logs.warnings('RATE_LIMITED').length > 0, 'op 8 warnings');
    expect(logs.warnings('GUILD_MEMBERS_CHUNK')[0]).toMatchObject({ field: 'chunk_index' });
    expect(logs.warnings('RATE_LIMITED')[0]).toMatchObject({ field: 'retry_after' });
  });

  it('a READY without session_id is warned about once however often it comes, and is not resumed later', async () => {
    const ready = { v: 10, user: { id: runtime.applicationId, username: 'bot', discriminator: '0', bot: true }, guilds: [], resume_gateway_url: 'ws://127.0.0.1:1/resume' };
    for (let i = 0; i < 10; i++) sandbox.faults.dispatch(0, 'READY', ready);
    await until(() => logs.warnings('READY').some((l) => l.field === 'session_id'), 'the READY warning');
    await new Promise((r) => setTimeout(r, 100));
    const lines = logs.warnings('READY').filter((l) => l.field === 'session_id');
    expect(lines).toHaveLength(1);
    expect(String(lines[0]!.reason)).toContain('identify again');
    expect(runtime.gateway.sessions().size).toBe(0);

    // The connection went on; when it drops, the shard identifies anew instead of resuming a session it never had.
    let identified = 0;
    let resumed = 0;
    sandbox.gatewayEvents.on('identify', () => void identified++);
    sandbox.gatewayEvents.on('resume', () => void resumed++);
    sandbox.faults.close(0, 4000);
    await until(() => identified === 1, 'a new IDENTIFY', 10_000);
    await until(() => runtime.gateway.status().every((s) => s.status === 'ready'), 'the shard to be ready again', 10_000);
    expect(resumed).toBe(0);
    const record = await sandbox.invoke({ name: 'keys', guildId, options: JSON.parse('{"__proto__":"after"}') as Record<string, string> });
    expect(JSON.parse(String((await record.firstResponse(5_000)).data?.content))).toMatchObject({ proto: 'after' });
  });
});
