/**
 * The response state machine of a command context, through the real REST client and the real interaction
 * transport, against an HTTP server on 127.0.0.1 that can hold a callback in flight (the races need a slow
 * service, which the sandbox does not offer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { APIChatInputApplicationCommandInteraction } from 'discord-api-types/v10';
import { CommandContext } from '../../src/interactions/context.js';
import { FollowUpLimitError, InteractionStateError } from '../../src/interactions/errors.js';
import { InteractionRouter } from '../../src/interactions/router.js';
import { RestClient } from '../../src/rest/index.js';
import { createLogger } from '../../src/runtime/logger.js';
import { interactionTransport } from '../../src/runtime/rest-adapters.js';
import { startFakeApi, type FakeApi, type RecordedRequest } from '../rest/helpers/fake-api.js';
import { LogSink } from '../helpers/log-sink.js';

const APP = '100000000000000001';
const TOKEN = 'interaction-token-abc';


function interaction(owners: Record<string, string> = { '0': '200000000000000001' }): APIChatInputApplicationCommandInteraction {
  return {
    id: '300000000000000001',
    application_id: APP,
    type: 2,
    token: TOKEN,
    version: 1,
    locale: 'en-US',
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: owners,
    attachment_size_limit: 10 * 1024 * 1024,
    user: { id: '400000000000000001', username: 'ann', discriminator: '0', global_name: null, avatar: null },
    data: { id: '500000000000000001', name: 'slow', type: 1 },
  } as unknown as APIChatInputApplicationCommandInteraction;
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(): Promise<{ api: FakeApi; rest: RestClient; logs: LogSink }> {
  const api = await startFakeApi();
  open.push(api);
  const rest = new RestClient({ baseUrl: api.baseUrl, token: 'context-test-bot-token', retries: 0 });
  open.push(rest);
  return { api, rest, logs: new LogSink() };
}

function contextFor(rest: RestClient, logs: LogSink, owners?: Record<string, string>): CommandContext {
  const log = createLogger({ level: 'debug', pretty: false, destination: logs });
  return new CommandContext(interaction(owners), interactionTransport(rest), { log, config: {}, cache: null, plugin: null }, {}, []);
}

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const callbacks = (api: FakeApi): RecordedRequest[] => api.requests.filter((r) => r.path.endsWith('/callback'));
const bodyOf = (r: RecordedRequest): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

describe('CommandContext', () => {
  it('a reply made while the deadline guard is deferring fills in the deferred message', async () => {
    const { api, rest, logs } = await setup();
    // The guard's defer stays on the wire long enough for the handler to reply meanwhile.
    api.script('POST', /\/callback$/, [{ status: 204, delayMs: 800 }]);
    const log = createLogger({ level: 'debug', pretty: false, destination: logs });
    const router = new InteractionRouter({
      transport: interactionTransport(rest),
      log,
      deferAfterMs: 20,
      servicesFor: () => ({ log, config: {}, cache: null, plugin: null }),
    });
    router.add('test', {
      name: 'slow',
      async run(ctx) {
        await until(() => callbacks(api).length === 1, 'the guard to defer');
        await ctx.reply('done');
      },
    });
    await router.handle(interaction());

    expect(logs.lines.filter((l) => l.msg === 'command handler failed')).toEqual([]);
    expect(api.requests.map((r) => `${r.method} ${r.path.replace(TOKEN, '{token}')}`)).toEqual([
      'POST /interactions/300000000000000001/{token}/callback',
      `PATCH /webhooks/${APP}/{token}/messages/@original`,
    ]);
    expect(bodyOf(api.requests[0]!)).toEqual({ type: 5 });
    expect(bodyOf(api.requests[1]!)).toEqual({ content: 'done' });
  });

  it('a reply queued behind a defer that fails acknowledges the interaction itself', async () => {
    const { api, rest, logs } = await setup();
    api.script('POST', /\/callback$/, [{ status: 400, delayMs: 300, body: { message: 'Bad', code: 0 } }, { status: 204 }]);
    const ctx = contextFor(rest, logs);
    const deferred = ctx.defer().catch((e: unknown) => e);
    const replied = ctx.reply('answer');
    expect(await deferred).toMatchObject({ status: 400 });
    await replied;
    expect(callbacks(api).map(bodyOf)).toEqual([{ type: 5 }, { type: 4, data: { content: 'answer' } }]);
    expect(ctx.state).toBe('replied');
  });

  it('a second reply is refused locally and sends nothing', async () => {
    const { api, rest, logs } = await setup();
    const ctx = contextFor(rest, logs);
    await ctx.reply('one');
    await expect(ctx.reply('two')).rejects.toBeInstanceOf(InteractionStateError);
    await expect(ctx.showModal({ custom_id: 'm', title: 't', components: [] })).rejects.toBeInstanceOf(InteractionStateError);
    expect(api.requests).toHaveLength(1);
  });

  it('says why a modal after a defer is refused', async () => {
    const { api, rest, logs } = await setup();
    const ctx = contextFor(rest, logs);
    await ctx.defer();
    const err = await ctx.showModal({ custom_id: 'm', title: 't', components: [] }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      'cannot show a modal: this interaction was already deferred (a modal or an Activity launch must be the first answer; a handler that has not answered in time is deferred automatically)',
    );
    expect(api.requests).toHaveLength(1);
  });

  it('editReply drops only the EPHEMERAL flag (components v2 are sent through the original response)', async () => {
    const { api, rest, logs } = await setup();
    const ctx = contextFor(rest, logs);
    await ctx.defer({ ephemeral: true });
    await ctx.editReply({ components: [{ type: 10, content: 'hello' }] as never, flags: (1 << 15) | (1 << 6) });
    await ctx.editReply({ content: 'plain', ephemeral: true });
    const patches = api.requests.filter((r) => r.method === 'PATCH').map(bodyOf);
    expect(patches).toEqual([{ components: [{ type: 10, content: 'hello' }], flags: 1 << 15 }, { content: 'plain' }]);
  });

  it('refuses to make a public reply ephemeral by an edit, and sends nothing', async () => {
    const { api, rest, logs } = await setup();
    const ctx = contextFor(rest, logs);
    await ctx.reply('public answer');
    const err = await ctx.editReply({ content: 'secret', ephemeral: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InteractionStateError);
    expect((err as Error).message).toMatch(/cannot make a public reply ephemeral/);
    expect(api.requests).toHaveLength(1);
  });

  it('a follow-up refused before the interaction is answered does not count toward the limit of five', async () => {
    const { api, rest, logs } = await setup();
    api.onAny((r) => (r.method === 'POST' && r.path.startsWith('/webhooks/') ? { status: 200, body: { id: String(r.seq) } } : undefined));
    const ctx = contextFor(rest, logs, { '1': '400000000000000001' });
    await expect(ctx.followUp('too early')).rejects.toBeInstanceOf(InteractionStateError);
    await ctx.defer();
    for (let i = 0; i < 5; i++) await ctx.followUp(`follow-up ${i + 1}`);
    await expect(ctx.followUp('sixth')).rejects.toBeInstanceOf(FollowUpLimitError);
    expect(api.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/webhooks/'))).toHaveLength(5);
  });

  it('guild-installed interactions are not held to the follow-up limit', async () => {
    const { api, rest, logs } = await setup();
    api.onAny((r) => (r.method === 'POST' && r.path.startsWith('/webhooks/') ? { status: 200, body: { id: String(r.seq) } } : undefined));
    const ctx = contextFor(rest, logs, { '0': '200000000000000001', '1': '400000000000000001' });
    await ctx.reply('first');
    for (let i = 0; i < 6; i++) await ctx.followUp(`follow-up ${i + 1}`);
    expect(api.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/webhooks/'))).toHaveLength(6);
  });
});
