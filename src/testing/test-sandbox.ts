/**
 * A sandbox driven as its users drive it: invoke commands, autocomplete, click, select, submit modals, join and
 * leave, grant and end entitlements, edit command permissions; read what the app answered and what it posted;
 * force a 429 or a gateway reconnect. Any client may be the app: the bot of `startBot` (./test-bot.ts), or an
 * unmodified discord.js Client logged in with `token` and `apiBase`.
 */
import type { APIApplicationCommandPermission, APIGuildApplicationCommandPermissions } from 'discord-api-types/v10';
import { createSandbox, type BucketName } from '../sandbox/index.js';
import type { InvokeOptions, Sandbox, SandboxMessageRecord, SandboxOptions } from '../sandbox/contract.js';
import { customIdsOf, hasCustomId } from './messages.js';
import { idOf, type GuildRef, type MessageRef, type TestGuild, type TestMember, type TestRole, type UserRef } from './people.js';
import { Reply, type ActOptions, type ReplyHost, type WaitTime } from './reply.js';
import { waitFor, type ChangeSource } from './wait.js';

/** Default bound of every wait: long enough for a busy CI machine, short enough to fail a test quickly. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface StartSandboxOptions {
  /** Options of the sandbox (seed, gateway and REST limits...). Default seed: 1 guild of 10 members. */
  sandbox?: SandboxOptions;
  /** Bound of every wait of this kit, in ms. Default 10000. */
  timeoutMs?: number;
}

/** An option value of an invocation: users, roles, channels and mentionables by id (or anything with an id). */
export type OptionInput = string | number | boolean | { readonly id: string };

export interface InvokeInput extends WaitTime {
  /** Who invokes: default the guild's owner (an administrator) or, in DMs, user 0 of the seed. */
  user?: UserRef;
  /** Where: default the first guild; null for the bot's DM. */
  guild?: GuildRef | null;
  /** Channel of the guild (default its text channel `general`). */
  channel?: string;
  /** Subcommand path: "set", "config set" or ["config", "set"]. `invoke('config set')` says the same. */
  subcommand?: string | readonly string[];
  /** Option values by name (of the innermost subcommand). */
  options?: Readonly<Record<string, OptionInput>>;
  /** Command type; default: the type of the registered command of that name (1, chat input, if several). */
  type?: 1 | 2 | 3 | 4;
  /** USER commands: the user; MESSAGE commands: the message. */
  target?: UserRef | MessageRef;
  locale?: string;
  /** Installed to the guild (default) or to the user. */
  integration?: 'guild' | 'user';
  /** Size in bytes of each ATTACHMENT option's file (default 1024). */
  attachmentSize?: number;
}

export interface MemberInput extends WaitTime {
  /** Default: a new user `newcomerN`. */
  username?: string;
  /** An existing user joins (another guild, or again after leaving). */
  user?: UserRef;
  /** Roles by id or by name ("Moderator"). */
  roles?: readonly string[];
  nick?: string;
  /** Default: the first guild. */
  guild?: GuildRef;
}

export interface EntitlementInput extends WaitTime {
  /** The owner: a user, or a guild (exactly one). */
  user?: UserRef;
  guild?: GuildRef;
  /** Default: the first SKU (durable). `skuIds` lists them. */
  sku?: string;
  subscription?: boolean;
}

export interface TestEntitlement {
  readonly id: string;
  readonly skuId: string;
  /** The subscription ends (ENTITLEMENT_UPDATE with ends_at). */
  end(options?: { endsAt?: Date } & WaitTime): Promise<void>;
}

export interface PermissionsInput extends WaitTime {
  guild?: GuildRef;
  /** Who edits them (a user with Manage Guild and Manage Roles): default the guild's owner. */
  by?: UserRef;
}

