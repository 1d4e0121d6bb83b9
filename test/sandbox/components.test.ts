import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type ComponentOptions, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function setup() {
  const buckets = { 'interaction.callback': { limit: 100, windowMs: 1000 }, webhook: { limit: 100, windowMs: 1000 } };
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 4 }, rest: { buckets } });
  sandboxes.push(sb);
  await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'menu', description: 'Menu' } });
  const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
  clients.push(client);
  const guildId = sb.state.guildIds[0]!;
  const cb = (id: string, token: string, body: unknown) => api(sb.restUrl, 'POST', `/interactions/${id}/${token}/callback`, { body });
  // The app answers /menu with a button, a select and a disabled button.
  const cmd = await sb.invoke({ name: 'menu', guildId });
  await cb(cmd.id, cmd.token, {
    type: 4,
    data: {
      content: 'Pick one',
      components: [
        {
          type: 1,
          components: [
            { type: 2, style: 1, label: 'Go', custom_id: 'go' },
            { type: 2, style: 2, label: 'Off', custom_id: 'off', disabled: true },
          ],
        },
        { type: 1, components: [{ type: 3, custom_id: 'flavour', options: [{ label: 'A', value: 'a' }, { label: 'B', value: 'b' }], max_values: 2 }] },
      ],
    },
  });
  return { sb, client, guildId, cmd, cb, messageId: cmd.original!.id as string };
}

describe('message components', () => {
  it('a click is a MESSAGE_COMPONENT interaction with custom_id, component_type and the message', async () => {
    const { sb, client, messageId, cmd } = await setup();
    await client.nextDispatch('INTERACTION_CREATE');
    const click = await sb.component({ messageId, customId: 'go' });
    const d = (await client.nextDispatch('INTERACTION_CREATE')).d as any;
    expect(d).toMatchObject({ type: 3, id: click.id, data: { custom_id: 'go', component_type: 2 }, message: { id: messageId, content: 'Pick one' } });
    expect(d.member.user.id).toBe((cmd.payload as any).member.user.id);
    const picked = await sb.component({ messageId, customId: 'flavour', values: ['a', 'b'] });
    expect((picked.payload.data as any).values).toEqual(['a', 'b']);
  });

  it('refuses what the client would not send: unknown or disabled components, bad values', async () => {
    const { sb, messageId } = await setup();
    const cases: Array<[ComponentOptions, RegExp]> = [
      [{ messageId, customId: 'nope' }, /no component/],
      [{ messageId, customId: 'off' }, /disabled/],
      [{ messageId, customId: 'go', values: ['x'] }, /takes no values/],
      [{ messageId, customId: 'flavour', values: ['c'] }, /not an option/],
      [{ messageId, customId: 'flavour', values: [] }, /1-2 values/],
      [{ messageId: '123', customId: 'go' }, /no message/],
    ];
    for (const [o, pattern] of cases) {
      const err = await sb.component(o).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as Error).message).toMatch(pattern);
    }
  });

  it('UPDATE_MESSAGE (7) edits the message the component is on; DEFERRED_UPDATE_MESSAGE (6) acknowledges', async () => {
    const { sb, messageId, cmd, cb } = await setup();
    const click = await sb.component({ messageId, customId: 'go' });
    const r = await api(sb.restUrl, 'POST', `/interactions/${click.id}/${click.token}/callback?with_response=true`, { body: { type: 7, data: { content: 'Done', components: [] } } });
    expect(r.status).toBe(200);
    expect(r.body.resource.message).toMatchObject({ id: messageId, content: 'Done', components: [] });
    expect(cmd.original).toMatchObject({ id: messageId, content: 'Done' });
    const again = await sb.component({ messageId: cmd.followups.length ? '0' : messageId, customId: 'flavour', values: ['a'] }).catch((e: unknown) => e);
    expect((again as Error).message).toMatch(/no component/);

    const fresh = await sb.invoke({ name: 'menu', guildId: sb.state.guildIds[0] });
    await cb(fresh.id, fresh.token, { type: 4, data: { content: 'x', components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'ok', label: 'ok' }] }] } });
    const ack = await sb.component({ messageId: fresh.original!.id as string, customId: 'ok' });
    expect((await cb(ack.id, ack.token, { type: 6 })).status).toBe(204);
    // Followups work after a deferred update.
    expect((await api(sb.restUrl, 'POST', `/webhooks/${sb.applicationId}/${ack.token}`, { body: { content: 'later' } })).status).toBe(200);
  });
});

describe('modals', () => {
  const modal = {
    type: 9,
    data: {
      custom_id: 'feedback',
      title: 'Feedback',
      components: [
        { type: 1, components: [{ type: 4, custom_id: 'subject', style: 1, label: 'Subject', min_length: 3, max_length: 20 }] },
        { type: 18, label: 'Details', component: { type: 4, custom_id: 'details', style: 2, required: false } },
      ],
    },
  };

  it('submitting a modal sends MODAL_SUBMIT with the values in the modal layout', async () => {
    const { sb, client, guildId, cb } = await setup();
    const cmd = await sb.invoke({ name: 'menu', guildId });
    expect((await cb(cmd.id, cmd.token, modal)).status).toBe(204);
    const submit = await sb.submitModal({ interactionId: cmd.id, values: { subject: 'Hello', details: 'More' } });
    const last = (await client.next((p) => p.t === 'INTERACTION_CREATE' && (p.d as any).id === submit.id)).d as any;
    expect(last).toMatchObject({
      id: submit.id,
      type: 5,
      data: {
        custom_id: 'feedback',
        components: [
          { type: 1, components: [{ type: 4, custom_id: 'subject', value: 'Hello' }] },
          { type: 18, component: { type: 4, custom_id: 'details', value: 'More' } },
        ],
      },
    });
    // A modal cannot answer a modal; a message can.
    expect((await cb(submit.id, submit.token, modal)).status).toBe(400);
    expect((await cb(submit.id, submit.token, { type: 7, data: { content: 'x' } })).status).toBe(400);
    expect((await cb(submit.id, submit.token, { type: 4, data: { content: 'Thanks' } })).status).toBe(204);
  });

  it('checks required fields, lengths, unknown fields, and that a modal was opened', async () => {
    const { sb, guildId, cb, cmd } = await setup();
    await expect(sb.submitModal({ interactionId: cmd.id, values: {} })).rejects.toThrow(/not answered with a modal/);
    const m = await sb.invoke({ name: 'menu', guildId });
    await cb(m.id, m.token, modal);
    await expect(sb.submitModal({ interactionId: m.id, values: {} })).rejects.toThrow(/'subject' is required/);
    await expect(sb.submitModal({ interactionId: m.id, values: { subject: 'Hi' } })).rejects.toThrow(/3-20/);
    await expect(sb.submitModal({ interactionId: m.id, values: { subject: 'Hello', other: 'x' } })).rejects.toThrow(/no field 'other'/);
    await sb.submitModal({ interactionId: m.id, values: { subject: 'Hello' } });
  });
});
