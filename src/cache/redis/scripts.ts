/**
 * Lua scripts of the Redis backend (layout in keys.ts). Each is atomic, so read-then-write steps (caps,
 * transitions, reference counts, stamps, removals) stay consistent with several processes writing; and each
 * is bounded: it touches a fixed number of keys per record it is given (callers batch at most a few hundred
 * records), never a whole guild's members, so no other client of the Redis waits long behind one.
 * `bench/redis-scripts.bench.ts` times every one at 1M members of one guild.
 */

import { MEMBER_FIELDS } from './codec.js';

/** Shared helpers, prepended to the scripts that use them. */
const STRIP = `
local function strip(padded)
  return (string.gsub(padded, '^0+(%d)', '%1'))
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
 * Count a membership transition once (see MemoryCache.transition for the rule). The user's state before this
 * event: the last transition recorded within the window, else whether the member is cached, else unknown. A
 * join of a user known to be in, or a leave of one known to be out, is a repeat. Trims a few expired records
 * and anything over the cap per call, so the record stays bounded at a bounded cost.
 */
const TRANSITION = `
local function transition(guild, u, join, cached, now, window, maxT, everyMemberCached)
  local tkey = guild .. ':t'
  local state = cached and 1 or -1
  local horizon = (now - window) * 2
  local last = redis.call('ZSCORE', tkey, u)
  if last then
    last = tonumber(last)
    if last >= horizon then state = last % 2 end
  end
  local want = join and 1 or 0
  if state == want then return end
  if redis.call('HEXISTS', guild, 'c') == 1 then
    local c = redis.call('HINCRBY', guild, 'c', join and 1 or -1)
    if c < 0 then redis.call('HSET', guild, 'c', 0) end
  end
  -- With every member cached the cache says who is in: only leaves need a record, and a join clears one.
  if join and everyMemberCached then
    if last then redis.call('ZREM', tkey, u) end
    return
  end
  if redis.call('ZADD', tkey, now * 2 + want, u) == 1 then
    local old = redis.call('ZRANGEBYSCORE', tkey, '-inf', '(' .. horizon, 'LIMIT', 0, 4)
    if #old > 0 then redis.call('ZREM', tkey, unpack(old)) end
    if redis.call('ZCARD', tkey) > maxT then redis.call('ZPOPMIN', tkey) end
  end
end
`;

/**
 * Channel index helpers: `P:ch` maps a channel or thread id to its guild. A guild's channels (`:c`) and threads
 * (`:th`) are bounded by the service (500 channels, 1,000 active threads), so walking them stays bounded.
 */
const CHANNEL_INDEX = `
local function unindex(index, id, guildId)
  if redis.call('HGET', index, id) == guildId then redis.call('HDEL', index, id) end
end
local function dropKind(prefix, index, guildId, kind)
  local key = prefix .. ':g:' .. guildId .. ':' .. kind
  local ids = redis.call('HKEYS', key)
  for j = 1, #ids do unindex(index, ids[j], guildId) end
  redis.call('DEL', key)
end
-- A channel cached under another guild (or as the other kind) leaves there first.
local function claim(prefix, index, id, guildId, kind)
  local owner = redis.call('HGET', index, id)
  if owner and owner ~= guildId then
    redis.call('HDEL', prefix .. ':g:' .. owner .. ':c', id)
    redis.call('HDEL', prefix .. ':g:' .. owner .. ':th', id)
  end
  redis.call('HDEL', prefix .. ':g:' .. guildId .. ':' .. (kind == 'c' and 'th' or 'c'), id)
  redis.call('HSET', index, id, guildId)
end
-- Threads of the given parents (a set), archived ones too: they go with their channel.
local function dropThreadsOf(prefix, index, guildId, parents)
  local key = prefix .. ':g:' .. guildId .. ':th'
  local flat = redis.call('HGETALL', key)
  for j = 1, #flat, 2 do
    local ok, a = pcall(cjson.decode, flat[j + 1])
    if ok and type(a) == 'table' and parents[a[3]] then
      redis.call('HDEL', key, flat[j])
      unindex(index, flat[j], guildId)
    end
  end
end
`;

/** Remove a guild: its small keys at once, its generation's members later (a gc job). */
const REMOVE_GUILD = `${CHANNEL_INDEX}
local function removeGuild(prefix, jobs, guilds, id)
  local guild = prefix .. ':g:' .. id
  local gen = redis.call('HGET', guild, 'gen')
  if not gen then return false end
  redis.call('HSET', jobs, 'gc:' .. id .. ':' .. gen, '1')
  redis.call('DEL', guild)
  local index = prefix .. ':ch'
  dropKind(prefix, index, id, 'c')
  dropKind(prefix, index, id, 'th')
  redis.call('UNLINK', guild .. ':r', guild .. ':t', guild .. ':sync', guild .. ':sy', guild .. ':vs', guild .. ':cp', guild .. ':cpsync', guild .. ':cpseen')
  redis.call('SREM', guilds, id)
  return true
