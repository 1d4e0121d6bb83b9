/**
 * Acceptance: the unmodified discord.js Client (a dev dependency) against the sandbox, for what a bot calls
 * every day: users.fetch, guild.members.fetch(id), guilds.fetch(), channel.send, user.createDM,
 * client.user.setUsername, editing its own member (sent as /members/%40me) and the application, the service's
 * error codes for unknown things, the unmodelled marker, and op 9 `true` resumed on the same socket with every
 * event delivered exactly once.
 */
import {
  AttachmentBuilder,
  DiscordAPIError,
  Events,
  HTTPError,
  Routes,
  type ChatInputCommandInteraction,
  type Interaction,
  type TextChannel,
} from 'discord.js';
import { describe, expect, it } from 'vitest';
import { startDiscordjs } from './discordjs-helpers.js';

const start = startDiscordjs;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe('discord.js Client against the sandbox', () => {
  it('fetches users, members and guilds from the sandbox state, with the service codes for unknown ones', async () => {
    const { sb, client, guild } = await start();
    const memberId = sb.state.memberIds(guild.id)[4]!;

    const user = await client.users.fetch(memberId, { force: true });
    expect(user.id).toBe(memberId);
    expect(user.username).toMatch(/^[a-z]+_[a-z]+\d+$/);
    const nobody = await rejection(client.users.fetch('123456789012345678', { force: true }));
    expect(nobody).toBeInstanceOf(DiscordAPIError);
    expect((nobody as DiscordAPIError).code).toBe(10013);

    const member = await guild.members.fetch({ user: memberId, force: true });
    expect(member.id).toBe(memberId);
    expect(member.joinedTimestamp).toEqual(expect.any(Number));
    const otherGuildUser = sb.state.memberIds(sb.state.guildIds[1]!).at(-1)!;
    const notHere = await rejection(guild.members.fetch({ user: otherGuildUser, force: true }));
    expect((notHere as DiscordAPIError).code).toBe(10007);

    // guilds.fetch() is GET /users/@me/guilds: partial guilds (spec 4.4: with banner).
    const partials = await client.guilds.fetch();
    expect([...partials.keys()].sort()).toEqual([...sb.state.guildIds].sort());
    const raw = (await client.rest.get(Routes.userGuilds())) as Array<Record<string, unknown>>;
    expect(raw[0]).toHaveProperty('banner', null);
    const full = await client.guilds.fetch({ guild: guild.id, force: true });
    expect(full.approximateMemberCount).toBe(13);
    const unknownGuild = await rejection(client.guilds.fetch({ guild: '123456789012345678', force: true }));
    expect((unknownGuild as DiscordAPIError).code).toBe(10004);

    const channel = await client.channels.fetch(guild.channels.cache.find((c) => c.name === 'general')!.id, { force: true });
    expect(channel?.id).toBeDefined();
    const unknownChannel = await rejection(client.channels.fetch('123456789012345678', { force: true }));
    expect((unknownChannel as DiscordAPIError).code).toBe(10003);
    const roles = await guild.roles.fetch(undefined, { force: true });
    expect(roles.size).toBe(guild.roles.cache.size);
  });

  it('sends, edits and deletes messages in a channel and a DM; they are recorded and come back as events', async () => {
    const { sb, client, guild } = await start();
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    const created = new Promise<string>((resolve) => client.once(Events.MessageCreate, (m) => resolve(m.id)));
    const sent = await general.send('hello from discord.js');
    expect(sent.content).toBe('hello from discord.js');
    expect(sent.author.id).toBe(sb.applicationId);
    expect(await created).toBe(sent.id);
    const edited = await sent.edit('edited');
    expect(edited.editedTimestamp).toEqual(expect.any(Number));
    const fetched = await general.messages.fetch({ message: sent.id, force: true });
    expect(fetched.content).toBe('edited');
    await sent.delete();
    const gone = await rejection(general.messages.fetch({ message: sent.id, force: true }));
    expect((gone as DiscordAPIError).code).toBe(10008);

    const target = await client.users.fetch(sb.state.memberIds(guild.id)[5]!);
    const dm = await target.createDM(true);
    expect(dm.recipientId).toBe(target.id);
    const psst = await dm.send('psst');
    expect(psst.channelId).toBe(dm.id);

    const records = sb.messages();
    expect(records.map((r) => [r.channelId, r.message.content, r.edits, r.deletedAt !== null])).toEqual([
      [general.id, 'edited', 1, true],
      [dm.id, 'psst', 0, false],
    ]);
  });

  it('deferReply then editReply with a file: the file is an attachment of the reply, and a follow-up edit swaps its files', async () => {
    const { sb, client, guild } = await start();
    await client.application.commands.set([{ name: 'chart', description: 'Draws a chart' }]);
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
      client.once(Events.InteractionCreate, (i: Interaction) => {
        const run = async (): Promise<Record<string, unknown>> => {
          const interaction = i as ChatInputCommandInteraction;
          await interaction.deferReply();
          const edited = await interaction.editReply({ content: 'here it is', files: [new AttachmentBuilder(Buffer.from('PNGDATA'), { name: 'chart.png' })] });
          const stored = (await client.rest.get(Routes.webhookMessage(client.application.id, interaction.token, '@original'))) as Record<string, unknown>;
          const followup = await interaction.followUp({ content: 'more', files: [new AttachmentBuilder(Buffer.from('abc'), { name: 'b.txt' })] });
          // discord.js lists only the new file: b.txt goes, c.txt comes.
          const swapped = await interaction.webhook.editMessage(followup.id, { files: [new AttachmentBuilder(Buffer.from('defg'), { name: 'c.txt' })] });
          return { edited, stored, followup, swapped };
        };
        run().then(resolve, reject);
      });
    });
    const record = await sb.invoke({ name: 'chart', guildId: guild.id });
    const { edited, stored, followup, swapped } = (await answered) as {
      edited: { attachments: Map<string, { name: string; size: number; url: string }> };
      stored: { attachments: Array<Record<string, unknown>> };
      followup: { attachments: Map<string, { name: string }> };
      swapped: { attachments: Map<string, { name: string; size: number }> };
    };

    const [file] = [...edited.attachments.values()];
    expect(file).toMatchObject({ name: 'chart.png', size: 7, url: expect.stringMatching(/^https:\/\/.+\/chart\.png$/) });
    expect(stored.attachments).toEqual([expect.objectContaining({ filename: 'chart.png', size: 7, url: file!.url })]);
    expect(record.original!.attachments).toEqual(stored.attachments);
    expect([...followup.attachments.values()].map((a) => a.name)).toEqual(['b.txt']);
    expect([...swapped.attachments.values()].map((a) => [a.name, a.size])).toEqual([['c.txt', 4]]);
    expect(record.followups.map((m) => (m.attachments as Array<{ filename: string }>).map((a) => a.filename))).toEqual([['c.txt']]);
  });

  it('the first follow-up after deferReply carries its files onto the loading message (legacy edit)', async () => {
    const { sb, client, guild } = await start();
    await client.application.commands.set([{ name: 'report', description: 'Sends a report' }]);
    const answered = new Promise<{ id: string; names: string[] }>((resolve, reject) => {
      client.once(Events.InteractionCreate, (i: Interaction) => {
        const interaction = i as ChatInputCommandInteraction;
        interaction
          .deferReply()
          .then(() => interaction.followUp({ files: [new AttachmentBuilder(Buffer.from('report'), { name: 'report.txt' })] }))
          .then((m) => resolve({ id: m.id, names: [...m.attachments.values()].map((a) => a.name) }), reject);
      });
    });
    const record = await sb.invoke({ name: 'report', guildId: guild.id });
    const { id, names } = await answered;
    expect(id).toBe(record.original!.id);
    expect(names).toEqual(['report.txt']);
    expect(record.original!.attachments).toEqual([expect.objectContaining({ filename: 'report.txt', size: 6, url: expect.any(String) })]);
  });

  it('message.edit with files: listed attachments stay as they were, unlisted ones go, the files are added', async () => {
    const { client, guild } = await start();
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    const sent = await general.send({ content: 'a', files: [new AttachmentBuilder(Buffer.from('1'), { name: 'one.txt' })] });
    const [one] = [...sent.attachments.values()];
    expect(one).toMatchObject({ name: 'one.txt', size: 1 });

    // Only the new file listed (discord.js sends `attachments: [{ id: "0" }]`): one.txt is removed.
    const swapped = await sent.edit({ content: 'b', files: [new AttachmentBuilder(Buffer.from('22'), { name: 'two.txt' })] });
    const [two] = [...swapped.attachments.values()];
    expect(swapped.attachments.map((a) => [a.name, a.size])).toEqual([['two.txt', 2]]);
    expect(two!.id).not.toBe(one!.id);

    // The kept one listed with a new file: it stays as stored (same id, name and URL), three.txt is added.
    const grown = await sent.edit({ content: 'c', attachments: [...swapped.attachments.values()], files: [new AttachmentBuilder(Buffer.from('333'), { name: 'three.txt' })] });
    expect(grown.attachments.map((a) => [a.name, a.size])).toEqual([
      ['two.txt', 2],
      ['three.txt', 3],
    ]);
    expect(grown.attachments.get(two!.id)?.url).toBe(two!.url);
    const raw = (await client.rest.get(Routes.channelMessage(general.id, sent.id))) as { attachments: Array<Record<string, unknown>> };
    expect(raw.attachments.map((a) => a.filename)).toEqual(['two.txt', 'three.txt']);
    expect(raw.attachments.every((a) => typeof a.url === 'string' && typeof a.size === 'number')).toBe(true);

    // Listing none removes them all.
    const bare = await sent.edit({ content: 'd', attachments: [] });
    expect(bare.attachments.size).toBe(0);
  });

  it('edits itself: setUsername, its nick through /members/%40me, and the application', async () => {
    const { sb, client, guild } = await start();
    const me = await client.user.setUsername('renamed-by-djs');
    expect(me.username).toBe('renamed-by-djs');
    expect((await client.users.fetch(sb.applicationId, { force: true })).username).toBe('renamed-by-djs');

    const member = await guild.members.editMe({ nick: 'Sandy' });
    expect(member.nickname).toBe('Sandy');

    const app = await client.application.edit({ description: 'Edited by discord.js' });
    expect(app.description).toBe('Edited by discord.js');
    expect((await client.application.fetch()).description).toBe('Edited by discord.js');
  });

  it('recognises what the sandbox does not model by its marker, not as a service error', async () => {
    const { client, guild } = await start();
    const markers: Array<string | null> = [];
    client.rest.on('response', (_req, res) => markers.push(res.headers.get('x-sandbox-unmodelled')));
    const err = await rejection(client.rest.get(Routes.guildOnboarding(guild.id)));
    // @discordjs/rest treats a 5xx as the server's trouble (HTTPError, no body): never a DiscordAPIError code.
    expect(err).toBeInstanceOf(HTTPError);
    expect((err as HTTPError).status).toBe(501);
    expect(markers.length).toBeGreaterThan(0);
    expect(markers.every((m) => m === 'true')).toBe(true);
  });

  it('op 9 true on a live session: discord.js resumes on the same socket and sees every event exactly once', async () => {
    const { sb, client, guild } = await start();
    const connections: number[] = [];
    const identifies: number[] = [];
    const resumes: number[] = [];
    sb.gatewayEvents.on('connection', (e) => connections.push(e.connectionId));
    sb.gatewayEvents.on('identify', (e) => identifies.push(e.connectionId));
    sb.gatewayEvents.on('resume', (e) => resumes.push(e.connectionId));
    const seen: string[] = [];
    client.on(Events.GuildMemberAdd, (m) => seen.push(m.id));
    const resumed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no RESUMED within 5 s; identifies on connections ${identifies.join(',')}`)), 5_000);
      client.once(Events.ShardResume, () => {
        clearTimeout(timer);
        resolve();
      });
    });

    const before = [sb.state.addMember(guild.id, { username: 'before1' }), sb.state.addMember(guild.id, { username: 'before2' })];
    const deadline = Date.now() + 5_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    sb.faults.invalidateSession(0, true);
    // Added right after the op 9, before the client can answer: buffered for the session, replayed on RESUME.
    const during = [sb.state.addMember(guild.id, { username: 'during1' }), sb.state.addMember(guild.id, { username: 'during2' })];
    await resumed;
    const after = [sb.state.addMember(guild.id, { username: 'after1' })];
    const all = [...before, ...during, ...after];
    const until = Date.now() + 5_000;
    while (seen.length < all.length && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));

    expect(seen).toEqual(all);
    // No new IDENTIFY, no new socket: the RESUME came on the connection that got the op 9.
    expect(connections).toEqual([]);
    expect(identifies).toEqual([]);
    expect(resumes).toHaveLength(1);
    expect(sb.counters.identifies).toBe(1);
    expect(guild.members.cache.has(during[1]!)).toBe(true);
  });
});
