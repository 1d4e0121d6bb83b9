/**
 * One intake pipeline: a gateway interaction, an HTTP interaction and a webhook event go through the same code
 * (runtime/intake/pipeline.ts: one admission with its dedupe, one cache verdict, one routing), and a defect
 * injected into that one place fails all three. Over real sockets against the sandbox, transport "both".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { IntakePipeline } from '../../src/runtime/intake/pipeline.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, startBot, until } from '../plugins/helpers.js';

type Stage = 'deliver' | 'admit' | 'verdict' | 'route';
/** The pipeline's private stages, reached through its prototype (the code every source runs). */
const stages = IntakePipeline.prototype as unknown as Record<Stage, (...args: unknown[]) => unknown>;

let sandbox: Sandbox;
let runtime: Runtime;
let listener: typeof import('../fixtures/plugins/webhooks/listener.js');
let guildId: string;

beforeAll(async () => {
  sandbox = await newSandbox();
  guildId = sandbox.state.guildIds[0]!;
  listener = await import('../fixtures/plugins/webhooks/listener.js');
  ({ runtime } = await startBot(sandbox, ['plugins', 'test/fixtures/plugins/webhooks'], {
    overrides: { plugins: { dirs: ['plugins', 'test/fixtures/plugins/webhooks'] }, transport: 'both', endpoint: { port: 0 } },
  }));
});
afterAll(async () => {
  await runtime.stop({ graceMs: 500 });
  await sandbox.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  listener.seen.length = 0;
});

/** What reached the bot by each way: the answers the sandbox recorded, and the webhook event at the plugin. */
async function sendAllThree(waitMs: number): Promise<{ gateway: boolean; http: boolean; webhook: boolean }> {
  const endpoint = `${runtime.endpoint!.url!}/interactions`;
  // Without an interactions endpoint URL the sandbox sends interactions over the gateway, as the service does.
  await sandbox.webhooks.setInteractionsEndpoint(null);
  const overGateway = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
  const gateway = await overGateway.firstResponse(waitMs).then(() => true, () => false);
  await sandbox.webhooks.setInteractionsEndpoint(endpoint);
  const overHttp = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
  const http = await overHttp.firstResponse(waitMs).then(() => true, () => false);
  expect(sandbox.webhooks.deliveryOf(overHttp.id)).toBeDefined();
  const install = sandbox.webhooks.install({ guildId })!;
  await sandbox.webhooks.settled(install.id);
  const webhook = await until(() => listener.seen.some((s) => s.event === 'applicationAuthorized'), 'the webhook event', waitMs).then(() => true, () => false);
  return { gateway, http, webhook };
}

describe('the intake pipeline', () => {
  it('every source runs the same stages: one admission, one cache verdict, one routing', async () => {
    const calls = new Map<Stage, number[]>();
    for (const stage of ['deliver', 'admit', 'verdict', 'route'] as const) {
      const original = stages[stage]!;
      vi.spyOn(stages, stage).mockImplementation(function (this: IntakePipeline, ...args: unknown[]) {
        // deliver, verdict and route take the source first; admit is source-blind (type and payload).
        const list = calls.get(stage) ?? [];
        list.push(stage === 'admit' ? -1 : (args[0] as number));
        calls.set(stage, list);
        return original.apply(this, args);
      });
    }
    expect(await sendAllThree(5_000)).toEqual({ gateway: true, http: true, webhook: true });
    const sources = (stage: Stage): number[] => [...new Set(calls.get(stage) ?? [])].sort();
    expect(sources('deliver')).toEqual([0, 1, 2]); // gateway, http, webhook
    expect(sources('verdict')).toEqual([0, 1, 2]);
    expect(sources('route')).toEqual([0, 1]); // interactions only
    expect((calls.get('admit') ?? []).length).toBe((calls.get('deliver') ?? []).length);
  });

  it('a defect in that one place (every delivery judged a second copy) fails all three', async () => {
    vi.spyOn(stages, 'admit').mockReturnValue(1);
    expect(await sendAllThree(1_500)).toEqual({ gateway: false, http: false, webhook: false });
  });

  it('and so does one in the cache verdict or the routing', async () => {
    vi.spyOn(stages, 'verdict').mockReturnValue(false);
    vi.spyOn(stages, 'route').mockReturnValue(Promise.resolve());
    // Interactions are no longer routed, and the typed webhook event is held back (only `webhookEvent` comes).
    const outcome = await sendAllThree(1_500);
    expect(outcome).toEqual({ gateway: false, http: false, webhook: false });
    expect(listener.seen.map((s) => s.event)).toEqual(['webhookEvent']);
  });
});