export interface RateLimitInput {
  /** The rate-limit bucket (`DEFAULT_BUCKETS` of the sandbox): "interaction.callback", "webhook" (follow-ups and edits), "messages.create"... */
  bucket: BucketName | (string & Record<never, never>);
  /** retry_after of the 429. Default 500. */
  retryAfterMs?: number;
  /** How many requests get it. Default 1. */
  count?: number;
  scope?: 'user' | 'shared' | 'global';
}

/** A forced 429, armed: how many requests it has answered so far. */
export interface ForcedRateLimit {
  readonly bucket: string;
  readonly count: number;
  /** 429s the sandbox answered on this bucket since it was armed. */
  readonly served: number;
  /** Resolves once `count` requests got their 429. */
  waitServed(options?: WaitTime): Promise<void>;
}

export interface ReconnectInput extends WaitTime {
  shard?: number;
  /** "op7": the server sends RECONNECT; "close": it closes the socket with `code` (default 4000, resumable). */
  via?: 'op7' | 'close';
  code?: number;
}

export interface MessageQuery extends WaitTime {
  channel?: string;
  guild?: GuildRef;
  /** For the error message: what the message should be ("the welcome message"). */
  what?: string;
}

/** A dispatch the test waits for the app to have handled. */
export interface DispatchExpectation {
  readonly done: Promise<void>;
  cancel(): void;
}

interface RestAnswer {
  method: string;
  path: string;
  status: number;
  at: number;
}

const PERMISSIONS_SCOPE = 'applications.commands.permissions.update';
const KEPT_REST_ERRORS = 200;

export class TestSandbox implements ReplyHost {
  readonly timeoutMs: number;
  private readonly restErrors: RestAnswer[] = [];
  private readonly guildCache = new Map<string, TestGuild>();
  private firstGuild: TestGuild | null = null;
  private ownerValue: TestMember | null = null;
  private closed: Promise<void> | null = null;
  /** Listeners this kit put on the sandbox, removed at close. */
  private readonly disposers: Array<() => void> = [];

  /** @internal Use startSandbox() or startBot(). */
  constructor(
    /** The sandbox itself (its whole programmatic surface: state, faults, gateway and REST events...). */
    readonly sandbox: Sandbox,
    timeoutMs: number,
  ) {
    this.timeoutMs = timeoutMs;
    this.listen((r) => {
      if (r.status < 400) return;
      this.restErrors.push({ method: r.method, path: r.path, status: r.status, at: r.at });
      if (this.restErrors.length > KEPT_REST_ERRORS) this.restErrors.shift();
    });
  }

  /** Follow every REST answer of the sandbox until the kit closes. */
  private listen(listener: (r: { method: string; path: string; status: number; bucket: string | null; at: number }) => void): void {
    this.sandbox.restEvents.on('response', listener);
    this.disposers.push(() => this.sandbox.restEvents.off('response', listener));
  }

  /** @internal Read what the kit needs of the first guild (once). */
  async init(): Promise<this> {
    const first = this.sandbox.state.guildIds[0];
    if (first !== undefined) {
      this.firstGuild = await this.guildInfo(first);
      this.ownerValue = await this.member(this.firstGuild.ownerId, first);
    }
    return this;
  }

  // ---- where to connect (for any client) ----------------------------------------------------------------

  /** REST base with the version: http://127.0.0.1:PORT/api/v10. */
  get restUrl(): string {
    return this.sandbox.restUrl;
  }
  /** REST base without the version (what @discordjs/rest takes as `api`): http://127.0.0.1:PORT/api. */
  get apiBase(): string {
    return this.sandbox.restUrl.replace(/\/v\d+$/, '');
  }
  /** What GET /gateway/bot answers (clients find it there themselves). */
  get gatewayUrl(): string {
    return this.sandbox.gatewayUrl;
  }
  /** The bot token (a client logs in with it). */
  get token(): string {
    return this.sandbox.botToken;
  }
  get applicationId(): string {
    return this.sandbox.applicationId;
  }
  get guildIds(): readonly string[] {
    return this.sandbox.state.guildIds;
  }
  get skuIds(): readonly string[] {
    return this.sandbox.state.skuIds;
  }

