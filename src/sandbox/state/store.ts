/**
 * The sandbox's world: guilds, users, members, SKUs and entitlements, seeded from the fixture.
 *
 * Changes go through this class so that every change emits the dispatch the service would send
 * (GUILD_MEMBER_*, ENTITLEMENT_*) through a `DispatchSink`; the store knows nothing about sockets.
 */
import { isSnowflake, SnowflakeGenerator } from '../../api/snowflake.js';
import { Fixture, type FixtureGuild } from '../fixture.js';
import { SandboxError } from '../errors.js';
import { MessageStore } from './messages.js';
import type { ChannelRecord, EntitlementRecord, GuildRecord, MemberRecord, SkuRecord, UserRecord } from './model.js';
import { basePermissions, channelPermissions } from './permissions.js';
import {
  channelObject,
  entitlementObject,
  guildObject,
  memberJson,
  memberJsonWithGuild,
  userJson,
  userObject,
} from './serialize.js';
import { scheduledEventObject, stageInstanceObject } from './assets-serialize.js';

/** Where state changes go out as gateway dispatches. `d` is serialized JSON. */
export interface DispatchSink {
  /** A guild event, routed to the guild's shard. `userId` names the member concerned (own-member exception). */
  guild(guildId: string, t: string, d: string | Buffer, userId?: string): void;
  /** An event without a guild (entitlements...): shard 0 only. */
  global(t: string, d: string | Buffer): void;
  /** The bot joined a guild: GUILD_CREATE to its shard, each session's member list as on IDENTIFY. */
  guildCreate?(guildId: string): void;
}

/** What PATCH /guilds/{id}/members/{user} (and the admin API) may change on a member. */
export interface MemberPatch {
  nick?: string | null;
  roles?: string[];
  /** Epoch ms; null clears the timeout. */
  communicationDisabledUntil?: number | null;
  mute?: boolean;
  deaf?: boolean;
}

/** Which member list a GUILD_CREATE carries (protocol §10.4 default member lists). */
export type MemberListKind = 'bot' | 'all' | 'large';

export class SandboxStore {
  readonly fixture: Fixture;
  readonly applicationId: string;
  readonly botUser: UserRecord;
  readonly ids = new SnowflakeGenerator(20, 1);
  private readonly guildList: GuildRecord[] = [];
  private readonly guildById = new Map<string, FixtureGuild>();
  /** Guilds the bot has left (or was removed from), kept so that it can join them again. */
  private readonly departed = new Map<string, FixtureGuild>();
  readonly users = new Map<string, UserRecord>();
  readonly skus: SkuRecord[];
  readonly entitlements = new Map<string, EntitlementRecord>();
  /** Messages the bot sent in guild channels and DMs, and its DM channels. */
  readonly messages = new MessageStore(this.ids);
  /** Guild channels by id, built on first use (the fixture's channels never change). */
  private channelIndex: Map<string, { guild: GuildRecord; channel: ChannelRecord }> | null = null;
  private sink: DispatchSink = { guild: () => {}, global: () => {} };
  private addedUsers = 0;

  constructor(fixture: Fixture) {
    this.fixture = fixture;
    this.applicationId = fixture.applicationId;
    this.botUser = fixture.botUser();
    this.users.set(this.botUser.id, this.botUser);
    for (let i = 0; i < fixture.options.guilds; i++) {
      const fg = fixture.guild(i);
      this.guildList.push(fg.guild);
      this.guildById.set(fg.guild.id, fg);
    }
    if (fixture.options.eager) for (const g of this.guildList) this.members(g);
    this.skus = fixture.skus();
    for (const e of fixture.entitlements(this.skus)) this.entitlements.set(e.id, e);
  }

  connect(sink: DispatchSink): void {
    this.sink = sink;
  }

  get guilds(): readonly GuildRecord[] {
    return this.guildList;
  }

  guild(id: string): GuildRecord | undefined {
    return this.guildById.get(id)?.guild;
  }

  fixtureGuild(id: string): FixtureGuild | undefined {
    return this.guildById.get(id);
  }