end
`;

/** A member hash as a flat list with its role field filtered to the guild's current roles. */
const FILTER_ROLES = `
local function roleSet(rolesKey)
  local set = {}
  local ids = redis.call('HKEYS', rolesKey)
  for j = 1, #ids do set[ids[j]] = true end
  return set
end
local function filterRoles(h, set)
  for j = 1, #h, 2 do
    if h[j] == 'r' then
      local out = ','
      for id in string.gmatch(h[j + 1], '[^,]+') do
        if set[id] then out = out .. id .. ',' end
      end
      h[j + 1] = out
      return
    end
  end
end
`;

const ENTITLEMENT_INDEX = `
local function owners(json)
  local ok, a = pcall(cjson.decode, json)
  if not ok or type(a) ~= 'table' then return nil, nil end
  local u, g = a[3], a[4]
  if type(u) ~= 'string' then u = nil end
  if type(g) ~= 'string' then g = nil end
  return u, g
end
local function index(prefix, id, json, add)
  local u, g = owners(json)
  local op = add and 'SADD' or 'SREM'
  if u then redis.call(op, prefix .. ':e:u:' .. u, id) end
  if g then redis.call(op, prefix .. ':e:g:' .. g, id) end
end
`;

/**
 * Store or remove members, many per call (a GUILD_CREATE's members, or the member events of one tick), in
 * order.
 * KEYS: users, user refs.
 * ARGV: namespace, now (ms), transition window (ms), max transitions, '1' when member_count is kept, '1' when
 * every member is cached (no cap); then the records, as one JSON array (see encodeMemberRecords), one after
 * another in it:
 *   guild id, user id, padded user id, mode ('f' whole member / 'p' partial / 'r' remove / 'P<token>' partial,
 *   from a process that applied the complete member list whose sync has that token: a member the open sync has
 *   not seen was left out of the list, so what is stored for it is dropped first, as the memory backend did),
 *   cap (0 = none; the bot's own member, P:self, is exempt), transition ('1' = a GUILD_MEMBER_ADD or _REMOVE), user JSON ('' = leave the user
 *   record), n, n field/value pairs, m, m field names to delete.
 * A member of a guild that is not cached is skipped; a new member over the cap is not stored (its join still
 * counts). A member written while a member sync is open is added to the sync's seen set. Returns the number
 * of members created or removed.
 */
export const MEMBERS = `${STRIP}${RELEASE_USER}${TRANSITION}
local users, refs, prefix = KEYS[1], KEYS[2], ARGV[1]
-- Every field a whole member record may set (codec.ts MEMBER_FIELDS): a whole member written over a cached
-- one deletes those it does not set.
local WHOLE = {${MEMBER_FIELDS.map((f) => `'${f}'`).join(', ')}}
local function dropAbsent(key, set)
  local has, gone = {}, {}
  for j = 5, #set, 2 do has[set[j]] = true end
  for j = 1, #WHOLE do
    if not has[WHOLE[j]] then gone[#gone + 1] = WHOLE[j] end
  end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
end
local now, window, maxT, counting, full = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1', ARGV[6] == '1'
-- The bot's own member is never capped (its id is stored at READY, for processes that only RESUME). Read only
-- when a cap applies: most calls have none, and every command a script runs costs Redis time.
local self = nil
local function isSelf(u)
  if self == nil then self = redis.call('GET', prefix .. ':self') end
  return u == self
end
-- The records come as one JSON array (ARGV[7]): one argument instead of twenty a member spares the client
-- most of its encoding work and garbage.
local R = cjson.decode(ARGV[7])
-- Index entries, user records and sync marks of a run of records are written together, one command each
-- instead of one a member. They are flushed before anything reads or undoes them: a removal, a cap check, a
-- change of guild, the end.
local zadd, userSet, syncAdd, syncAdded = {}, {}, {}, {}
-- New members' user references: one HMGET and one HSET per run instead of an HINCRBY a member.
local refUsers, refAdd = {}, {}
local index, syncKey = nil, nil
local function flush()
  if #zadd > 0 then redis.call('ZADD', index, unpack(zadd)); zadd = {} end
  if #refUsers > 0 then
    local had = redis.call('HMGET', refs, unpack(refUsers))
    local counts = {}
    for j = 1, #refUsers do
      local u = refUsers[j]
      counts[#counts + 1] = u
      counts[#counts + 1] = (tonumber(had[j]) or 0) + refAdd[u]
    end
    redis.call('HSET', refs, unpack(counts))
    refUsers, refAdd = {}, {}
  end
  if #userSet > 0 then redis.call('HSET', users, unpack(userSet)); userSet = {} end
  if #syncAdd > 0 then redis.call('SADD', syncKey, unpack(syncAdd)); syncAdd, syncAdded = {}, {} end
end
local i, changed = 1, 0
local lastGuild, gen, epoch, syncing = nil, false, '0', false
while i <= #R do
  local g, u, padded, mode, cap, count, user = R[i], R[i + 1], R[i + 2], R[i + 3], tonumber(R[i + 4]), R[i + 5], R[i + 6]
  local n = tonumber(R[i + 7])
  local setFrom = i + 8
  local m = tonumber(R[setFrom + 2 * n])
  local delFrom = setFrom + 2 * n + 1
  i = delFrom + m
  local guild = prefix .. ':g:' .. g
  -- Records of one batch mostly share a guild: look it up once per run of records.
  if g ~= lastGuild then
    flush()
    lastGuild = g
    local h = redis.call('HMGET', guild, 'gen', 'ep')
    gen, epoch = h[1], h[2] or '0'
    syncing = gen and redis.call('EXISTS', guild .. ':sync') == 1
    if gen then index = guild .. ':' .. gen .. ':mi' end
    syncKey = guild .. ':sy'
  end
  if gen then
    local key = guild .. ':' .. gen .. ':m:' .. u
    -- A cached member counts as "in" for a transition only if written since the count's baseline.
    local current = count == '1' and counting and redis.call('HGET', key, 'e') == epoch
    if mode == 'r' then
      flush()
      local existed = redis.call('DEL', key) == 1
      if count == '1' and counting then transition(guild, u, false, current, now, window, maxT, full) end
      if existed then
        redis.call('ZREM', index, padded)
        if not release(users, refs, u) and user ~= '' then redis.call('HSET', users, u, user) end
        changed = changed + 1
      end
    else
      local dropped = false
      if #mode > 1 then
        if syncing and not syncAdded[padded] and redis.call('GET', guild .. ':sync') == string.sub(mode, 2)
          and redis.call('SISMEMBER', syncKey, padded) == 0 then
          -- Left out of the complete list: its record is from before it. It keeps its index entry and user
          -- reference (the member is in the guild again), not its old fields.
          dropped = redis.call('DEL', key) == 1
        end
        mode = 'p'
      end
      local set = {'k', '1', 'e', epoch}
      for j = setFrom, setFrom + 2 * n - 1 do set[#set + 1] = R[j] end
      -- Without a cap, a member is written at once and its HSET tells whether it is new: every field new
      -- means 'k' was new, and a cached member always has 'k'. A whole member written over a cached one then
      -- deletes the fields it leaves out. A new member, as all of a GUILD_CREATE's at startup are, costs one
      -- command instead of an EXISTS or a DEL and the HSET. With a cap, a whole member replaces what is there,
      -- and its DEL tells whether it existed.
      local created, written = nil, false
      if cap == 0 then
        created = redis.call('HSET', key, unpack(set)) == #set / 2
        written = true
        if mode == 'f' and not created then dropAbsent(key, set) end
      elseif mode == 'f' then
        created = redis.call('DEL', key) == 0
      else
        created = redis.call('EXISTS', key) == 0
      end
      if dropped then created = false end
      if count == '1' and counting then transition(guild, u, true, current, now, window, maxT, full) end
      local store = true
      if created then
        local capped = cap > 0 and not isSelf(u)
        if capped then flush() end
        if capped and redis.call('ZCARD', index) >= cap then
          store = false
        else
          zadd[#zadd + 1] = 0
          zadd[#zadd + 1] = padded
          local had = refAdd[u]
          if had == nil then refUsers[#refUsers + 1] = u end
          refAdd[u] = (had or 0) + 1
          changed = changed + 1
        end
      end
      if store then
        if not written then redis.call('HSET', key, unpack(set)) end
        if m > 0 then redis.call('HDEL', key, unpack(R, delFrom, delFrom + m - 1)) end
        if user ~= '' then
          userSet[#userSet + 1] = u
          userSet[#userSet + 1] = user
        end
        if syncing then
          syncAdd[#syncAdd + 1] = padded
          syncAdded[padded] = true
        end
      end
    end
  end
end
flush()
return changed
`;

/**
 * A membership transition of a guild whose members are not cached.
 * KEYS: guild. ARGV: user id, '1' join / '0' leave, now, window, max transitions.
 */
/**
 * The bot user (READY): remembered, with one reference of its own so its record outlives its memberships.
 * KEYS: self, user refs. ARGV: user id. Returns 1 when it changed.
 */
export const SELF = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return 0 end
local old = redis.call('GET', KEYS[1])
if old then redis.call('HINCRBY', KEYS[2], old, -1) end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
return 1
`;

export const COUNT = `${TRANSITION}
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return 0 end
transition(KEYS[1], ARGV[1], ARGV[2] == '1', false, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), false)
return 1
`;

/**
 * Create or update a guild (READY listing, GUILD_CREATE, GUILD_UPDATE, an outage).
 * KEYS: clock, guild set.
 * ARGV: namespace, guild id, mode ('u' unavailable / 'c' GUILD_CREATE / 'p' GUILD_UPDATE), member_count ('' =
 * none), member-sync token ('' = none: the member list is partial), sync ttl ms, n, n field/value pairs, '1'
 * when a complete role list follows, role id / JSON pairs.
 * A new guild gets a generation; every write stamps `ts`. A GUILD_CREATE's member_count is the baseline (the
 * transition record starts over and the epoch `ep` moves on) only when the guild was new or unavailable; then,
 * for a guild with cached members, a complete member list opens a member sync under the token (committed once
 * its members are written).
 */
export const GUILD_PUT = `
local prefix, id, mode, count, token, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local guild = prefix .. ':g:' .. id
local gen = redis.call('HGET', guild, 'gen')
local fresh = not gen
local wasUnavailable = redis.call('HGET', guild, 'u') == '1'
if fresh then
  redis.call('HSET', guild, 'k', '1', 'gen', redis.call('INCR', KEYS[1]))
  redis.call('SADD', KEYS[2], id)
end
redis.call('HSET', guild, 'ts', redis.call('INCR', KEYS[1]))
if mode == 'u' then
  redis.call('HSET', guild, 'u', '1')
  return 1
end
local nf = tonumber(ARGV[7])
local set = {'u', '0'}
for j = 8, 7 + 2 * nf do set[#set + 1] = ARGV[j] end
redis.call('HSET', guild, unpack(set))
if mode == 'c' and (fresh or wasUnavailable) then
  -- Command permission settings changed while the guild was away reached no event: read them again when asked.
  redis.call('HDEL', guild, 'cpl')
  if count ~= '' then
    redis.call('HSET', guild, 'c', count)
    redis.call('HINCRBY', guild, 'ep', 1)
    redis.call('UNLINK', guild .. ':t')
  end
  -- A guild with no cached member (new, or only listed unavailable by READY) has none to remove: no sync, so
  -- no seen marks for its members and no sweep over them.
  if token ~= '' and not fresh and redis.call('EXISTS', guild .. ':' .. gen .. ':mi') == 1 then
    redis.call('SET', guild .. ':sync', token, 'PX', ttl)
    redis.call('DEL', guild .. ':sy')
    redis.call('SADD', guild .. ':sy', '')
    redis.call('PEXPIRE', guild .. ':sy', ttl)
  end
end
local r = 8 + 2 * nf
if ARGV[r] == '1' then
  redis.call('DEL', guild .. ':r')
  -- unpack gives at most 8000 values (Lua's C stack), and a script's writes before an error stay: a list of
  -- thousands of roles would leave the guild with none. In chunks of 1,000 roles (id and JSON each).
  for from = r + 1, #ARGV, 2000 do
    redis.call('HSET', guild .. ':r', unpack(ARGV, from, math.min(from + 1999, #ARGV)))
  end
end
return 1
`;

/**
 * Remove a guild (GUILD_DELETE without unavailable).
 * KEYS: jobs, guild set. ARGV: namespace, guild id. Returns 1 when it was cached.
 */
export const GUILD_REMOVE = `${REMOVE_GUILD}
return removeGuild(ARGV[1], KEYS[1], KEYS[2], ARGV[2]) and 1 or 0
`;

/**
 * Background removal of a removed guild generation's members, `count` at a time.
 * KEYS: users, user refs, jobs. ARGV: namespace, guild id, generation, count.
 * Returns 1 while members remain, 0 once the job is done (and deleted).
 */
export const GC_BATCH = `${STRIP}${RELEASE_USER}
local base = ARGV[1] .. ':g:' .. ARGV[2] .. ':' .. ARGV[3]
local index = base .. ':mi'
local popped = redis.call('ZPOPMIN', index, tonumber(ARGV[4]))
for j = 1, #popped, 2 do
  local id = strip(popped[j])
  redis.call('DEL', base .. ':m:' .. id)
  release(KEYS[1], KEYS[2], id)
end
if redis.call('EXISTS', index) == 0 then
  redis.call('HDEL', KEYS[3], 'gc:' .. ARGV[2] .. ':' .. ARGV[3])
  return 0
end
return 1
`;

/**
 * Stamp guilds as seen now (the guilds a fresh READY listed, and those created since), if cached.
 * KEYS: clock. ARGV: namespace, guild ids.
 */
export const GUILDS_TOUCH = `
for j = 2, #ARGV do
  local guild = ARGV[1] .. ':g:' .. ARGV[j]
  if redis.call('HEXISTS', guild, 'gen') == 1 then redis.call('HSET', guild, 'ts', redis.call('INCR', KEYS[1])) end
end
return #ARGV - 1
`;

/**
 * Remove, among the given guilds (all of one shard), those not written since stamp R (a fresh READY of that
 * shard did not list them and nothing created them since).
 * KEYS: jobs, guild set. ARGV: namespace, R, guild ids. Returns how many were removed.
 */
export const READY_PRUNE = `${REMOVE_GUILD}
local r = tonumber(ARGV[2])
local removed = 0
for j = 3, #ARGV do
  local ts = tonumber(redis.call('HGET', ARGV[1] .. ':g:' .. ARGV[j], 'ts') or '0')
  if ts < r and removeGuild(ARGV[1], KEYS[1], KEYS[2], ARGV[j]) then removed = removed + 1 end
end
return removed
`;

/** Delete a job field if it still has the value this run started from. KEYS: jobs. ARGV: field, value. */
export const JOB_DONE = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`;

/**
 * Store one role of a cached guild. KEYS: guild, roles. ARGV: role id, JSON ("" when roles are not cached).
 */
export const ROLE_PUT = `
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/**
 * One member with its roles filtered to the guild's current roles.
 * KEYS: guild, roles, users. ARGV: user id, '1' to read the user record.
 * Returns nil, or {member hash as a flat list, user JSON or nil}.
 */
export const READ_MEMBER = `${FILTER_ROLES}
local gen = redis.call('HGET', KEYS[1], 'gen')
if not gen then return false end
-- ARGV[3]: the token of a complete member list this process applied whose removal of the members it left out
-- may still run (ARGV[4]: the member's padded id). While that sync is open, a member it has not seen is gone.
if ARGV[3] ~= '' and redis.call('GET', KEYS[1] .. ':sync') == ARGV[3] and redis.call('SISMEMBER', KEYS[1] .. ':sy', ARGV[4]) == 0 then return false end
local h = redis.call('HGETALL', KEYS[1] .. ':' .. gen .. ':m:' .. ARGV[1])
if #h == 0 then return false end
filterRoles(h, roleSet(KEYS[2]))
local user = false
if ARGV[2] == '1' then user = redis.call('HGET', KEYS[3], ARGV[1]) end
return {h, user}
`;

/**
 * A page of members by user id (ZRANGEBYLEX from `min`), roles filtered.
 * KEYS: guild, roles, users. ARGV: min ('-' or '(' .. padded id), count, '1' to read user records.
 * Returns a flat list: padded id, member hash (flat list), user JSON or nil, ...
 */
export const READ_MEMBERS = `${STRIP}${FILTER_ROLES}
local gen = redis.call('HGET', KEYS[1], 'gen')
if not gen then return {} end
local base = KEYS[1] .. ':' .. gen
local ids = redis.call('ZRANGEBYLEX', base .. ':mi', ARGV[1], '+', 'LIMIT', 0, tonumber(ARGV[2]))
local set = roleSet(KEYS[2])
-- ARGV[4]: as READ_MEMBER's ARGV[3]; a member the open sync has not seen comes back empty (skipped, and the
-- page still moves past it).
local seen = nil
if ARGV[4] ~= '' and redis.call('GET', KEYS[1] .. ':sync') == ARGV[4] then seen = KEYS[1] .. ':sy' end
local out = {}
for j = 1, #ids do
  local id = strip(ids[j])
  local h = {}
  if not seen or redis.call('SISMEMBER', seen, ids[j]) == 1 then h = redis.call('HGETALL', base .. ':m:' .. id) end
  filterRoles(h, set)
  out[#out + 1] = ids[j]
  out[#out + 1] = h
  out[#out + 1] = ARGV[3] == '1' and redis.call('HGET', KEYS[3], id) or false
end
return out
`;

/**
 * Open a member sync of a cached guild. KEYS: guild. ARGV: token, ttl ms. Returns 0 when the guild is not
 * cached.
 */
export const SYNC_BEGIN = `
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return 0 end
redis.call('SET', KEYS[1] .. ':sync', ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[1] .. ':sy')
redis.call('SADD', KEYS[1] .. ':sy', '')
redis.call('PEXPIRE', KEYS[1] .. ':sy', ARGV[2])
return 1
`;

/**
 * Remove, among the given members of a guild, those not written since the sync began.
 * KEYS: users, user refs. ARGV: namespace, guild id, token, padded user ids.
 * Returns how many were removed, or -1 when the sync is no longer the open one.
 */
export const SYNC_SWEEP = `${STRIP}${RELEASE_USER}
local guild = ARGV[1] .. ':g:' .. ARGV[2]
if redis.call('GET', guild .. ':sync') ~= ARGV[3] then return -1 end
local gen = redis.call('HGET', guild, 'gen')
if not gen then return -1 end
local base = guild .. ':' .. gen
local removed = 0
for j = 4, #ARGV do
  if redis.call('SISMEMBER', guild .. ':sy', ARGV[j]) == 0 then
    local id = strip(ARGV[j])
    if redis.call('DEL', base .. ':m:' .. id) == 1 then
      redis.call('ZREM', base .. ':mi', ARGV[j])
      release(KEYS[1], KEYS[2], id)
      removed = removed + 1
    end
  end
end
return removed
`;

/**
 * Close a member sync: the member count becomes the baseline. KEYS: guild. ARGV: token, count ('' = none).
 */
export const SYNC_END = `
if redis.call('GET', KEYS[1] .. ':sync') ~= ARGV[1] then return 0 end
-- The transition record stays: events from before the sync may still be replayed after it.
if ARGV[2] ~= '' and redis.call('HEXISTS', KEYS[1], 'gen') == 1 then redis.call('HSET', KEYS[1], 'c', ARGV[2]) end
redis.call('DEL', KEYS[1] .. ':sync', KEYS[1] .. ':sy')
return 1
`;

/**
 * Store an entitlement from an event, stamped. An interaction's copy (ARGV[4] = '1') never brings back a
 * deleted entitlement nor clears a set ends_at.
 * KEYS: entitlements, stamps, clock, tombstones. ARGV: namespace, id, JSON, '1' from an interaction.
 */
export const ENTITLEMENT_PUT = `${ENTITLEMENT_INDEX}
local old = redis.call('HGET', KEYS[1], ARGV[2])
local json = ARGV[3]
if ARGV[4] == '1' then
  if not old and redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 0 end
  if old then
    local ok, o = pcall(cjson.decode, old)
    local n = cjson.decode(json)
    if ok and type(o) == 'table' and o[7] ~= cjson.null and n[7] == cjson.null then
      n[7] = o[7]
      json = cjson.encode(n)
    end
  end
end
if old then index(ARGV[1], ARGV[2], old, false) end
redis.call('HSET', KEYS[1], ARGV[2], json)
redis.call('HSET', KEYS[2], ARGV[2], redis.call('INCR', KEYS[3]))
redis.call('ZREM', KEYS[4], ARGV[2])
index(ARGV[1], ARGV[2], json, true)
return 1
`;

/**
 * Delete an entitlement (ENTITLEMENT_DELETE), leaving a stamped tombstone, and forget the tombstones deleted
 * at or before the cutoff or past the count (cache/shared.ts ENTITLEMENT_TOMBSTONE_MS), oldest first, at most 100 per
 * call: deletions remove expired tombstones at least as fast as they add them.
 * KEYS: entitlements, stamps, clock, tombstones. ARGV: namespace, id, now ms, cutoff ms, max tombstones.
 */
export const ENTITLEMENT_DELETE = `${ENTITLEMENT_INDEX}
local old = redis.call('HGET', KEYS[1], ARGV[2])
if old then
  index(ARGV[1], ARGV[2], old, false)
  redis.call('HDEL', KEYS[1], ARGV[2])
end
redis.call('HSET', KEYS[2], ARGV[2], redis.call('INCR', KEYS[3]))
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
local function forget(id)
  redis.call('ZREM', KEYS[4], id)
  if redis.call('HEXISTS', KEYS[1], id) == 0 then redis.call('HDEL', KEYS[2], id) end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[4], 'LIMIT', 0, 100)) do forget(id) end
local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[5])
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, math.min(over, 100) - 1)) do forget(id) end
end
return 1
`;

/**
 * Start an entitlement sync: its stamp R and seen set. KEYS: clock. ARGV: namespace, token. Returns R.
 */
export const ENTITLEMENT_SYNC_BEGIN = `
local r = redis.call('INCR', KEYS[1])
local base = ARGV[1] .. ':esync:' .. ARGV[2]
redis.call('SET', base .. ':r', r, 'PX', 3600000)
redis.call('SADD', base, '')
redis.call('PEXPIRE', base, 3600000)
return r
`;

/**
 * One entitlement listed by REST: stored unless an event wrote or deleted it since the sync began.
 * KEYS: entitlements, stamps. ARGV: namespace, token, id, JSON.
 */
export const ENTITLEMENT_SYNC_PUT = `${ENTITLEMENT_INDEX}
local base = ARGV[1] .. ':esync:' .. ARGV[2]
local r = redis.call('GET', base .. ':r')
if not r then return -1 end
redis.call('SADD', base, ARGV[3])
if tonumber(redis.call('HGET', KEYS[2], ARGV[3]) or '0') >= tonumber(r) then return 0 end
local old = redis.call('HGET', KEYS[1], ARGV[3])
if old then index(ARGV[1], ARGV[3], old, false) end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
index(ARGV[1], ARGV[3], ARGV[4], true)
return 1
`;

/**
 * Remove, among the given cached entitlements, those the sync did not list and no event touched since it
 * began. KEYS: entitlements, stamps. ARGV: namespace, token, ids. Returns how many, or -1 when the sync expired.
 */
export const ENTITLEMENT_SYNC_PRUNE = `${ENTITLEMENT_INDEX}
local base = ARGV[1] .. ':esync:' .. ARGV[2]
local r = redis.call('GET', base .. ':r')
if not r then return -1 end
r = tonumber(r)
local removed = 0
for j = 3, #ARGV do
  local id = ARGV[j]
  if redis.call('SISMEMBER', base, id) == 0 and tonumber(redis.call('HGET', KEYS[2], id) or '0') < r then
    local old = redis.call('HGET', KEYS[1], id)
    if old then
      index(ARGV[1], id, old, false)
      redis.call('HDEL', KEYS[1], id)
      removed = removed + 1
    end
    redis.call('HDEL', KEYS[2], id)
  end
end
return removed
`;

/**
 * Store a channel or thread of a cached guild.
 * KEYS: channel index. ARGV: namespace, guild id, kind ('c' channel / 'th' thread), channel id, JSON.
 */
export const CHANNEL_PUT = `${CHANNEL_INDEX}
local prefix, g, kind, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local guild = prefix .. ':g:' .. g
if redis.call('HEXISTS', guild, 'gen') == 0 then return 0 end
claim(prefix, KEYS[1], id, g, kind)
redis.call('HSET', guild .. ':' .. kind, id, ARGV[5])
return 1
`;

/**
 * Remove a channel (with its threads) or, with ARGV[4] = '1', a thread only.
 * KEYS: channel index. ARGV: namespace, guild id, channel id, '1' for THREAD_DELETE.
 */
export const CHANNEL_DELETE = `${CHANNEL_INDEX}
local prefix, g, id = ARGV[1], ARGV[2], ARGV[3]
local guild = prefix .. ':g:' .. g
local cached = redis.call('HGET', KEYS[1], id) == g
if ARGV[4] == '1' then
  -- THREAD_DELETE names threads only.
  if not cached or redis.call('HDEL', guild .. ':th', id) == 0 then return 0 end
  redis.call('HDEL', KEYS[1], id)
  return 1
end
-- A deleted channel takes its threads with it, also when it is not cached (a replay can bring back a thread
-- created before the deletion).
if redis.call('HEXISTS', guild, 'gen') == 1 then dropThreadsOf(prefix, KEYS[1], g, { [id] = true }) end
if cached and redis.call('HDEL', guild .. ':c', id) == 1 then redis.call('HDEL', KEYS[1], id) end
return 1
`;

/**
 * Replace a guild's channels ('c') or threads ('th') with a GUILD_CREATE's list: those it leaves out go (a
 * channel's threads with it).
 * KEYS: channel index. ARGV: namespace, guild id, kind, then channel id / JSON pairs.
 */
export const CHANNELS_REPLACE = `${CHANNEL_INDEX}
local prefix, g, kind = ARGV[1], ARGV[2], ARGV[3]
local guild = prefix .. ':g:' .. g
if redis.call('HEXISTS', guild, 'gen') == 0 then return 0 end
local key = guild .. ':' .. kind
local listed = {}
for j = 4, #ARGV, 2 do listed[ARGV[j]] = true end
local old = redis.call('HKEYS', key)
local gone, any = {}, false
for j = 1, #old do
  if not listed[old[j]] then
    unindex(KEYS[1], old[j], g)
    gone[old[j]] = true
    any = true
  end
end
redis.call('DEL', key)
if kind == 'c' and any then dropThreadsOf(prefix, KEYS[1], g, gone) end
for j = 4, #ARGV, 2 do
  claim(prefix, KEYS[1], ARGV[j], g, kind)
  redis.call('HSET', key, ARGV[j], ARGV[j + 1])
end
return 1
`;

/**
 * THREAD_LIST_SYNC: the active (not archived) threads of the synced parents that the list leaves out go, the
 * listed ones are stored. KEYS: channel index. ARGV: namespace, guild id, number of parents (-1: every parent),
 * the parent ids, then thread id / JSON pairs.
 */
export const THREADS_SYNC = `${CHANNEL_INDEX}
local prefix, g, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
local guild = prefix .. ':g:' .. g
if redis.call('HEXISTS', guild, 'gen') == 0 then return 0 end
local key = guild .. ':th'
local parents = {}
local from = 4
if n >= 0 then
  for j = 4, 3 + n do parents[ARGV[j]] = true end
  from = 4 + n
end
local listed = {}
for j = from, #ARGV, 2 do listed[ARGV[j]] = true end
local flat = redis.call('HGETALL', key)
for j = 1, #flat, 2 do
  local id = flat[j]
  if not listed[id] then
    local ok, a = pcall(cjson.decode, flat[j + 1])
    local archived = ok and type(a) == 'table' and type(a[8]) == 'table' and a[8][1] == 1
    local parent = ok and type(a) == 'table' and a[3] or nil
    if not archived and (n < 0 or (parent and parents[parent])) then
      redis.call('HDEL', key, id)
      unindex(KEYS[1], id, g)
    end
  end
end
for j = from, #ARGV, 2 do
  claim(prefix, KEYS[1], ARGV[j], g, 'th')
  redis.call('HSET', key, ARGV[j], ARGV[j + 1])
end
return 1
`;

/**
 * A channel or thread by id, found through the index. KEYS: channel index. ARGV: namespace, channel id.
 * Returns nil, or {guild id, kind, JSON}.
 */
export const READ_CHANNEL = `
local g = redis.call('HGET', KEYS[1], ARGV[2])
if not g then return false end
local guild = ARGV[1] .. ':g:' .. g
local json = redis.call('HGET', guild .. ':c', ARGV[2])
if json then return {g, 'c', json} end
json = redis.call('HGET', guild .. ':th', ARGV[2])
if json then return {g, 'th', json} end
return false
`;

/**
 * Store (JSON) or remove ('') one entry of a cached guild's small hash: a voice state (field user id, key
 * ':vs'). KEYS: guild, hash. ARGV: field, JSON or ''.
 */
export const GUILD_FIELD_PUT = `
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return 0 end
if ARGV[2] == '' then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
`;

/**
 * Replace a cached guild's voice states. KEYS: guild, voice hash. ARGV: user id / JSON pairs.
 */
export const VOICE_REPLACE = `
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return 0 end
redis.call('DEL', KEYS[2])
for from = 1, #ARGV, 2000 do
  redis.call('HSET', KEYS[2], unpack(ARGV, from, math.min(from + 1999, #ARGV)))
end
return 1
`;

/**
 * One command's (or the application's) permission settings in a cached guild, from an event: stored (JSON) or
 * removed (''), and marked as changed for an open load. KEYS: guild. ARGV: target id, JSON or ''.
 */
export const COMMAND_PERMISSIONS_PUT = `
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return 0 end
if redis.call('EXISTS', KEYS[1] .. ':cpsync') == 1 then redis.call('SADD', KEYS[1] .. ':cpseen', ARGV[1]) end
if ARGV[2] == '' then redis.call('HDEL', KEYS[1] .. ':cp', ARGV[1]) else redis.call('HSET', KEYS[1] .. ':cp', ARGV[1], ARGV[2]) end
return 1
`;

/** Open a command permissions load of a cached guild. KEYS: guild. ARGV: token, ttl ms. */
export const COMMAND_PERMISSIONS_BEGIN = `
if redis.call('HEXISTS', KEYS[1], 'gen') == 0 then return 0 end
redis.call('SET', KEYS[1] .. ':cpsync', ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[1] .. ':cpseen')
redis.call('SADD', KEYS[1] .. ':cpseen', '')
redis.call('PEXPIRE', KEYS[1] .. ':cpseen', ARGV[2])
return 1
`;

/**
 * Commit a load: the guild's settings become the listed ones, except those an event changed since it began.
 * KEYS: guild. ARGV: token, then target id / JSON pairs. Returns -1 when the load is no longer the open one.
 */
export const COMMAND_PERMISSIONS_COMMIT = `
if redis.call('GET', KEYS[1] .. ':cpsync') ~= ARGV[1] then return -1 end
local key, seen = KEYS[1] .. ':cp', KEYS[1] .. ':cpseen'
local listed = {}
for j = 2, #ARGV, 2 do listed[ARGV[j]] = true end
local old = redis.call('HKEYS', key)
for j = 1, #old do
  if not listed[old[j]] and redis.call('SISMEMBER', seen, old[j]) == 0 then redis.call('HDEL', key, old[j]) end
end
for j = 2, #ARGV, 2 do
  if redis.call('SISMEMBER', seen, ARGV[j]) == 0 then redis.call('HSET', key, ARGV[j], ARGV[j + 1]) end
end
redis.call('HSET', KEYS[1], 'cpl', '1')
redis.call('DEL', KEYS[1] .. ':cpsync', seen)
return 1
`;

export interface ScriptSpec {
  lua: string;
  keys: number;
}

export const SCRIPTS = {
  ghMembers: { lua: MEMBERS, keys: 2 },
  ghCount: { lua: COUNT, keys: 1 },
  ghSelf: { lua: SELF, keys: 2 },
  ghGuildPut: { lua: GUILD_PUT, keys: 2 },
  ghGuildRemove: { lua: GUILD_REMOVE, keys: 2 },
  ghGcBatch: { lua: GC_BATCH, keys: 3 },
  ghGuildsTouch: { lua: GUILDS_TOUCH, keys: 1 },
  ghReadyPrune: { lua: READY_PRUNE, keys: 2 },
  ghJobDone: { lua: JOB_DONE, keys: 1 },
  ghRolePut: { lua: ROLE_PUT, keys: 2 },
  ghReadMember: { lua: READ_MEMBER, keys: 3 },
  ghReadMembers: { lua: READ_MEMBERS, keys: 3 },
  ghSyncBegin: { lua: SYNC_BEGIN, keys: 1 },
  ghSyncSweep: { lua: SYNC_SWEEP, keys: 2 },
  ghSyncEnd: { lua: SYNC_END, keys: 1 },
  ghEntitlementPut: { lua: ENTITLEMENT_PUT, keys: 4 },
  ghEntitlementDelete: { lua: ENTITLEMENT_DELETE, keys: 4 },
  ghEntitlementSyncBegin: { lua: ENTITLEMENT_SYNC_BEGIN, keys: 1 },
  ghEntitlementSyncPut: { lua: ENTITLEMENT_SYNC_PUT, keys: 2 },
  ghEntitlementSyncPrune: { lua: ENTITLEMENT_SYNC_PRUNE, keys: 2 },
  ghChannelPut: { lua: CHANNEL_PUT, keys: 1 },
  ghChannelDelete: { lua: CHANNEL_DELETE, keys: 1 },
  ghChannelsReplace: { lua: CHANNELS_REPLACE, keys: 1 },
  ghThreadsSync: { lua: THREADS_SYNC, keys: 1 },
  ghReadChannel: { lua: READ_CHANNEL, keys: 1 },
  ghGuildFieldPut: { lua: GUILD_FIELD_PUT, keys: 2 },
  ghVoiceReplace: { lua: VOICE_REPLACE, keys: 2 },
  ghCommandPermissionsPut: { lua: COMMAND_PERMISSIONS_PUT, keys: 1 },
  ghCommandPermissionsBegin: { lua: COMMAND_PERMISSIONS_BEGIN, keys: 1 },
  ghCommandPermissionsCommit: { lua: COMMAND_PERMISSIONS_COMMIT, keys: 1 },
} as const satisfies Record<string, ScriptSpec>;

export type ScriptName = keyof typeof SCRIPTS;

/** A connection (or pipeline) with the scripts defined as commands (see RedisCache's constructor). */
export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;
export type Scripted = { [K in ScriptName]: ScriptCall };
