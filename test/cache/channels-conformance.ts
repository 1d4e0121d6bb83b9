/**
 * Channels, threads, voice states and command permission settings, the same on every backend (a backend's test
 * file calls `channelConformance` with the factory it gives `cacheConformance`).
 */
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { afterEach, describe, expect, it } from 'vitest';
import type { Cache, CommandRef } from '../../src/cache/index.js';
import type { CacheBackendFactory } from './conformance.js';
import { APP_ID, GUILD_A, GUILD_B, OWNER_ID, ROLE_MOD, ROLE_VIP, USER_1, USER_2, guildCreate, member, ready, readyOnShard, role } from './fixtures.js';

type SuiteDescribe = (name: string, body: () => void) => void;

export const CHANNEL_1 = '700000000000000101';
export const CHANNEL_2 = '700000000000000102';
export const CATEGORY = '700000000000000100';
export const THREAD_1 = '700000000000000201';
export const THREAD_2 = '700000000000000202';
export const THREAD_3 = '700000000000000203';
export const COMMAND_ID = '800000000000000001';

export function channel(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    type: 0,
    name: `ch-${id.slice(-3)}`,
    position: Number(id.slice(-1)),
    parent_id: CATEGORY,
    topic: null,
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
    permission_overwrites: [],
    flags: 0,
    ...extra,
  };
}

export function thread(id: string, parent: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    type: 11,
    name: `thread-${id.slice(-3)}`,
    parent_id: parent,
    owner_id: USER_1,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 1,
    thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: '2024-05-01T00:00:00.000000+00:00', locked: false },
    flags: 0,
    ...extra,
  };
}

const ow = (id: string, type: number, allow: bigint, deny: bigint): Record<string, unknown> => ({ id, type, allow: allow.toString(), deny: deny.toString() });

async function settle(cache: Cache): Promise<void> {
  await cache.settled();
}

const ids = (list: { id: string }[]): string[] => list.map((c) => c.id);

