/**
 * The Lua scripts of cluster mode. Each runs atomically on the Redis server, so "check, then write" steps
 * (is this lease still mine? may this bucket identify now?) cannot interleave with another process's.
 * Times that several machines must agree on come from the server's clock (TIME), never from a client's.
 * Key layout: keys.ts.
 */
import type { ChainableCommander, Redis } from 'ioredis';

// ---- arguments the scripts read by position, named where a call builds them --------------------------------

/** A yes/no argument: the scripts test `== '1'` (also redis-identify-budget.ts's TAKE and reshard's SWITCH). */
export function luaFlag(on: boolean): '1' | '0' {
  return on ? '1' : '0';
}

/** SESSION_SAVE / SESSION_CLEAR's lease token for a store no lease guards (a single process). */
export const UNGUARDED = '';

/** LOCK_RELEASE's fingerprint when the sync did not complete: the synced marker is left as it is. */
export const NOT_SYNCED = '';

const NOW_MS = `
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * Register a member and count the live ones.
 * KEYS: members, total. ARGV: member id, ttl ms, total shard count.
 * Returns { live members, server ms, total already set by others ('' when none or equal), ms until the
 * earliest other member's entry expires (-1 when there is none) }. The last one lets a member look again the
 * moment a dead peer drops out, instead of at its next heartbeat.
 */
const HEARTBEAT = `${NOW_MS}
local now = nowMs()
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl * 2)
local nextMs = -1
local first = redis.call('ZRANGE', KEYS[1], 0, 1, 'WITHSCORES')
for i = 1, #first, 2 do
  if first[i] ~= ARGV[1] then
    nextMs = math.max(0, math.ceil(tonumber(first[i + 1]) - now))
    break
  end
end
local other = redis.call('GET', KEYS[2])
if other and other ~= ARGV[3] then
  return { redis.call('ZCARD', KEYS[1]), now, other, nextMs }
end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ttl)
return { redis.call('ZCARD', KEYS[1]), now, '', nextMs }
`;

/**
 * Claim free leases, in the order given, until `max` are held.
 * KEYS: lease keys. ARGV: token, lease ms, max.
 * Returns { the 1-based indexes of the keys now held by the token, ms until the earliest lease held by
 * another token among those looked at expires (-1 when none) }: a lease its holder stops renewing can be
 * claimed right when it expires.
 */
const CLAIM = `
local out, n, max, nextMs = {}, 0, tonumber(ARGV[3]), -1
for i, key in ipairs(KEYS) do
  if n >= max then break end
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    n = n + 1
    out[n] = i
  elseif redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    n = n + 1
    out[n] = i
  else
    local ttl = redis.call('PTTL', key)
    if ttl >= 0 and (nextMs < 0 or ttl < nextMs) then nextMs = ttl end
  end
end
return { out, nextMs }
`;

/**
 * Compare-and-extend: extend each key that still holds the token.
 * KEYS: lease (or lock) keys. ARGV: token, ms. Returns 1 (extended) or 0 (lost) per key.
 */
const RENEW = `
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
`;

/**
 * Compare-and-delete: delete each key that still holds the token.
 * KEYS: lease (or lock) keys. ARGV: token. Returns 1 (released) or 0 (not ours any more) per key.
 */
const RELEASE = `
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
`;

/**
 * Take the identify slot of a bucket if it is free.
 * KEYS: bucket key. ARGV: window ms (margin included).
 * Returns { 0, server ms } when taken (the next identify of the bucket may go one window from now),
 * otherwise { ms until the slot frees, server ms }.
 */
const IDENTIFY_SLOT = `${NOW_MS}
local now = nowMs()
local window = tonumber(ARGV[1])
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if now >= nextAt then
  redis.call('SET', KEYS[1], now + window, 'PX', window * 2 + 1000)
  return { 0, now }
end
return { nextAt - now, now }
`;

/**
 * Store a shard's session, only while the writer holds the shard's lease, and never with a seq below the
 * stored one of the same session.
 * KEYS: session, lease. ARGV: token ('' = unguarded), session id, seq, resume url, total, ttl ms.
 * Returns 1 (stored), 0 (not the lease holder), -1 (older than what is stored).
 */
const SESSION_SAVE = `${NOW_MS}
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'id') == ARGV[2] then
  local stored = tonumber(redis.call('HGET', KEYS[1], 'seq') or '-1')
  if stored ~= nil and stored > tonumber(ARGV[3]) then return -1 end
end
redis.call('HSET', KEYS[1], 'id', ARGV[2], 'seq', ARGV[3], 'url', ARGV[4], 'total', ARGV[5], 'at', nowMs())
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`;

/**
 * Forget a shard's session (it ended for good), only while the writer holds the lease.
 * KEYS: session, lease. ARGV: token ('' = unguarded). Returns 1 or 0 (not the lease holder).
 */
const SESSION_CLEAR = `
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * Release the command-sync lock, recording a completed sync first.
 * KEYS: lock, synced marker. ARGV: token, fingerprint ('' = the sync did not complete), marker ttl ms.
 * Returns 1 (released) or 0 (the lock was not ours any more; the marker is still written when given).
 */
const LOCK_RELEASE = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`;

/** Script name -> key count (-1: variable, passed first) and source. */
export const CLUSTER_SCRIPTS = {
  ghClusterHeartbeat: { keys: 2, lua: HEARTBEAT },
  ghClusterClaim: { keys: -1, lua: CLAIM },
  ghClusterRenew: { keys: -1, lua: RENEW },
  ghClusterRelease: { keys: -1, lua: RELEASE },
  ghClusterIdentifySlot: { keys: 1, lua: IDENTIFY_SLOT },
  ghClusterSessionSave: { keys: 2, lua: SESSION_SAVE },
  ghClusterSessionClear: { keys: 2, lua: SESSION_CLEAR },
  ghClusterLockRelease: { keys: 2, lua: LOCK_RELEASE },
} as const;

export type ClusterScriptName = keyof typeof CLUSTER_SCRIPTS;

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;
type PipelineScriptCall = (...args: (string | number)[]) => ChainableCommander;

/** A connection (or pipeline) with the cluster scripts defined as commands. */
export type ScriptedRedis = Redis & { [K in ClusterScriptName]: ScriptCall };
export type ScriptedPipeline = ChainableCommander & { [K in ClusterScriptName]: PipelineScriptCall };

/**
 * Define the scripts on a connection (idempotent). ioredis sends EVALSHA and falls back to EVAL once when
 * the server does not know the script yet (e.g. after a restart).
 */
export function withClusterScripts(redis: Redis): ScriptedRedis {
  for (const [name, spec] of Object.entries(CLUSTER_SCRIPTS)) {
    if (!(name in redis)) {
      redis.defineCommand(name, spec.keys >= 0 ? { numberOfKeys: spec.keys, lua: spec.lua } : { lua: spec.lua });
    }
  }
  return redis as ScriptedRedis;
}
