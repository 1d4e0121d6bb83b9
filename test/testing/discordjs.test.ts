/**
 * The test kit's bare sandbox with an unmodified discord.js Client as the app: the example src/testing/README.md gives for
 * testing a discord.js bot offline. The client logs in with the kit's token and REST base; the kit acts as users.
 */
import { once } from 'node:events';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type GuildMember,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { testKit } from '../../src/testing/index.js';

const kit = testKit(afterEach);
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
});

describe('a discord.js bot on the kit\'s sandbox', () => {
  it('logs in, registers a command and answers users', async () => {
    const sandbox = await kit.startSandbox();
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
      rest: { api: sandbox.apiBase },
    });
    clients.push(client);
    client.on(Events.InteractionCreate, async (interaction) => {
      if (interaction.isChatInputCommand() && interaction.commandName === 'ping') {
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId('again').setLabel('Again').setStyle(ButtonStyle.Primary),
          new ButtonBuilder().setCustomId('feedback').setLabel('Feedback').setStyle(ButtonStyle.Secondary),
        );
        await interaction.reply({ content: `pong, ${interaction.user.username}`, components: [row] });
      } else if (interaction.isButton() && interaction.customId === 'again') {
        await interaction.update({ content: 'pong again', components: [] });
      } else if (interaction.isButton() && interaction.customId === 'feedback') {
        const text = new TextInputBuilder().setCustomId('words').setLabel('Your words').setStyle(TextInputStyle.Short);
        await interaction.showModal(new ModalBuilder().setCustomId('form').setTitle('Feedback').addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(text)));
      } else if (interaction.isModalSubmit()) {
        await interaction.reply({ content: `thanks for "${interaction.fields.getTextInputValue('words')}"`, flags: MessageFlags.Ephemeral });
      }
    });
    const ready = once(client, Events.ClientReady);
    await client.login(sandbox.token);
    await ready;
    expect(client.user?.id).toBe(sandbox.applicationId);
    expect(client.guilds.cache.has(sandbox.guild.id)).toBe(true);
    await client.application!.commands.create({ name: 'ping', description: 'Ping the bot' }, sandbox.guild.id);

    const reply = await sandbox.invoke('ping');
    expect(reply.content).toBe('pong, owner');
    const again = await reply.click('again');
    expect(again.content).toBe('pong again');
    expect(reply.content).toBe('pong again');

    const second = await sandbox.invoke('ping');
    const form = await second.click('feedback');
    expect(form.modal?.title).toBe('Feedback');
    const thanks = await form.submitModal({ words: 'great bot' });
    expect(thanks.content).toBe('thanks for "great bot"');
    expect(thanks.ephemeral).toBe(true);

    // Events: the kit makes them happen; the client's own events say when it saw them.
    const joined = once(client, Events.GuildMemberAdd) as Promise<[GuildMember]>;
    const zed = await sandbox.join({ username: 'zed' });
    const [member] = await joined;
    expect(member.user.username).toBe('zed');
    expect(member.id).toBe(zed.id);

    // discord.js resumes after op 7, and still answers.
    expect(await sandbox.reconnect({ via: 'op7' })).toEqual({ resumed: true });
    expect((await sandbox.invoke('ping', { user: zed })).content).toBe('pong, zed');
  });
});
