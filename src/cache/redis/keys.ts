/**
 * Redis key layout of the cache. `P` is `cache.redisPrefix` (default "gh"), `G` a guild id, `U` a user
 * id, `E` an entitlement id.
 *
 * | key            | type | content                                                                      |
 * |----------------|------|------------------------------------------------------------------------------|
 * | P:guilds       | SET  | ids of cached guilds                                                         |
 * | P:g:G          | HASH | k=1 (exists), u unavailable 1/0, n name, o owner id, c member_count         |
 * | P:g:G:r        | HASH | role id -> JSON [name, permissions, position, primary, secondary, tertiary]  |
 * | P:g:G:mi       | ZSET | member index: score 0, member = user id zero-padded to 20 digits (lex order = id order) |
 * | P:g:G:m:U      | HASH | member: k=1, n nick, r roles ",id,id,", j joined_at ms, c timeout ms, f flags, p pending=1, a avatar, b banner; an absent field is null / 0 / false |
 * | P:u            | HASH | user id -> JSON [username, global_name, avatar, discriminator, bot 1/0, system 1/0, primary guild tag] |
 * | P:ur           | HASH | user id -> number of cached memberships (the user record goes with the last) |
 * | P:e            | HASH | entitlement id -> JSON [sku, application, user, guild, type, starts ms, ends ms, deleted 1/0, consumed 1/0] |
 * | P:e:u:U, P:e:g:G | SET | entitlement ids of a user / a guild                                         |
 *
 * Every write that reads before it writes (member creation under a cap, member counts, reference
 * counts, role removal from members, guild removal) is one Lua script, so processes writing different
 * guilds never interleave inside one. Users are shared between guilds: the last write of a user record
 * wins. The scripts address member keys they derive from the index, so the layout needs a single
 * Redis (or a primary with replicas), not Redis Cluster.
 */
export class CacheKeys {
  readonly guilds: string;
  readonly users: string;
  readonly userRefs: string;
  readonly entitlements: string;

  constructor(readonly prefix: string) {
    if (prefix.length === 0) throw new TypeError('cache Redis prefix must not be empty');
    this.guilds = `${prefix}:guilds`;
    this.users = `${prefix}:u`;
    this.userRefs = `${prefix}:ur`;
    this.entitlements = `${prefix}:e`;
  }

  guild(g: string): string {
    return `${this.prefix}:g:${g}`;
  }
  roles(g: string): string {
    return `${this.prefix}:g:${g}:r`;
  }
  memberIndex(g: string): string {
    return `${this.prefix}:g:${g}:mi`;
  }
  /** Prefix of a guild's member keys; the member key is this plus the user id. */
  memberPrefix(g: string): string {
    return `${this.prefix}:g:${g}:m:`;
  }
  member(g: string, u: string): string {
    return `${this.prefix}:g:${g}:m:${u}`;
  }
  userEntitlements(u: string): string {
    return `${this.prefix}:e:u:${u}`;
  }
  guildEntitlements(g: string): string {
    return `${this.prefix}:e:g:${g}`;
  }
}
