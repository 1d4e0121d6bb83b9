/**
 * One behaviour suite for every cache backend: the same dispatch sequences, the same expected reads.
 * A backend's test file calls `cacheConformance` with a factory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Cache, CacheOptions, MemberView } from '../../src/cache/index.js';
import {
  APP_ID,
  AVATAR,
  BOT_ID,
  GUILD_A,
  GUILD_B,
  OTHER_SKU,
  OWNER_ID,
  ROLE_MOD,
  ROLE_NEW,
  ROLE_VIP,
  SKU,
  USER_1,
  USER_2,
  USER_3,
  entitlement,
  guildCreate,
  guildOnShard,
  interaction,
  member,
  ms,
  ready,
  readyOnShard,
  role,
  user,
} from './fixtures.js';

/** Wait for background work (settled(); flush() on a cache without it). */
async function settle(cache: Cache): Promise<void> {
  const c = cache as Partial<Pick<Cache, 'settled'>> & Cache;
  if (typeof c.settled === 'function') await c.settled();
  else await cache.flush();
}

export interface CacheBackendFactory {
  /** A fresh, empty cache. */
  create(options?: Partial<CacheOptions>): Promise<Cache>;
  /**
   * What a restarted process gets: a new instance on the same storage (Redis: the same prefix, after the old
   * one flushed; memory: a new, empty instance). The old instance is left to cleanup().
   */
  restart(cache: Cache, options?: Partial<CacheOptions>): Promise<Cache>;
  /** Whether a restart keeps the data (Redis) or starts empty (memory). */
  readonly persistent: boolean;
  /** After each test: close what create() made and remove its data. */
  cleanup(): Promise<void>;
}

type SuiteDescribe = (name: string, body: () => void) => void;

