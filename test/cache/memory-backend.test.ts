/** What only the memory backend's compact layout can get wrong (the shared behaviour is in conformance.ts). */
import { describe, expect, it } from 'vitest';
import { MemoryCache } from '../../src/cache/index.js';
import { UserTable } from '../../src/cache/memory/users.js';
import { GUILD_A, GUILD_B, guildCreate, member, ready, role, user } from './fixtures.js';

function roleId(n: number): string {
  return `40000000000000${String(1000 + n)}`;
}

function userId(n: number): string {
  return `3${String(n).padStart(17, '0')}`;
}

describe('memory backend layout', () => {
  it('keeps role sets right when a guild has more roles than fit in a bit set, through deletions', () => {
    const cache = new MemoryCache();
    const roles = [role(GUILD_A, 0, { name: '@everyone' })];
    for (let n = 1; n <= 45; n++) roles.push(role(roleId(n), n));
    const many = [roleId(1), roleId(30), roleId(31), roleId(44)];
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(userId(1), { roles: many }), member(userId(2), { roles: [roleId(2), roleId(31)] })], { roles }));
    const sorted = (ids: readonly string[]): string[] => [...ids].sort();
    expect(sorted(cache.getMemberSync(GUILD_A, userId(1))!.roles)).toEqual(sorted(many));

    cache.apply('GUILD_ROLE_DELETE', { guild_id: GUILD_A, role_id: roleId(44) });
    expect(sorted(cache.getMemberSync(GUILD_A, userId(1))!.roles)).toEqual(sorted([roleId(1), roleId(30), roleId(31)]));
    cache.apply('GUILD_ROLE_DELETE', { guild_id: GUILD_A, role_id: roleId(31) });
    expect(sorted(cache.getMemberSync(GUILD_A, userId(1))!.roles)).toEqual(sorted([roleId(1), roleId(30)]));
    expect(cache.getMemberSync(GUILD_A, userId(2))!.roles).toEqual([roleId(2)]);

    // A role created later reuses a freed number; nobody holds it until told so.
    cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role(roleId(60), 60) });
    expect(sorted(cache.getMemberSync(GUILD_A, userId(1))!.roles)).toEqual(sorted([roleId(1), roleId(30)]));
    cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(2)), roles: [roleId(60), roleId(45)] });
    expect(sorted(cache.getMemberSync(GUILD_A, userId(2))!.roles)).toEqual(sorted([roleId(45), roleId(60)]));
    // A role id the guild has not announced is kept, and shows once the guild has the role.
    cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(2)), roles: ['499999999999999999'] });
    expect(cache.getMemberSync(GUILD_A, userId(2))!.roles).toEqual([]);
    cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role('499999999999999999', 70) });
    expect(cache.getMemberSync(GUILD_A, userId(2))!.roles).toEqual(['499999999999999999']);
    // A complete role list without the roles of a member releases their numbers, and clears them from members.
    cache.apply('GUILD_UPDATE', { id: GUILD_A, roles: roles.slice(0, 3) });
    expect(cache.getMemberSync(GUILD_A, userId(2))!.roles).toEqual([]);
    expect(sorted(cache.getMemberSync(GUILD_A, userId(1))!.roles)).toEqual([roleId(1)]);
    cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role(roleId(80), 80) });
    cache.apply('GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: role(roleId(81), 81) });
    expect(cache.getMemberSync(GUILD_A, userId(1))!.roles).toEqual([roleId(1)]);
  });

  it('keeps every nickname right through heavy churn (arena reuse and compaction)', () => {
    const cache = new MemoryCache();
    const members = [];
    for (let n = 0; n < 200; n++) members.push(member(userId(n)));
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, members));
    const expected = new Map<number, string | null>();
    let seed = 99;
    const rand = (k: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % k;
    };
    const names = ['a', 'nick', 'a much longer nickname', 'Zoë', '🦊🦊', 'ナカムラ', 'x'.repeat(200), null];
    for (let step = 0; step < 20_000; step++) {
      const n = rand(200);
      const nick = names[rand(names.length)]!;
      if (rand(10) === 0) {
        cache.apply('GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(userId(n)) });
        expected.delete(n);
      } else {
        cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(userId(n)), roles: [], nick });
        expected.set(n, nick);
      }
    }
    for (let n = 0; n < 200; n++) {
      const m = cache.getMemberSync(GUILD_A, userId(n));
      if (expected.has(n)) expect(m?.nick).toBe(expected.get(n));
      else expect(m?.nick ?? null).toBeNull();
    }
  });

  it('keeps user names right across guilds, removals and reused slots', () => {
    const cache = new MemoryCache();
    cache.apply('READY', ready([GUILD_A, GUILD_B]));
    const names = (n: number): Record<string, unknown> => ({ username: `name${n}`, global_name: n % 2 ? `Ünïcode ${n} ✨` : null });
    const list = (from: number, to: number): Record<string, unknown>[] => {
      const out = [];
      for (let n = from; n < to; n++) out.push(member(userId(n), { user: user(userId(n), names(n)) }));
      return out;
    };
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, list(0, 100)));
    cache.apply('GUILD_CREATE', guildCreate(GUILD_B, list(50, 150)));
    cache.apply('GUILD_DELETE', { id: GUILD_A });
    expect(cache.getUserSync(userId(10))).toBeUndefined();
    expect(cache.getUserSync(userId(60))).toMatchObject({ username: 'name60', globalName: null });
    // New users take the freed slots; nothing of the old ones shows through.
    cache.apply('GUILD_MEMBERS_CHUNK', { guild_id: GUILD_B, members: list(200, 260) });
    for (let n = 50; n < 150; n++) expect(cache.getUserSync(userId(n))).toMatchObject({ id: userId(n), ...{ username: `name${n}` } });
    for (let n = 200; n < 260; n++) {
      expect(cache.getUserSync(userId(n))).toMatchObject({ id: userId(n), username: `name${n}`, globalName: n % 2 ? `Ünïcode ${n} ✨` : null });
    }
    expect(cache.sizesSync()).toMatchObject({ guilds: 1, members: 160, users: 161 });
  });

  it('sees every change to a user whose events mostly repeat the cached profile', () => {
    const cache = new MemoryCache();
    const id = userId(7);
    const hash = '8342729096ea3675442027381ff50dfe';
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(id)]));
    let fields: Record<string, unknown> = { username: 'fox', global_name: 'Fox', avatar: hash, discriminator: '0', bot: false };
    const update = (change: Record<string, unknown>): void => {
      fields = { ...fields, ...change };
      // The same profile twice (the unchanged case), then the changed one is what must show.
      cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(id, fields), roles: [] });
      cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(id, fields), roles: [] });
    };
    const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{}, { username: 'fox', globalName: 'Fox', avatar: hash, discriminator: '0', bot: false }],
      [{ username: 'foxy' }, { username: 'foxy' }],
      [{ username: 'fox' }, { username: 'fox' }],
      [{ username: 'fo\u0445' }, { username: 'fo\u0445' }],
      [{ global_name: null }, { globalName: null }],
      [{ global_name: 'Fōx' }, { globalName: 'Fōx' }],
      [{ primary_guild: { tag: 'GG', identity_enabled: true } }, { primaryGuildTag: 'GG' }],
      [{ primary_guild: { tag: 'GH', identity_enabled: true } }, { primaryGuildTag: 'GH' }],
      [{ primary_guild: null }, { primaryGuildTag: null }],
      [{ avatar: `a_${hash}` }, { avatar: `a_${hash}` }],
      [{ avatar: hash.replace('8', '9') }, { avatar: hash.replace('8', '9') }],
      [{ avatar: null }, { avatar: null }],
      [{ avatar: 'not-a-hash' }, { avatar: 'not-a-hash' }],
      [{ avatar: hash }, { avatar: hash }],
      [{ discriminator: '0042' }, { discriminator: '0042' }],
      [{ discriminator: '0043' }, { discriminator: '0043' }],
      [{ discriminator: 'x1' }, { discriminator: 'x1' }],
      [{ discriminator: '0' }, { discriminator: '0' }],
      [{ bot: true }, { bot: true }],
      [{ system: true }, { system: true }],
      [{ bot: false, system: false }, { bot: false, system: false }],
      [{ username: 'x'.repeat(140) }, { username: 'x'.repeat(140) }],
      [{ username: 'fox' }, { username: 'fox', globalName: 'Fōx', avatar: hash, discriminator: '0' }],
    ];
    for (const [change, expected] of steps) {
      update(change);
      expect(cache.getUserSync(id), JSON.stringify(change)).toMatchObject(expected);
    }
  });

  it('keeps join times and flags that do not fit the compact columns, and gives them back exactly', () => {
    const cache = new MemoryCache();
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(userId(1))]));
    const cases: Array<[string | null, number | null]> = [
      ['2024-05-06T07:08:09.987000+00:00', Date.UTC(2024, 4, 6, 7, 8, 9, 987)],
      ['1969-07-20T20:17:40.123000+00:00', Date.UTC(1969, 6, 20, 20, 17, 40, 123)],
      ['2200-01-01T00:00:00.456000+00:00', Date.UTC(2200, 0, 1, 0, 0, 0, 456)],
      ['1970-01-01T00:00:00.000000+00:00', 0],
      ['2106-02-07T06:28:15.999000+00:00', 4294967295999],
      ['2106-02-07T06:28:16.000000+00:00', 4294967296000],
      [null, null],
      ['2021-03-13T19:19:14.040000+00:00', Date.UTC(2021, 2, 13, 19, 19, 14, 40)],
    ];
    for (const [joined, ms] of cases) {
      cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, ...member(userId(1), { joined_at: joined }) });
      expect(cache.getMemberSync(GUILD_A, userId(1))!.joinedAt, String(joined)).toBe(ms);
    }
    for (const flags of [5, 0xfffe, 0xffff, 1 << 20, -1, 2 ** 31 - 1, 0]) {
      cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, ...member(userId(1), { flags }) });
      expect(cache.getMemberSync(GUILD_A, userId(1))!.flags, String(flags)).toBe(flags);
    }
    // A member removed while its values were on the side leaves nothing behind for the slot's next member.
    cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, ...member(userId(1), { flags: 1 << 20, joined_at: '1960-01-01T00:00:00.000000+00:00' }) });
    cache.apply('GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(userId(1)) });
    cache.apply('GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(userId(2), { flags: 3 }) });
    const next = cache.getMemberSync(GUILD_A, userId(2))!;
    expect([next.flags, next.joinedAt]).toEqual([3, Date.UTC(2021, 2, 13, 19, 19, 14, 40)]);
  });

  it('holds a user for every reference, past what the compact reference column counts', () => {
    const users = new UserTable(true);
    const n = 70_000;
    let slot = -1;
    for (let i = 0; i < n; i++) slot = users.acquire(userId(7));
    expect(users.find(userId(7))).toBe(slot);
    for (let i = 0; i < n - 1; i++) users.release(slot);
    expect(users.find(userId(7))).toBe(slot);
    users.release(slot);
    expect(users.find(userId(7))).toBe(-1);
    expect(users.size).toBe(0);
  });

  it('offers the same reads synchronously', async () => {
    const cache = new MemoryCache();
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(userId(1), { nick: 'sync' })]));
    expect(cache.getMemberSync(GUILD_A, userId(1))).toEqual(await cache.getMember(GUILD_A, userId(1)));
    expect(cache.getGuildSync(GUILD_A)).toEqual(await cache.getGuild(GUILD_A));
    expect(cache.getMembersSync(GUILD_A)).toEqual(await cache.getMembers(GUILD_A));
    expect(cache.memberCountSync(GUILD_A)).toBe(1);
    expect(cache.sizesSync()).toEqual(await cache.sizes());
  });

  it('close() empties the cache and leaves it usable', async () => {
    const cache = new MemoryCache();
    cache.apply('READY', ready([GUILD_A]));
    cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(userId(1))]));
    await cache.close();
    expect(cache.sizesSync()).toEqual({ guilds: 0, members: 0, users: 0, roles: 0, entitlements: 0, channels: 0, threads: 0, voiceStates: 0 });
    cache.apply('GUILD_CREATE', guildCreate(GUILD_B, [member(userId(2), { nick: 'again' })]));
    expect(cache.getMemberSync(GUILD_B, userId(2))!.nick).toBe('again');
    expect(cache.getMemberSync(GUILD_A, userId(1))).toBeUndefined();
  });

  it('rejects a bad option with the config key in the message', () => {
    expect(() => new MemoryCache({ maxMembersPerGuild: -1 })).toThrow(/cache\.maxMembersPerGuild/);
  });
});
