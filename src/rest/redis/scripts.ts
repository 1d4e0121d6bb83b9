/**
 * The Lua side of the shared REST limits (shared-rate-limits.ts). One script does a request's whole check in
 * one round trip: it first records what earlier responses of this process said (folded in, so recording
 * costs no round trip of its own when requests keep coming), then checks the invalid-request budget, the
 * bucket, the global pause and the global window, and takes the slots if all allow. Every time comes from
 * the Redis server's clock; the service's relative figures (Reset-After, retry_after) are turned into server
 * times by adding them to the script's own now.
 *
 * Keys are built inside the script from the namespace (ARGV[1]); the runtime's namespace holds the
 * application id in braces, so every key of one bot hashes to one Redis Cluster slot.
 *
 *   <ns>:hash:<METHOD /template>              STRING  the route's bucket hash (X-RateLimit-Bucket), 24 h
 *   <ns>:b:<identity>|<bucket>:<major>        HASH    l limit, r remaining, t reset (server ms, 0 = unknown),
 *                                                     w window length seen (ms), p 1 while t is provisional
 *   <ns>:d:<identity>|<bucket>:<major>        STRING  discovery lock: the one request learning the bucket
 *   <ns>:g:<identity>                         ZSET    global sliding log: one member per request, scored by time
 *   <ns>:gp:<identity>                        STRING  global pause after a global 429 (PX retry_after)
 *   <ns>:inv                                  ZSET    invalid responses (401, 403, non-shared 429), scored by time
 *   <ns>:invb                                 STRING  set (PX) while the invalid budget is spent
 *   <ns>:members                              ZSET    processes using the shared limits -> expiry
 */

/** Fields of one folded record, in order (see `RecordFields` in shared-rate-limits.ts). */
export const RECORD_FIELDS = 13;