  // ---- guilds, users, members ---------------------------------------------------------------------------

  /** The first guild. */
  get guild(): TestGuild {
    if (this.firstGuild === null) throw new Error('the sandbox has no guild (seed.guilds is 0)');
    return this.firstGuild;
  }

  /** The owner of the first guild (user 0 of the seed, an administrator): who acts by default. */
  get owner(): TestMember {
    if (this.ownerValue === null) throw new Error('the sandbox has no guild (seed.guilds is 0)');
    return this.ownerValue;
  }

  /** A guild by id, with its roles and channels. */
  async guildInfo(guild: GuildRef): Promise<TestGuild> {
    const id = idOf(guild);
    const known = this.guildCache.get(id);
    if (known !== undefined) return known;
    const body = (await this.rest('GET', `/guilds/${id}`)) as { name: string; owner_id: string; roles: Array<{ id: string; name: string; position: number }> };
    const channelIds = this.sandbox.state.channelIds(id);
    const roles: TestRole[] = this.sandbox.state.roleIds(id).map((roleId) => ({ id: roleId, name: body.roles.find((r) => r.id === roleId)?.name ?? roleId }));
    const info: TestGuild = { id, name: body.name, ownerId: body.owner_id, channelId: channelIds[0]!, channelIds, roles };
    this.guildCache.set(id, info);
    return info;
  }

  /** A role's id by its name (exact, else ignoring case). */
  async roleId(name: string, guild: GuildRef = this.guild): Promise<string> {
    const info = await this.guildInfo(guild);
    const role = info.roles.find((r) => r.name === name) ?? info.roles.find((r) => r.name.toLowerCase() === name.toLowerCase());
    if (role === undefined) throw new Error(`guild ${info.id} has no role named "${name}" (roles: ${info.roles.map((r) => r.name).join(', ')})`);
    return role.id;
  }

  /** A member that exists (seeded or added), as the REST API shows it. */
  async member(user: UserRef, guild: GuildRef = this.guild): Promise<TestMember> {
    const guildId = idOf(guild);
    const m = (await this.rest('GET', `/guilds/${guildId}/members/${idOf(user)}`)) as { user: { id: string; username: string }; roles: string[]; nick?: string | null };
    return { id: m.user.id, username: m.user.username, guildId, roles: m.roles, nick: m.nick ?? null };
  }

  /** The seeded members of a guild (user ids; the bot included). */
  memberIds(guild: GuildRef = this.guild): string[] {
    return this.sandbox.state.memberIds(idOf(guild));
  }

  /**
   * A user joins a guild (GUILD_MEMBER_ADD): a new user named `username`, or an existing one. Settles once the
   * app has handled the event (for a bot of this kit; a bare sandbox settles once it is sent).
   */
  async join(input: MemberInput = {}): Promise<TestMember> {
    const guildId = idOf(input.guild ?? this.guild);
    const roles = await this.roleIds(input.roles ?? [], guildId);
    const id = this.sandbox.state.addMember(guildId, {
      ...(input.user !== undefined ? { id: idOf(input.user) } : {}),
      ...(input.username !== undefined ? { username: input.username } : {}),
      ...(input.nick !== undefined ? { nick: input.nick } : {}),
      roles,
    });
    // Nothing reached the socket yet (no await since addMember): the expectation sees the dispatch.
    const handled = this.expectDispatch(
      'GUILD_MEMBER_ADD',
      (d) => d.guild_id === guildId && (d.user as { id?: unknown } | undefined)?.id === id,
      `GUILD_MEMBER_ADD of user ${id} in guild ${guildId}`,
      input.timeoutMs,
    );
    await handled.done;
    const username = input.username ?? (await this.member(id, guildId)).username;
    return { id, username, guildId, roles, nick: input.nick ?? null };
  }

