/**
 * Every initial response type travels as the HTTP body, including the component-only ones (deferred update 6,
 * update 7): the sandbox delivers real command and component interactions to an HttpEndpoint whose intake
 * answers through `endpoint.transport(rest)`, the way the router's contexts do, and records what it got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIInteractionResponse } from 'discord-api-types/v10';
import { createSandbox, type InteractionRecord, type Sandbox } from '../../src/sandbox/index.js';
import { RestClient, createGlobalCommand } from '../../src/rest/index.js';
import { HttpEndpoint } from '../../src/runtime/http-endpoint.js';
import { interactionTransport } from '../../src/runtime/rest-adapters.js';
import { loadConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/runtime/logger.js';
import type { ReceivedInteraction } from '../../src/transports/http/index.js';

describe('initial responses over HTTP', () => {
  let sandbox: Sandbox;
  let rest: RestClient;
  let endpoint: HttpEndpoint;
  let guildId: string;
  /** What the intake answers, by custom_id (components) or command name. */
  const answers = new Map<string, APIInteractionResponse | 'nothing' | 'hang'>();
  let unhang: () => void = () => undefined;
  const afterwards: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    sandbox = await createSandbox({ activities: true, seed: { guilds: 1, membersPerGuild: 3 } });
    guildId = sandbox.state.guildIds[0]!;
    rest = new RestClient({ baseUrl: sandbox.restUrl, token: sandbox.botToken, logger: silentLogger() });
    await createGlobalCommand(rest, sandbox.applicationId, { name: 'panel', description: 'A panel with buttons' });
    await createGlobalCommand(rest, sandbox.applicationId, { name: 'quiet', description: 'Answers through the callback endpoint' });
    const config = loadConfig({ cwd: process.cwd(), env: {}, overrides: { transport: 'http', endpoint: { port: 0, deadlineMs: 2_900 } } });
    endpoint = new HttpEndpoint({
      config: config.endpoint,
      publicKeyHex: sandbox.webhooks.publicKey,
      log: silentLogger(),
      events: { accepting: () => true, deliver: () => undefined },
      interactions: {
        take: (interaction: ReceivedInteraction) => {
          const i = interaction as ReceivedInteraction & { token: string; data: { name?: string; custom_id?: string } };
          const answer = answers.get(i.data.custom_id ?? i.data.name ?? '');
          if (answer === undefined || answer === 'nothing') return Promise.resolve();
          if (answer === 'hang') return new Promise<void>((r) => (unhang = r));
          const transport = endpoint.transport(interactionTransport(rest));
          return (async () => {
            await transport.callback(i.id, i.token, answer);
            // A second initial response goes to the callback endpoint, where the service refuses it.
            afterwards.push(transport.callback(i.id, i.token, answer).catch((err: unknown) => err));
          })();
        },
      },
    });
    await endpoint.listen();
    await sandbox.webhooks.setInteractionsEndpoint(`${endpoint.url!}/interactions`);
  });
  afterAll(async () => {
    await endpoint.close();
    rest.close();
    await sandbox.close();
  });

  async function inline(record: InteractionRecord): Promise<void> {
    const d = await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(record.id)!.id);
    expect(d.answer).toEqual({ kind: 'inline', status: 200 });
  }

  it('a message (4), then an update (7) and a deferred update (6) of it from its buttons', async () => {
    answers.set('panel', {
      type: 4,
      data: {
        content: 'pick one',
        components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }, { type: 2, style: 2, label: 'Later', custom_id: 'later' }] }],
      },
    });
    answers.set('go', { type: 7, data: { content: 'updated' } });
    answers.set('later', { type: 6 });
    const panel = await sandbox.invoke({ name: 'panel', guildId });
    expect((await panel.firstResponse(3_000)).type).toBe(4);
    await inline(panel);
    const messageId = String(panel.original!.id);

    const go = await sandbox.component({ messageId, customId: 'go' });
    expect(await go.firstResponse(3_000)).toEqual({ type: 7, data: { content: 'updated' } });
    await inline(go);
    expect(panel.original?.content).toBe('updated');

    const later = await sandbox.component({ messageId, customId: 'later' });
    expect(await later.firstResponse(3_000)).toEqual({ type: 6 });
    await inline(later);

    const refused = await Promise.all(afterwards.splice(0));
    for (const err of refused) expect((err as { code?: number }).code).toBe(40060);
  });

  it('a deferred message (5) and a launch (12) are bodies too', async () => {
    answers.set('panel', { type: 5, data: { flags: 64 } });
    const deferred = await sandbox.invoke({ name: 'panel', guildId });
    expect(await deferred.firstResponse(3_000)).toEqual({ type: 5, data: { flags: 64 } });
    await inline(deferred);
    answers.set('panel', { type: 12 });
    const launch = await sandbox.invoke({ name: 'panel', guildId });
    expect(await launch.firstResponse(3_000)).toEqual({ type: 12 });
    await inline(launch);
    await Promise.all(afterwards.splice(0));
  });

  it('an interaction nobody answers is released with 202 once its handling is over', async () => {
    answers.set('quiet', 'nothing');
    const quiet = await sandbox.invoke({ name: 'quiet', guildId });
    const d = await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(quiet.id)!.id);
    expect(d.answer).toEqual({ kind: 'callback', status: 202 });
    // Released when the handling ended, not at the deadline (2.9 s here; half of it leaves room for a busy machine).
    expect(d.attempts[0]!.durationMs).toBeLessThan(1_450);
    expect(quiet.callbacks).toEqual([]);
    expect(endpoint.responses.size).toBe(0);
  });

  it('a handler that neither answers nor ends is released with 202 at the deadline; later answers go to REST', async () => {
    answers.set('quiet', 'hang');
    const quiet = await sandbox.invoke({ name: 'quiet', guildId });
    const d = await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(quiet.id)!.id);
    expect(d.answer).toEqual({ kind: 'callback', status: 202 });
    expect(d.attempts[0]!.durationMs).toBeGreaterThanOrEqual(2_800);
    expect(endpoint.responses.size).toBe(0);
    expect(endpoint.responses.answer(quiet.id, { type: 5 })).toBeNull();
    unhang();
  });
});
