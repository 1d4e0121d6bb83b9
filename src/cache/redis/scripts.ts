/**
 * Lua scripts of the Redis backend: each is atomic, so read-then-write steps (caps, counts,
 * reference counts, cascades) stay consistent with several processes writing. See keys.ts for the
 * layout they operate on.
 */

/** Decrement-or-increment the member count of a guild whose count is known, never below 0. */
const BUMP_COUNT = `
local function bump(guild, delta)
  if redis.call('HEXISTS', guild, 'c') == 1 then
    local c = redis.call('HINCRBY', guild, 'c', delta)
    if c < 0 then redis.call('HSET', guild, 'c', 0) end
  end
end
`;

/** Drop one reference to a user; the user record goes with the last one. */
const RELEASE_USER = `
local function release(users, refs, id)
  if redis.call('HINCRBY', refs, id, -1) <= 0 then
    redis.call('HDEL', refs, id)
    redis.call('HDEL', users, id)
    return true
  end
  return false
end
`;

/**
 * Store a member.
 * KEYS: guild, member, member index, users, user refs.
 * ARGV: mode ('f' whole member / 'p' partial), cap (0 = none), padded user id, user id,
 *       user JSON ('' = leave the user record), join ('1' = GUILD_MEMBER_ADD), n = number of field/value
 *       pairs, the n pairs, then names of fields to delete.
 * Returns 1 created, 0 updated, -1 unknown guild (nothing stored), -2 over the cap (nothing stored).
 */
export const MEMBER_PUT = `${BUMP_COUNT}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local created = redis.call('EXISTS', KEYS[2]) == 0
if created then
  local cap = tonumber(ARGV[2])
  if cap > 0 and redis.call('ZCARD', KEYS[3]) >= cap then
    if ARGV[6] == '1' then bump(KEYS[1], 1) end
    return -2
  end
  redis.call('ZADD', KEYS[3], 0, ARGV[3])
  redis.call('HINCRBY', KEYS[5], ARGV[4], 1)
  if ARGV[6] == '1' then bump(KEYS[1], 1) end
elseif ARGV[1] == 'f' then
  redis.call('DEL', KEYS[2])
end
local n = tonumber(ARGV[7])
local set = {'k', '1'}
for i = 8, 7 + 2 * n do set[#set + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(set))
if #ARGV > 7 + 2 * n then
  redis.call('HDEL', KEYS[2], unpack(ARGV, 8 + 2 * n))
end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[5]) end
if created then return 1 end
return 0
`;

/**
 * Remove a member.
 * KEYS: guild, member, member index, users, user refs.
 * ARGV: padded user id, user id, user JSON ('' = none), count ('1' = member_count - 1).
 * Returns 1 when the member was cached.
 */
export const MEMBER_REMOVE = `${BUMP_COUNT}${RELEASE_USER}
if ARGV[4] == '1' then bump(KEYS[1], -1) end
if redis.call('DEL', KEYS[2]) == 0 then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
if not release(KEYS[4], KEYS[5], ARGV[2]) and ARGV[3] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[2], ARGV[3])
end
return 1
`;

/**
 * member_count +1 / -1 for a guild whose members are not cached.
 * KEYS: guild. ARGV: delta.
 */
export const COUNT_BUMP = `${BUMP_COUNT}
bump(KEYS[1], tonumber(ARGV[1]))
return 1
`;

/**
 * Remove a guild with its roles and members.
 * KEYS: guild, roles, member index, users, user refs, guild set.
 * ARGV: guild id, member key prefix.
 * Returns the number of members removed.
 */
export const GUILD_REMOVE = `${RELEASE_USER}
local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
for i = 1, #ids do
  local id = string.gsub(ids[i], '^0+(%d)', '%1')
  redis.call('DEL', ARGV[2] .. id)
  release(KEYS[4], KEYS[5], id)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[6], ARGV[1])
return #ids
`;

/**
 * Replace a guild's whole role list (GUILD_CREATE / GUILD_UPDATE) atomically.
 * KEYS: guild, roles. ARGV: role id / JSON pairs.
 */
export const ROLES_REPLACE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('DEL', KEYS[2])
if #ARGV > 0 then redis.call('HSET', KEYS[2], unpack(ARGV)) end
return 1
`;

/**
 * Store one role of a known guild.
 * KEYS: guild, roles. ARGV: role id, JSON.
 */
export const ROLE_PUT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/**
 * Delete a role and take it out of every member of the guild.
 * KEYS: roles, member index. ARGV: role id, member key prefix.
 * Returns the number of members changed.
 */
export const ROLE_REMOVE = `
redis.call('HDEL', KEYS[1], ARGV[1])
local needle = ',' .. ARGV[1] .. ','
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
local changed = 0
for i = 1, #ids do
  local key = ARGV[2] .. string.gsub(ids[i], '^0+(%d)', '%1')
  local roles = redis.call('HGET', key, 'r')
  if roles then
    local at = string.find(roles, needle, 1, true)
    if at then
      redis.call('HSET', key, 'r', string.sub(roles, 1, at) .. string.sub(roles, at + #needle))
      changed = changed + 1
    end
  end
end
return changed
`;

export interface ScriptSpec {
  lua: string;
  keys: number;
}

export const SCRIPTS = {
  ghMemberPut: { lua: MEMBER_PUT, keys: 5 },
  ghMemberRemove: { lua: MEMBER_REMOVE, keys: 5 },
  ghCountBump: { lua: COUNT_BUMP, keys: 1 },
  ghGuildRemove: { lua: GUILD_REMOVE, keys: 6 },
  ghRolesReplace: { lua: ROLES_REPLACE, keys: 2 },
  ghRolePut: { lua: ROLE_PUT, keys: 2 },
  ghRoleRemove: { lua: ROLE_REMOVE, keys: 2 },
} as const satisfies Record<string, ScriptSpec>;

export type ScriptName = keyof typeof SCRIPTS;