const LIMIT = `
local ns = ARGV[1]
local mode = ARGV[2]
local token = ARGV[3]
local invLimit = tonumber(ARGV[4])
local invWindow = tonumber(ARGV[5])
local nrec = tonumber(ARGV[6])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local invKey = ns .. ':inv'
local blockKey = ns .. ':invb'
local invalidCount = -1

local function bkey(identity, bucket, major) return ns .. ':b:' .. identity .. '|' .. bucket .. ':' .. major end
local function lkey(identity, bucket, major) return ns .. ':d:' .. identity .. '|' .. bucket .. ':' .. major end

local function countInvalid(id)
  redis.call('ZADD', invKey, now, token .. ':' .. id)
  redis.call('ZREMRANGEBYSCORE', invKey, '-inf', now - invWindow)
  redis.call('PEXPIRE', invKey, invWindow)
  local c = redis.call('ZCARD', invKey)
  invalidCount = c
  if c >= invLimit then
    -- Sending may resume once the count is below the limit: when the (c - limit + 1)-th oldest expires.
    local idx = c - invLimit
    local nth = redis.call('ZRANGE', invKey, idx, idx, 'WITHSCORES')
    local ms = tonumber(nth[2]) + invWindow - now
    if ms > 0 then redis.call('SET', blockKey, '1', 'PX', math.ceil(ms)) end
  end
end

local function save(key, l, r, t, w, p)
  local fields = {}
  if l then table.insert(fields, 'l'); table.insert(fields, l) end
  if r then table.insert(fields, 'r'); table.insert(fields, r) end
  table.insert(fields, 't'); table.insert(fields, t)
  table.insert(fields, 'w'); table.insert(fields, w)
  table.insert(fields, 'p'); table.insert(fields, p and '1' or '0')
  redis.call('HSET', key, unpack(fields))
  redis.call('PEXPIRE', key, math.max(0, t - now) + 60000)
end

-- 1. Records of earlier responses.
for i = 0, nrec - 1 do
  local b = 7 + i * ${RECORD_FIELDS}
  local identity, routeId, major = ARGV[b], ARGV[b + 1], ARGV[b + 2]
  local admitted, hash = ARGV[b + 3], ARGV[b + 4]
  local limit, remaining, resetAfter = tonumber(ARGV[b + 5]), tonumber(ARGV[b + 6]), tonumber(ARGV[b + 7])
  local kind, retry = tonumber(ARGV[b + 8]), tonumber(ARGV[b + 9])
  local invalid, id, locked = ARGV[b + 10] == '1', ARGV[b + 11], ARGV[b + 12] == '1'
  local admittedBucket = admitted ~= '' and admitted or ('unknown(' .. routeId .. ')')
  if locked then
    local lk = lkey(identity, admittedBucket, major)
    if redis.call('GET', lk) == token then redis.call('DEL', lk) end
  end
  local bucket = admittedBucket
  if hash ~= '' then
    redis.call('SET', ns .. ':hash:' .. routeId, hash, 'PX', 86400000)
    bucket = hash
  end
  local key = bkey(identity, bucket, major)
  if limit >= 0 or remaining >= 0 or resetAfter >= 0 or kind > 0 then
    local s = redis.call('HMGET', key, 'l', 'r', 't', 'w', 'p')
    local l, r, t, w, p = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]) or 0, tonumber(s[4]) or 0, s[5] == '1'
    if limit >= 0 then l = limit end
    if resetAfter >= 0 then
      local reset = now + resetAfter
      local tol = math.min(250, math.floor(math.max(w, resetAfter) / 4))
      if t == 0 or p or reset > t + tol then
        -- A newer window than the one kept (or the first real figure of a provisional one).
        t = reset
        p = false
        if remaining >= 0 then r = r and math.min(r, remaining) or remaining end
      elseif reset >= t - tol then
        -- The same window: what the service counted bounds what is left.
        if reset > t then t = reset end
        if remaining >= 0 then r = r and math.min(r, remaining) or remaining end
      end
      -- Otherwise a late answer from an earlier window: it says nothing about this one.
      if resetAfter > w then w = resetAfter end
    elseif remaining >= 0 then
      r = r and math.min(r, remaining) or remaining
    end
    if kind == 1 then
      -- A 429 of this bucket (or a global one on an exempt route): nothing of it goes before retry_after,
      -- which is the service's word on when it may, whatever window was assumed.
      r = 0
      t = now + retry
      p = false
      l = l or 1
    end
    if l and not r then r = l end
    save(key, l, r, t, w, p)
  end
  if kind == 2 then
    local gp = ns .. ':gp:' .. identity
    if redis.call('PTTL', gp) < retry then redis.call('SET', gp, '1', 'PX', math.max(1, math.ceil(retry))) end
  end
  if invalid then countInvalid(id) end
end

if mode ~= 'r' then return { 9, '', 0, 0, 0, invalidCount } end

-- 2. The reservation.
local base = 7 + nrec * ${RECORD_FIELDS}
local identity, routeId, major, localHash = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
local exempt = ARGV[base + 4] == '1'
local glimit, gwindow = tonumber(ARGV[base + 5]), tonumber(ARGV[base + 6])
local member, lockMs = ARGV[base + 7], tonumber(ARGV[base + 8])

local hash = redis.call('GET', ns .. ':hash:' .. routeId)
if not hash and localHash ~= '' then hash = localHash end
local hashOut = hash or ''

local blocked = redis.call('PTTL', blockKey)
if blocked > 0 then return { 4, hashOut, blocked, redis.call('ZCARD', invKey), 0, invalidCount } end

local bucket = hash or ('unknown(' .. routeId .. ')')
local key = bkey(identity, bucket, major)
local s = redis.call('HMGET', key, 'l', 'r', 't', 'w', 'p')
local l, r, t, w, p = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]) or 0, tonumber(s[4]) or 0, s[5] == '1'
if r and r <= 0 and now < t then return { 1, hashOut, t - now, 0, 0, invalidCount } end
local discovering = not l
if not discovering then
  if t == 0 or now >= t then
    -- The window is over (or was never seen): a fresh one, provisional until a response says when it ends.
    r = l
    t = now + w + math.max(250, math.floor(w / 2))
    p = true
  end
  if not r then r = l end
  if r <= 0 then return { 1, hashOut, t - now, 0, 0, invalidCount } end
end

local gk = ns .. ':g:' .. identity
if not exempt then
  local paused = redis.call('PTTL', ns .. ':gp:' .. identity)
  if paused > 0 then return { 2, hashOut, paused, 0, 0, invalidCount } end
  redis.call('ZREMRANGEBYSCORE', gk, '-inf', now - gwindow)
  local n = redis.call('ZCARD', gk)
  if n >= glimit then
    local idx = n - glimit
    local nth = redis.call('ZRANGE', gk, idx, idx, 'WITHSCORES')
    return { 2, hashOut, math.max(1, tonumber(nth[2]) + gwindow - now + 1), 0, 0, invalidCount }
  end
end

if discovering then
  -- Nothing is known of this bucket: one request of the whole fleet goes first and learns it.
  if not redis.call('SET', lkey(identity, bucket, major), token, 'NX', 'PX', lockMs) then
    return { 3, hashOut, math.max(1, math.min(50, redis.call('PTTL', lkey(identity, bucket, major)))), 0, 0, invalidCount }
  end
end

if not exempt then
  redis.call('ZADD', gk, now, member)
  redis.call('PEXPIRE', gk, gwindow * 2)
end
if discovering then return { 0, hashOut, -1, -1, 2, invalidCount } end
r = r - 1
save(key, l, r, t, w, p)
return { 0, hashOut, r, t - now, p and 1 or 0, invalidCount, l }
`;

/** Register this process (or refresh it) and count the live ones. ARGV: members key, token, ttl ms. */
const HEARTBEAT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', ARGV[1], '-inf', now)
redis.call('ZADD', ARGV[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', ARGV[1], tonumber(ARGV[3]) * 2)
return redis.call('ZCARD', ARGV[1])
`;

export const REST_LIMIT_SCRIPTS = {
  ghRestLimit: LIMIT,
  ghRestMembers: HEARTBEAT,
} as const;
