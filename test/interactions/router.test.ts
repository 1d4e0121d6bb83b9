/** Routing: scope (guild before global), command type, subcommand path, and the answers the router gives itself. */
import { afterEach, describe, expect, it } from 'vitest';
import type { APIInteraction } from 'discord-api-types/v10';
import { InteractionRouter, type RouterOptions } from '../../src/interactions/router.js';
import { RestClient } from '../../src/rest/index.js';
import { createLogger } from '../../src/runtime/logger.js';
import { interactionTransport } from '../../src/runtime/rest-adapters.js';
import { startFakeApi, type FakeApi } from '../rest/helpers/fake-api.js';
import { LogSink } from '../helpers/log-sink.js';


const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

let seq = 0;
function interaction(data: Record<string, unknown>, type = 2, guildId: string | undefined = '700000000000000001'): APIInteraction {
  seq++;
  return {
    id: String(800000000000000000n + BigInt(seq)),
    application_id: '100000000000000001',
    type,
    token: `token-${seq}`,
    version: 1,
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: { '0': guildId ?? '0' },
    ...(guildId !== undefined
      ? { guild_id: guildId, member: { user: { id: '9', username: 'u', discriminator: '0', global_name: null, avatar: null } } }
      : { user: { id: '9', username: 'u', discriminator: '0', global_name: null, avatar: null } }),
    data: { id: '1', type: 1, ...data },
  } as unknown as APIInteraction;
}

async function setup(
  extra: Pick<RouterOptions<unknown, unknown>, 'unhandledWarnMs' | 'unhandled' | 'now'> = {},
): Promise<{ api: FakeApi; router: InteractionRouter; logs: LogSink; answers: () => string[] }> {
  const api = await startFakeApi();
  open.push(api);
  const rest = new RestClient({ baseUrl: api.baseUrl, token: 'router-test-bot-token', retries: 0 });
  open.push(rest);
  const logs = new LogSink();
  const log = createLogger({ level: 'debug', pretty: false, destination: logs });
  const router = new InteractionRouter({ transport: interactionTransport(rest), log, servicesFor: () => ({ log, config: {}, cache: null, plugin: null }), ...extra });
  const answers = (): string[] =>
    api.requests.map((r) => {
      const body = JSON.parse(r.body) as { type: number; data?: { content?: string; choices?: Array<{ name: string }> } };
      return body.data?.content ?? (body.data?.choices ?? []).map((c) => c.name).join(',');
    });
  return { api, router, logs, answers };
}