export function cacheConformance(name: string, factory: CacheBackendFactory, describeFn: SuiteDescribe = describe): void {
  describeFn(`cache conformance: ${name}`, () => {
    afterEach(async () => {
      await factory.cleanup();
    });

    /** A cache holding GUILD_A with members USER_1 (mod) and USER_2 (vip, nick). */
    async function seeded(options?: Partial<CacheOptions>): Promise<Cache> {
      const cache = await factory.create(options);
      cache.apply('READY', ready([GUILD_A, GUILD_B]));
      cache.apply(
        'GUILD_CREATE',
        guildCreate(GUILD_A, [
          member(USER_1, { roles: [ROLE_MOD], nick: 'one', flags: 2 }),
          member(USER_2, { roles: [ROLE_VIP, ROLE_MOD], nick: 'two', avatar: AVATAR, pending: true }),
        ]),
      );
      return cache;
    }

    describe('guilds', () => {
      it('READY lists guilds as unavailable until their GUILD_CREATE', async () => {
        const cache = await factory.create();
        cache.apply('READY', ready([GUILD_A, GUILD_B]));
        expect(await cache.getGuild(GUILD_A)).toEqual({
          id: GUILD_A,
          name: null,
          ownerId: null,
          memberCount: null,
          unavailable: true,
          roleIds: [],
        });
        expect(await cache.getUser(BOT_ID)).toMatchObject({ id: BOT_ID, username: 'gatehouse-bot', bot: true });
      });

      it('GUILD_CREATE stores the guild, its roles, members and their users', async () => {
        const cache = await seeded();
        const guild = await cache.getGuild(GUILD_A);
        expect(guild).toMatchObject({ id: GUILD_A, name: 'guild 01', ownerId: OWNER_ID, memberCount: 2, unavailable: false });
        expect([...guild!.roleIds].sort()).toEqual([GUILD_A, ROLE_MOD, ROLE_VIP].sort());
        expect(await cache.memberCount(GUILD_A)).toBe(2);
        const roles = await cache.getRoles(GUILD_A);
        expect(roles.map((r) => r.id)).toEqual([GUILD_A, ROLE_VIP, ROLE_MOD]);
        expect(await cache.getRole(GUILD_A, ROLE_VIP)).toEqual({
          id: ROLE_VIP,
          guildId: GUILD_A,
          name: 'vip',
          permissions: 1071698660929n,
          position: 1,
          colors: { primary: 1, secondary: 2, tertiary: 3 },
        });
        expect((await cache.getRole(GUILD_A, ROLE_MOD))!.permissions).toBe(8n);
        const m2 = await cache.getMember(GUILD_A, USER_2);
        expect(m2).toMatchObject({
          guildId: GUILD_A,
          userId: USER_2,
          nick: 'two',
          avatar: AVATAR,
          banner: null,
          joinedAt: ms('2021-03-13T19:19:14.040Z'),
          communicationDisabledUntil: null,
          flags: 0,
          pending: true,
        });
        expect([...m2!.roles].sort()).toEqual([ROLE_MOD, ROLE_VIP].sort());
        expect(m2!.user).toEqual({
          id: USER_2,
          username: 'user_0002',
          globalName: 'User 0002',
          avatar: AVATAR,
          discriminator: '0',
          bot: false,
          system: false,
          primaryGuildTag: null,
        });
        expect((await cache.getMember(GUILD_A, USER_1))!.flags).toBe(2);
        expect(await cache.getMember(GUILD_A, USER_3)).toBeUndefined();
        expect(await cache.getMember(GUILD_B, USER_1)).toBeUndefined();
      });

      it('keeps user fields as sent: legacy discriminator, animated avatar, guild tag, no global name', async () => {
        const cache = await seeded();
        cache.apply(
          'GUILD_MEMBER_ADD',
          {
            guild_id: GUILD_A,
            ...member(USER_3, {
              user: user(USER_3, {
                discriminator: '0042',
                avatar: `a_${AVATAR}`,
                global_name: null,
                bot: true,
                primary_guild: { identity_guild_id: GUILD_B, identity_enabled: true, tag: 'GG', badge: 'abc' },
              }),
            }),
          },
        );
        expect(await cache.getUser(USER_3)).toEqual({
          id: USER_3,
          username: 'user_0003',
          globalName: null,
          avatar: `a_${AVATAR}`,
          discriminator: '0042',
          bot: true,
          system: false,
          primaryGuildTag: 'GG',
        });
      });

      it('GUILD_CREATE with unavailable: true keeps what is cached and marks the outage', async () => {
        const cache = await seeded();
        cache.apply('GUILD_CREATE', { id: GUILD_A, unavailable: true });
        expect(await cache.getGuild(GUILD_A)).toMatchObject({ name: 'guild 01', unavailable: true, memberCount: 2 });
        expect(await cache.getMember(GUILD_A, USER_1)).toBeDefined();
      });

      it('a member_count that is not a whole number is no count, on every backend', async () => {
        const cache = await factory.create();
        cache.apply('GUILD_CREATE', { ...guildCreate(GUILD_A, []), member_count: 1.5 });
        expect(await cache.memberCount(GUILD_A)).toBeUndefined();
      });

      it('a guild with 10,000 roles keeps them all, and its members keep theirs', async () => {
        const cache = await factory.create();
        const ids = Array.from({ length: 10_000 }, (_, i) => String(800000000000000000n + BigInt(i + 1)));
        cache.apply('GUILD_CREATE', { ...guildCreate(GUILD_A, [member(USER_1, { roles: ids.slice(0, 3) })]), roles: [role(GUILD_A, 0), ...ids.map((id, i) => role(id, i + 1))] });
        expect((await cache.getRoles(GUILD_A)).length).toBe(10_001);
        expect((await cache.getMember(GUILD_A, USER_1))!.roles).toEqual(ids.slice(0, 3));
      });

      it('GUILD_UPDATE changes guild fields and replaces the role list, keeping member_count', async () => {
        const cache = await seeded();
        cache.apply('GUILD_UPDATE', {
          id: GUILD_A,
          name: 'renamed',
          owner_id: USER_1,
          roles: [role(GUILD_A, 0, { name: '@everyone' }), role(ROLE_MOD, 1, { name: 'moderators' })],
        });
        const guild = await cache.getGuild(GUILD_A);
        expect(guild).toMatchObject({ name: 'renamed', ownerId: USER_1, memberCount: 2, unavailable: false });
        expect(await cache.getRole(GUILD_A, ROLE_VIP)).toBeUndefined();
        expect((await cache.getRole(GUILD_A, ROLE_MOD))!.name).toBe('moderators');
      });

      it('GUILD_DELETE with unavailable: true keeps the data; a later GUILD_CREATE makes it available', async () => {
        const cache = await seeded();
        cache.apply('GUILD_DELETE', { id: GUILD_A, unavailable: true });
        expect(await cache.getGuild(GUILD_A)).toMatchObject({ name: 'guild 01', unavailable: true });
        expect((await cache.getMember(GUILD_A, USER_2))!.nick).toBe('two');
        expect(await cache.getRole(GUILD_A, ROLE_MOD)).toBeDefined();
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
        expect(await cache.getGuild(GUILD_A)).toMatchObject({ unavailable: false, memberCount: 1 });
      });

      it('GUILD_DELETE without unavailable removes the guild, its roles and members', async () => {
        const cache = await seeded();
        cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(USER_1)]));
        cache.apply('GUILD_DELETE', { id: GUILD_A });
        expect(await cache.getGuild(GUILD_A)).toBeUndefined();
        expect(await cache.getMember(GUILD_A, USER_1)).toBeUndefined();
        expect(await cache.getRole(GUILD_A, ROLE_MOD)).toBeUndefined();
        expect(await cache.getRoles(GUILD_A)).toEqual([]);
        expect((await cache.getMembers(GUILD_A)).members).toEqual([]);
        // USER_2 was only in GUILD_A; USER_1 is still a member of GUILD_B.
        expect(await cache.getUser(USER_2)).toBeUndefined();
        expect(await cache.getUser(USER_1)).toBeDefined();
        expect(await cache.getMember(GUILD_B, USER_1)).toBeDefined();
        const sizes = await cache.sizes();
        expect(sizes).toMatchObject({ guilds: 1, members: 1, roles: 3 });
      });
    });

    describe('members', () => {
      it('GUILD_MEMBER_ADD stores the member and counts it once, even when delivered twice', async () => {
        const cache = await seeded();
        const add = { guild_id: GUILD_A, ...member(USER_3, { roles: [ROLE_VIP] }) };
        cache.apply('GUILD_MEMBER_ADD', add);
        expect(await cache.memberCount(GUILD_A)).toBe(3);
        expect((await cache.getMember(GUILD_A, USER_3))!.roles).toEqual([ROLE_VIP]);
        cache.apply('GUILD_MEMBER_ADD', add);
        expect(await cache.memberCount(GUILD_A)).toBe(3);
      });

      it('GUILD_MEMBER_UPDATE changes only the fields present; a present null clears', async () => {
        const cache = await seeded();
        cache.apply('GUILD_MEMBER_UPDATE', {
          guild_id: GUILD_A,
          user: user(USER_2, { username: 'renamed_user', global_name: null }),
          roles: [ROLE_MOD],
          communication_disabled_until: '2030-01-01T00:00:00.000000+00:00',
          // nick, avatar, banner, joined_at, pending, flags: absent -> untouched
        });
        const m = await cache.getMember(GUILD_A, USER_2);
        expect(m).toMatchObject({
          nick: 'two',
          avatar: AVATAR,
          pending: true,
          joinedAt: ms('2021-03-13T19:19:14.040Z'),
          roles: [ROLE_MOD],
          communicationDisabledUntil: ms('2030-01-01T00:00:00Z'),
        });
        expect(m!.user).toMatchObject({ username: 'renamed_user', globalName: null });
        expect(await cache.getUser(USER_2)).toMatchObject({ username: 'renamed_user' });

        cache.apply('GUILD_MEMBER_UPDATE', {
          guild_id: GUILD_A,
          user: user(USER_2),
          roles: [],
          nick: null,
          avatar: null,
          communication_disabled_until: null,
          pending: false,
          flags: 10,
          banner: AVATAR,
        });
        expect(await cache.getMember(GUILD_A, USER_2)).toMatchObject({
          nick: null,
          avatar: null,
          banner: AVATAR,
          roles: [],
          communicationDisabledUntil: null,
          pending: false,
          flags: 10,
          joinedAt: ms('2021-03-13T19:19:14.040Z'),
        });
      });

      it('a whole member over a cached one (GUILD_MEMBER_ADD, a GUILD_CREATE again) drops every field it leaves out', async () => {
        const cache = await seeded();
        const full = {
          roles: [ROLE_MOD],
          nick: 'full',
          avatar: AVATAR,
          banner: AVATAR,
          pending: true,
          flags: 10,
          communication_disabled_until: '2030-01-01T00:00:00.000000+00:00',
        };
        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_2), ...full, joined_at: '2021-03-13T19:19:14.040Z' });
        const bare = { roles: [], nick: null, avatar: null, banner: null, pending: false, flags: 0, communication_disabled_until: null, joined_at: null };
        const cleared = { nick: null, avatar: null, banner: null, pending: false, flags: 0, communicationDisabledUntil: null, joinedAt: null, roles: [] };
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_2, bare) });
        expect(await cache.getMember(GUILD_A, USER_2)).toMatchObject(cleared);

        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_2), ...full });
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1), member(USER_2, bare)]));
        expect(await cache.getMember(GUILD_A, USER_2)).toMatchObject(cleared);
      });

      it('GUILD_MEMBER_UPDATE for a member not cached yet stores it, without counting a join', async () => {
        const cache = await seeded();
        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_3), roles: [ROLE_VIP], nick: 'three', joined_at: null });
        expect(await cache.getMember(GUILD_A, USER_3)).toMatchObject({ nick: 'three', roles: [ROLE_VIP], joinedAt: null, flags: 0, pending: false, avatar: null });
        expect(await cache.memberCount(GUILD_A)).toBe(2);
      });

      it('GUILD_MEMBER_REMOVE drops the member, counts down (never below 0) and releases the user', async () => {
        const cache = await seeded();
        cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(USER_1)]));
        cache.apply('GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_2) });
        cache.apply('GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_1) });
        expect(await cache.getMember(GUILD_A, USER_2)).toBeUndefined();
        expect(await cache.getMember(GUILD_A, USER_1)).toBeUndefined();
        expect(await cache.memberCount(GUILD_A)).toBe(0);
        expect(await cache.getUser(USER_2)).toBeUndefined();
        expect(await cache.getUser(USER_1)).toBeDefined();
        cache.apply('GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_3) });
        expect(await cache.memberCount(GUILD_A)).toBe(0);
      });

      it('GUILD_MEMBERS_CHUNK stores every member of the chunk', async () => {
        const cache = await seeded();
        cache.apply('GUILD_MEMBERS_CHUNK', {
          guild_id: GUILD_A,
          members: [member(USER_3, { nick: 'chunked' }), member(USER_1, { nick: 'again', roles: [] })],
          chunk_index: 0,
          chunk_count: 1,
          not_found: [],
        });
        expect((await cache.getMember(GUILD_A, USER_3))!.nick).toBe('chunked');
        expect(await cache.getMember(GUILD_A, USER_1)).toMatchObject({ nick: 'again', roles: [], flags: 0 });
        expect(await cache.memberCount(GUILD_A)).toBe(2);
      });

      it('ignores members of guilds it does not know', async () => {
        const cache = await factory.create();
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_B, ...member(USER_1) });
        expect(await cache.getMember(GUILD_B, USER_1)).toBeUndefined();
        expect(await cache.getUser(USER_1)).toBeUndefined();
      });

      it('pages members by user id, numerically', async () => {
        const cache = await seeded();
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_3) });
        const all = await cache.getMembers(GUILD_A);
        expect(all.members.map((m) => m.userId)).toEqual([USER_1, USER_2, USER_3]);
        expect(all.next).toBeNull();
        const first = await cache.getMembers(GUILD_A, { limit: 2 });
        expect(first.members.map((m) => m.userId)).toEqual([USER_1, USER_2]);
        expect(first.next).toBe(USER_2);
        const second = await cache.getMembers(GUILD_A, { limit: 2, after: first.next! });
        expect(second.members.map((m) => m.userId)).toEqual([USER_3]);
        expect(second.next).toBeNull();
        expect((await cache.getMembers(GUILD_A, { after: USER_1 })).members.map((m) => m.userId)).toEqual([USER_2, USER_3]);
        expect((await cache.getMembers(GUILD_A, { after: '999999999999999999' })).members.map((m) => m.userId)).toEqual([USER_3]);
        expect(second.members[0]!.user!.id).toBe(USER_3);
        await expect(cache.getMembers(GUILD_A, { limit: 0 })).rejects.toThrow(/limit/);
        await expect(cache.getMembers(GUILD_A, { limit: 1001 })).rejects.toThrow(/limit/);
        await expect(cache.getMembers(GUILD_A, { after: 'abc' })).rejects.toThrow(/after/);
      });

      it('sweepMembers removes the members a predicate picks, and their users', async () => {
        const cache = await seeded();
        cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(USER_1, { nick: 'b1' }), member(USER_3, { nick: 'b3' })]));
        const byNick = (m: MemberView): boolean => m.nick === 'two' || m.nick === 'b3';
        expect(await cache.sweepMembers(byNick)).toBe(2);
        expect(await cache.getMember(GUILD_A, USER_2)).toBeUndefined();
        expect(await cache.getMember(GUILD_B, USER_3)).toBeUndefined();
        expect(await cache.getUser(USER_2)).toBeUndefined();
        expect(await cache.getMember(GUILD_B, USER_1)).toBeDefined();
        // Sweeping is not leaving: the service's member count stays.
        expect(await cache.memberCount(GUILD_A)).toBe(2);
        expect(await cache.sweepMembers(() => true, GUILD_B)).toBe(1);
        expect(await cache.getMember(GUILD_A, USER_1)).toBeDefined();
        expect((await cache.sizes()).members).toBe(1);
      });
    });

    describe('roles', () => {
      it('GUILD_ROLE_CREATE and GUILD_ROLE_UPDATE store the role', async () => {
        const cache = await seeded();
        cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role(ROLE_NEW, 3, { name: 'new', permissions: '2251799813685248' }) });
        expect(await cache.getRole(GUILD_A, ROLE_NEW)).toMatchObject({ name: 'new', position: 3, permissions: 1n << 51n });
        cache.apply('GUILD_ROLE_UPDATE', { guild_id: GUILD_A, role: role(ROLE_NEW, 0, { name: 'newer', colors: { primary_color: 5, secondary_color: null, tertiary_color: null } }) });
        expect(await cache.getRole(GUILD_A, ROLE_NEW)).toMatchObject({ name: 'newer', position: 0, colors: { primary: 5, secondary: null, tertiary: null } });
        expect((await cache.getRoles(GUILD_A)).map((r) => r.id)).toEqual([GUILD_A, ROLE_NEW, ROLE_VIP, ROLE_MOD]);
      });

      it('GUILD_ROLE_DELETE removes the role from the guild and from every member', async () => {
        const cache = await seeded();
        cache.apply('GUILD_ROLE_DELETE', { guild_id: GUILD_A, role_id: ROLE_MOD });
        expect(await cache.getRole(GUILD_A, ROLE_MOD)).toBeUndefined();
        expect((await cache.getGuild(GUILD_A))!.roleIds).not.toContain(ROLE_MOD);
        expect((await cache.getMember(GUILD_A, USER_1))!.roles).toEqual([]);
        expect((await cache.getMember(GUILD_A, USER_2))!.roles).toEqual([ROLE_VIP]);
        // A new role after the deletion is not inherited by anyone.
        cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role(ROLE_NEW, 3) });
        expect((await cache.getMember(GUILD_A, USER_1))!.roles).toEqual([]);
      });
    });

    describe('entitlements (spec §3)', () => {
      const E1 = '700000000000000001';
      const E2 = '700000000000000002';
      const start = ms('2024-10-01T00:00:00Z');
      const end = ms('2025-01-01T00:00:00Z');

      it('an unreadable ends_at or starts_at is refused: an ended entitlement never reopens (fail closed)', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1, { ends_at: '2025-01-01T00:00:00.000000+00:00' }));
        const after = new Date('2025-06-01');
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: after })).toBe(false);
        for (const bad of ['garbage', 1767225600000, { toString: 1 }, []]) {
          cache.apply('ENTITLEMENT_UPDATE', entitlement(E1, { ends_at: bad }));
          cache.apply('ENTITLEMENT_UPDATE', entitlement(E1, { ends_at: null, starts_at: bad }));
        }
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: after })).toBe(false);
        expect((await cache.getEntitlement(E1))!.endsAt).toBe(end);
      });

      it('an ongoing subscription (ends_at null) is active from its start on', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: start + 1 })).toBe(true);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: new Date('2099-01-01') })).toBe(true);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU })).toBe(true);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: start - 1 })).toBe(false);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: OTHER_SKU, at: start + 1 })).toBe(false);
        expect(await cache.hasEntitlement({ userId: USER_2, skuId: SKU, at: start + 1 })).toBe(false);
        expect(await cache.getEntitlement(E1)).toEqual({
          id: E1,
          skuId: SKU,
          applicationId: APP_ID,
          userId: USER_1,
          guildId: null,
          type: 8,
          startsAt: start,
          endsAt: null,
          deleted: false,
          consumed: false,
        });
      });

      it('ENTITLEMENT_UPDATE with ends_at ends it then: active before, not after', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
        cache.apply('ENTITLEMENT_UPDATE', entitlement(E1, { ends_at: '2025-01-01T00:00:00.000000+00:00' }));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: end - 1 })).toBe(true);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: end })).toBe(false);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: end + 86_400_000 })).toBe(false);
        expect((await cache.getEntitlement(E1))!.endsAt).toBe(end);
      });

      it('a cancelled subscription without ends_at stays active', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
        // Cancellation reaches the app as SUBSCRIPTION_UPDATE; any entitlement event still has ends_at null.
        cache.apply('SUBSCRIPTION_UPDATE', { id: '1', user_id: USER_1, status: 2, canceled_at: '2024-11-01T00:00:00.000000+00:00' });
        cache.apply('ENTITLEMENT_UPDATE', entitlement(E1, { ends_at: null }));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: new Date('2030-01-01') })).toBe(true);
      });

      it('ENTITLEMENT_DELETE removes it', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
        cache.apply('ENTITLEMENT_CREATE', entitlement(E2, { sku_id: OTHER_SKU }));
        cache.apply('ENTITLEMENT_DELETE', entitlement(E1, { deleted: true }));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: start + 1 })).toBe(false);
        expect(await cache.getEntitlement(E1)).toBeUndefined();
        expect((await cache.entitlementsOf({ userId: USER_1 })).map((e) => e.id)).toEqual([E2]);
      });

      it('follows an entitlement to its new owner when an update changes it', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
        cache.apply('ENTITLEMENT_UPDATE', entitlement(E1, { user_id: USER_2 }));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: start + 1 })).toBe(false);
        expect(await cache.hasEntitlement({ userId: USER_2, skuId: SKU, at: start + 1 })).toBe(true);
        expect(await cache.entitlementsOf({ userId: USER_1 })).toEqual([]);
      });

      it('deleted, consumed and not-yet-started entitlements grant nothing; guilds own entitlements too', async () => {
        const cache = await factory.create();
        cache.apply('ENTITLEMENT_CREATE', entitlement(E1, { deleted: true }));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: start + 1 })).toBe(false);
        cache.apply('ENTITLEMENT_CREATE', entitlement(E2, { sku_id: OTHER_SKU, type: 3, consumed: true, starts_at: null }));
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: OTHER_SKU, at: start })).toBe(false);
        const E3 = '700000000000000003';
        cache.apply('ENTITLEMENT_CREATE', entitlement(E3, { user_id: undefined, guild_id: GUILD_A, starts_at: '2030-01-01T00:00:00+00:00' }));
        expect(await cache.hasEntitlement({ guildId: GUILD_A, skuId: SKU, at: ms('2029-12-31T23:59:59Z') })).toBe(false);
        expect(await cache.hasEntitlement({ guildId: GUILD_A, skuId: SKU, at: ms('2030-01-01T00:00:00Z') })).toBe(true);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU, at: ms('2030-01-02T00:00:00Z') })).toBe(false);
        expect((await cache.entitlementsOf({ guildId: GUILD_A })).map((e) => e.id)).toEqual([E3]);
        expect((await cache.entitlementsOf({ userId: USER_1 })).map((e) => e.id).sort()).toEqual([E1, E2]);
        await expect(cache.hasEntitlement({ skuId: SKU })).rejects.toThrow(/exactly one/);
        await expect(cache.hasEntitlement({ userId: USER_1, guildId: GUILD_A, skuId: SKU })).rejects.toThrow(/exactly one/);
      });
    });

    describe('configuration', () => {
      it('caps members per guild, always keeping the bot itself', async () => {
        const cache = await factory.create({ maxMembersPerGuild: 2 });
        cache.apply('READY', ready([GUILD_A]));
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1), member(USER_2), member(USER_3), member(BOT_ID)], { member_count: 4 }));
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId)).toEqual([USER_1, BOT_ID, USER_2]);
        expect(await cache.getMember(GUILD_A, USER_3)).toBeUndefined();
        expect(await cache.getUser(USER_3)).toBeUndefined();
        // Joins still count even when the member is not cached.
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member('900000000000000009') });
        expect(await cache.memberCount(GUILD_A)).toBe(5);
        // Updates of cached members still apply at the cap.
        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_1), roles: [], nick: 'capped' });
        expect((await cache.getMember(GUILD_A, USER_1))!.nick).toBe('capped');
      });

      it('does not cache members or users when members are off, but keeps the member count', async () => {
        const cache = await factory.create({ members: false });
        cache.apply('READY', ready([GUILD_A]));
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_MOD] })]));
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_2) });
        expect(await cache.getMember(GUILD_A, USER_1)).toBeUndefined();
        expect(await cache.getUser(USER_1)).toBeUndefined();
        expect(await cache.memberCount(GUILD_A)).toBe(2);
        expect(await cache.getRole(GUILD_A, ROLE_MOD)).toBeDefined();
        expect(await cache.sizes()).toMatchObject({ guilds: 1, members: 0, users: 0, roles: 3 });
      });

      it('keeps members without user records when users are off', async () => {
        const cache = await factory.create({ users: false });
        cache.apply('READY', ready([GUILD_A]));
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1, { nick: 'n' })]));
        expect(await cache.getMember(GUILD_A, USER_1)).toMatchObject({ nick: 'n', user: null });
        expect(await cache.getUser(USER_1)).toBeUndefined();
        expect((await cache.sizes()).users).toBe(0);
      });

      it('caches neither roles nor guild fields nor entitlements when those are off', async () => {
        const cache = await factory.create({ roles: false, guilds: false, entitlements: false });
        cache.apply('READY', ready([GUILD_A]));
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_MOD] })]));
        cache.apply('ENTITLEMENT_CREATE', entitlement('700000000000000001'));
        expect(await cache.getGuild(GUILD_A)).toBeUndefined();
        expect(await cache.getRole(GUILD_A, ROLE_MOD)).toBeUndefined();
        expect((await cache.getMember(GUILD_A, USER_1))!.roles).toEqual([ROLE_MOD]);
        expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU })).toBe(false);
        expect(await cache.sizes()).toMatchObject({ guilds: 0, roles: 0, entitlements: 0, members: 1 });
      });
    });

    describe('state across restarts, replays and snapshots', () => {
      const S0A = guildOnShard(0, 2, 0);
      const S0B = guildOnShard(0, 2, 1);
      const S1C = guildOnShard(1, 2, 0);

      /** Shard 0 of 2 with S0A and S0B, shard 1 with S1C, each with members. */
      async function twoShards(options?: Partial<CacheOptions>): Promise<Cache> {
        const cache = await factory.create(options);
        cache.apply('READY', readyOnShard([S0A, S0B], 0, 2));
        cache.apply('GUILD_CREATE', guildCreate(S0A, [member(USER_1, { roles: [ROLE_MOD] })]));
        cache.apply('GUILD_CREATE', guildCreate(S0B, [member(USER_2, { roles: [ROLE_VIP] }), member(USER_3)]));
        cache.apply('READY', readyOnShard([S1C], 1, 2));
        cache.apply('GUILD_CREATE', guildCreate(S1C, [member(USER_3, { nick: 'c' })]));
        await settle(cache);
        return cache;
      }

      async function expectGone(cache: Cache, guildId: string): Promise<void> {
        expect(await cache.getGuild(guildId)).toBeUndefined();
        expect(await cache.getRoles(guildId)).toEqual([]);
        expect(await cache.getMember(guildId, USER_2)).toBeUndefined();
        expect((await cache.getMembers(guildId)).members).toEqual([]);
        expect(await cache.memberCount(guildId)).toBeUndefined();
      }

      it('a fresh READY removes the cached guilds of its shard it does not list, with roles and members (after a restart too)', async () => {
        let cache = await twoShards();
        // The bot left S0B while no session was live; the next session of shard 0 does not list it.
        if (factory.persistent) cache = await factory.restart(cache);
        cache.apply('READY', readyOnShard([S0A], 0, 2));
        cache.apply('GUILD_CREATE', guildCreate(S0A, [member(USER_1, { roles: [ROLE_MOD] })]));
        await settle(cache);
        await expectGone(cache, S0B);
        expect(await cache.getUser(USER_2)).toBeUndefined();
        expect(await cache.getGuild(S0A)).toMatchObject({ unavailable: false, memberCount: 1 });
        // Another shard's guild (another process's, perhaps) is never touched.
        expect(await cache.getGuild(S1C)).toMatchObject({ unavailable: false, name: `guild ${S1C.slice(-2)}` });
        expect((await cache.getMember(S1C, USER_3))!.nick).toBe('c');
        expect(await cache.getUser(USER_3)).toBeDefined();
        expect((await cache.sizes()).guilds).toBe(2);
      });

      it('a READY without a shard field lists every guild of the session', async () => {
        const cache = await twoShards();
        cache.apply('READY', ready([S1C]));
        await settle(cache);
        await expectGone(cache, S0A);
        await expectGone(cache, S0B);
        expect(await cache.getGuild(S1C)).toMatchObject({ unavailable: true });
        expect((await cache.getMember(S1C, USER_3))!.nick).toBe('c');
      });

      it('RESUMED reconciles nothing; a guild created right after a fresh READY stays', async () => {
        const cache = await twoShards();
        cache.apply('RESUMED', null);
        await settle(cache);
        expect(await cache.getGuild(S0B)).toMatchObject({ unavailable: false });
        const joined = guildOnShard(0, 2, 7);
        cache.apply('READY', readyOnShard([S0A, S0B], 0, 2));
        cache.apply('GUILD_CREATE', guildCreate(joined, [member(USER_1)]));
        await settle(cache);
        expect(await cache.getGuild(joined)).toMatchObject({ unavailable: false });
        expect(await cache.getGuild(S0A)).toMatchObject({ unavailable: true });
        expect(await cache.getMember(S0B, USER_2)).toBeDefined();
      });

      it('a complete role list drops the roles it lacks, from members too (GUILD_CREATE after a gap, GUILD_UPDATE)', async () => {
        let cache = await seeded();
        if (factory.persistent) cache = await factory.restart(cache);
        cache.apply('READY', ready([GUILD_A]));
        // ROLE_VIP was deleted while no session was live: the new GUILD_CREATE lists every role but it.
        const roles = [role(GUILD_A, 0, { name: '@everyone' }), role(ROLE_MOD, 2, { name: 'mod' })];
        // (A partial member list, as for a guild without presences: cached members stay.)
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, factory.persistent ? [] : [member(USER_2, { roles: [ROLE_VIP, ROLE_MOD] })], { roles, member_count: 2 }));
        expect(await cache.getRole(GUILD_A, ROLE_VIP)).toBeUndefined();
        expect((await cache.getMember(GUILD_A, USER_2))!.roles).toEqual([ROLE_MOD]);
        expect((await cache.getMembers(GUILD_A)).members.find((m) => m.userId === USER_2)!.roles).toEqual([ROLE_MOD]);
        // GUILD_UPDATE carries the complete list as well.
        cache.apply('GUILD_UPDATE', { id: GUILD_A, name: 'renamed', roles: [role(GUILD_A, 0, { name: '@everyone' })] });
        expect((await cache.getMember(GUILD_A, USER_2))!.roles).toEqual([]);
        // A role created later is nobody's until a member event says so.
        cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role(ROLE_NEW, 3) });
        expect((await cache.getMember(GUILD_A, USER_2))!.roles).toEqual([]);
        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_2), roles: [ROLE_NEW] });
        expect((await cache.getMember(GUILD_A, USER_2))!.roles).toEqual([ROLE_NEW]);
      });

      it('roles filter members even when roles are not cached', async () => {
        const cache = await factory.create({ roles: false });
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_MOD, ROLE_VIP] })]));
        cache.apply('GUILD_ROLE_DELETE', { guild_id: GUILD_A, role_id: ROLE_VIP });
        expect((await cache.getMember(GUILD_A, USER_1))!.roles).toEqual([ROLE_MOD]);
        cache.apply('GUILD_UPDATE', { id: GUILD_A, roles: [role(GUILD_A, 0)] });
        expect((await cache.getMember(GUILD_A, USER_1))!.roles).toEqual([]);
        expect(await cache.getRoles(GUILD_A)).toEqual([]);
      });

      it('member_count counts a leave delivered twice once', async () => {
        const cache = await seeded();
        const leave = { guild_id: GUILD_A, user: user(USER_2) };
        cache.apply('GUILD_MEMBER_REMOVE', leave);
        cache.apply('GUILD_MEMBER_REMOVE', leave);
        expect(await cache.memberCount(GUILD_A)).toBe(1);
        // A leave of a member the cache never held (a partial member list) counts, once.
        const other = { guild_id: GUILD_A, user: user('900000000000000009') };
        cache.apply('GUILD_MEMBER_REMOVE', other);
        cache.apply('GUILD_MEMBER_REMOVE', other);
        expect(await cache.memberCount(GUILD_A)).toBe(0);
      });

      it('member_count survives a replay of joins and leaves after a crash (the suffix since the checkpoint, again)', async () => {
        const cache = await seeded();
        const events: Array<[string, Record<string, unknown>]> = [
          ['GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_3) }],
          ['GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_1) }],
          ['GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_3) }],
          ['GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_1) }],
        ];
        for (const [t, d] of events) cache.apply(t, d);
        expect(await cache.memberCount(GUILD_A)).toBe(2);
        // A GUILD_CREATE in the replayed suffix, for a guild already available, changes no count either.
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1), member(USER_2)], { member_count: 7 }));
        for (const [t, d] of events) cache.apply(t, d);
        expect(await cache.memberCount(GUILD_A)).toBe(2);
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId)).toEqual([USER_1, USER_2]);
      });

      it('member_count survives a replay that spans an outage: joins after the returning GUILD_CREATE count again', async () => {
        for (const options of [{}, { maxMembersPerGuild: 2 }, { members: false }] as Partial<CacheOptions>[]) {
          const cache = await factory.create(options);
          cache.apply('READY', ready([GUILD_A]));
          cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1), member(USER_2)]));
          const suffix: Array<[string, Record<string, unknown>]> = [
            ['GUILD_DELETE', { id: GUILD_A, unavailable: true }],
            ['GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1), member(USER_2)], { member_count: 2 })],
            ['GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_3) }],
            ['GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_1) }],
          ];
          for (const [t, d] of suffix) cache.apply(t, d);
          expect(await cache.memberCount(GUILD_A)).toBe(2);
          for (const [t, d] of suffix) cache.apply(t, d);
          expect(await cache.memberCount(GUILD_A)).toBe(2);
        }
      });

      it('member_count counts joins and leaves once with a member cap and with members off', async () => {
        for (const options of [{ maxMembersPerGuild: 1 }, { members: false }] as Partial<CacheOptions>[]) {
          const cache = await factory.create(options);
          cache.apply('READY', ready([GUILD_A]));
          cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)], { member_count: 10 }));
          const join = { guild_id: GUILD_A, ...member(USER_3) };
          cache.apply('GUILD_MEMBER_ADD', join);
          cache.apply('GUILD_MEMBER_ADD', join);
          expect(await cache.memberCount(GUILD_A)).toBe(11);
          const leave = { guild_id: GUILD_A, user: user(USER_3) };
          cache.apply('GUILD_MEMBER_REMOVE', leave);
          cache.apply('GUILD_MEMBER_REMOVE', leave);
          expect(await cache.memberCount(GUILD_A)).toBe(10);
          // A fresh session's GUILD_CREATE is the new baseline.
          cache.apply('READY', ready([GUILD_A]));
          cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)], { member_count: 4 }));
          cache.apply('GUILD_MEMBER_ADD', join);
          expect(await cache.memberCount(GUILD_A)).toBe(5);
        }
      });

      it('a fresh GUILD_CREATE with a complete member list (member_count entries) replaces the cached members; a partial one keeps them', async () => {
        const cache = await seeded();
        cache.apply('READY', ready([GUILD_A]));
        // USER_2 left while no session was live; the list has every member (member_count of them).
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_MOD] }), member(USER_3)]));
        await settle(cache);
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId)).toEqual([USER_1, USER_3]);
        expect(await cache.getUser(USER_2)).toBeUndefined();
        // A partial list (member_count larger) removes nobody.
        cache.apply('READY', ready([GUILD_A]));
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_3)], { member_count: 40 }));
        await settle(cache);
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId)).toEqual([USER_1, USER_3]);
        // A replayed GUILD_CREATE for a guild already available removes nobody either.
        cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_3)]));
        await settle(cache);
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId)).toEqual([USER_1, USER_3]);
        expect(await cache.memberCount(GUILD_A)).toBe(40);
      });

      it('a completed member sync replaces the member set and the count; members written meanwhile stay', async () => {
        const cache = await seeded();
        const sync = cache.beginMemberSync(GUILD_A);
        // The chunks list USER_2 and USER_3 (USER_1 left while unobserved); a join arrives in between.
        cache.apply('GUILD_MEMBERS_CHUNK', { guild_id: GUILD_A, members: [member(USER_2, { nick: 'fresh' })], chunk_index: 0, chunk_count: 2, nonce: 'n' });
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(BOT_ID) });
        cache.apply('GUILD_MEMBERS_CHUNK', { guild_id: GUILD_A, members: [member(USER_3)], chunk_index: 1, chunk_count: 2, nonce: 'n' });
        await sync.commit(3);
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId).sort()).toEqual([USER_3, BOT_ID, USER_2].sort());
        expect(await cache.getUser(USER_1)).toBeUndefined();
        expect((await cache.getMember(GUILD_A, USER_2))!.nick).toBe('fresh');
        expect(await cache.memberCount(GUILD_A)).toBe(3);
        // An aborted sync removes nothing; a superseded one neither.
        const aborted = cache.beginMemberSync(GUILD_A);
        aborted.abort();
        await aborted.commit(0);
        const first = cache.beginMemberSync(GUILD_A);
        const second = cache.beginMemberSync(GUILD_A);
        await first.commit(1);
        expect((await cache.getMembers(GUILD_A)).members).toHaveLength(3);
        cache.apply('GUILD_MEMBERS_CHUNK', { guild_id: GUILD_A, members: [member(USER_3)], chunk_index: 0, chunk_count: 1 });
        await second.commit(1);
        expect((await cache.getMembers(GUILD_A)).members.map((m) => m.userId)).toEqual([USER_3]);
        expect(await cache.memberCount(GUILD_A)).toBe(1);
      });

      describe('entitlements', () => {
        const E1 = '700000000000000001';
        const E2 = '700000000000000002';
        const E3 = '700000000000000003';

        it('after a restart an entitlement that existed before is held again once synced from REST', async () => {
          let cache = await factory.create();
          cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
          cache = await factory.restart(cache);
          const sync = cache.beginEntitlementSync();
          sync.add([entitlement(E1), entitlement(E2, { user_id: USER_2, sku_id: OTHER_SKU })]);
          await sync.commit();
          expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU })).toBe(true);
          expect(await cache.hasEntitlement({ userId: USER_2, skuId: OTHER_SKU })).toBe(true);
        });

        it('a sync removes what REST no longer lists, keeps what events said while it read, and rejects bad entries', async () => {
          const cache = await factory.create();
          cache.apply('ENTITLEMENT_CREATE', entitlement(E1));
          cache.apply('ENTITLEMENT_CREATE', entitlement(E2, { user_id: USER_2 }));
          const sync = cache.beginEntitlementSync();
          // While the pages are read: E3 is created, E2 ends.
          cache.apply('ENTITLEMENT_CREATE', entitlement(E3, { user_id: USER_3 }));
          cache.apply('ENTITLEMENT_UPDATE', entitlement(E2, { user_id: USER_2, ends_at: '2025-01-01T00:00:00.000000+00:00' }));
          const before = cache.stats().rejected;
          sync.add([entitlement(E2, { user_id: USER_2 }), { id: 'x', sku_id: SKU }]);
          await sync.commit();
          expect(cache.stats().rejected).toBe(before + 1);
          // E1 was gone from REST (refunded while the process was down): removed.
          expect(await cache.getEntitlement(E1)).toBeUndefined();
          expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU })).toBe(false);
          // E3 came by event during the sync; E2's end came by event too and the older page does not undo it.
          expect(await cache.hasEntitlement({ userId: USER_3, skuId: SKU })).toBe(true);
          expect((await cache.getEntitlement(E2))!.endsAt).toBe(ms('2025-01-01T00:00:00Z'));
        });

        it("applies an interaction's entitlements, which never bring back a deleted one nor reopen an ended one", async () => {
          const cache = await factory.create();
          cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(E1)]));
          expect(await cache.hasEntitlement({ userId: USER_1, skuId: SKU })).toBe(true);
          cache.apply('ENTITLEMENT_UPDATE', entitlement(E1, { ends_at: '2025-01-01T00:00:00.000000+00:00' }));
          cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(E1)]));
          expect((await cache.getEntitlement(E1))!.endsAt).toBe(ms('2025-01-01T00:00:00Z'));
          cache.apply('ENTITLEMENT_CREATE', entitlement(E2, { sku_id: OTHER_SKU }));
          cache.apply('ENTITLEMENT_DELETE', entitlement(E2, { sku_id: OTHER_SKU, deleted: true }));
          cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [entitlement(E2, { sku_id: OTHER_SKU })]));
          expect(await cache.getEntitlement(E2)).toBeUndefined();
          // A malformed entry is rejected with its path; the others apply.
          const before = cache.stats().rejected;
          cache.apply('INTERACTION_CREATE', interaction(GUILD_A, USER_1, [{ id: E3, sku_id: 5 }, entitlement(E3, { sku_id: OTHER_SKU })]));
          expect(cache.stats().rejected).toBe(before + 1);
          expect(await cache.hasEntitlement({ userId: USER_1, skuId: OTHER_SKU })).toBe(true);
        });
      });
    });

    describe('input', () => {
      it('counts and ignores payloads without the documented shape, and ignores unknown events', async () => {
        const cache = await seeded();
        const before = cache.stats();
        cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, nick: 'no user' });
        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: { id: 'not-a-snowflake', username: 'x' }, roles: [] });
        cache.apply('GUILD_CREATE', null);
        cache.apply('GUILD_ROLE_DELETE', { guild_id: GUILD_A });
        cache.apply('ENTITLEMENT_CREATE', { id: '1', sku_id: SKU });
        cache.apply('MESSAGE_CREATE', { id: '1' });
        await cache.flush();
        const after = cache.stats();
        expect(after.rejected - before.rejected).toBe(5);
        expect(after.applied - before.applied).toBe(5);
        expect((await cache.sizes()).members).toBe(2);
      });

      it('counts a payload whose fields cannot be read as rejected instead of throwing', async () => {
        const cache = await seeded();
        const hostile = { guild_id: GUILD_A, user: user(USER_3), roles: [] } as Record<string, unknown>;
        Object.defineProperty(hostile, 'nick', { enumerable: true, get: () => { throw new Error('boom'); } });
        const before = cache.stats().rejected;
        expect(() => cache.apply('GUILD_MEMBER_UPDATE', hostile)).not.toThrow();
        await cache.flush();
        expect(cache.stats().rejected).toBe(before + 1);
      });

      it('keeps nothing of the payload: changing it afterwards changes nothing', async () => {
        const cache = await factory.create();
        cache.apply('READY', ready([GUILD_A]));
        const payload = guildCreate(GUILD_A, [member(USER_1, { roles: [ROLE_MOD], nick: 'orig' })]);
        cache.apply('GUILD_CREATE', payload);
        const m = (payload.members as Record<string, unknown>[])[0]!;
        (m.roles as string[]).push(ROLE_VIP);
        m.nick = 'mutated';
        (m.user as Record<string, unknown>).username = 'mutated';
        (payload.roles as Record<string, unknown>[])[1]!.name = 'mutated';
        expect(await cache.getMember(GUILD_A, USER_1)).toMatchObject({ nick: 'orig', roles: [ROLE_MOD] });
        expect((await cache.getUser(USER_1))!.username).toBe('user_2384');
        expect((await cache.getRole(GUILD_A, ROLE_MOD))!.name).toBe('mod');
      });
    });
  });
}
