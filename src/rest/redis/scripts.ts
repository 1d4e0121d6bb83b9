/**
 * The Lua side of the shared REST limits (shared-rate-limits.ts; arguments built by script-args.ts). One script
 * does a request's whole check in one round trip: it first records what earlier responses of this process said
 * (folded in, so recording costs no round trip of its own when requests keep coming) and where this process's
 * global slots stand (released at a response, never sent, or still out), then checks the invalid-request
 * budget, the bucket, the global pause and the global window, and takes the slots if all allow. Every time
 * comes from the Redis server's clock; the service's relative figures (Reset-After, retry_after) and this
 * process's (how long ago a response came) are turned into server times against the script's own now.
 *
 * The global window counts a request from its admission until a window after its response (see
 * ../rate-limits.ts for why): a slot is a member of the identity's log scored by the end of its lease while its
 * request is out, and by its response's time once released. When the window is full but the slot that frees
 * next is a released one, the script BOOKS it: the request holds it now and is told to go when it frees,
 * instead of asking again.
 *
 * Keys are built inside the script from the namespace (ARGV[1]); the runtime's namespace holds the
 * application id in braces, so every key of one bot hashes to one Redis Cluster slot.
 *
 *   <ns>:hash:<METHOD /template>              STRING  the route's bucket hash (X-RateLimit-Bucket), 24 h
 *   <ns>:b:<identity>|<bucket>:<major>        HASH    l limit, r remaining, t reset (server ms, 0 = unknown),
 *                                                     w window length seen (ms), p 1 while t is provisional,
 *                                                     n requests booked to go after t (the next window's)
 *   <ns>:d:<identity>|<bucket>:<major>        STRING  discovery lock: the one request learning the bucket
 *                                                     (the holder's token; a lease its holder renews)
 *   <ns>:g:<identity>                         ZSET    global log: `<token>:<slot>` -> lease end or response time
 *   <ns>:gp:<identity>                        STRING  global pause after a global 429 (PX retry_after)
 *   <ns>:inv                                  ZSET    invalid responses (401, 403, non-shared 429), scored by time
 *   <ns>:invb                                 STRING  set (PX) while the invalid budget is spent
 *   <ns>:members                              ZSET    processes using the shared limits -> expiry
 *   <ns>:wake                                 channel `d <identity>|<bucket>:<major>` when a discovery ends,
 *                                                     `j <processes>` when a process joins
 */

/** Fields of one response record, in order (see `ResponseRecord` in script-args.ts). */
export const RECORD_FIELDS = 13;
/** Fields of one slot update, in order: identity, slot id, age (see `SlotUpdate` in script-args.ts). */
export const SLOT_FIELDS = 3;
/** Header fields before the records (see `limitArgs` in script-args.ts). */
export const HEADER_FIELDS = 10;
/** A slot update's age for a request that never left: its slot is freed. */
export const NEVER_SENT = -1;
/** A slot update's age for a request still out: its slot is held for a lease from now. */
export const STILL_OUT = -2;

/** What the LIMIT script is asked to do (ARGV[2]). */
export const Mode = {
  /** Record, then check and take the slots for one request. */
  Reserve: 'r',
  /** Record only. */
  Record: 'f',
  /** Record, and register this process again (coming back after Redis was unreachable). */
  Rejoin: 'j',
} as const;
export type Mode = (typeof Mode)[keyof typeof Mode];

/** The first field of the LIMIT script's reply. */
export const Reply = {
  Go: 0,
  /** The bucket (or the booked slot's timing within it) holds the request: wait, ask again. */
  Bucket: 1,
  /** The global window or a global 429's pause holds it. */
  Global: 2,
  /** Another request is learning the bucket. */
  Discovery: 3,
  /** The invalid-request budget is spent. */
  Refuse: 4,
  Recorded: 9,
} as const;