  /** Change a member's roles (by id or name) or nick (GUILD_MEMBER_UPDATE). */
  async updateMember(member: TestMember | UserRef, patch: { roles?: readonly string[]; nick?: string | null; guild?: GuildRef } & WaitTime): Promise<TestMember> {
    const guildId = idOf(patch.guild ?? (typeof member === 'object' && 'guildId' in member ? member.guildId : this.guild));
    const userId = idOf(member);
    const roles = patch.roles !== undefined ? await this.roleIds(patch.roles, guildId) : undefined;
    this.sandbox.state.updateMember(guildId, userId, { ...(roles !== undefined ? { roles } : {}), ...(patch.nick !== undefined ? { nick: patch.nick } : {}) });
    await this.expectDispatch(
      'GUILD_MEMBER_UPDATE',
      (d) => d.guild_id === guildId && (d.user as { id?: unknown } | undefined)?.id === userId,
      `GUILD_MEMBER_UPDATE of user ${userId} in guild ${guildId}`,
      patch.timeoutMs,
    ).done;
    return this.member(userId, guildId);
  }

  /** A member leaves (GUILD_MEMBER_REMOVE). */
  async leave(member: TestMember | UserRef, options: { guild?: GuildRef } & WaitTime = {}): Promise<void> {
    const guildId = idOf(options.guild ?? (typeof member === 'object' && 'guildId' in member ? member.guildId : this.guild));
    const userId = idOf(member);
    this.sandbox.state.removeMember(guildId, userId);
    await this.expectDispatch(
      'GUILD_MEMBER_REMOVE',
      (d) => d.guild_id === guildId && (d.user as { id?: unknown } | undefined)?.id === userId,
      `GUILD_MEMBER_REMOVE of user ${userId} in guild ${guildId}`,
      options.timeoutMs,
    ).done;
  }

  // ---- interactions -------------------------------------------------------------------------------------

  /**
   * A user invokes a command. Settles with the answer: the initial response and, after a deferral, the edit that
   * replaces the loading message. A refusal of the client (unknown command, missing permission, invalid options)
   * throws the sandbox's error at once.
   */
  async invoke(command: string, input: InvokeInput = {}): Promise<Reply> {
    const options = this.invokeOptions(command, input);
    const record = await this.sandbox.invoke(options);
    const reply = new Reply(record, slashName(options), this);
    return reply.settled(input.timeoutMs ?? this.timeoutMs, 'answer');
  }

  /** A user types in option `focused` of a command; settles with the app's choices (`reply.choices`). */
  async autocomplete(command: string, focused: string, input: InvokeInput = {}): Promise<Reply> {
    const options = this.invokeOptions(command, input);
    const record = await this.sandbox.autocomplete({ ...options, focused });
    const reply = new Reply(record, `autocomplete of ${focused} in ${slashName(options)}`, this);
    return reply.settled(input.timeoutMs ?? this.timeoutMs, 'first');
  }

  /**
   * A user clicks the button `customId` on a message the app sent: a reply of this kit (its response message or
   * a follow-up holding the button), or any message by id (one the app posted to a channel, say).
   */
  click(target: Reply | MessageRef, customId: string, options: ActOptions = {}): Promise<Reply> {
    return this.component(target, customId, undefined, `button '${customId}'`, options);
  }

  /** A user picks `values` in the select menu `customId` (option values, or ids for user/role/channel selects). */
  select(target: Reply | MessageRef, customId: string, values: readonly string[], options: ActOptions = {}): Promise<Reply> {
    return this.component(target, customId, values, `select '${customId}' [${values.join(', ')}]`, options);
  }

