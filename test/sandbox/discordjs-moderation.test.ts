/**
 * Acceptance (issue 30): the unmodified discord.js Client's calls for members, roles, bans, channels and
 * overwrites, messages with reactions, pins and polls, and threads work against the sandbox, its caches follow
 * the sandbox's events, and a refusal reaches it as the DiscordAPIError the service would cause.
 */
import { DiscordAPIError, Events, GatewayIntentBits, PermissionFlagsBits, type Client, type GuildMember, type TextChannel } from 'discord.js';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { startDiscordjs } from './discordjs-helpers.js';

const INTENTS = [GatewayIntentBits.GuildModeration, GatewayIntentBits.GuildMessageReactions, GatewayIntentBits.GuildMessagePolls];

/** Resolves with the next `event` discord.js emits that `pred` accepts; rejects after 5 s. */
function nextEvent<T extends unknown[]>(client: Client, event: string, pred: (...args: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${event} within 5 s`));
    }, 5_000);
    const listener = (...args: unknown[]): void => {
      if (!pred(...(args as T))) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args as T);
    };
    client.on(event, listener);
  });
}

/** The bot gets the seeded Admin role (its own role stays the highest). */
function makeAdmin(sb: Sandbox, guildId: string): void {
  const roles = sb.state.roleIds(guildId);
  sb.state.updateMember(guildId, sb.applicationId, { roles: [roles.at(-1)!, roles.at(-2)!] });
}

function plainMemberId(sb: Sandbox, guildId: string, n: number): string {
  return sb.state.memberIds(guildId).filter((id) => id !== sb.applicationId)[n]!;
}

async function rejection(p: Promise<unknown>): Promise<{ status: number; code: number | string }> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(DiscordAPIError);
  return { status: (err as DiscordAPIError).status, code: (err as DiscordAPIError).code };
}

describe('discord.js moderation against the sandbox', () => {
  it('members and roles: a refusal, then timeout, nick, a role added and removed, kick; the caches follow', async () => {
    const { sb, client, guild } = await startDiscordjs(INTENTS);
    const member: GuildMember = await guild.members.fetch(plainMemberId(sb, guild.id, 4));
    expect(await rejection(member.kick())).toEqual({ status: 403, code: 50013 });
    const promoted = nextEvent(client, Events.GuildMemberUpdate, (_old, m: GuildMember) => m.id === client.user.id);
    makeAdmin(sb, guild.id);
    await promoted;
    expect(guild.members.me!.permissions.has(PermissionFlagsBits.Administrator)).toBe(true);

    const timedOut = await member.timeout(10 * 60_000, 'spam');
    expect(timedOut.isCommunicationDisabled()).toBe(true);
    expect(timedOut.communicationDisabledUntilTimestamp! - Date.now()).toBeGreaterThan(9 * 60_000);
    expect((await member.setNickname('Quiet')).nickname).toBe('Quiet');

    const role = await guild.roles.create({ name: 'Muted', color: 0x99aab5, permissions: [] });
    expect(guild.roles.cache.get(role.id)?.name).toBe('Muted');
    const updated = nextEvent(client, Events.GuildMemberUpdate, (_old, m: GuildMember) => m.id === member.id && m.roles.cache.has(role.id));
    await member.roles.add(role);
    await updated;
    expect(guild.members.cache.get(member.id)!.roles.cache.has(role.id)).toBe(true);
    await member.roles.remove(role);
    expect((await role.edit({ name: 'Silenced', hoist: true })).name).toBe('Silenced');
    await role.setPosition(2);
    expect(guild.roles.cache.get(role.id)!.position).toBe(2);
    await role.delete();
    expect(guild.roles.cache.has(role.id)).toBe(false);

    const found = await guild.members.search({ query: member.user.username.slice(0, 4), limit: 10 });
    expect(found.has(member.id)).toBe(true);
    const removed = nextEvent(client, Events.GuildMemberRemove, (m: GuildMember) => m.id === member.id);
    await member.kick('bye');
    await removed;
    expect(await rejection(guild.members.fetch({ user: member.id, force: true }))).toEqual({ status: 404, code: 10007 });
  });

  it('bans: create with a reason, fetch one and all, remove, bulk; GuildBanAdd / Remove', async () => {
    const { sb, client, guild } = await startDiscordjs(INTENTS);
    makeAdmin(sb, guild.id);
    const id = plainMemberId(sb, guild.id, 5);
    const added = nextEvent(client, Events.GuildBanAdd);
    await guild.bans.create(id, { reason: 'raiding', deleteMessageSeconds: 3600 });
    expect((await added)[0]).toMatchObject({ user: { id } });
    expect((await guild.bans.fetch({ user: id, force: true })).reason).toBe('raiding');
    expect((await guild.bans.fetch()).size).toBe(1);
    const lifted = nextEvent(client, Events.GuildBanRemove);
    await guild.bans.remove(id);
    await lifted;
    const others = [plainMemberId(sb, guild.id, 6), plainMemberId(sb, guild.id, 7)];
    const result = await guild.bans.bulkCreate([...others, guild.ownerId]);
    expect([...result.bannedUsers].sort()).toEqual([...others].sort());
    expect(result.failedUsers).toEqual([guild.ownerId]);
  });

  it('channels and overwrites: create, edit, overwrite, delete; the cache follows', async () => {
    const { sb, guild } = await startDiscordjs(INTENTS);
    expect(await rejection(guild.channels.create({ name: 'mod-log' }))).toEqual({ status: 403, code: 50013 });
    makeAdmin(sb, guild.id);
    const channel = await guild.channels.create({ name: 'mod-log', topic: 'what happened' });
    expect(channel.topic).toBe('what happened');
    await channel.permissionOverwrites.edit(guild.id, { SendMessages: false });
    expect(channel.permissionOverwrites.cache.get(guild.id)!.deny.has(PermissionFlagsBits.SendMessages)).toBe(true);
    expect((await channel.edit({ name: 'audit-log' })).name).toBe('audit-log');
    await channel.permissionOverwrites.delete(guild.id);
    expect(channel.permissionOverwrites.cache.size).toBe(0);
    await channel.delete();
    expect(guild.channels.cache.has(channel.id)).toBe(false);
  });

  it('messages: an embed comes back "rich", reactions, pins, a poll ended, bulk delete', async () => {
    const { sb, client, guild } = await startDiscordjs(INTENTS);
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    const message = await general.send({ content: 'log', embeds: [{ title: 'Timed out', fields: [{ name: 'Reason', value: 'spam' }] }] });
    expect(message.embeds[0]!.data).toMatchObject({ type: 'rich', title: 'Timed out', fields: [{ name: 'Reason', value: 'spam', inline: false }] });

    const reacted = nextEvent(client, Events.MessageReactionAdd);
    await message.react('👍');
    await reacted;
    const someone = plainMemberId(sb, guild.id, 3);
    const theirs = nextEvent(client, Events.MessageReactionAdd, (_r, user: { id: string }) => user.id === someone);
    sb.state.channels.react(general.id, message.id, someone, '👍');
    await theirs;
    expect(message.reactions.cache.get('👍')!.count).toBe(2);
    expect((await message.reactions.cache.get('👍')!.users.fetch()).has(someone)).toBe(true);
    expect(await rejection(message.reactions.removeAll())).toEqual({ status: 403, code: 50013 });

    makeAdmin(sb, guild.id);
    await message.pin();
    const pins = await general.messages.fetchPins();
    expect(pins.items.map((p) => p.message.id)).toEqual([message.id]);
    await message.unpin();
    await message.reactions.removeAll();

    const poll = await general.send({ poll: { question: { text: 'Lunch?' }, answers: [{ text: 'Pizza' }, { text: 'Soup' }], duration: 1, allowMultiselect: false } });
    expect(poll.poll!.answers.size).toBe(2);
    sb.state.channels.vote(general.id, poll.id, someone, [1]);
    const ended = await poll.poll!.end();
    expect(ended.poll!.resultsFinalized).toBe(true);

    const extra = await general.send('one more');
    const deleted = await general.bulkDelete([message.id, extra.id]);
    expect(deleted.size).toBe(2);
  });

  it('threads: from a message and without, members, archive, lists, delete', async () => {
    const { sb, guild } = await startDiscordjs(INTENTS);
    makeAdmin(sb, guild.id);
    const general = guild.channels.cache.find((c) => c.name === 'general') as TextChannel;
    const starter = await general.send('discuss here');
    const thread = await starter.startThread({ name: 'discussion', autoArchiveDuration: 60 });
    expect(thread.id).toBe(starter.id);
    expect(thread.ownerId).toBe(guild.client.user.id);
    expect((await thread.send('inside')).channelId).toBe(thread.id);
    const someone = plainMemberId(sb, guild.id, 2);
    await thread.members.add(someone);
    expect((await thread.members.fetch()).has(someone)).toBe(true);
    await thread.members.remove(someone);
    const staff = await general.threads.create({ name: 'staff', type: 12 });
    expect(staff.type).toBe(12);
    expect((await guild.channels.fetchActiveThreads()).threads.size).toBe(2);
    await thread.setArchived(true);
    const archived = await general.threads.fetchArchived();
    expect([...archived.threads.keys()]).toEqual([thread.id]);
    await staff.delete();
    expect(guild.channels.cache.has(staff.id)).toBe(false);
  });
});
