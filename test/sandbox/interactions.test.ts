import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { api, identified, sleep, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const COMMANDS = [
  {
    name: 'roll',
    description: 'Roll a die',
    options: [
      { type: 4, name: 'sides', description: 'Sides', required: true, min_value: 2, max_value: 120, autocomplete: true },
      { type: 3, name: 'label', description: 'Label', max_length: 10 },
      { type: 5, name: 'secret', description: 'Only you see it' },
    ],
  },
  {
    name: 'config',
    description: 'Configure',
    options: [
      {
        type: 2,
        name: 'channel',
        description: 'Channel settings',
        options: [
          {
            type: 1,
            name: 'set',
            description: 'Set it',
            options: [
              { type: 7, name: 'target', description: 'Where', required: true, channel_types: [0] },
              { type: 8, name: 'role', description: 'Who' },
              { type: 6, name: 'user', description: 'Whom' },
              { type: 11, name: 'file', description: 'Attachment' },
              { type: 3, name: 'mode', description: 'Mode', choices: [{ name: 'On', value: 'on' }, { name: 'Off', value: 'off' }] },
            ],
          },
        ],
      },
      { type: 1, name: 'show', description: 'Show' },
    ],
  },
  { name: 'Profile', type: 2 },
  { name: 'Quote', type: 3 },
  { name: 'admin-only', description: 'Admins', default_member_permissions: '0' },
  { name: 'guild-only', description: 'Not in DMs', contexts: [0] },
];

async function setup(options: SandboxOptions = {}) {
  // Roomy per-interaction buckets: these tests make many calls on one interaction on purpose.
  const buckets = { 'interaction.callback': { limit: 100, windowMs: 1000 }, webhook: { limit: 100, windowMs: 1000 }, ...options.rest?.buckets };
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 6, rolesPerGuild: 5, skus: 2 }, ...options, rest: { ...options.rest, buckets } });
  sandboxes.push(sb);
  const put = await api(sb.restUrl, 'PUT', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: COMMANDS });
  expect(put.status).toBe(200);
  const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
  clients.push(client);
  const guildId = sb.state.guildIds[0]!;
  const owner = sb.state.memberIds(guildId)[1]!;
  const plain = sb.state.memberIds(guildId)[4]!;
  return { sb, client, guildId, owner, plain, commands: put.body as Array<{ id: string; name: string }> };
}

const callback = (sb: Sandbox, id: string, token: string, body: unknown, query = '') =>
  api(sb.restUrl, 'POST', `/interactions/${id}/${token}/callback${query}`, { body });