  /** A user submits the modal a reply opened (or the interaction with that id answered with). */
  async submitModal(target: Reply | string, values: Readonly<Record<string, string | readonly string[]>>, options: Omit<ActOptions, 'user'> = {}): Promise<Reply> {
    if (target instanceof Reply && target.modal === null) {
      throw new Error(`${target.what} was not answered with a modal (callback type ${target.type ?? 'none yet'})`);
    }
    const interactionId = typeof target === 'string' ? target : target.interactionId;
    const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (const [k, v] of Object.entries(values)) fields[k] = typeof v === 'string' ? v : [...v];
    const record = await this.sandbox.submitModal({ interactionId, values: fields, ...(options.locale !== undefined ? { locale: options.locale } : {}) });
    const modalId = target instanceof Reply ? target.modal?.custom_id : undefined;
    const reply = new Reply(record, `modal${modalId !== undefined ? ` '${modalId}'` : ''} submitted`, this);
    return reply.settled(options.timeoutMs ?? this.timeoutMs, 'answer');
  }

  private async component(target: Reply | MessageRef, customId: string, values: readonly string[] | undefined, what: string, options: ActOptions): Promise<Reply> {
    const messageId = target instanceof Reply ? messageWith(target, customId) : idOf(target);
    const record = await this.sandbox.component({
      messageId,
      customId,
      ...(values !== undefined ? { values: [...values] } : {}),
      ...(options.user !== undefined ? { userId: idOf(options.user) } : {}),
      ...(options.locale !== undefined ? { locale: options.locale } : {}),
    });
    const reply = new Reply(record, what, this);
    return reply.settled(options.timeoutMs ?? this.timeoutMs, 'answer');
  }

  // ---- monetization and permissions ---------------------------------------------------------------------

  /** A user or guild gets an entitlement (ENTITLEMENT_CREATE). */
  async grantEntitlement(input: EntitlementInput): Promise<TestEntitlement> {
    if ((input.user === undefined) === (input.guild === undefined)) throw new Error('grantEntitlement: name exactly one owner, `user` or `guild`');
    const skuId = input.sku ?? this.skuIds[0];
    if (skuId === undefined) throw new Error('grantEntitlement: the sandbox has no SKU (seed.skus is 0)');
    const id = this.sandbox.state.grantEntitlement({
      skuId,
      ...(input.user !== undefined ? { userId: idOf(input.user) } : {}),
      ...(input.guild !== undefined ? { guildId: idOf(input.guild) } : {}),
      ...(input.subscription !== undefined ? { subscription: input.subscription } : {}),
    });
    await this.expectDispatch('ENTITLEMENT_CREATE', (d) => d.id === id, `ENTITLEMENT_CREATE of entitlement ${id}`, input.timeoutMs).done;
    return {
      id,
      skuId,
      end: (options = {}) => this.endEntitlement(id, options),
    };
  }

  /** The subscription behind an entitlement ends: ends_at is set (ENTITLEMENT_UPDATE). */
  async endEntitlement(entitlement: { readonly id: string } | string, options: { endsAt?: Date } & WaitTime = {}): Promise<void> {
    const id = idOf(entitlement);
    this.sandbox.state.endEntitlement(id, options.endsAt);
    await this.expectDispatch('ENTITLEMENT_UPDATE', (d) => d.id === id, `ENTITLEMENT_UPDATE of entitlement ${id}`, options.timeoutMs).done;
  }

  /**
   * A guild manager replaces the permissions of a command (by name; null: the application-wide entry), as the
   * client's integration settings do: PUT .../commands/{id}/permissions with their bearer token, then
   * APPLICATION_COMMAND_PERMISSIONS_UPDATE. `commandPermission` builds the entries.
   */
  async setCommandPermissions(
    command: string | null,
    permissions: readonly APIApplicationCommandPermission[],
    input: PermissionsInput = {},
  ): Promise<APIGuildApplicationCommandPermissions> {
    const guild = await this.guildInfo(input.guild ?? this.guild);
    const commandId = command === null ? this.applicationId : this.commandId(command, guild.id);
    const token = this.sandbox.issueBearerToken([PERMISSIONS_SCOPE], idOf(input.by ?? guild.ownerId));
    const handled = this.expectDispatch(
      'APPLICATION_COMMAND_PERMISSIONS_UPDATE',
      (d) => d.id === commandId && d.guild_id === guild.id,
      `APPLICATION_COMMAND_PERMISSIONS_UPDATE of ${command === null ? 'the application' : `command ${command}`} in guild ${guild.id}`,
      input.timeoutMs,
    );
    try {
      const body = await this.rest('PUT', `/applications/${this.applicationId}/guilds/${guild.id}/commands/${commandId}/permissions`, { permissions }, `Bearer ${token}`);
      await handled.done;
      return body as APIGuildApplicationCommandPermissions;
    } catch (err) {
      handled.cancel();
      throw err;
    }
  }