export function channelConformance(name: string, factory: CacheBackendFactory, describeFn: SuiteDescribe = describe): void {
  describeFn(`channel conformance: ${name}`, () => {
    afterEach(async () => {
      await factory.cleanup();
    });

    async function seeded(options = {}): Promise<Cache> {
      const cache = await factory.create(options);
      cache.apply('READY', ready([GUILD_A, GUILD_B]));
      cache.apply(
        'GUILD_CREATE',
        guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_VIP] }), member(USER_2)], {
          channels: [
            channel(CATEGORY, { type: 4, parent_id: null, position: 0 }),
            channel(CHANNEL_2, { position: 1, nsfw: true, rate_limit_per_user: 30 }),
            channel(CHANNEL_1, { position: 1, permission_overwrites: [ow(GUILD_A, 0, 0n, P.SendMessages), ow(ROLE_VIP, 0, P.PinMessages | P.BypassSlowmode, 0n)] }),
          ],
          threads: [thread(THREAD_1, CHANNEL_1), thread(THREAD_2, CHANNEL_2)],
        }),
      );
      return cache;
    }

    it('GUILD_CREATE stores channels and threads with their fields; reads by id and per guild', async () => {
      const cache = await seeded();
      const c1 = await cache.getChannel(CHANNEL_1);
      expect(c1).toEqual({
        id: CHANNEL_1,
        guildId: GUILD_A,
        type: 0,
        name: 'ch-101',
        parentId: CATEGORY,
        position: 1,
        permissionOverwrites: [
          { id: GUILD_A, type: 0, allow: 0n, deny: P.SendMessages },
          // Bits 51 and 52 stay exact.
          { id: ROLE_VIP, type: 0, allow: P.PinMessages | P.BypassSlowmode, deny: 0n },
        ],
        nsfw: false,
        rateLimitPerUser: 0,
        thread: null,
      });
      expect(await cache.getChannel(CHANNEL_2)).toMatchObject({ nsfw: true, rateLimitPerUser: 30 });
      // Position, then id.
      expect(ids(await cache.getChannels(GUILD_A))).toEqual([CATEGORY, CHANNEL_1, CHANNEL_2]);
      expect(await cache.getChannel(THREAD_1)).toMatchObject({
        type: 11,
        parentId: CHANNEL_1,
        thread: { archived: false, locked: false, ownerId: USER_1, archiveTimestamp: Date.parse('2024-05-01T00:00:00Z'), autoArchiveDuration: 1440 },
      });
      expect(ids(await cache.getThreads(GUILD_A))).toEqual([THREAD_1, THREAD_2]);
      expect(ids(await cache.getThreads(GUILD_A, CHANNEL_2))).toEqual([THREAD_2]);
      expect(await cache.sizes()).toMatchObject({ channels: 3, threads: 2 });
    });

    it("a later GUILD_CREATE's lists replace the guild's channels and threads (a channel's threads go with it)", async () => {
      const cache = await seeded();
      cache.apply('GUILD_DELETE', { id: GUILD_A, unavailable: true });
      // An outage keeps them.
      expect(await cache.getChannel(CHANNEL_2)).toBeDefined();
      cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)], { channels: [channel(CHANNEL_1, { name: 'renamed' })], threads: [thread(THREAD_3, CHANNEL_1)] }));
      await settle(cache);
      expect(ids(await cache.getChannels(GUILD_A))).toEqual([CHANNEL_1]);
      expect((await cache.getChannel(CHANNEL_1))?.name).toBe('renamed');
      expect(await cache.getChannel(CHANNEL_2)).toBeUndefined();
      expect(await cache.getChannel(THREAD_2)).toBeUndefined();
      expect(await cache.getChannel(THREAD_1)).toBeUndefined();
      expect(ids(await cache.getThreads(GUILD_A))).toEqual([THREAD_3]);
      // A GUILD_CREATE without the lists leaves them as they are.
      const without = guildCreate(GUILD_A, [member(USER_1)]);
      delete without.channels;
      delete without.threads;
      cache.apply('GUILD_CREATE', without);
      expect(ids(await cache.getChannels(GUILD_A))).toEqual([CHANNEL_1]);
    });

    it('CHANNEL_CREATE / UPDATE / DELETE keep them; a deleted channel takes its threads', async () => {
      const cache = await seeded();
      cache.apply('CHANNEL_CREATE', { ...channel('700000000000000103', { position: 5 }), guild_id: GUILD_A });
      cache.apply('CHANNEL_UPDATE', { ...channel(CHANNEL_1, { name: 'general', permission_overwrites: [ow(USER_2, 1, P.ViewChannel, 0n)] }), guild_id: GUILD_A });
      expect(await cache.getChannel(CHANNEL_1)).toMatchObject({ name: 'general', permissionOverwrites: [{ id: USER_2, type: 1, allow: P.ViewChannel, deny: 0n }] });
      cache.apply('CHANNEL_DELETE', { ...channel(CHANNEL_1), guild_id: GUILD_A });
      await settle(cache);
      expect(await cache.getChannel(CHANNEL_1)).toBeUndefined();
      expect(await cache.getChannel(THREAD_1)).toBeUndefined();
      expect(await cache.getChannel(THREAD_2)).toBeDefined();
      expect(ids(await cache.getChannels(GUILD_A))).toEqual([CATEGORY, CHANNEL_2, '700000000000000103']);
      // A channel of a guild the cache does not have, and a DM channel, are not cached (and not refused).
      expect(cache.apply('CHANNEL_CREATE', { ...channel('700000000000000104'), guild_id: '200000000000000099' })).toBe(true);
      expect(cache.apply('CHANNEL_CREATE', { id: '700000000000000105', type: 1, recipients: [] })).toBe(true);
      expect(await cache.getChannel('700000000000000104')).toBeUndefined();
      expect(await cache.getChannel('700000000000000105')).toBeUndefined();
    });

    it('a replayed THREAD_CREATE after its channel was deleted goes again with the replayed CHANNEL_DELETE', async () => {
      const cache = await seeded();
      cache.apply('CHANNEL_DELETE', { ...channel(CHANNEL_1), guild_id: GUILD_A });
      // A replay after a crash repeats the thread's creation, then the deletion of its (no longer cached) channel.
      cache.apply('THREAD_CREATE', { ...thread(THREAD_1, CHANNEL_1), guild_id: GUILD_A });
      cache.apply('CHANNEL_DELETE', { ...channel(CHANNEL_1), guild_id: GUILD_A });
      await settle(cache);
      expect(await cache.getChannel(THREAD_1)).toBeUndefined();
      expect(ids(await cache.getThreads(GUILD_A))).toEqual([THREAD_2]);
    });

    it('THREAD_CREATE / UPDATE / DELETE; THREAD_DELETE never removes a channel', async () => {
      const cache = await seeded();
      cache.apply('THREAD_CREATE', { ...thread(THREAD_3, CHANNEL_2), guild_id: GUILD_A, newly_created: true });
      cache.apply('THREAD_UPDATE', { ...thread(THREAD_1, CHANNEL_1, { thread_metadata: { archived: true, locked: true, auto_archive_duration: 60, archive_timestamp: '2024-06-01T00:00:00Z' } }), guild_id: GUILD_A });
      expect((await cache.getChannel(THREAD_1))?.thread).toMatchObject({ archived: true, locked: true, autoArchiveDuration: 60 });
      cache.apply('THREAD_DELETE', { id: THREAD_2, guild_id: GUILD_A, parent_id: CHANNEL_2, type: 11 });
      cache.apply('THREAD_DELETE', { id: CHANNEL_2, guild_id: GUILD_A, parent_id: CATEGORY, type: 11 });
      await settle(cache);
      expect(ids(await cache.getThreads(GUILD_A))).toEqual([THREAD_1, THREAD_3]);
      expect(await cache.getChannel(CHANNEL_2)).toBeDefined();
    });

    it("THREAD_LIST_SYNC replaces the synced parents' active threads (archived ones stay), or the whole guild's", async () => {
      const cache = await seeded();
      cache.apply('THREAD_UPDATE', { ...thread(THREAD_2, CHANNEL_2, { thread_metadata: { archived: true, locked: false } }), guild_id: GUILD_A });
      cache.apply('THREAD_CREATE', { ...thread(THREAD_3, CHANNEL_2), guild_id: GUILD_A });
      // Syncing CHANNEL_2: THREAD_3 (active, not listed) goes, THREAD_2 (archived) stays, THREAD_1 (other parent) stays.
      cache.apply('THREAD_LIST_SYNC', { guild_id: GUILD_A, channel_ids: [CHANNEL_2], threads: [], members: [] });
      await settle(cache);
      expect(ids(await cache.getThreads(GUILD_A))).toEqual([THREAD_1, THREAD_2]);
      const newer = '700000000000000204';
      cache.apply('THREAD_LIST_SYNC', { guild_id: GUILD_A, threads: [thread(newer, CHANNEL_1)], members: [] });
      await settle(cache);
      expect(ids(await cache.getThreads(GUILD_A))).toEqual([THREAD_2, newer]);
      expect(await cache.getChannel(THREAD_1)).toBeUndefined();
    });

    it("a guild's removal takes its channels and threads; an outage keeps them; a fresh READY reconciles", async () => {
      const cache = await seeded();
      cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [], { channels: [channel('700000000000000301', { parent_id: null })] }));
      cache.apply('GUILD_DELETE', { id: GUILD_A });
      await settle(cache);
      expect(await cache.getChannel(CHANNEL_1)).toBeUndefined();
      expect(await cache.getChannel(THREAD_1)).toBeUndefined();
      expect(await cache.getChannels(GUILD_A)).toEqual([]);
      expect(await cache.sizes()).toMatchObject({ channels: 1, threads: 0 });
      // A fresh READY that does not list GUILD_B (shard 0 of 1) removes it and its channels.
      cache.apply('READY', readyOnShard([], 0, 1));
      await settle(cache);
      expect(await cache.getChannel('700000000000000301')).toBeUndefined();
      expect(await cache.sizes()).toMatchObject({ channels: 0, threads: 0 });
    });

    it('cache.channels false keeps none', async () => {
      const cache = await seeded({ channels: false });
      expect(await cache.getChannels(GUILD_A)).toEqual([]);
      expect(await cache.getChannel(CHANNEL_1)).toBeUndefined();
      expect(await cache.sizes()).toMatchObject({ channels: 0, threads: 0 });
    });

    it('voice states: off by default; when on, kept per member, dropped when they leave voice, replaced by GUILD_CREATE', async () => {
      const off = await seeded();
      off.apply('VOICE_STATE_UPDATE', voice(USER_1, CHANNEL_1));
      expect(await off.getVoiceState(GUILD_A, USER_1)).toBeUndefined();
      const cache = await seeded({ voiceStates: true });
      cache.apply('VOICE_STATE_UPDATE', voice(USER_1, CHANNEL_1, { self_mute: true }));
      cache.apply('VOICE_STATE_UPDATE', voice(USER_2, CHANNEL_2));
      expect(await cache.getVoiceState(GUILD_A, USER_1)).toMatchObject({ guildId: GUILD_A, userId: USER_1, channelId: CHANNEL_1, selfMute: true, deaf: false });
      cache.apply('VOICE_STATE_UPDATE', voice(USER_2, null));
      expect((await cache.getVoiceStates(GUILD_A)).map((v) => v.userId)).toEqual([USER_1]);
      const { guild_id: _g, ...listed } = voice(USER_2, CHANNEL_2);
      cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)], { voice_states: [listed] }));
      expect((await cache.getVoiceStates(GUILD_A)).map((v) => v.userId)).toEqual([USER_2]);
      expect(await cache.sizes()).toMatchObject({ voiceStates: 1 });
      cache.apply('GUILD_DELETE', { id: GUILD_A });
      await settle(cache);
      expect(await cache.getVoiceStates(GUILD_A)).toEqual([]);
    });

    describe('command permission settings', () => {
      const update = (target: string, permissions: unknown[], guild = GUILD_A) => ({ id: target, application_id: APP_ID, guild_id: guild, permissions });
      const denyChannel = { id: CHANNEL_1, type: 3, permission: false };
      const allowUser = { id: USER_2, type: 2, permission: true };

      it('events keep them; an empty list removes them; not loaded until a load commits', async () => {
        const cache = await seeded();
        cache.apply('APPLICATION_COMMAND_PERMISSIONS_UPDATE', update(COMMAND_ID, [denyChannel]));
        cache.apply('APPLICATION_COMMAND_PERMISSIONS_UPDATE', update(APP_ID, [allowUser]));
        let view = await cache.getCommandPermissions(GUILD_A);
        expect(view?.loaded).toBe(false);
        expect(view?.byTarget.get(COMMAND_ID)).toEqual([denyChannel]);
        cache.apply('APPLICATION_COMMAND_PERMISSIONS_UPDATE', update(COMMAND_ID, []));
        view = await cache.getCommandPermissions(GUILD_A);
        expect(view?.byTarget.has(COMMAND_ID)).toBe(false);
        expect(view?.byTarget.get(APP_ID)).toEqual([allowUser]);
        expect(await cache.getCommandPermissions('200000000000000099')).toBeUndefined();
      });

      it('a load replaces them, except what an event changed since it began; a baseline GUILD_CREATE unloads', async () => {
        const cache = await seeded();
        cache.apply('APPLICATION_COMMAND_PERMISSIONS_UPDATE', update('800000000000000009', [allowUser]));
        const load = cache.beginCommandPermissionsLoad(GUILD_A);
        // Newer than the answer below, which still has the old value.
        cache.apply('APPLICATION_COMMAND_PERMISSIONS_UPDATE', update(COMMAND_ID, [denyChannel]));
        await load.commit([update(COMMAND_ID, [{ ...denyChannel, permission: true }]), update(APP_ID, [allowUser]), { bad: true }]);
        let view = await cache.getCommandPermissions(GUILD_A);
        expect(view?.loaded).toBe(true);
        expect(view?.byTarget.get(COMMAND_ID)).toEqual([denyChannel]);
        expect(view?.byTarget.get(APP_ID)).toEqual([allowUser]);
        // Not in the answer, not touched since: gone.
        expect(view?.byTarget.has('800000000000000009')).toBe(false);
        // The guild goes away and comes back: events may have been missed.
        cache.apply('GUILD_DELETE', { id: GUILD_A, unavailable: true });
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
        view = await cache.getCommandPermissions(GUILD_A);
        expect(view?.loaded).toBe(false);
        expect(view?.byTarget.get(APP_ID)).toEqual([allowUser]);
        // A removed guild's settings go with it.
        cache.apply('GUILD_DELETE', { id: GUILD_A });
        await settle(cache);
        expect(await cache.getCommandPermissions(GUILD_A)).toBeUndefined();
      });

      it('canUseCommand: undefined until loaded, then the v2 decision with its reason', async () => {
        const cache = await seeded();
        const command: CommandRef = { id: COMMAND_ID, application_id: APP_ID, name: 'ban', default_member_permissions: null };
        expect(await cache.canUseCommand(GUILD_A, USER_2, CHANNEL_2, command)).toBeUndefined();
        const load = cache.beginCommandPermissionsLoad(GUILD_A);
        await load.commit([update(COMMAND_ID, [denyChannel])]);
        const denied = await cache.canUseCommand(GUILD_A, USER_2, CHANNEL_1, command);
        expect(denied).toMatchObject({ allowed: false, reason: { kind: 'overwrite', level: 'command', target: 'channel', id: CHANNEL_1 } });
        // A thread of that channel: the channel's setting applies.
        expect(await cache.canUseCommand(GUILD_A, USER_2, THREAD_1, command)).toMatchObject({ allowed: false, reason: { target: 'channel', id: CHANNEL_1 } });
        expect(await cache.canUseCommand(GUILD_A, USER_2, CHANNEL_2, command)).toMatchObject({ allowed: true, reason: { kind: 'default_member_permissions', value: null } });
        // The owner is an administrator.
        expect(await cache.canUseCommand(GUILD_A, OWNER_ID, CHANNEL_1, command)).toMatchObject({ allowed: true, reason: { kind: 'administrator', owner: true } });
        // A channel the cache does not have: cannot tell.
        expect(await cache.canUseCommand(GUILD_A, USER_2, '700000000000000999', command)).toBeUndefined();
      });
    });

    describe('permissionsOf', () => {
      it('computes from the cached guild, roles, member and channel (a thread uses its parent); undefined when something is missing', async () => {
        const cache = await factory.create();
        cache.apply('READY', ready([GUILD_A]));
        cache.apply(
          'GUILD_CREATE',
          guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_VIP] }), member(USER_2, { roles: [ROLE_MOD] })], {
            roles: [role(GUILD_A, 0, { permissions: String(P.ViewChannel | P.SendMessages | P.EmbedLinks) }), role(ROLE_VIP, 1, { permissions: String(P.PinMessages) }), role(ROLE_MOD, 2, { permissions: String(P.Administrator) })],
            channels: [channel(CHANNEL_1, { permission_overwrites: [ow(GUILD_A, 0, 0n, P.SendMessages), ow(ROLE_VIP, 0, P.BypassSlowmode, 0n)] })],
            threads: [thread(THREAD_1, CHANNEL_1)],
          }),
        );
        expect(await cache.permissionsOf(GUILD_A, USER_1)).toBe(P.ViewChannel | P.SendMessages | P.EmbedLinks | P.PinMessages);
        // @everyone loses SEND_MESSAGES (and EMBED_LINKS with it); the role adds BYPASS_SLOWMODE.
        expect(await cache.permissionsOf(GUILD_A, USER_1, CHANNEL_1)).toBe(P.ViewChannel | P.PinMessages | P.BypassSlowmode);
        // In the thread the parent's overwrites apply; sending there takes SEND_MESSAGES_IN_THREADS, which nobody has.
        expect(await cache.permissionsOf(GUILD_A, USER_1, THREAD_1)).toBe(P.ViewChannel | P.PinMessages | P.BypassSlowmode);
        const admin = await cache.permissionsOf(GUILD_A, USER_2, CHANNEL_1);
        expect(admin! & P.Administrator).toBe(P.Administrator);
        expect(await cache.permissionsOf(GUILD_A, '300000000000000077')).toBeUndefined();
        expect(await cache.permissionsOf(GUILD_A, USER_1, '700000000000000999')).toBeUndefined();
        expect(await cache.permissionsOf('200000000000000099', USER_1)).toBeUndefined();
        // The owner needs no cached member.
        expect((await cache.permissionsOf(GUILD_A, OWNER_ID, CHANNEL_1))! & P.Administrator).toBe(P.Administrator);
      });
    });

    if (factory.persistent) {
      it('a restarted process reads what the last one stored', async () => {
        const cache = await seeded({ voiceStates: true });
        cache.apply('VOICE_STATE_UPDATE', voice(USER_1, CHANNEL_1));
        await cache.flush();
        const next = await factory.restart(cache, { voiceStates: true });
        expect(ids(await next.getChannels(GUILD_A))).toEqual([CATEGORY, CHANNEL_1, CHANNEL_2]);
        expect((await next.getChannel(THREAD_1))?.parentId).toBe(CHANNEL_1);
        expect((await next.getVoiceState(GUILD_A, USER_1))?.channelId).toBe(CHANNEL_1);
      });
    }
  });
}

function voice(userId: string, channelId: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    guild_id: GUILD_A,
    channel_id: channelId,
    user_id: userId,
    session_id: `s-${userId.slice(-3)}`,
    deaf: false,
    mute: false,
    self_deaf: false,
    self_mute: false,
    self_video: false,
    suppress: false,
    request_to_speak_timestamp: null,
    ...extra,
  };
}