/** Reply flags (the fifth field). */
export const FLAG_PROVISIONAL = 1;
export const FLAG_DISCOVERING = 2;
/** After a slot's request went out, when its release is first looked for (then at twice that, and so on). */
const RELEASE_LEAD_MS = 100;

/** What a response record says of a 429 (its `kind` field). */
export const LimitedKind = {
  None: 0,
  /** The bucket waits retry_after (a 429 of user or shared scope, or a global one on an exempt route). */
  Bucket: 1,
  /** Every bucket of the identity waits retry_after. */
  Global: 2,
} as const;

const LIMIT = `
local ns = ARGV[1]
local mode = ARGV[2]
local token = ARGV[3]
local invLimit = tonumber(ARGV[4])
local invWindow = tonumber(ARGV[5])
local gwindow = tonumber(ARGV[6])
local lease = tonumber(ARGV[7])
local nrec = tonumber(ARGV[8])
local nslot = tonumber(ARGV[9])
local memberTtl = tonumber(ARGV[10])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local invKey = ns .. ':inv'
local blockKey = ns .. ':invb'
local membersKey = ns .. ':members'
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

local function save(key, l, r, t, w, p, n)
  local fields = {}
  if l then table.insert(fields, 'l'); table.insert(fields, l) end
  if r then table.insert(fields, 'r'); table.insert(fields, r) end
  table.insert(fields, 't'); table.insert(fields, t)
  table.insert(fields, 'w'); table.insert(fields, w)
  table.insert(fields, 'p'); table.insert(fields, p and '1' or '0')
  table.insert(fields, 'n'); table.insert(fields, n)
  redis.call('HSET', key, unpack(fields))
  redis.call('PEXPIRE', key, math.max(0, t - now) + 60000)
end

local function touchLog(gk)
  redis.call('PEXPIRE', gk, lease + 2 * gwindow)
end

-- 1. Records of earlier responses.
for i = 0, nrec - 1 do
  local b = ${HEADER_FIELDS} + 1 + i * ${RECORD_FIELDS}
  local identity, routeId, major = ARGV[b], ARGV[b + 1], ARGV[b + 2]
  local admitted, hash = ARGV[b + 3], ARGV[b + 4]
  local limit, remaining, resetAfter = tonumber(ARGV[b + 5]), tonumber(ARGV[b + 6]), tonumber(ARGV[b + 7])
  local kind, retry = tonumber(ARGV[b + 8]), tonumber(ARGV[b + 9])
  local invalid, id, locked = ARGV[b + 10] == '1', ARGV[b + 11], ARGV[b + 12] == '1'
  local admittedBucket = admitted ~= '' and admitted or ('unknown(' .. routeId .. ')')
  if locked then
    local suffix = identity .. '|' .. admittedBucket .. ':' .. major
    local lk = ns .. ':d:' .. suffix
    if redis.call('GET', lk) == token then
      redis.call('DEL', lk)
      redis.call('PUBLISH', ns .. ':wake', 'd ' .. suffix)
    end
  end
  local bucket = admittedBucket
  if hash ~= '' then
    redis.call('SET', ns .. ':hash:' .. routeId, hash, 'PX', 86400000)
    bucket = hash
  end
  local key = bkey(identity, bucket, major)
  if limit >= 0 or remaining >= 0 or resetAfter >= 0 or kind > 0 then
    local s = redis.call('HMGET', key, 'l', 'r', 't', 'w', 'p', 'n')
    local l, r, t, w, p = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]) or 0, tonumber(s[4]) or 0, s[5] == '1'
    local n = tonumber(s[6]) or 0
    if limit >= 0 then l = limit end
    if resetAfter >= 0 then
      local reset = now + resetAfter
      local tol = math.min(250, math.floor(math.max(w, resetAfter) / 4))
      if t == 0 or p or reset > t + tol then
        -- A newer window than the one kept (or the first real figure of a provisional one).
        if t > 0 and t <= now and not p then
          -- The kept one is over and nobody opened the next since: this is it, with what was booked for it.
          if l then r = l - n end
          n = 0
        elseif reset > t and n > 0 and r then
          -- The kept one ends later than thought: requests booked for after its old end may fall in it.
          -- Counted in both (the next window keeps them too).
          r = r - n
        end
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
    if kind == ${LimitedKind.Bucket} then
      -- retry_after is the service's word on when this bucket may go again, whatever window was assumed.
      r = 0
      t = now + retry
      p = false
      l = l or 1
    end
    if l and not r then r = l end
    save(key, l, r, t, w, p, n)
  end
  if kind == ${LimitedKind.Global} then
    local gp = ns .. ':gp:' .. identity
    if redis.call('PTTL', gp) < retry then redis.call('SET', gp, '1', 'PX', math.max(1, math.ceil(retry))) end
  end
  if invalid then countInvalid(id) end
end

-- 2. Where this process's global slots stand.
local slotBase = ${HEADER_FIELDS} + 1 + nrec * ${RECORD_FIELDS}
for i = 0, nslot - 1 do
  local b = slotBase + i * ${SLOT_FIELDS}
  local gk = ns .. ':g:' .. ARGV[b]
  local member = token .. ':' .. ARGV[b + 1]
  local age = tonumber(ARGV[b + 2])
  if age == ${NEVER_SENT} then
    redis.call('ZREM', gk, member)
  elseif age == ${STILL_OUT} then
    -- Still out: held a lease from now (never shortening a booking's, which starts later).
    redis.call('ZADD', gk, 'GT', now + lease, member)
    touchLog(gk)
  else
    -- Released: counted from its response, age ms ago.
    redis.call('ZADD', gk, now - age, member)
    touchLog(gk)
  end
end

if mode == '${Mode.Rejoin}' then
  redis.call('ZADD', membersKey, now + memberTtl, token)
  redis.call('PEXPIRE', membersKey, memberTtl * 2)
end
local live = redis.call('ZCARD', membersKey)
if mode ~= '${Mode.Reserve}' then return { ${Reply.Recorded}, '', 0, 0, 0, invalidCount, -1, 0, -1, live } end

-- 3. The reservation.
local base = slotBase + nslot * ${SLOT_FIELDS}
local identity, routeId, major, localHash = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
local exempt = ARGV[base + 4] == '1'
local glimit = tonumber(ARGV[base + 5])
local slot, lockMs = ARGV[base + 6], tonumber(ARGV[base + 7])

local hash = redis.call('GET', ns .. ':hash:' .. routeId)
if not hash and localHash ~= '' then hash = localHash end
local hashOut = hash or ''
local function wait(code, ms) return { code, hashOut, math.max(1, math.ceil(ms)), 0, 0, invalidCount, -1, 0, -1, live } end

local blocked = redis.call('PTTL', blockKey)
if blocked > 0 then return { ${Reply.Refuse}, hashOut, blocked, redis.call('ZCARD', invKey), 0, invalidCount, -1, 0, -1, live } end

local bucket = hash or ('unknown(' .. routeId .. ')')
local key = bkey(identity, bucket, major)
local s = redis.call('HMGET', key, 'l', 'r', 't', 'w', 'p', 'n')
local l, r, t, w, p = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]) or 0, tonumber(s[4]) or 0, s[5] == '1'
local booked = tonumber(s[6]) or 0
if r and r <= 0 and now < t then return wait(${Reply.Bucket}, t - now) end
local discovering = not l
if not discovering then
  if t == 0 or now >= t then
    -- The window is over (or was never seen): a fresh one, provisional until a response says when it ends,
    -- less what was booked to go in it.
    r = l - booked
    booked = 0
    t = now + w + math.max(250, math.floor(w / 2))
    p = true
    -- Kept even when this request must wait: the next asker must not open the window again.
    if r <= 0 then save(key, l, r, t, w, p, booked) end
  end
  if not r then r = l end
  if r <= 0 then return wait(${Reply.Bucket}, t - now) end
end

local gk = ns .. ':g:' .. identity
local delay = 0
local free = -1
if not exempt then
  local paused = redis.call('PTTL', ns .. ':gp:' .. identity)
  if paused > 0 then return wait(${Reply.Global}, paused) end
  redis.call('ZREMRANGEBYSCORE', gk, '-inf', now - gwindow)
  local n = redis.call('ZCARD', gk)
  free = glimit - n - 1
  if n >= glimit then
    -- The slot that frees next for this request: released ones free first, a window after their response.
    local nth = redis.call('ZRANGE', gk, n - glimit, n - glimit, 'WITHSCORES')
    local score = tonumber(nth[2])
    if score > now then
      -- Still out (scored by its lease's end): it frees a window after its response at the soonest. Ask
      -- again soon after it went out (${RELEASE_LEAD_MS} ms, then doubling): its release is likely known by then,
      -- and the next window's slots are booked well ahead of their time instead of one round trip apart
      -- when it comes. Failing that, a window after it went out.
      local start = score - lease
      local again = start + ${RELEASE_LEAD_MS}
      while again <= now and again < start + gwindow do again = start + 2 * (again - start) end
      return wait(${Reply.Global}, math.max(20, math.min(again, start + gwindow) - now))
    end
    delay = score + gwindow - now + 1
    free = 0
  end
end

-- A booking that goes after the bucket's window ends counts in the next one (only the next: one further
-- off, or a next one already full, and the request asks again when its slot frees).
local nextWindow = false
if delay > 0 and not discovering and t > 0 and now + delay >= t then
  if now + delay >= t + w or booked >= l then return wait(${Reply.Bucket}, delay) end
  nextWindow = true
end

if discovering then
  -- Nothing is known of this bucket: one request of the whole fleet goes first and learns it.
  local lk = lkey(identity, bucket, major)
  if not redis.call('SET', lk, token, 'NX', 'PX', lockMs + delay) then
    return wait(${Reply.Discovery}, redis.call('PTTL', lk) + 1)
  end
end

if not exempt then
  redis.call('ZADD', gk, now + delay + lease, token .. ':' .. slot)
  touchLog(gk)
end
if discovering then return { ${Reply.Go}, hashOut, -1, -1, ${FLAG_DISCOVERING}, invalidCount, -1, delay, free, live } end
if nextWindow then
  booked = booked + 1
  save(key, l, r, t, w, p, booked)
  return { ${Reply.Go}, hashOut, l - booked, -1, ${FLAG_PROVISIONAL}, invalidCount, l, delay, free, live }
end
r = r - 1
save(key, l, r, t, w, p, booked)
return { ${Reply.Go}, hashOut, r, t - now, p and ${FLAG_PROVISIONAL} or 0, invalidCount, l, delay, free, live }
`;

/** Renew this process's discovery locks while their requests are out. ARGV: token, lease ms, lock keys... */
const RENEW = `
local kept = 0
for i = 3, #ARGV do
  if redis.call('GET', ARGV[i]) == ARGV[1] then
    redis.call('PEXPIRE', ARGV[i], tonumber(ARGV[2]))
    kept = kept + 1
  end
end
return kept
`;

/**
 * Register this process (or refresh it) and count the live ones; a process new to the set announces itself,
 * so that the others know the fleet's size at once. ARGV: members key, token, ttl ms, channel.
 */
const HEARTBEAT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', ARGV[1], '-inf', now)
local added = redis.call('ZADD', ARGV[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', ARGV[1], tonumber(ARGV[3]) * 2)
local n = redis.call('ZCARD', ARGV[1])
if added == 1 then redis.call('PUBLISH', ARGV[4], 'j ' .. n) end
return n
`;

export const REST_LIMIT_SCRIPTS = {
  ghRestLimit: LIMIT,
  ghRestRenew: RENEW,
  ghRestMembers: HEARTBEAT,
} as const;