describe('InteractionRouter', () => {
  it('prefers the guild registration of a guild command, else the global one', async () => {
    const { router, answers } = await setup();
    router.add('global', { name: 'info', run: (ctx) => ctx.reply('global info') });
    router.add('local', { name: 'info', run: (ctx) => ctx.reply('guild info') }, { guildIds: ['700000000000000001'] });
    await router.handle(interaction({ name: 'info', guild_id: '700000000000000001' }));
    await router.handle(interaction({ name: 'info' }));
    // Invoked in a guild, a global command carries no data.guild_id: the global route answers.
    await router.handle(interaction({ name: 'info' }, 2, '700000000000000002'));
    expect(answers()).toEqual(['guild info', 'global info', 'global info']);
  });

  it('keeps command types apart and finds the handler declared on the subcommand path, or the closest outer one', async () => {
    const { router, answers } = await setup();
    router.add('p', { type: 2, name: 'Who', run: (ctx) => ctx.reply(`user ${ctx.targetId}`) });
    router.add('p', {
      name: 'Who'.toLowerCase(),
      run: (ctx) => ctx.reply(`outer ${ctx.path.join(' ')}`),
      options: [
        { type: 1, name: 'own', run: (ctx) => ctx.reply(`own ${String(ctx.options.n)}`) },
        { type: 2, name: 'grp', options: [{ type: 1, name: 'leaf' }] },
      ],
    });
    await router.handle(interaction({ name: 'Who', type: 2, target_id: '55' }));
    await router.handle(interaction({ name: 'who', options: [{ type: 1, name: 'own', options: [{ type: 4, name: 'n', value: 3 }] }] }));
    await router.handle(interaction({ name: 'who', options: [{ type: 2, name: 'grp', options: [{ type: 1, name: 'leaf', options: [] }] }] }));
    expect(answers()).toEqual(['user 55', 'own 3', 'outer grp leaf']);
  });

  it('answers a command nobody handles with an ephemeral "not available right now", and logs it', async () => {
    const { api, router, logs } = await setup();
    await router.handle(interaction({ name: 'ghost' }));
    expect(api.requests).toHaveLength(1);
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ type: 4, data: { content: 'This command is not available right now.', flags: 64 } });
    expect(logs.lines.find((l) => l.msg === 'no plugin handles this command')).toMatchObject({ command: 'ghost' });
  });

  it('warns about unhandled components once per minute per custom_id pattern, not per raw id', async () => {
    let now = 0;
    const { router, logs } = await setup({ unhandled: () => null, now: () => now });
    const component = (customId: string) => ({ ...interaction({}, 3), data: { custom_id: customId, component_type: 2 } }) as unknown as APIInteraction;
    const warned = () => logs.lines.filter((l) => l.msg === 'no plugin handles this component');
    // Ten minutes of clicks, every button with an id of its own (one per 100 ms), two kinds of button.
    for (let i = 0; i < 6_000; i++) {
      await router.handle(component(`vote:${900000000000000000n + BigInt(i)}:${i % 2 === 0 ? 'yes' : 'no'}`));
      now += 100;
    }
    expect(warned()).toHaveLength(20);
    expect(warned()[2]).toMatchObject({ repeats: 299 });
  });

  it('answers a component or modal nobody handles the same way, and an autocomplete with no choices', async () => {
    const kinds: string[] = [];
    const { api, router } = await setup({ unhandled: (kind) => (kinds.push(kind), { content: `no ${kind}`, flags: 64 }) });
    await router.handle({ ...interaction({}, 3), data: { custom_id: 'gone', component_type: 2 } } as unknown as APIInteraction);
    await router.handle({ ...interaction({}, 5), data: { custom_id: 'gone-form', components: [] } } as unknown as APIInteraction);
    await router.handle(interaction({ name: 'ghost', options: [{ type: 3, name: 'q', value: 'a', focused: true }] }, 4));
    expect(kinds).toEqual(['component', 'modal', 'autocomplete']);
    expect(api.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { type: 4, data: { content: 'no component', flags: 64 } },
      { type: 4, data: { content: 'no modal', flags: 64 } },
      { type: 8, data: { choices: [] } },
    ]);
  });

  it('answers an unhandled interaction with what `unhandled` says, or not at all when it says null', async () => {
    const kinds: string[] = [];
    const { api, router } = await setup({
      unhandled: (kind, i) => {
        kinds.push(kind);
        return (i as { locale?: string }).locale === 'de' ? { content: 'Gerade nicht verfügbar.', flags: 64 } : null;
      },
    });
    await router.handle({ ...interaction({ name: 'ghost' }), locale: 'de' } as APIInteraction);
    await router.handle({ ...interaction({ name: 'ghost' }), locale: 'fr' } as APIInteraction);
    expect(kinds).toEqual(['command', 'command']);
    expect(api.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([{ type: 4, data: { content: 'Gerade nicht verfügbar.', flags: 64 } }]);
  });

  it('warns about an unhandled command once per window, counting the repeats, not once per interaction', async () => {
    // Left unanswered here (unhandled: null), so that the loop makes no REST call and stays inside the window.
    const { router, logs } = await setup({ unhandledWarnMs: 300, unhandled: () => null });
    const warned = () => logs.lines.filter((l) => l.msg === 'no plugin handles this command');
    for (let i = 0; i < 50; i++) await router.handle(interaction({ name: 'ghost' }));
    await router.handle(interaction({ name: 'other-ghost' }));
    expect(warned().map((l) => l.command)).toEqual(['ghost', 'other-ghost']);
    await new Promise((r) => setTimeout(r, 350));
    await router.handle(interaction({ name: 'ghost' }));
    expect(warned()).toHaveLength(3);
    expect(warned()[2]).toMatchObject({ command: 'ghost', repeats: 49 });
    // Components and modals nobody handles are limited the same way.
    const component = (customId: string) => ({ ...interaction({}, 3), data: { custom_id: customId, component_type: 2 } }) as unknown as APIInteraction;
    for (let i = 0; i < 5; i++) await router.handle(component('gone:1'));
    expect(logs.lines.filter((l) => l.msg === 'no plugin handles this component')).toHaveLength(1);
  });

  it('refuses a second plugin routing the same type, name and scope', async () => {
    const { router } = await setup();
    router.add('a', { name: 'x', run: () => undefined });
    router.add('b', { name: 'x', run: () => undefined }, { guildIds: ['1'] });
    expect(() => router.add('b', { name: 'x', run: () => undefined })).toThrow(/already declared by plugin "a"/);
  });

  it('autocomplete: the focused option reaches the handler; a throwing or absent handler still gets an empty answer', async () => {
    const { router, answers, logs } = await setup();
    router.add('p', {
      name: 'pick',
      autocomplete: (ctx) => [{ name: `typed ${String(ctx.focused.value)} with ${String(ctx.options.other)}`, value: 'v' }],
    });
    router.add('p', { name: 'bad', autocomplete: () => { throw new Error('nope'); } });
    const focused = (value: string) => [{ type: 3, name: 'q', value, focused: true }, { type: 4, name: 'other', value: 7 }];
    await router.handle(interaction({ name: 'pick', options: focused('ab') }, 4));
    await router.handle(interaction({ name: 'bad', options: focused('x') }, 4));
    expect(answers()).toEqual(['typed ab with 7', '']);
    expect(logs.lines.find((l) => l.msg === 'autocomplete handler failed')).toMatchObject({ command: 'bad', option: 'q' });
  });
});