  /** Commands registered in a scope (no guild: global), as the sandbox keeps them. */
  commands(guild?: GuildRef): Array<Record<string, unknown>> {
    return this.sandbox.state.commands(guild === undefined ? undefined : idOf(guild));
  }

  // ---- what the app posted ------------------------------------------------------------------------------

  /** Messages the app posted to channels and DMs (POST /channels/{id}/messages), oldest first, as they are now. */
  messages(filter: { channel?: string; guild?: GuildRef } = {}): SandboxMessageRecord[] {
    return this.sandbox.messages({
      ...(filter.channel !== undefined ? { channelId: filter.channel } : {}),
      ...(filter.guild !== undefined ? { guildId: idOf(filter.guild) } : {}),
    });
  }

  /** The first message the app posted (before or after this call) that `match` accepts, once there is one. */
  waitForMessage(match: (m: SandboxMessageRecord) => boolean = () => true, query: MessageQuery = {}): Promise<SandboxMessageRecord> {
    const where = query.channel !== undefined ? ` in channel ${query.channel}` : query.guild !== undefined ? ` in guild ${idOf(query.guild)}` : '';
    return waitFor(() => this.messages(query).find((m) => m.deletedAt === null && match(m)), {
      what: `${query.what ?? 'a message from the app'}${where}`,
      timeoutMs: query.timeoutMs ?? this.timeoutMs,
      sources: [this.restChanges],
      detail: () => {
        const seen = this.messages(query).slice(-5).map((m) => `  ${m.channelId}: ${JSON.stringify(m.message.content ?? '')}`);
        return seen.length === 0 ? '  the app posted no message there' : `  newest messages there:\n${seen.join('\n')}`;
      },
    });
  }

  // ---- faults -------------------------------------------------------------------------------------------

  /** The next `count` requests of a bucket are answered 429 with `retryAfterMs`. */
  rateLimit(input: RateLimitInput): ForcedRateLimit {
    const count = input.count ?? 1;
    let served = 0;
    const bucket = input.bucket;
    this.listen((r) => {
      if (r.status === 429 && r.bucket === bucket) served++;
    });
    this.sandbox.restFaults.rateLimit({ bucket, retryAfterMs: input.retryAfterMs ?? 500, count, ...(input.scope !== undefined ? { scope: input.scope } : {}) });
    return {
      bucket,
      count,
      get served() {
        return served;
      },
      waitServed: (options = {}) =>
        waitFor(() => (served >= count ? true : undefined), {
          what: `${count} forced 429(s) on bucket ${bucket} to be served`,
          timeoutMs: options.timeoutMs ?? this.timeoutMs,
          sources: [this.restChanges],
          detail: () => `  served so far: ${served}`,
        }).then(() => undefined),
    };
  }