  requireGuild(id: string): GuildRecord {
    const g = this.guild(id);
    if (!g) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${id}`);
    return g;
  }

  /** Members of a guild, generated from the fixture the first time they are needed. */
  members(guild: GuildRecord): Map<string, MemberRecord> {
    if (guild.members === null) {
      const fg = this.guildById.get(guild.id)!;
      guild.members = this.fixture.members(fg);
    }
    return guild.members;
  }

  private fixtureBotMember(guild: GuildRecord): MemberRecord {
    return this.fixture.botMember(this.guildById.get(guild.id)!);
  }

  memberCount(guild: GuildRecord): number {
    return guild.members === null ? guild.seededMemberCount : guild.members.size;
  }

  member(guildId: string, userId: string): MemberRecord | undefined {
    const g = this.guild(guildId);
    return g ? this.members(g).get(userId) : undefined;
  }

  /** A user by id: the bot, users added later, or a fixture user (generated from its id). */
  user(id: string): UserRecord | undefined {
    const known = this.users.get(id);
    if (known !== undefined) return known;
    const index = this.fixture.userIndexOf(id);
    return index >= 0 ? this.fixture.user(index) : undefined;
  }

  /** The user JSON of a member record (fixture users are serialized without building a record). */
  userJsonOf(m: MemberRecord): string {
    return m.userIndex >= 0 ? this.fixture.userJson(m.userIndex, m.userId) : userJson(this.users.get(m.userId)!);
  }

  /** The user of a member record. */
  userOf(m: MemberRecord): UserRecord {
    return m.userIndex >= 0 ? this.fixture.user(m.userIndex) : this.users.get(m.userId)!;
  }

  channel(guild: GuildRecord, id: string) {
    return guild.channels.find((c) => c.id === id);
  }

  /** A guild channel or thread by id alone, with its guild. */
  guildChannel(id: string): { guild: GuildRecord; channel: ChannelRecord } | undefined {
    if (this.channelIndex === null) {
      this.channelIndex = new Map();
      for (const guild of this.guildList) {
        for (const channel of guild.channels) this.channelIndex.set(channel.id, { guild, channel });
        for (const channel of guild.threads ?? []) this.channelIndex.set(channel.id, { guild, channel });
      }
    }
    return this.channelIndex.get(id);
  }

  /** A guild's channels or threads changed (created, deleted): the id index is rebuilt on next use. */
  channelsChanged(guild: GuildRecord): void {
    this.channelIndex = null;
    guild.payloadCache.clear();
  }

  /** A change made by a REST route: guild events to the guild's shard, others to shard 0. */
  emit(guildId: string | null, t: string, d: string, userId?: string): void {
    if (guildId === null) this.sink.global(t, d);
    else this.sink.guild(guildId, t, d, userId);
  }

  /** PATCH /users/@me: the bot's username, avatar or banner changes everywhere it appears; USER_UPDATE. */
  editBotUser(patch: { username?: string; avatar?: string | null; banner?: string | null }): UserRecord {
    const u = this.botUser;
    if (patch.username !== undefined) u.username = patch.username;
    if (patch.avatar !== undefined) u.avatar = patch.avatar;
    if (patch.banner !== undefined) u.banner = patch.banner;
    delete u.json;
    // Every GUILD_CREATE carries the bot's member.
    for (const g of this.guildList) g.payloadCache.clear();
    this.sink.global('USER_UPDATE', JSON.stringify(userObject(u)));
    return u;
  }

  /** Whether a user is a member, without generating a guild's members when the fixture can tell. */
  isMember(guild: GuildRecord, userId: string): boolean {
    if (guild.members !== null) return guild.members.has(userId);
    if (userId === this.applicationId) return true;
    return guild.index >= 0 && this.fixture.isSeededMember(this.fixture.userIndexOf(userId), guild.index);
  }

  /** Guild-level permissions of a member (channel overwrites are applied by `channelPermissionsOf`). */
  permissionsOf(guild: GuildRecord, userId: string): bigint {
    const member = this.memberRecordOf(guild, userId);
    const everyone = guild.roles[0]!.permissions;
    const rolePerms = (member?.roles ?? []).map((id) => guild.roles.find((r) => r.id === id)?.permissions ?? 0n);
    return basePermissions(everyone, rolePerms, guild.ownerId === userId);
  }

  /** The bot's own record must not generate every guild's members (GET /users/@me/guilds on 1,000 guilds). */
  private memberRecordOf(guild: GuildRecord, userId: string): MemberRecord | undefined {
    return guild.members === null && userId === this.applicationId ? this.fixtureBotMember(guild) : this.members(guild).get(userId);
  }

  /** Permissions of a member in a channel: its overwrites (a thread's are its parent's), timeouts applied. */
  channelPermissionsOf(guild: GuildRecord, channel: ChannelRecord, userId: string): bigint {
    const member = this.memberRecordOf(guild, userId);
    if (member === undefined) return 0n;
    const source = channel.thread !== undefined && channel.parentId !== null ? (this.channel(guild, channel.parentId) ?? channel) : channel;
    const until = member.communicationDisabledUntil;
    return channelPermissions(
      { guildId: guild.id, userId, roleIds: member.roles, base: this.permissionsOf(guild, userId), timedOut: until !== undefined && until !== null && until > Date.now() },
      source.overwrites ?? [],
    );
  }

  /** The position of a member's highest role (0: @everyone only); the role hierarchy compares these. */
  highestRolePosition(guild: GuildRecord, userId: string): number {
    const member = this.memberRecordOf(guild, userId);
    let top = 0;
    for (const id of member?.roles ?? []) top = Math.max(top, guild.roles.find((r) => r.id === id)?.position ?? 0);
    return top;
  }

  // ---- the bot's guilds -------------------------------------------------------------------------------

  /** Ids of the guilds the bot has left, in the order it left them. */
  get leftGuildIds(): string[] {
    return [...this.departed.keys()];
  }

  /**
   * The bot leaves a guild, or is removed from it: the guild is unknown to every route from now on (the
   * service answers 10004 for a guild the bot is not in, discord-api-docs#5840), its members' events stop, and
   * GUILD_DELETE without `unavailable` goes to its shard. Its state is kept for `joinGuild`.
   */
  leaveGuild(id: string): void {
    const fg = this.guildById.get(id);
    if (fg === undefined) throw new SandboxError('UNKNOWN_GUILD', `the bot is not in guild ${id}`);
    this.guildById.delete(id);
    this.guildList.splice(this.guildList.indexOf(fg.guild), 1);
    this.departed.set(id, fg);
    fg.guild.members?.delete(this.applicationId);
    this.channelsChanged(fg.guild);
    this.sink.guild(id, 'GUILD_DELETE', `{"id":"${id}"}`);
  }

  /** The bot joins a guild it left again, with its managed role: GUILD_CREATE as on a join. */
  joinGuild(id: string): void {
    const fg = this.departed.get(id);
    if (fg === undefined) {
      const why = this.guildById.has(id) ? 'the bot is in guild' : 'the bot never left guild';
      throw new SandboxError(this.guildById.has(id) ? 'CONFLICT' : 'UNKNOWN_GUILD', `${why} ${id}`);
    }
    this.departed.delete(id);
    const guild = fg.guild;
    // The seeded members' join times derive from the bot's: build them before the bot's changes.
    guild.members ??= this.fixture.members(fg);
    const members = guild.members;
    guild.joinedAt = new Date().toISOString();
    members.set(this.applicationId, this.fixture.botMember(fg));
    // Fixture order (ids ascending), so READY lists a rejoined guild where it was.
    const at = this.guildList.findIndex((g) => BigInt(g.id) > BigInt(id));
    this.guildList.splice(at < 0 ? this.guildList.length : at, 0, guild);
    this.guildById.set(id, fg);
    this.channelsChanged(guild);
    this.sink.guildCreate?.(id);
  }

  // ---- members ----------------------------------------------------------------------------------------

  addMember(guildId: string, input: { id?: string; username?: string; roles?: string[]; nick?: string; mute?: boolean; deaf?: boolean } = {}): string {
    const guild = this.requireGuild(guildId);
    const members = this.members(guild);
    const roles = input.roles ?? [];
    this.checkRoles(guild, roles);
    let user = input.id === undefined ? undefined : this.user(input.id);
    const userIndex = input.id === undefined ? -1 : this.fixture.userIndexOf(input.id);
    if (user === undefined) {
      const id = input.id ?? this.ids.next();
      if (!isSnowflake(id)) throw new SandboxError('INVALID', `member id must be a snowflake; got ${JSON.stringify(id)}`);
      this.addedUsers++;
      user = { id, username: input.username ?? `newcomer${this.addedUsers}`, globalName: null, bot: false, locale: 'en-US' };
      this.users.set(id, user);
    }
    if (members.has(user.id)) throw new SandboxError('CONFLICT', `user ${user.id} is already a member of guild ${guildId}`);
    const member: MemberRecord = { userId: user.id, userIndex, nick: input.nick ?? null, roles: [...roles], joinedAt: Date.now(), flags: 0 };
    if (input.mute === true) member.mute = true;
    if (input.deaf === true) member.deaf = true;
    members.set(user.id, member);
    guild.payloadCache.clear();
    this.sink.guild(guildId, 'GUILD_MEMBER_ADD', memberJsonWithGuild(guildId, memberJson(member, userJson(user))), user.id);
    return user.id;
  }

  updateMember(guildId: string, userId: string, patch: MemberPatch): void {
    const guild = this.requireGuild(guildId);
    const member = this.members(guild).get(userId);
    if (!member) throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} is not a member of guild ${guildId}`);
    if (patch.roles !== undefined) {
      this.checkRoles(guild, patch.roles);
      member.roles = [...patch.roles];
    }
    if (patch.nick !== undefined) member.nick = patch.nick;
    if (patch.communicationDisabledUntil !== undefined) member.communicationDisabledUntil = patch.communicationDisabledUntil;
    if (patch.mute !== undefined) member.mute = patch.mute;
    if (patch.deaf !== undefined) member.deaf = patch.deaf;
    guild.payloadCache.clear();
    const user = this.userOf(member);
    this.sink.guild(guildId, 'GUILD_MEMBER_UPDATE', memberJsonWithGuild(guildId, memberJson(member, userJson(user))), userId);
  }

  removeMember(guildId: string, userId: string): void {
    const guild = this.requireGuild(guildId);
    const members = this.members(guild);
    const member = members.get(userId);
    if (!member) throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} is not a member of guild ${guildId}`);
    members.delete(userId);
    guild.payloadCache.clear();
    const user = this.userOf(member);
    this.sink.guild(guildId, 'GUILD_MEMBER_REMOVE', `{"guild_id":"${guildId}","user":${userJson(user)}}`, userId);
  }

  private checkRoles(guild: GuildRecord, roles: string[]): void {
    for (const id of roles) {
      if (id === guild.id || !guild.roles.some((r) => r.id === id)) {
        throw new SandboxError('UNKNOWN_ROLE', `role ${id} is not an assignable role of guild ${guild.id}`);
      }
    }
  }

  // ---- entitlements -----------------------------------------------------------------------------------

  sku(id: string): SkuRecord | undefined {
    return this.skus.find((s) => s.id === id);
  }

  grantEntitlement(input: { skuId: string; userId?: string; guildId?: string; subscription?: boolean; test?: boolean }): EntitlementRecord {
    const sku = this.sku(input.skuId);
    if (!sku) throw new SandboxError('UNKNOWN_SKU', `unknown SKU ${input.skuId}`);
    if ((input.userId === undefined) === (input.guildId === undefined)) {
      throw new SandboxError('INVALID', 'an entitlement belongs to exactly one of userId or guildId');
    }
    if (input.guildId !== undefined) this.requireGuild(input.guildId);
    if (input.userId !== undefined && !this.user(input.userId)) throw new SandboxError('UNKNOWN_USER', `unknown user ${input.userId}`);
    const subscription = input.subscription ?? sku.type === 5;
    const test = input.test ?? false;
    const e: EntitlementRecord = {
      id: this.ids.next(),
      skuId: sku.id,
      userId: input.userId ?? null,
      guildId: input.guildId ?? null,
      // Platform-managed subscriptions are PURCHASE (1) since the 2024 migration (protocol §S2.9); test ones are 4.
      type: test ? 4 : 1,
      deleted: false,
      consumed: false,
      startsAt: test ? null : new Date().toISOString(),
      endsAt: null,
      test,
      subscriptionId: subscription && !test ? this.ids.next() : null,
    };
    this.entitlements.set(e.id, e);
    this.sink.global('ENTITLEMENT_CREATE', JSON.stringify(entitlementObject(e, this.applicationId)));
    return e;
  }

  /** A subscription ends: ends_at is set and ENTITLEMENT_UPDATE fires (protocol §S3: only at this point). */
  endEntitlement(id: string, endsAt: Date = new Date()): void {
    const e = this.entitlements.get(id);
    if (!e || e.deleted) throw new SandboxError('UNKNOWN_ENTITLEMENT', `unknown entitlement ${id}`);
    e.endsAt = endsAt.toISOString();
    this.sink.global('ENTITLEMENT_UPDATE', JSON.stringify(entitlementObject(e, this.applicationId)));
  }

  deleteEntitlement(id: string): void {
    const e = this.entitlements.get(id);
    if (!e || e.deleted) throw new SandboxError('UNKNOWN_ENTITLEMENT', `unknown entitlement ${id}`);
    e.deleted = true;
    this.sink.global('ENTITLEMENT_DELETE', JSON.stringify(entitlementObject(e, this.applicationId)));
  }

  /** Active entitlements of a user (and of the guild the interaction happens in). */
  activeEntitlements(userId: string, guildId: string | null): EntitlementRecord[] {
    const now = Date.now();
    const out: EntitlementRecord[] = [];
    for (const e of this.entitlements.values()) {
      if (e.deleted || e.consumed) continue;
      if (e.endsAt !== null && Date.parse(e.endsAt) <= now) continue;
      if (e.userId === userId || (guildId !== null && e.guildId === guildId)) out.push(e);
    }
    return out;
  }

  // ---- payloads ---------------------------------------------------------------------------------------

  /**
   * GUILD_CREATE `d` as UTF-8 JSON, cached per member-list kind and `large` flag (a Buffer, so that every
   * session sending it shares one encoding of it).
   */
  guildCreatePayload(guild: GuildRecord, kind: MemberListKind, largeThreshold: number): Buffer {
    const count = this.memberCount(guild);
    const large = count > largeThreshold;
    const key = `${kind}:${large ? 1 : 0}`;
    const cached = guild.payloadCache.get(key);
    if (cached !== undefined) return cached;
    const base = JSON.stringify(guildObject(guild));
    const parts: string[] = [];
    // The bot-only list must not materialize a guild's members (1,000 x 1,000 fixtures stay cheap).
    const members = kind === 'bot' && guild.members === null ? [this.fixtureBotMember(guild)] : this.members(guild).values();
    for (const m of members) {
      const include =
        m.userId === this.applicationId || kind === 'all' || (kind === 'large' && (m.roles.length > 0 || m.nick !== null));
      if (include) parts.push(memberJson(m, this.userJsonOf(m)));
    }
    const channels = guild.channels.map((c) => {
      const o = channelObject(c, guild.id);
      delete o.guild_id;
      return o;
    });
    // Active threads only, as GUILD_CREATE lists them (archived ones are fetched with the archived-thread routes).
    const threads = (guild.threads ?? []).filter((t) => t.thread?.archived === false).map((t) => channelObject(t, guild.id));
    const stages = JSON.stringify([...(guild.stageInstances?.values() ?? [])].map(stageInstanceObject));
    const events = JSON.stringify([...(guild.scheduledEvents?.values() ?? [])].map((e) => scheduledEventObject(e, undefined)));
    const json =
      `${base.slice(0, -1)},"joined_at":"${guild.joinedAt}","large":${large},"unavailable":false,` +
      `"member_count":${count},"voice_states":[],"members":[${parts.join(',')}],` +
      `"channels":${JSON.stringify(channels)},"threads":${JSON.stringify(threads)},"presences":[],"stage_instances":${stages},` +
      `"guild_scheduled_events":${events},"soundboard_sounds":[],"lazy":true,"application_command_counts":{}}`;
    const payload = Buffer.from(json);
    guild.payloadCache.set(key, payload);
    return payload;
  }
}
