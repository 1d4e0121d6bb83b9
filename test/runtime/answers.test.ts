/**
 * Every interaction gets an answer: one for a command no plugin handles is answered ephemerally "not available
 * right now" (in the user's language when configured) over the gateway and over HTTP, and counted; and an HTTP
 * interaction sent during the stop's drain window (readiness already 503) is answered. The sandbox records the
 * answers; a command the bot never declared is registered straight through REST, as a stale registration is.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createGlobalCommand } from '../../src/rest/index.js';
import { createMetrics } from '../../src/runtime/metrics.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, startBot } from '../plugins/helpers.js';

let sandbox: Sandbox;
const running: Runtime[] = [];

beforeAll(async () => {
  sandbox = await newSandbox();
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop({ graceMs: 500 })));
});

async function bot(transport: 'gateway' | 'both', extra: Record<string, unknown> = {}): Promise<Runtime> {
  const { runtime } = await startBot(sandbox, ['plugins'], { overrides: { transport, endpoint: { port: 0, ...extra }, commands: { unavailableTextLocalizations: { de: 'Dieser Befehl ist gerade nicht verfügbar.' } } } });
  running.push(runtime);
  return runtime;
}

/** A command registered with the service that no plugin declares (left over from an older version, say). */
async function ghost(runtime: Runtime): Promise<void> {
  await createGlobalCommand(runtime.rest, runtime.applicationId, { name: 'ghost', description: 'Nobody handles this' });
}

describe('an interaction no plugin handles', () => {
  for (const transport of ['gateway', 'both'] as const) {
    it(`transport "${transport}": the user gets an ephemeral "not available right now", localized, and it is counted`, async () => {
      const runtime = await bot(transport);
      await ghost(runtime);
      const guildId = sandbox.state.guildIds[0]!;
      const plain = await sandbox.invoke({ name: 'ghost', guildId });
      const german = await sandbox.invoke({ name: 'ghost', guildId, locale: 'de' });
      for (const record of [plain, german]) await record.firstResponse(5_000);
      expect(plain.callbacks[0]).toMatchObject({ type: 4, data: { content: 'This command is not available right now.', flags: 64 } });
      expect(german.callbacks[0]).toMatchObject({ type: 4, data: { content: 'Dieser Befehl ist gerade nicht verfügbar.', flags: 64 } });
      // Over HTTP the answer is the response to the signed request itself.
      if (transport === 'both') expect(sandbox.webhooks.deliveryOf(plain.id)?.answer).toEqual({ kind: 'inline', status: 200 });
      else expect(sandbox.webhooks.deliveryOf(plain.id)).toBeUndefined();
      expect(runtime.unhandledInteractions.get('command')).toBe(2);
      const scrape = parsePrometheusTextFormat(await createMetrics(runtime, { processMetrics: false }).registry.metrics());
      const unhandled = scrape.find((f) => f.name === 'gatehouse_interactions_unhandled_total')!;
      expect(unhandled.metrics).toEqual([{ labels: { kind: 'command' }, value: '2' }]);
    });
  }
});

describe('stopping with the HTTP endpoint', () => {
  it('readiness turns 503 at once, and an interaction sent during the drain window is answered', async () => {
    const runtime = await bot('both', { drainMs: 1_500 });
    const guildId = sandbox.state.guildIds[0]!;
    running.splice(running.indexOf(runtime), 1);
    const stopping = runtime.stop({ graceMs: 1_000 });
    expect(runtime.readiness().ready).toBe(false);
    expect(runtime.state).toBe('stopping');
    // The shards are closed by now or soon; the endpoint keeps answering until the window ends.
    await new Promise((r) => setTimeout(r, 200));
    const during = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
    await during.firstResponse(5_000);
    expect(sandbox.webhooks.deliveryOf(during.id)?.answer).toEqual({ kind: 'inline', status: 200 });
    expect(runtime.state).toBe('stopping');
    await stopping;
    expect(runtime.state).toBe('stopped');
    // Once closed, the sandbox no longer points at the endpoint.
    expect(sandbox.webhooks.interactionsEndpointUrl).toBeNull();
  });
});