  /**
   * The gateway asks the client to reconnect (op 7) or drops its socket resumably; settles once the shard is back
   * (resumed, or identified afresh: `resumed` says which) and, for a bot of this kit, ready again.
   */
  async reconnect(input: ReconnectInput = {}): Promise<{ resumed: boolean }> {
    const shard = input.shard ?? 0;
    const timeoutMs = input.timeoutMs ?? this.timeoutMs;
    const events = this.sandbox.gatewayEvents;
    let back: 'resumed' | 'identified' | null = null;
    const onResume = (e: { shard: [number, number] }): void => {
      if (e.shard[0] === shard) back ??= 'resumed';
    };
    const onIdentify = (e: { shard: [number, number] }): void => {
      if (e.shard[0] === shard) back ??= 'identified';
    };
    events.on('resume', onResume);
    events.on('identify', onIdentify);
    try {
      if ((input.via ?? 'op7') === 'op7') this.sandbox.faults.reconnect(shard);
      else this.sandbox.faults.close(shard, input.code ?? 4000);
      await waitFor(() => back ?? undefined, {
        what: `shard ${shard} to reconnect after ${input.via === 'close' ? `a close with ${input.code ?? 4000}` : 'op 7 RECONNECT'}`,
        timeoutMs,
        sources: [(l) => (events.on('resume', l), () => events.off('resume', l)), (l) => (events.on('identify', l), () => events.off('identify', l))],
      });
    } finally {
      events.off('resume', onResume);
      events.off('identify', onIdentify);
    }
    await this.afterReconnect(shard, timeoutMs);
    return { resumed: back === 'resumed' };
  }

  // ---- closing ------------------------------------------------------------------------------------------

  /** Close everything this kit started. Safe to call more than once. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      for (const dispose of this.disposers.splice(0)) dispose();
      await this.closeParts();
    })();
    return this.closed;
  }

  protected async closeParts(): Promise<void> {
    await this.sandbox.close();
  }

  // ---- for subclasses and replies -----------------------------------------------------------------------

  /**
   * A dispatch the app must handle before an action settles. A bare sandbox cannot know when its client handled
   * an event: the action settles once the event is sent. The bot of `startBot` overrides this.
   */
  protected expectDispatch(_event: string, _match: (d: Record<string, unknown>) => boolean, _what: string, _timeoutMs: number | undefined): DispatchExpectation {
    return { done: Promise.resolve(), cancel: () => undefined };
  }

  /** After a reconnect: the bot waits for its readiness. */
  protected async afterReconnect(_shard: number, _timeoutMs: number): Promise<void> {}

  /** Refused REST calls since the user acted, for timeout errors (the bot adds its error lines). */
  diagnose(reply: Reply): string {
    const refused = this.restErrors.filter((r) => r.at >= reply.at && (r.path.includes(`/${reply.interactionId}/`) || r.path.includes('/webhooks/') || r.path.includes('/channels/')));
    if (refused.length === 0) return '';
    return `refused REST calls meanwhile: ${refused.slice(-5).map((r) => `${r.method} ${r.path} -> ${r.status}`).join('; ')}`;
  }

  /** Every REST answer of the sandbox (what the app did). */
  protected readonly restChanges: ChangeSource = (listener) => {
    const l = (): void => listener();
    this.sandbox.restEvents.on('response', l);
    return () => {
      this.sandbox.restEvents.off('response', l);
    };
  };

  // ---- helpers ------------------------------------------------------------------------------------------

