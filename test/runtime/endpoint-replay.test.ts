/**
 * A captured signed request replayed later, with the widest timestamp window the configuration allows (an
 * hour): the signature still checks out and the timestamp is still inside the window, so only the dedupe
 * memory stands between the replay and a second handling. It must remember for as long as the window lets a
 * replay in. The clock (Date.now, which the endpoint, the dedupe memory and the sandbox's signer read) is
 * moved forward instead of waiting; everything runs over real sockets against the sandbox.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { WebhookDelivery } from '../../src/sandbox/delivery/webhooks.js';
import { loadConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';

const ROOT = resolve(import.meta.dirname, '../..');
const realNow = Date.now.bind(Date);
let offsetMs = 0;

let sandbox: Sandbox;
let runtime: Runtime;
let listener: typeof import('../fixtures/plugins/webhooks/listener.js');
let once: { runs: Map<string, number> };

beforeAll(async () => {
  // Installed before anything reads the clock, so that every part of both sides sees the same moved time.
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
  sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 5 }, gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 } });
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: {
      plugins: { dirs: ['test/fixtures/plugins/webhooks', 'test/fixtures/plugins/once'] },
      http: { enabled: false },
      transport: 'http',
      endpoint: { port: 0, timestampWindowSeconds: 3_600 },
    },
  });
  runtime = new Runtime({ config, sandbox, cwd: ROOT, log: silentLogger() });
  await runtime.start();
  listener = await import('../fixtures/plugins/webhooks/listener.js');
  once = (await import('../fixtures/plugins/once/once.js')) as { runs: Map<string, number> };
});

afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
  await sandbox?.close();
  vi.restoreAllMocks();
});

/** Wait (bounded) until `check` holds. */
async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = realNow() + timeoutMs;
  while (!check()) {
    if (realNow() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A request as captured on the wire: body and signature headers, signed now. */
function capture(path: string, payload: unknown): { path: string; body: string; headers: Record<string, string> } {
  if (!(sandbox.webhooks instanceof WebhookDelivery)) throw new Error('expected the sandbox\'s own webhook delivery');
  const body = JSON.stringify(payload);
  return { path, body, headers: { 'content-type': 'application/json', ...sandbox.webhooks.key.headers(body) } };
}

async function send(request: { path: string; body: string; headers: Record<string, string> }): Promise<number> {
  const res = await fetch(`${runtime.endpoint!.url!}${request.path}`, { method: 'POST', body: request.body, headers: request.headers });
  await res.arrayBuffer();
  return res.status;
}

describe('a replay inside the timestamp window, after the default dedupe memory would have forgotten', () => {
  it('a webhook event replayed 40 minutes later is not applied again', async () => {
    const event = {
      version: 1,
      application_id: runtime.applicationId,
      type: 1,
      event: { type: 'QUEST_USER_ENROLLMENT', timestamp: new Date(Date.now()).toISOString(), data: { replay: 'probe' } },
    };
    const captured = capture('/events', event);
    const ofProbe = (): number => listener.seen.filter((s) => s.event === 'webhookEvent' && JSON.stringify(s.payload).includes('probe')).length;
    expect(await send(captured)).toBe(204);
    await until(() => ofProbe() === 1, 'the event');
    offsetMs += 40 * 60_000;
    expect(await send(captured)).toBe(204);
    // The handling runs after the 204; give it the time it takes many times over before looking.
    await new Promise((r) => setTimeout(r, 300));
    expect(ofProbe()).toBe(1);
  });

  it('an interaction replayed 20 minutes later is not handled again', async () => {
    const record = await sandbox.invoke({ name: 'once', guildId: sandbox.state.guildIds[0]! });
    await record.firstResponse(5_000);
    expect(once.runs.get(record.id)).toBe(1);
    const captured = capture('/interactions', record.payload);
    offsetMs += 20 * 60_000;
    expect(await send(captured)).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(once.runs.get(record.id)).toBe(1);
  });
});