describe('invoke: the INTERACTION_CREATE payload', () => {
  it('delivers a slash command with typed option values, member with permissions and the context fields', async () => {
    const { sb, client, guildId, owner, commands } = await setup();
    const record = await sb.invoke({ name: 'roll', guildId, options: { sides: '20', label: 'd20', secret: 'true' }, locale: 'de' });
    const event = await client.nextDispatch('INTERACTION_CREATE');
    const d = event.d as Record<string, any>;
    expect(d).toEqual(record.payload);
    expect(d).toMatchObject({
      id: record.id,
      application_id: sb.applicationId,
      type: 2,
      token: record.token,
      version: 1,
      guild_id: guildId,
      locale: 'de',
      context: 0,
      authorizing_integration_owners: { '0': guildId },
      attachment_size_limit: 10 * 1024 * 1024,
      data: {
        id: commands.find((c) => c.name === 'roll')!.id,
        name: 'roll',
        type: 1,
        options: [
          { name: 'sides', type: 4, value: 20 },
          { name: 'label', type: 3, value: 'd20' },
          { name: 'secret', type: 5, value: true },
        ],
      },
    });
    expect(d.member.user.id).toBe(owner);
    expect(typeof d.member.permissions).toBe('string');
    // The owner has every defined bit (reference §12.5: 0-46 and 48-52; 47 is not one).
    const defined = ((1n << 53n) - 1n) & ~(1n << 47n);
    expect(BigInt(d.member.permissions)).toBe(defined);
    expect(typeof d.app_permissions).toBe('string');
    expect(d.guild_locale).toEqual(expect.any(String));
    expect(d.channel).toMatchObject({ id: d.channel_id, type: 0 });
    expect(d.user).toBeUndefined();
    expect(Array.isArray(d.entitlements)).toBe(true);
  });

  it('nests subcommand group > subcommand and resolves channels, roles, users, members and attachments', async () => {
    const { sb, client, guildId, plain } = await setup();
    const g = (await client.nextDispatch('GUILD_CREATE')).d as any;
    const channel = g.channels.find((c: any) => c.type === 0).id;
    const role = g.roles.find((r: any) => r.name === 'Moderator').id;
    await sb.invoke({ name: 'config', guildId, subcommand: ['channel', 'set'], options: { target: channel, role, user: plain, file: 'cat.png', mode: 'on' } });
    const d = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(d.data.options).toHaveLength(1);
    expect(d.data.options[0]).toMatchObject({ name: 'channel', type: 2 });
    const sub = d.data.options[0].options[0];
    expect(sub).toMatchObject({ name: 'set', type: 1 });
    const values = Object.fromEntries(sub.options.map((o: any) => [o.name, o.value]));
    expect(values.target).toBe(channel);
    expect(values.role).toBe(role);
    expect(values.user).toBe(plain);
    expect(values.mode).toBe('on');
    const r = d.data.resolved;
    expect(r.channels[channel]).toMatchObject({ id: channel, type: 0, permissions: expect.any(String) });
    expect(r.roles[role]).toMatchObject({ id: role, name: 'Moderator' });
    expect(r.users[plain].id).toBe(plain);
    expect(r.members[plain].user).toBeUndefined();
    expect(r.members[plain].permissions).toEqual(expect.any(String));
    expect(r.attachments[values.file]).toMatchObject({ filename: 'cat.png', content_type: 'image/png' });
  });

  it('sends target_id and resolved data for USER and MESSAGE commands', async () => {
    const { sb, client, guildId, plain } = await setup();
    await sb.invoke({ name: 'Profile', type: 2, guildId, targetId: plain });
    const user = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(user.data).toMatchObject({ type: 2, name: 'Profile', target_id: plain });
    expect(user.data.resolved.users[plain].id).toBe(plain);
    expect(user.data.resolved.members[plain]).toBeDefined();
    await sb.invoke({ name: 'Quote', type: 3, guildId, targetId: '1234567890123456789' });
    const msg = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(msg.data).toMatchObject({ type: 3, target_id: '1234567890123456789' });
    expect(msg.data.resolved.messages['1234567890123456789'].id).toBe('1234567890123456789');
  });

  it('invokes in the bot DM (user, not member; context 1) and as a user-installed app', async () => {
    const { sb, client, owner, guildId } = await setup();
    await sb.invoke({ name: 'roll', options: { sides: 6 } });
    const dm = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(dm.user.id).toBe(owner);
    expect(dm.member).toBeUndefined();
    expect(dm.guild_id).toBeUndefined();
    expect(dm.context).toBe(1);
    expect(dm.channel.type).toBe(1);
    expect(dm.authorizing_integration_owners).toEqual({ '0': '0' });
    // The one DM channel with that user: the one REST opens and serves, so the bot can answer in it.
    const opened = await api(sb.restUrl, 'POST', '/users/@me/channels', { token: sb.botToken, body: { recipient_id: owner } });
    expect(opened.body.id).toBe(dm.channel_id);
    expect(dm.channel.id).toBe(dm.channel_id);
    expect((await api(sb.restUrl, 'GET', `/channels/${dm.channel_id}`, { token: sb.botToken })).status).toBe(200);
    expect((await api(sb.restUrl, 'POST', `/channels/${dm.channel_id}/messages`, { token: sb.botToken, body: { content: 'in the DM' } })).status).toBe(200);
    await sb.invoke({ name: 'roll', guildId, options: { sides: 6 }, integration: 'user' });
    const userInstall = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(userInstall.authorizing_integration_owners).toEqual({ '1': owner });
  });

  it('carries the invoking user entitlements', async () => {
    const { sb, client, guildId, plain } = await setup();
    const id = sb.state.grantEntitlement({ skuId: sb.state.skuIds[0]!, userId: plain });
    await sb.invoke({ name: 'roll', guildId, userId: plain, options: { sides: 6 } });
    const d = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(d.entitlements.map((e: any) => e.id)).toContain(id);
  });
});

