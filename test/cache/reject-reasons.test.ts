/**
 * A payload that is not what the protocol says is ignored with a reason that names the event's field path and
 * what was wrong (the runtime logs it; the cache stays consistent and keeps going).
 */
import { describe, expect, it } from 'vitest';
import { dispatchProblem, MemoryCache } from '../../src/cache/index.js';
import { GUILD_A, USER_1, entitlement, guildCreate, member, ready, role, user } from './fixtures.js';

function cacheWithReasons(): { cache: MemoryCache; reasons: Array<[string, string]> } {
  const reasons: Array<[string, string]> = [];
  const cache = new MemoryCache({}, { onReject: (event, reason) => reasons.push([event, reason]) });
  cache.apply('READY', ready([GUILD_A]));
  cache.apply('GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1)]));
  return { cache, reasons };
}

describe('reject reasons name the field path', () => {
  const cases: Array<[string, string, unknown, string]> = [
    ['a numeric user id', 'GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_1), user: { id: 42, username: 'x' } }, 'user.id: expected a snowflake string, got number'],
    ['a member without user', 'GUILD_MEMBER_ADD', { guild_id: GUILD_A, roles: [], nick: 'n' }, 'user: expected a user object, got undefined'],
    ['roles that are not a list', 'GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_1), roles: 'admin' }, 'roles: expected an array of role ids, got a string that is not a snowflake'],
    ['a join without roles', 'GUILD_MEMBER_ADD', { guild_id: GUILD_A, user: user(USER_1) }, 'roles: expected an array of role ids, got undefined'],
    ['a bad guild id', 'GUILD_MEMBER_REMOVE', { guild_id: 'abc', user: user(USER_1) }, 'guild_id: expected a snowflake string, got a string that is not a snowflake'],
    ['a member list entry', 'GUILD_MEMBERS_CHUNK', { guild_id: GUILD_A, members: [member(USER_1), { user: { id: null } }] }, 'members[1].user.id: expected a snowflake string, got null'],
    ['a role list entry', 'GUILD_UPDATE', { id: GUILD_A, roles: [role(GUILD_A, 0), { id: '5', name: 7 }] }, 'roles[1].name: expected a string, got number'],
    ['a role without id', 'GUILD_ROLE_CREATE', { guild_id: GUILD_A, role: { name: 'x' } }, 'role.id: expected a snowflake string, got undefined'],
    ['READY without guilds', 'READY', { user: user('100000000000000001') }, 'guilds: expected an array, got undefined'],
    ['a READY guild entry', 'READY', { ...ready([]), guilds: [{ id: 5 }] }, 'guilds[0].id: expected a snowflake string, got number; no guild removed'],
    ['a READY shard field', 'READY', { ...ready([GUILD_A]), shard: [3, 2] }, 'shard: expected [shard_id, num_shards], got an array; no guild removed'],
    ['an entitlement without owner', 'ENTITLEMENT_CREATE', entitlement('700000000000000001', { user_id: undefined }), 'user_id, guild_id: expected a snowflake string in one of them, got undefined and undefined'],
    ['an interaction entitlement', 'INTERACTION_CREATE', { id: '1', type: 2, entitlements: [entitlement('700000000000000001', { sku_id: 12 })] }, 'entitlements[0].sku_id: expected a snowflake string, got number'],
    ['a payload that is not an object', 'GUILD_MEMBER_UPDATE', null, 'payload: expected an object, got null'],
  ];
  for (const [what, t, d, reason] of cases) {
    it(`${what}: ${t} -> "${reason}"`, () => {
      const { cache, reasons } = cacheWithReasons();
      const before = cache.stats().rejected;
      cache.apply(t, d);
      expect(reasons).toContainEqual([t, reason]);
      expect(cache.stats().rejected).toBe(before + 1);
      // The cache stays as it was and keeps going.
      expect(cache.getMemberSync(GUILD_A, USER_1)).toBeDefined();
      cache.apply('GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_1), nick: 'still here' });
      expect(cache.getMemberSync(GUILD_A, USER_1)!.nick).toBe('still here');
    });
  }
});

const CHANNEL = { id: '700000000000000001', type: 0, guild_id: GUILD_A, name: 'general', position: 0, permission_overwrites: [] };

const PERMISSIONS = {
  id: '900000000000000001',
  application_id: '900000000000000002',
  guild_id: GUILD_A,
  permissions: [{ id: GUILD_A, type: 1, permission: false }],
};

describe('dispatchProblem: what the cache rejects, for whoever hands payloads on typed (plugin events)', () => {
  // A list entry is rejected alone (the rest of the payload is applied): that is no problem of the payload.
  const LIST_ENTRY = /^(members|roles|guilds|entitlements|channels|threads|voice_states)\[/;
  const cases: Array<[string, unknown, string | null]> = [
    ['GUILD_MEMBER_ADD', { guild_id: GUILD_A, roles: [], joined_at: '2024-01-01T00:00:00Z' }, 'user: expected a user object, got undefined'],
    ['GUILD_MEMBER_ADD', { guild_id: GUILD_A, ...member(USER_1) }, null],
    ['GUILD_MEMBER_UPDATE', { guild_id: GUILD_A, user: user(USER_1) }, null],
    ['GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: { id: { toString: 1 } } }, 'user.id: expected a snowflake string, got object'],
    ['GUILD_MEMBER_REMOVE', { guild_id: GUILD_A, user: user(USER_1) }, null],
    ['GUILD_CREATE', { id: 5 }, 'id: expected a snowflake string, got number'],
    ['GUILD_CREATE', guildCreate(GUILD_A, [member(USER_1), { user: null }]), null],
    ['GUILD_DELETE', null, 'payload: expected a guild object, got null'],
    ['GUILD_DELETE', { id: GUILD_A, unavailable: true }, null],
    ['READY', null, 'payload: expected an object, got null'],
    ['READY', { ...ready([GUILD_A]), user: { id: { toString: 1 } } }, 'user.id: expected a snowflake string, got object'],
    ['READY', { ...ready([]), guilds: [{ id: 5 }] }, null],
    ['READY', ready([GUILD_A]), null],
    ['ENTITLEMENT_CREATE', [], 'payload: expected an entitlement object, got an array'],
    // An unreadable end is refused (fail closed), not stored as "never ends".
    ['ENTITLEMENT_CREATE', entitlement('700000000000000001', { ends_at: { toString: 1 } }), 'ends_at: expected an ISO8601 timestamp or null, got object'],
    // Not cached, but checked for its typed plugin event (commandPermissionsUpdate).
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', PERMISSIONS, null],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...PERMISSIONS, permissions: [] }, null],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', null, 'payload: expected an object, got null'],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...PERMISSIONS, guild_id: undefined }, 'guild_id: expected a snowflake string, got undefined'],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...PERMISSIONS, permissions: { __proto__: 1 } }, 'permissions: expected an array, got object'],
    [
      'APPLICATION_COMMAND_PERMISSIONS_UPDATE',
      { ...PERMISSIONS, permissions: [PERMISSIONS.permissions[0], { id: GUILD_A, type: '1', permission: true }] },
      'permissions[1].type: expected 1 (role), 2 (user) or 3 (channel), got a string',
    ],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...PERMISSIONS, permissions: [{ id: GUILD_A, type: 4, permission: true }] }, 'permissions[0].type: expected 1 (role), 2 (user) or 3 (channel), got 4'],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...PERMISSIONS, permissions: [{ id: GUILD_A, type: 1, permission: 'yes' }] }, 'permissions[0].permission: expected a boolean, got a string'],
    ['APPLICATION_COMMAND_PERMISSIONS_UPDATE', { ...PERMISSIONS, permissions: [null] }, 'permissions[0]: expected a permission object, got null'],
    // Channels: overwrites that cannot be read refuse the channel (a lost deny would grant too much).
    ['CHANNEL_CREATE', { ...CHANNEL, permission_overwrites: [{ id: GUILD_A, type: 0, allow: 1024, deny: '0' }] }, 'permission_overwrites[0].allow: expected a permission bit set (a decimal string), got number'],
    ['CHANNEL_UPDATE', { ...CHANNEL, permission_overwrites: [{ id: GUILD_A, type: 'role', allow: '0', deny: '0' }] }, 'permission_overwrites[0].type: expected 0 (role) or 1 (member), got a string that is not a snowflake'],
    ['CHANNEL_UPDATE', { ...CHANNEL, permission_overwrites: [{ id: GUILD_A, type: 0, allow: '0', deny: '99999999999999999999' }] }, 'permission_overwrites[0].deny: expected a permission bit set (a decimal string), got a string that is not one'],
    ['CHANNEL_DELETE', { ...CHANNEL, guild_id: 7 }, 'guild_id: expected a snowflake string, got number'],
    ['CHANNEL_CREATE', { ...CHANNEL, type: '0' }, 'type: expected a channel type (an integer), got a string that is not a snowflake'],
    ['CHANNEL_CREATE', CHANNEL, null],
    // A DM channel has no guild: nothing to cache, no problem.
    ['CHANNEL_CREATE', { id: '700000000000000009', type: 1 }, null],
    ['THREAD_CREATE', { ...CHANNEL, type: 11, parent_id: 12 }, 'parent_id: expected a snowflake string, got number'],
    ['THREAD_DELETE', { guild_id: GUILD_A, parent_id: CHANNEL.id, type: 11 }, 'id: expected a snowflake string, got undefined'],
    ['THREAD_LIST_SYNC', { guild_id: GUILD_A, threads: null }, 'threads: expected an array, got null'],
    ['THREAD_LIST_SYNC', { guild_id: GUILD_A, channel_ids: ['x'], threads: [] }, 'channel_ids[0]: expected a snowflake string, got a string that is not a snowflake'],
    ['THREAD_LIST_SYNC', { guild_id: GUILD_A, threads: [{ ...CHANNEL, type: 11 }, { id: 3 }] }, null],
    ['VOICE_STATE_UPDATE', { guild_id: GUILD_A, user_id: USER_1, channel_id: null }, 'session_id: expected a string, got undefined'],
    ['GUILD_CREATE', { ...guildCreate(GUILD_A, []), channels: [CHANNEL, { id: 'x', type: 0 }] }, null],
    // Events the cache does not keep still need an object for their typed plugin event.
    ['MESSAGE_CREATE', null, 'payload: expected an object, got null'],
    ['TYPING_START', [], 'payload: expected an object, got an array'],
    ['MESSAGE_CREATE', { id: '1', channel_id: '2', content: '' }, null],
    ['RESUMED', null, null],
  ];
  for (const [t, d, problem] of cases) {
    it(`${t} ${JSON.stringify(d)?.slice(0, 60)} -> ${problem ?? 'taken'}`, () => {
      expect(dispatchProblem(t, d)).toBe(problem);
      // The same checks as the cache's: it rejects exactly that (besides list entries), or nothing.
      const { cache, reasons } = cacheWithReasons();
      // Its verdict is what the runtime hands typed plugin events on: false exactly when there is a problem.
      expect(cache.apply(t, d)).toBe(problem === null);
      const whole = reasons.filter(([, r]) => !LIST_ENTRY.test(r)).map(([, r]) => r);
      expect(whole).toEqual(problem === null ? [] : [problem]);
    });
  }
});
