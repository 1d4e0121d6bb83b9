/**
 * Payloads from the HTTP side, through the Runtime as a bot owner runs it (transport "http"), against the
 * sandbox over real sockets: requests are signed with the sandbox application's own key, so they pass the
 * signature gate and reach the runtime exactly as a malformed payload from the service would.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { prototypeSnapshot } from '../helpers/prototypes.js';
import { WebhookDelivery } from '../../src/sandbox/delivery/webhooks.js';
import { LogSink } from '../helpers/log-sink.js';

const ROOT = resolve(import.meta.dirname, '../..');


let sandbox: Sandbox;
let runtime: Runtime;
let logs: LogSink;
let guildId: string;
const before = prototypeSnapshot();

beforeAll(async () => {
  sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 5 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
  guildId = sandbox.state.guildIds[0]!;
  logs = new LogSink();
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: { plugins: { dirs: ['test/fixtures/plugins/hostile'] }, http: { enabled: false }, transport: 'http', endpoint: { port: 0 } },
  });
  runtime = new Runtime({ config, sandbox, cwd: ROOT, log: createLogger({ level: 'debug', pretty: false, destination: logs }) });
  await runtime.start();
});

afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
  await sandbox?.close();
});

/** POST `payload` to the runtime's interactions endpoint, signed with the application's key. */
async function postSigned(payload: unknown): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(payload);
  // The application's signing key is the sandbox's own (the service's side), not part of its public contract.
  if (!(sandbox.webhooks instanceof WebhookDelivery)) throw new Error('expected the sandbox\'s own webhook delivery');
  const res = await fetch(`${runtime.endpoint!.url!}/interactions`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...sandbox.webhooks.key.headers(body) },
  });
  return { status: res.status, body: await res.text() };
}

/** A real interaction payload for `keys` (answered over HTTP), to alter before sending it again. */
async function keysPayload(): Promise<Record<string, any>> {
  const record = await sandbox.invoke({ name: 'keys', guildId, options: JSON.parse('{"__proto__":"p"}') as Record<string, string> });
  await record.firstResponse(5_000);
  return JSON.parse(JSON.stringify(record.payload)) as Record<string, any>;
}

describe('malformed interactions over the signed endpoint', () => {
  it('an object value for a STRING option is never routed, so no handler sees it as properties', async () => {
    const payload = await keysPayload();
    const malformedBefore = runtime.malformedPayloads;
    payload.id = '1200000000000000002';
    payload.data.options = JSON.parse('[{"type":3,"name":"__proto__","value":{"admin":true}}]');
    const answer = await postSigned(payload);
    // The handler would have answered inline (200 with its JSON of what it saw).
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('data.options[0].value');
    expect(runtime.malformedPayloads).toBe(malformedBefore + 1);
    expect(runtime.interactionsInFlight).toBe(0);
    expect(prototypeSnapshot()).toEqual(before);
  });

  it('an interaction without a user or member is never routed', async () => {
    const payload = await keysPayload();
    payload.id = '1200000000000000003';
    delete payload.member;
    delete payload.user;
    const answer = await postSigned(payload);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('user');
    expect(logs.lines.some((l) => l.msg === 'interaction routing failed')).toBe(false);
  });
});

describe('requests to paths the endpoint does not serve', () => {
  it('are counted under one label, so unsigned requests to made-up paths cannot grow the counts (and metrics) without bound', async () => {
    const url = runtime.endpoint!.url!;
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${url}/made-up-${i}`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(404);
      await res.arrayBuffer();
    }
    const keys = [...runtime.endpointRequests.keys()];
    expect(keys.filter((k) => k.includes('made-up'))).toEqual([]);
    expect(runtime.endpointRequests.get('(other)\tnot-found\t404')).toBe(50);
  });
});