  /** An authenticated request to the sandbox's REST API (the bot's token unless another is given). */
  protected async rest(method: string, path: string, body?: unknown, authorization = `Bot ${this.token}`): Promise<unknown> {
    const res = await fetch(`${this.restUrl}${path}`, {
      method,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    if (!res.ok) {
      const message = (parsed as { message?: unknown } | null)?.message;
      throw new Error(`${method} ${path} answered ${res.status}${typeof message === 'string' ? `: ${message}` : ''}`);
    }
    return parsed;
  }

  private async roleIds(roles: readonly string[], guildId: string): Promise<string[]> {
    const info = await this.guildInfo(guildId);
    const out: string[] = [];
    for (const r of roles) out.push(info.roles.some((x) => x.id === r) ? r : await this.roleId(r, guildId));
    return out;
  }

  /** The id of the command a user would pick by that name in the guild (a guild command shadows a global one). */
  private commandId(name: string, guildId: string): string {
    const found = this.commands(guildId).find((c) => c.name === name) ?? this.commands().find((c) => c.name === name);
    if (found === undefined) {
      const names = [...this.commands(guildId), ...this.commands()].map((c) => String(c.name));
      throw new Error(`no command named "${name}" is registered in guild ${guildId} or globally (registered: ${names.join(', ') || 'none'})`);
    }
    return String(found.id);
  }

  private invokeOptions(command: string, input: InvokeInput): InvokeOptions {
    const guildId = input.guild === null ? undefined : idOf(input.guild ?? this.guild);
    const scoped = (guildId !== undefined ? this.commands(guildId) : []).concat(this.commands());
    let name = command.trim();
    let subcommand = typeof input.subcommand === 'string' ? input.subcommand.split(/\s+/).filter((s) => s !== '') : input.subcommand !== undefined ? [...input.subcommand] : [];
    // "config set" names a subcommand, unless a command has that name (context-menu names may hold spaces).
    if (name.includes(' ') && !scoped.some((c) => c.name === name)) {
      const [first, ...rest] = name.split(/\s+/);
      name = first!;
      subcommand = [...rest, ...subcommand];
    }
    const registered = scoped.filter((c) => c.name === name).map((c) => (typeof c.type === 'number' ? c.type : 1));
    const type = input.type ?? (registered.length === 1 ? (registered[0] as 1 | 2 | 3 | 4) : undefined);
    const options: InvokeOptions = { name };
    if (type !== undefined) options.type = type;
    if (guildId !== undefined) options.guildId = guildId;
    if (input.user !== undefined) options.userId = idOf(input.user);
    if (input.channel !== undefined) options.channelId = input.channel;
    if (subcommand.length > 0) options.subcommand = subcommand;
    if (input.options !== undefined) {
      const values: Record<string, string | number | boolean> = Object.create(null) as Record<string, string | number | boolean>;
      for (const [k, v] of Object.entries(input.options)) values[k] = typeof v === 'object' ? v.id : v;
      options.options = values;
    }
    if (input.target !== undefined) options.targetId = idOf(input.target);
    if (input.locale !== undefined) options.locale = input.locale;
    if (input.integration !== undefined) options.integration = input.integration;
    if (input.attachmentSize !== undefined) options.attachmentSize = input.attachmentSize;
    return options;
  }
}

/** "/dice roll" for messages. */
function slashName(options: InvokeOptions): string {
  const path = [options.name, ...(options.subcommand ?? [])].join(' ');
  return options.type === undefined || options.type === 1 ? `/${path}` : `"${path}"`;
}

/** The message of a reply holding a component: its response message, else the newest follow-up with it. */
function messageWith(reply: Reply, customId: string): string {
  const original = reply.record.original;
  if (original !== null && hasCustomId(original, customId)) return String(original.id);
  const followups = reply.record.followups;
  for (let i = followups.length - 1; i >= 0; i--) if (hasCustomId(followups[i], customId)) return String(followups[i]!.id);
  const present = [original, ...followups].flatMap((m) => customIdsOf(m));
  throw new Error(`no message of ${reply.what} has a component with custom_id '${customId}' (custom_ids there: ${present.join(', ') || 'none'})`);
}

/** Start a sandbox on loopback for any client (an unmodified discord.js Client, say) and drive it as its users. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await createSandbox(sandboxDefaults(options.sandbox));
  try {
    return await new TestSandbox(sandbox, options.timeoutMs ?? DEFAULT_TIMEOUT_MS).init();
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}

/** The kit's sandbox defaults: one guild of 10 members, quick identify spacing; the test's options win. */
export function sandboxDefaults(options: SandboxOptions = {}): SandboxOptions {
  return {
    ...options,
    seed: { guilds: 1, membersPerGuild: 10, ...options.seed },
    gateway: { identifyWindowMs: 100, ...options.gateway },
  };
}