describe('invoke: what the client would refuse', () => {
  const refuse = async (p: Promise<unknown>, pattern: RegExp): Promise<void> => {
    const err = await p.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxError);
    expect((err as Error).message).toMatch(pattern);
  };

  it('unknown commands, unknown options, wrong types, out-of-range values, missing required options', async () => {
    const { sb, guildId } = await setup();
    await refuse(sb.invoke({ name: 'nope', guildId }), /no command 'nope'/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { sides: 6, colour: 'red' } }), /unknown option 'colour'/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { sides: 'six' } }), /INTEGER/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { sides: 2.5 } }), /INTEGER/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { sides: 500 } }), /between 2 and 120/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { sides: 6, label: 'much too long label' } }), /characters/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { sides: 6, secret: 'maybe' } }), /BOOLEAN/);
    await refuse(sb.invoke({ name: 'roll', guildId, options: { label: 'x' } }), /'sides' is required/);
  });

  it('subcommand paths, choices and channel types are enforced', async () => {
    const { sb, client, guildId } = await setup();
    const g = (await client.nextDispatch('GUILD_CREATE')).d as any;
    const text = g.channels.find((c: any) => c.type === 0).id;
    const voice = g.channels.find((c: any) => c.type === 2).id;
    await refuse(sb.invoke({ name: 'config', guildId }), /has subcommands/);
    await refuse(sb.invoke({ name: 'config', guildId, subcommand: ['channel'] }), /subcommand group/);
    await refuse(sb.invoke({ name: 'config', guildId, subcommand: ['channel', 'nope'] }), /no subcommand/);
    await refuse(sb.invoke({ name: 'roll', guildId, subcommand: ['x'], options: { sides: 6 } }), /no subcommands/);
    await refuse(sb.invoke({ name: 'config', guildId, subcommand: ['channel', 'set'], options: { target: voice } }), /channel types \[0\]/);
    await refuse(sb.invoke({ name: 'config', guildId, subcommand: ['channel', 'set'], options: { target: text, mode: 'maybe' } }), /choices/);
    await refuse(sb.invoke({ name: 'config', guildId, subcommand: ['channel', 'set'], options: { target: text, role: '123456789012345678' } }), /no role/);
    await sb.invoke({ name: 'config', guildId, subcommand: ['show'] });
    const d = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(d.data.options).toEqual([{ name: 'show', type: 1, options: [] }]);
  });

  it('default_member_permissions "0" hides a command from non-admins; contexts keep guild-only commands out of DMs', async () => {
    const { sb, client, guildId, owner, plain } = await setup();
    await refuse(sb.invoke({ name: 'admin-only', guildId, userId: plain }), /may not use/);
    await sb.invoke({ name: 'admin-only', guildId, userId: owner });
    await client.nextDispatch('INTERACTION_CREATE');
    await refuse(sb.invoke({ name: 'guild-only' }), /context 1/);
  });

  it('command permission overwrites decide for a user (an allowed user may use an admin-only command)', async () => {
    const { sb, client, guildId, plain, commands } = await setup();
    const id = commands.find((c) => c.name === 'admin-only')!.id;
    const path = `/applications/${sb.applicationId}/guilds/${guildId}/commands/${id}/permissions`;
    const r = await api(sb.restUrl, 'PUT', path, { bearer: sb.issueBearerToken(['applications.commands.permissions.update']), body: { permissions: [{ id: plain, type: 2, permission: true }] } });
    expect(r.status).toBe(200);
    await sb.invoke({ name: 'admin-only', guildId, userId: plain });
    expect(((await client.nextDispatch('INTERACTION_CREATE')).d as any).data.name).toBe('admin-only');
  });

  it('refuses when no gateway session would receive the interaction', async () => {
    const sb = await createSandbox();
    sandboxes.push(sb);
    await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'x', description: 'x' } });
    await refuse(sb.invoke({ name: 'x', guildId: sb.state.guildIds[0] }), /no gateway session/);
  });
});

