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
 * Store or remove members, many per call (a GUILD_CREATE's members, or the member events of one tick),
 * in order.
 * KEYS: users, user refs.
 * ARGV[1]: key prefix; then one record per member:
 *   guild id, user id, padded user id, mode ('f' whole member / 'p' partial / 'r' remove),
 *   cap (0 = none), count ('1' = a GUILD_MEMBER_ADD or _REMOVE: member_count +1 / -1),
 *   user JSON ('' = leave the user record), n, n field/value pairs, m, m field names to delete.
 * A member of a guild that is not cached is skipped; a new member over the cap is not stored (a join
 * still counts). Returns the number of members created or removed.
 */
export const MEMBERS = `${BUMP_COUNT}${RELEASE_USER}
local users, refs, prefix = KEYS[1], KEYS[2], ARGV[1]
local i, changed = 2, 0
local lastGuild, lastExists = nil, false
while i <= #ARGV do
  local g, u, padded, mode, cap, count, user = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4]), ARGV[i + 5], ARGV[i + 6]
  local n = tonumber(ARGV[i + 7])
  local setFrom = i + 8
  local m = tonumber(ARGV[setFrom + 2 * n])
  local delFrom = setFrom + 2 * n + 1
  i = delFrom + m
  local guild = prefix .. ':g:' .. g
  -- Records of one batch mostly share a guild: look it up once per run of records.
  if g ~= lastGuild then
    lastGuild = g
    lastExists = redis.call('EXISTS', guild) == 1
  end
  if lastExists then
    local key = guild .. ':m:' .. u
    local index = guild .. ':mi'
    if mode == 'r' then
      if count == '1' then bump(guild, -1) end
      if redis.call('DEL', key) == 1 then
        redis.call('ZREM', index, padded)
        if not release(users, refs, u) and user ~= '' then redis.call('HSET', users, u, user) end
        changed = changed + 1
      end
    else
      -- A whole member replaces what is there: its DEL also tells whether it existed.
      local created
      if mode == 'f' then created = redis.call('DEL', key) == 0 else created = redis.call('EXISTS', key) == 0 end
      local store = true
      if created then
        if cap > 0 and redis.call('ZCARD', index) >= cap then
          store = false
        else
          redis.call('ZADD', index, 0, padded)
          redis.call('HINCRBY', refs, u, 1)
          changed = changed + 1
        end
        if count == '1' then bump(guild, 1) end
      end
      if store then
        local set = {'k', '1'}
        for j = setFrom, setFrom + 2 * n - 1 do set[#set + 1] = ARGV[j] end
        redis.call('HSET', key, unpack(set))
        if m > 0 then redis.call('HDEL', key, unpack(ARGV, delFrom, delFrom + m - 1)) end
        if user ~= '' then redis.call('HSET', users, u, user) end
      end
    end
  end
end
return changed
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
  ghMembers: { lua: MEMBERS, keys: 2 },
  ghCountBump: { lua: COUNT_BUMP, keys: 1 },
  ghGuildRemove: { lua: GUILD_REMOVE, keys: 6 },
  ghRolesReplace: { lua: ROLES_REPLACE, keys: 2 },
  ghRolePut: { lua: ROLE_PUT, keys: 2 },
  ghRoleRemove: { lua: ROLE_REMOVE, keys: 2 },
} as const satisfies Record<string, ScriptSpec>;

export type ScriptName = keyof typeof SCRIPTS;
