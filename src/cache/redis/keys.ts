/**
 * Redis key layout of the cache (version 2). `P` is the namespace: `cache.redisPrefix` plus the application
 * id (`gh:{<application id>}` by default), `G` a guild id, `N` a guild's generation, `U` a user id, `E` an
 * entitlement id.
 *
 * | key              | type | content                                                                    |
 * |------------------|------|----------------------------------------------------------------------------|
 * | P:v              | STR  | layout version ("2")                                                       |
 * | P:clock          | STR  | counter: guild generations and write stamps                               |
 * | P:self           | STR  | the bot's user id (from READY; its member is never capped, its user never released) |
 * | P:guilds         | SET  | ids of cached guilds                                                       |
 * | P:g:G            | HASH | k=1, gen N, ts stamp of the last write, u unavailable 1/0, n name, o owner id, c member_count, ep baseline epoch |
 * | P:g:G:r          | HASH | role id -> JSON [name, permissions, position, primary, secondary, tertiary] ("" when roles are not cached: the ids still filter members' roles) |
 * | P:g:G:t          | ZSET | recent membership transitions: user id, score = ms * 2 + (1 joined / 0 left) |
 * | P:g:G:sync       | STR  | token of the open member sync (PX 10 min)                                  |
 * | P:g:G:sy         | SET  | padded ids of members written since the sync began (PX 10 min)             |
 * | P:g:G:N:mi       | ZSET | member index: score 0, member = user id zero-padded to 20 digits (lex order = id order) |
 * | P:g:G:N:m:U      | HASH | member: k=1, e the guild's epoch when written, n nick, r roles ",id,id,", j joined_at ms, c timeout ms, f flags, p pending=1, a avatar, b banner; an absent field is null / 0 / false |
 * | P:u              | HASH | user id -> JSON [username, global_name, avatar, discriminator, bot 1/0, system 1/0, primary guild tag] |
 * | P:ur             | HASH | user id -> number of cached memberships (the user record goes with the last) |
 * | P:g:G:c          | HASH | channel id -> JSON (codec.ts encodeChannel)                              |
 * | P:g:G:th         | HASH | thread id -> JSON (as channels, with thread metadata)                      |
 * | P:ch             | HASH | channel or thread id -> guild id (getChannel by id alone)                  |
 * | P:g:G:vs         | HASH | user id -> JSON voice state (cache.voiceStates)                            |
 * | P:g:G:cp         | HASH | command id (or application id) -> JSON command permission settings; the guild hash's `cpl` = 1 once loaded from REST |
 * | P:g:G:cpsync, :cpseen | STR, SET | token of the open command permissions load, and the targets events changed since (PX 10 min) |
 * | P:e              | HASH | entitlement id -> JSON [sku, application, user, guild, type, starts ms, ends ms, deleted 1/0, consumed 1/0] |
 * | P:es             | HASH | entitlement id -> stamp of the last event that wrote or deleted it (a deletion leaves it as a tombstone) |
 * | P:et             | ZSET | tombstones: deleted entitlement id, score = ms of the deletion; past 15 min or 10,000 the oldest go, with their P:es stamps |
 * | P:e:u:U, P:e:g:G | SET  | entitlement ids of a user / a guild                                        |
 * | P:esync:T, :r    | SET, STR | ids listed by REST during entitlement sync T, and its start stamp (PX 1 h) |
 * | P:jobs           | HASH | background work that must survive a crash: `ready:<shard>:<count>` -> stamp, `gc:G:N` -> 1 |
 * | P:stale          | SET  | guilds whose state may be wrong after a failed write, until recovered     |
 * | P:stale:e        | STR  | "1" while the entitlements are stale                                       |
 *
 * Bounded work. No script walks a guild's members: a deleted role stays in members' `r` fields and reads
 * filter `r` against P:g:G:r; removing a guild deletes its small keys, bumps nothing but the guild set, and
 * leaves its generation's members to background batches (`gc:` jobs: ZPOPMIN 50 from the old index, delete,
 * release users). A member of generation N is never confused with one of the guild's next generation.
 *
 * Every write that reads before it writes (member creation under a cap, transitions, reference counts, guild
 * removal, stamps) is one Lua script, so processes writing different guilds never interleave inside one.
 * Users are shared between guilds: the last write of a user record wins. Scripts build the keys they touch
 * from the namespace, so the layout needs a single Redis (or a primary with replicas), not Redis Cluster.
 */
export const LAYOUT_VERSION = '2';

export class CacheKeys {
  readonly version: string;
  readonly clock: string;
  readonly self: string;
  readonly guilds: string;
  readonly users: string;
  readonly userRefs: string;
  readonly entitlements: string;
  readonly entitlementStamps: string;
  readonly entitlementTombstones: string;
  readonly jobs: string;
  readonly stale: string;
  readonly staleEntitlements: string;
  readonly channelIndex: string;

  constructor(readonly prefix: string) {
    if (prefix.length === 0) throw new TypeError('cache Redis prefix must not be empty');
    this.version = `${prefix}:v`;
    this.clock = `${prefix}:clock`;
    this.self = `${prefix}:self`;
    this.guilds = `${prefix}:guilds`;
    this.users = `${prefix}:u`;
    this.userRefs = `${prefix}:ur`;
    this.entitlements = `${prefix}:e`;
    this.entitlementStamps = `${prefix}:es`;
    this.entitlementTombstones = `${prefix}:et`;
    this.jobs = `${prefix}:jobs`;
    this.stale = `${prefix}:stale`;
    this.staleEntitlements = `${prefix}:stale:e`;
    this.channelIndex = `${prefix}:ch`;
  }

  channels(g: string): string {
    return `${this.prefix}:g:${g}:c`;
  }
  threads(g: string): string {
    return `${this.prefix}:g:${g}:th`;
  }
  voiceStates(g: string): string {
    return `${this.prefix}:g:${g}:vs`;
  }
  commandPermissions(g: string): string {
    return `${this.prefix}:g:${g}:cp`;
  }

  guild(g: string): string {
    return `${this.prefix}:g:${g}`;
  }
  roles(g: string): string {
    return `${this.prefix}:g:${g}:r`;
  }
  transitions(g: string): string {
    return `${this.prefix}:g:${g}:t`;
  }
  syncToken(g: string): string {
    return `${this.prefix}:g:${g}:sync`;
  }
  syncSeen(g: string): string {
    return `${this.prefix}:g:${g}:sy`;
  }
  memberIndex(g: string, gen: string): string {
    return `${this.prefix}:g:${g}:${gen}:mi`;
  }
  member(g: string, gen: string, u: string): string {
    return `${this.prefix}:g:${g}:${gen}:m:${u}`;
  }
  userEntitlements(u: string): string {
    return `${this.prefix}:e:u:${u}`;
  }
  guildEntitlements(g: string): string {
    return `${this.prefix}:e:g:${g}`;
  }
  entitlementSync(token: string): string {
    return `${this.prefix}:esync:${token}`;
  }
}