describe('autocomplete', () => {
  it('marks the focused option, allows partial input and missing required options', async () => {
    const { sb, client, guildId } = await setup();
    const record = await sb.autocomplete({ name: 'roll', guildId, focused: 'sides', options: { sides: '1', label: 'x' } });
    const d = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(d.type).toBe(4);
    expect(d.data.options).toEqual([
      { name: 'sides', type: 4, value: 1, focused: true },
      { name: 'label', type: 3, value: 'x' },
    ]);
    const ok = await callback(sb, record.id, record.token, { type: 8, data: { choices: [{ name: 'd6', value: 6 }, { name: 'd20', value: 20 }] } });
    expect(ok.status).toBe(204);
    expect(await record.firstResponse()).toEqual({ type: 8, data: { choices: [{ name: 'd6', value: 6 }, { name: 'd20', value: 20 }] } });
  });

  it('only options with autocomplete can be focused; only type 8 answers; choice values must fit the option', async () => {
    const { sb, guildId } = await setup();
    await expect(sb.autocomplete({ name: 'roll', guildId, focused: 'label' })).rejects.toThrow(/autocomplete/);
    const a = await sb.autocomplete({ name: 'roll', guildId, focused: 'sides' });
    const wrongType = await callback(sb, a.id, a.token, { type: 4, data: { content: 'no' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe(50035);
    const wrongValue = await callback(sb, a.id, a.token, { type: 8, data: { choices: [{ name: 'six', value: 'six' }] } });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.errors.data.choices['0'].value).toBeDefined();
    const tooMany = await callback(sb, a.id, a.token, { type: 8, data: { choices: Array.from({ length: 26 }, (_, i) => ({ name: `n${i}`, value: i })) } });
    expect(tooMany.status).toBe(400);
  });
});

describe('interaction responses', () => {
  it('204 by default; 200 with the callback response with with_response=true; 40060 the second time', async () => {
    const { sb, guildId } = await setup();
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    const first = await callback(sb, a.id, a.token, { type: 4, data: { content: 'You rolled 4', flags: 64 } }, '?with_response=true');
    expect(first.status).toBe(200);
    expect(first.body.interaction).toMatchObject({ id: a.id, type: 2, response_message_id: expect.any(String), response_message_loading: false, response_message_ephemeral: true });
    expect(first.body.resource).toMatchObject({ type: 4, message: { content: 'You rolled 4', flags: 64 } });
    const second = await callback(sb, a.id, a.token, { type: 4, data: { content: 'again' } });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ message: 'Interaction has already been acknowledged.', code: 40060 });
    expect(a.callbacks).toEqual([{ type: 4, data: { content: 'You rolled 4', flags: 64 } }]);
    expect(a.original).toMatchObject({ content: 'You rolled 4' });

    const b = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    const plain = await callback(sb, b.id, b.token, { type: 4, data: { content: 'ok' } });
    expect(plain.status).toBe(204);
    expect(plain.body).toBeUndefined();
  });

  it('10062 for an unknown interaction or token, and after the response deadline', async () => {
    const { sb, guildId } = await setup({ rest: { interactionResponseMs: 100 } });
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    expect((await callback(sb, a.id, 'wrong-token', { type: 4, data: { content: 'x' } })).body.code).toBe(10062);
    expect((await callback(sb, '123456789012345678', a.token, { type: 4, data: { content: 'x' } })).body.code).toBe(10062);
    await sleep(150);
    const late = await callback(sb, a.id, a.token, { type: 4, data: { content: 'x' } });
    expect(late.status).toBe(404);
    expect(late.body).toEqual({ message: 'Unknown interaction', code: 10062 });
  });

  it('validates the response: empty message 50006, content length, flags, callback type for the interaction', async () => {
    const { sb, guildId } = await setup();
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    expect((await callback(sb, a.id, a.token, { type: 4, data: {} })).body).toEqual({ message: 'Cannot send an empty message', code: 50006 });
    expect((await callback(sb, a.id, a.token, { type: 4, data: { content: 'x'.repeat(2001) } })).body.errors.data.content).toBeDefined();
    expect((await callback(sb, a.id, a.token, { type: 5, data: { flags: 4 } })).body.errors.data.flags).toBeDefined();
    expect((await callback(sb, a.id, a.token, { type: 7, data: { content: 'x' } })).body.errors.type).toBeDefined();
    expect((await callback(sb, a.id, a.token, { type: 8, data: { choices: [] } })).body.errors.type).toBeDefined();
    expect((await callback(sb, a.id, a.token, { type: 12 })).body.errors.type).toBeDefined();
    expect((await callback(sb, a.id, a.token, { type: 9, data: { custom_id: 'm', title: 'Title', components: [] } })).body.errors.data.components).toBeDefined();
    // Still unanswered: all of the above were rejected.
    expect(a.callbacks).toEqual([]);
    expect((await callback(sb, a.id, a.token, { type: 9, data: { custom_id: 'm', title: 'Title', components: [{ type: 1, components: [] }] } })).status).toBe(204);
  });

  it('LAUNCH_ACTIVITY (12) works for apps with Activities', async () => {
    const { sb, guildId } = await setup({ activities: true });
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    const r = await callback(sb, a.id, a.token, { type: 12 }, '?with_response=true');
    expect(r.status).toBe(200);
    expect(r.body.resource.activity_instance.id).toEqual(expect.any(String));
  });
});

