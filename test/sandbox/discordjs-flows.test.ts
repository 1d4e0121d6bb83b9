/**
 * Acceptance: the unmodified discord.js Client against the sandbox, for flows a bot author writes beyond replies
 * (discordjs-client.test.ts): a MESSAGE command on a real message, @discordjs/rest waiting out a 429, a panel of
 * components posted with channel.send and driven by a collector, autocomplete and a modal of labels, SKUs and
 * entitlements through client.application.
 */
import {
  ActionRowBuilder,
  DiscordAPIError,
  FileUploadBuilder,
  LabelBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  Events,
  ModalBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
  UserSelectMenuBuilder,
  type Interaction,
  type TextChannel,
} from 'discord.js';
import { describe, expect, it } from 'vitest';
import { SandboxError } from '../../src/sandbox/index.js';
import { startDiscordjs } from './discordjs-helpers.js';

const start = startDiscordjs;

/** Runs `handle` on the next interaction discord.js emits; rejects after 5 s. */
function onNextInteraction<T>(client: Client, handle: (i: Interaction) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no interaction within 5 s')), 5_000);
    client.once(Events.InteractionCreate, (i) => {
      clearTimeout(timer);
      handle(i).then(resolve, reject);
    });
  });
}

describe('discord.js flows against the sandbox', () => {
  it('a MESSAGE command on a message the bot sent resolves that message as it is now (spec 2.8)', async () => {
    const { sb, client, guild } = await start();
    await client.application.commands.set([{ name: 'Quote', type: 3 }]);
    const quote = (): Promise<Record<string, unknown>> =>
      onNextInteraction(client, async (i) => {
        if (!i.isMessageContextMenuCommand()) throw new Error(`unexpected interaction type ${i.type}`);
        await i.reply('quoted');
        const m = i.targetMessage;
        return { id: m.id, content: m.content, author: m.author.id, channel: m.channelId, edited: m.editedTimestamp !== null };
      });
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    const sent = await general.send('first words');
    await sent.edit('edited words');
    let seen = quote();
    const record = await sb.invoke({ name: 'Quote', type: 3, guildId: guild.id, targetId: sent.id });
    expect(await seen).toEqual({ id: sent.id, content: 'edited words', author: client.user.id, channel: general.id, edited: true });

    // An interaction's reply is a message of its channel too.
    seen = quote();
    await sb.invoke({ name: 'Quote', type: 3, guildId: guild.id, targetId: record.original!.id as string });
    expect(await seen).toMatchObject({ id: record.original!.id, content: 'quoted', author: client.user.id, channel: general.id });

    // A message of another channel is right-clicked there; a deleted one not at all.
    const other = guild.channels.cache.get(sb.state.channelIds(guild.id)[1]!) as TextChannel;
    const elsewhere = await other.send('over here');
    await expect(sb.invoke({ name: 'Quote', type: 3, guildId: guild.id, targetId: elsewhere.id })).rejects.toThrow(SandboxError);
    seen = quote();
    await sb.invoke({ name: 'Quote', type: 3, guildId: guild.id, channelId: other.id, targetId: elsewhere.id });
    expect(await seen).toMatchObject({ id: elsewhere.id, content: 'over here', channel: other.id });
    await sent.delete();
    await expect(sb.invoke({ name: 'Quote', type: 3, guildId: guild.id, targetId: sent.id })).rejects.toThrow(/deleted/);
  });

  it('a user-scoped 429 carries its bucket headers: @discordjs/rest waits it out as a limited bucket and says so', async () => {
    const { sb, client, guild } = await start();
    const limited: Array<{ global: boolean; scope: string; timeToReset: number }> = [];
    client.rest.on('rateLimited', (info) => limited.push({ global: info.global, scope: info.scope, timeToReset: info.timeToReset }));
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    sb.restFaults.rateLimit({ bucket: 'messages.create', retryAfterMs: 200 });
    const t0 = Date.now();
    const [a, b] = await Promise.all([general.send('one'), general.send('two')]);
    expect([a.content, b.content]).toEqual(['one', 'two']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    // Remaining 0 with Reset-After: the bucket is limited (the 'rateLimited' event fires before the retry).
    expect(limited).toEqual([expect.objectContaining({ global: false, scope: 'user' })]);
    // From X-RateLimit-Reset-After (0.2 s plus its offset), not the whole seconds of Retry-After.
    expect(limited[0]!.timeToReset).toBeLessThan(1_000);
  });

  it('buttons on a message sent with channel.send: a collector gets the clicks, update and deferUpdate + editReply edit that message', async () => {
    const { sb, client, guild } = await start();
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    const panel = await general.send({
      content: 'Open a ticket',
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('open').setLabel('Open').setStyle(ButtonStyle.Primary)),
        new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(
          new StringSelectMenuBuilder().setCustomId('topic').addOptions({ label: 'Bug', value: 'bug' }, { label: 'Idea', value: 'idea' }),
        ),
      ],
    });
    const updates: string[] = [];
    client.on(Events.MessageUpdate, (_old, m) => {
      if (m.id === panel.id) updates.push(m.content ?? '');
    });
    const clicker = sb.state.memberIds(guild.id)[3]!;
    const collected = new Promise<string[]>((resolve, reject) => {
      const seen: string[] = [];
      const collector = panel.createMessageComponentCollector({ time: 4_000, max: 3 });
      collector.on('collect', (c) => {
        const handle = async (): Promise<void> => {
          seen.push(`${c.customId}:${c.user.id}:${c.message.id}`);
          if (c.isStringSelectMenu()) {
            await c.deferUpdate();
            await c.editReply({ content: `Topic: ${c.values.join(',')}` });
          } else if (seen.length === 1) {
            await c.update({ content: 'Ticket opened' });
          } else {
            await c.showModal(
              new ModalBuilder()
                .setCustomId('why')
                .setTitle('Why?')
                .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(new TextInputBuilder().setCustomId('reason').setLabel('Reason').setStyle(TextInputStyle.Short))),
            );
            const submit = await c.awaitModalSubmit({ time: 3_000 });
            if (!submit.isFromMessage()) throw new Error('the modal submit should carry the panel');
            await submit.update({ content: `Because ${submit.fields.getTextInputValue('reason')}`, components: [] });
          }
        };
        handle().catch(reject);
      });
      collector.once('end', () => resolve(seen));
    });

    const open = await sb.component({ messageId: panel.id, customId: 'open' });
    expect((await open.firstResponse()).type).toBe(7);
    const topic = await sb.component({ messageId: panel.id, customId: 'topic', values: ['idea'], userId: clicker });
    expect((await topic.firstResponse()).type).toBe(6);
    const until = Date.now() + 3_000;
    while (!updates.includes('Topic: idea') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    const again = await sb.component({ messageId: panel.id, customId: 'open', userId: clicker });
    expect((await again.firstResponse()).type).toBe(9);
    const submitted = await sb.submitModal({ interactionId: again.id, values: { reason: 'it broke' } });
    expect((await submitted.firstResponse()).type).toBe(7);

    const owner = sb.state.memberIds(guild.id)[1]!;
    expect(await collected).toEqual([`open:${owner}:${panel.id}`, `topic:${clicker}:${panel.id}`, `open:${clicker}:${panel.id}`]);
    // The channel message itself changed: REST serves the last update, MESSAGE_UPDATE told the gateway each time.
    const stored = await general.messages.fetch({ message: panel.id, force: true });
    expect(stored.content).toBe('Because it broke');
    expect(stored.components).toHaveLength(0);
    const deadline = Date.now() + 3_000;
    while (updates.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(updates).toEqual(['Ticket opened', 'Topic: idea', 'Because it broke']);
    expect(sb.messages({ channelId: general.id }).map((r) => [r.message.content, r.edits])).toEqual([['Because it broke', 3]]);
    await panel.delete();
    await expect(sb.component({ messageId: panel.id, customId: 'open' })).rejects.toThrow(/deleted/);
  });

  it('autocomplete answered with respond(), then a modal of labels read back with awaitModalSubmit', async () => {
    const { sb, client, guild } = await start();
    await client.application.commands.set([{ name: 'find', description: 'Find', options: [{ type: 3, name: 'q', description: 'Q', autocomplete: true }] }]);
    const suggested = onNextInteraction(client, async (i) => {
      if (!i.isAutocomplete()) throw new Error(`unexpected interaction type ${i.type}`);
      await i.respond([{ name: 'abc', value: 'abc' }]);
      return i.options.getFocused(true);
    });
    const typed = await sb.autocomplete({ name: 'find', guildId: guild.id, options: { q: 'ab' }, focused: 'q' });
    expect(await suggested).toMatchObject({ name: 'q', value: 'ab', focused: true });
    expect(await typed.firstResponse()).toEqual({ type: 8, data: { choices: [{ name: 'abc', value: 'abc' }] } });

    const picked = sb.state.memberIds(guild.id)[3]!;
    const read = onNextInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) throw new Error(`unexpected interaction type ${i.type}`);
      await i.showModal(
        new ModalBuilder()
          .setCustomId('form')
          .setTitle('Form')
          .addLabelComponents(
            new LabelBuilder().setLabel('Name').setTextInputComponent(new TextInputBuilder().setCustomId('name').setStyle(TextInputStyle.Short)),
            new LabelBuilder().setLabel('Pick').setStringSelectMenuComponent(new StringSelectMenuBuilder().setCustomId('pick').setMaxValues(2).addOptions({ label: 'A', value: 'a' }, { label: 'B', value: 'b' })),
            new LabelBuilder().setLabel('Who').setUserSelectMenuComponent(new UserSelectMenuBuilder().setCustomId('who')),
            new LabelBuilder().setLabel('Files').setFileUploadComponent(new FileUploadBuilder().setCustomId('files').setMaxValues(2)),
          ),
      );
      const submit = await i.awaitModalSubmit({ time: 4_000 });
      await submit.reply({ content: 'thanks', flags: 64 });
      return {
        name: submit.fields.getTextInputValue('name'),
        pick: submit.fields.getStringSelectValues('pick'),
        who: [...(submit.fields.getSelectedMembers('who')?.keys() ?? [])],
        files: [...(submit.fields.getUploadedFiles('files')?.values() ?? [])].map((a) => [a.name, a.contentType]),
        ephemeral: (await submit.fetchReply()).flags.has(64),
      };
    });
    const opened = await sb.invoke({ name: 'find', guildId: guild.id, options: { q: 'x' } });
    expect((await opened.firstResponse()).type).toBe(9);
    await sb.submitModal({ interactionId: opened.id, values: { name: 'Ann', pick: ['a', 'b'], who: [picked], files: ['a.png', 'b.txt'] } });
    expect(await read).toEqual({
      name: 'Ann',
      pick: ['a', 'b'],
      who: [picked],
      files: [
        ['a.png', 'image/png'],
        ['b.txt', 'text/plain; charset=utf-8'],
      ],
      ephemeral: true,
    });
  });

  it('SKUs and entitlements through the application: fetch with filters, test entitlements, consume, the events', async () => {
    const { sb, client, guild } = await start();
    const events: string[] = [];
    client.on(Events.EntitlementCreate, (e) => events.push(`create:${e.id}`));
    client.on(Events.EntitlementDelete, (e) => events.push(`delete:${e.id}`));
    const skus = await client.application.fetchSKUs();
    // The durable SKU, the subscription, and the subscription's system-made SUBSCRIPTION_GROUP (reference §13.3).
    expect(skus.map((s) => s.type)).toEqual([2, 5, 6]);
    const durable = skus.find((s) => s.type === 2)!;
    const seeded = await client.application.entitlements.fetch();
    expect(seeded.size).toBe(2);
    expect(seeded.every((e) => e.isActive() && !e.isTest())).toBe(true);
    const buyer = sb.state.memberIds(guild.id)[2]!;
    expect((await client.application.entitlements.fetch({ user: buyer, skus: [durable.id] })).map((e) => e.skuId)).toEqual([durable.id]);

    const someone = sb.state.memberIds(guild.id)[6]!;
    const test = await client.application.entitlements.createTest({ sku: durable.id, user: someone });
    expect([test.isTest(), test.userId, test.skuId]).toEqual([true, someone, durable.id]);
    const again = await client.application.entitlements.createTest({ sku: durable.id, user: someone }).catch((e: unknown) => e);
    expect((again as DiscordAPIError).code).toBe(40074);
    const notConsumable = await client.application.entitlements.consume(test.id).catch((e: unknown) => e);
    expect((notConsumable as DiscordAPIError).code).toBe(40018);
    await client.application.entitlements.deleteTest(test);
    const withDeleted = await client.application.entitlements.fetch({ user: someone, excludeDeleted: false });
    expect(withDeleted.map((e) => [e.id, e.deleted])).toEqual([[test.id, true]]);
    const until = Date.now() + 3_000;
    while (events.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([`create:${test.id}`, `delete:${test.id}`]);
  });
});