describe('@original and follow-ups', () => {
  const webhook = (sb: Sandbox, token: string, rest = '') => `/webhooks/${sb.applicationId}/${token}${rest}`;

  it('defer (5), then edit @original: the loading flag goes, the record follows', async () => {
    const { sb, guildId } = await setup();
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    await callback(sb, a.id, a.token, { type: 5 });
    const loading = await api(sb.restUrl, 'GET', webhook(sb, a.token, '/messages/@original'));
    expect(loading.status).toBe(200);
    expect(loading.body.flags & (1 << 7)).toBe(1 << 7);
    const edited = await api(sb.restUrl, 'PATCH', webhook(sb, a.token, '/messages/@original'), { body: { content: 'Rolled 3' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ content: 'Rolled 3', id: loading.body.id });
    expect(edited.body.flags & (1 << 7)).toBe(0);
    expect(a.original).toMatchObject({ content: 'Rolled 3' });
    expect((await api(sb.restUrl, 'DELETE', webhook(sb, a.token, '/messages/@original'))).status).toBe(204);
    expect(a.original).toBeNull();
    expect((await api(sb.restUrl, 'GET', webhook(sb, a.token, '/messages/@original'))).body.code).toBe(10008);
  });

  it('follow-ups: created, fetched, edited, deleted; none before the interaction is acknowledged', async () => {
    const { sb, guildId } = await setup();
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    expect((await api(sb.restUrl, 'POST', webhook(sb, a.token), { body: { content: 'early' } })).body.code).toBe(10015);
    await callback(sb, a.id, a.token, { type: 4, data: { content: 'first' } });
    const f = await api(sb.restUrl, 'POST', webhook(sb, a.token), { body: { content: 'more', flags: 64 } });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ content: 'more', flags: 64, webhook_id: sb.applicationId });
    expect((await api(sb.restUrl, 'GET', webhook(sb, a.token, `/messages/${f.body.id}`))).body.content).toBe('more');
    expect((await api(sb.restUrl, 'PATCH', webhook(sb, a.token, `/messages/${f.body.id}`), { body: { content: 'edited' } })).body.content).toBe('edited');
    expect(a.followups).toEqual([expect.objectContaining({ content: 'edited' })]);
    expect((await api(sb.restUrl, 'POST', webhook(sb, a.token), { body: {} })).body.code).toBe(50006);
    expect((await api(sb.restUrl, 'DELETE', webhook(sb, a.token, `/messages/${f.body.id}`))).status).toBe(204);
    expect(a.followups).toEqual([]);
    expect((await api(sb.restUrl, 'POST', `/webhooks/${sb.applicationId}/not-a-token`, { body: { content: 'x' } })).body.code).toBe(50027);
  });

  it('PATCH @original and follow-ups with files: uploads become attachments, `attachments` names what stays, unknown ids are 50035', async () => {
    const { sb, guildId } = await setup();
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    await callback(sb, a.id, a.token, { type: 5 });
    const patch = (target: string, payload: unknown, files: Array<[string, number]>) => {
      const form = new FormData();
      form.append('payload_json', JSON.stringify(payload));
      files.forEach(([name, size], n) => form.append(`files[${n}]`, new Blob([new Uint8Array(size)], { type: 'image/png' }), name));
      return fetch(`${sb.restUrl}${webhook(sb, a.token, `/messages/${target}`)}`, { method: 'PATCH', body: form }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    };

    const edited = await patch('@original', { content: 'chart', attachments: [{ id: 0, description: 'a chart' }] }, [['chart.png', 2048]]);
    expect(edited.status).toBe(200);
    const chart = edited.body.attachments[0];
    expect(edited.body.attachments).toEqual([
      { id: expect.any(String), filename: 'chart.png', size: 2048, url: expect.stringContaining('/chart.png'), proxy_url: expect.any(String), content_type: 'image/png', description: 'a chart' },
    ]);
    expect((await api(sb.restUrl, 'GET', webhook(sb, a.token, '/messages/@original'))).body.attachments).toEqual([chart]);

    const unknown = await patch('@original', { attachments: [{ id: chart.id }, { id: '123456789012345678' }] }, []);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      message: 'Invalid Form Body',
      code: 50035,
      errors: { attachments: { 1: { _errors: [{ code: 'ATTACHMENT_NOT_FOUND', message: 'Attachment data not found' }] } } },
    });
    expect(a.original!.attachments).toEqual([chart]);

    // A follow-up: without `attachments` the files are added; with it, what is not named goes.
    const f = await api(sb.restUrl, 'POST', webhook(sb, a.token), { body: { content: 'more' } });
    const more = await patch(f.body.id, { content: 'more files' }, [['b.png', 10]]);
    expect(more.body.attachments.map((x: { filename: string }) => x.filename)).toEqual(['b.png']);
    const swapped = await patch(f.body.id, { attachments: [{ id: '0' }] }, [['c.png', 20]]);
    expect(swapped.body.attachments).toEqual([expect.objectContaining({ filename: 'c.png', size: 20 })]);
    expect(a.followups[0]!.attachments).toEqual(swapped.body.attachments);
    // The per-file upload limit of the create path holds here too.
    expect((await patch(f.body.id, {}, [['huge.bin', 10 * 1024 * 1024 + 1]])).status).toBe(413);
  });

  it('the first follow-up after a deferral edits the loading message (legacy behaviour)', async () => {
    const { sb, guildId } = await setup();
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    await callback(sb, a.id, a.token, { type: 5 });
    const f = await api(sb.restUrl, 'POST', webhook(sb, a.token), { body: { content: 'done', flags: 64 } });
    expect(f.body.id).toBe(a.original!.id);
    expect(f.body.content).toBe('done');
    expect(f.body.flags & 64).toBe(0);
    const g = await api(sb.restUrl, 'POST', webhook(sb, a.token), { body: { content: 'second' } });
    expect(g.body.id).not.toBe(a.original!.id);
    expect(a.followups).toHaveLength(1);
  });

  it('user-installed apps get at most 5 follow-ups per interaction (40094); guild installs more', async () => {
    const { sb, guildId } = await setup();
    const u = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 }, integration: 'user' });
    await callback(sb, u.id, u.token, { type: 4, data: { content: 'hi' } });
    for (let i = 0; i < 5; i++) expect((await api(sb.restUrl, 'POST', webhook(sb, u.token), { body: { content: `f${i}` } })).status).toBe(200);
    const sixth = await api(sb.restUrl, 'POST', webhook(sb, u.token), { body: { content: 'f5' } });
    expect(sixth.status).toBe(400);
    expect(sixth.body.code).toBe(40094);
    const g = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    await callback(sb, g.id, g.token, { type: 4, data: { content: 'hi' } });
    for (let i = 0; i < 6; i++) expect((await api(sb.restUrl, 'POST', webhook(sb, g.token), { body: { content: `f${i}` } })).status).toBe(200);
  });

  it('the interaction token expires for webhooks after its lifetime (50027)', async () => {
    const { sb, guildId } = await setup({ rest: { interactionTokenMs: 150 } });
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    await callback(sb, a.id, a.token, { type: 4, data: { content: 'hi' } });
    await sleep(200);
    expect((await api(sb.restUrl, 'GET', webhook(sb, a.token, '/messages/@original'))).body.code).toBe(50027);
  });

  it('webhook and callback routes do not count toward the global limit', async () => {
    const { sb, guildId } = await setup({ rest: { globalPerSecond: 1, buckets: { webhook: { limit: 50, windowMs: 1000 } } } });
    const a = await sb.invoke({ name: 'roll', guildId, options: { sides: 6 } });
    await callback(sb, a.id, a.token, { type: 4, data: { content: 'hi' } });
    for (let i = 0; i < 4; i++) expect((await api(sb.restUrl, 'GET', webhook(sb, a.token, '/messages/@original'))).status).toBe(200);
  });
});
