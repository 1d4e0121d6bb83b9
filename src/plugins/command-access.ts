/**
 * `ctx.canUseCommand(guildId, userId, channelId, command)`: whether a member may use a command in a channel, and
 * why (command permissions v2, src/api/command-access.ts), from the cache. What the cache lacks is read from
 * REST once: a guild's command permission settings (GET .../guilds/{guild.id}/commands/permissions, then kept by
 * APPLICATION_COMMAND_PERMISSIONS_UPDATE events and read again after the guild was unavailable), and the command
 * when it is given by name (the guild's commands, then the global ones). A member the cache does not hold (a
 * GUILD_CREATE lists few members without the GUILD_PRESENCES intent) is read from REST for the answer, not stored:
 * an answer read outside the gateway's order could undo a later leave.
 */
import type { APIApplicationCommand, APIGuildMember } from 'discord-api-types/v10';
import type { CommandAccess } from '../api/command-access.js';
import { commandAccessFromParts, type Cache, type CacheReader, type ChannelView, type CommandRef, type MemberView } from '../cache/index.js';
import { getGlobalCommands, getGuildCommandPermissions, getGuildCommands, type RestRequester } from '../rest/index.js';

export interface CommandAccessDeps {
  /** The runtime's cache: loads need its write side (beginCommandPermissionsLoad); a reader alone answers from what it has. */
  readonly cache: CacheReader;
  readonly rest: RestRequester;
  readonly applicationId: string;
  /** How long a command list read by name stays (default 60 s). */
  readonly commandListTtlMs?: number;
  readonly now?: () => number;
}

/** A command by name (a CHAT_INPUT command first, then the context-menu ones), or as the API object. */
export type CommandQuery = string | CommandRef;

function canLoad(cache: CacheReader): cache is CacheReader & Pick<Cache, 'beginCommandPermissionsLoad'> {
  return typeof (cache as Partial<Cache>).beginCommandPermissionsLoad === 'function';
}

/** Command lists kept before the expired ones are swept (each is re-read after the ttl anyway). */
const MAX_LISTS = 1_024;

export class CommandAccessService {
  /** Loads in flight per guild (one request however many ask at once). */
  private readonly loads = new Map<string, Promise<void>>();
  private readonly lists = new Map<string, { at: number; commands: Promise<APIApplicationCommand[]> }>();
  private readonly ttl: number;
  private readonly now: () => number;

  constructor(private readonly deps: CommandAccessDeps) {
    this.ttl = deps.commandListTtlMs ?? 60_000;
    this.now = deps.now ?? Date.now;
  }

  /**
   * The decision with its reason, or undefined when it cannot be told: the command is unknown, or the cache lacks
   * the guild, its owner or roles, the member, or the channel (and a thread's parent).
   */
  readonly canUseCommand = async (guildId: string, userId: string, channelId: string, command: CommandQuery): Promise<CommandAccess | undefined> => {
    const ref = typeof command === 'string' ? await this.resolve(guildId, command) : command;
    if (ref === undefined) return undefined;
    const cache = this.deps.cache;
    let settings = await cache.getCommandPermissions(guildId);
    if (settings !== undefined && !settings.loaded) {
      await this.load(guildId);
      settings = await cache.getCommandPermissions(guildId);
    }
    const [guild, roles, cached, channel] = await Promise.all([cache.getGuild(guildId), cache.getRoles(guildId), cache.getMember(guildId, userId), cache.getChannel(channelId)]);
    const parent = channel?.thread !== null && channel?.parentId != null ? await cache.getChannel(channel.parentId) : undefined;
    const member = cached ?? (guild?.ownerId === userId ? undefined : await this.fetchMember(guildId, userId));
    return commandAccessFromParts(guildId, userId, channelId, ref, { ownerId: guild?.ownerId, roles, member, channel, parent: parent as ChannelView | undefined }, settings);
  };

  /** A member from REST, as a view (roles, timeout), or undefined when they are not in the guild. */
  private async fetchMember(guildId: string, userId: string): Promise<MemberView | undefined> {
    let m: APIGuildMember;
    try {
      m = await this.deps.rest.request<APIGuildMember>({ method: 'GET', route: '/guilds/{guild_id}/members/{user_id}', params: { guild_id: guildId, user_id: userId } });
    } catch (err) {
      if ((err as { status?: unknown }).status === 404) return undefined;
      throw err;
    }
    const until = typeof m.communication_disabled_until === 'string' ? Date.parse(m.communication_disabled_until) : NaN;
    return {
      guildId,
      userId,
      nick: m.nick ?? null,
      roles: m.roles.filter((r) => r !== guildId),
      joinedAt: null,
      avatar: null,
      banner: null,
      communicationDisabledUntil: Number.isNaN(until) ? null : until,
      flags: m.flags ?? 0,
      pending: m.pending === true,
      user: null,
    };
  }

  private load(guildId: string): Promise<void> {
    const cache = this.deps.cache;
    if (!canLoad(cache)) return Promise.resolve();
    let pending = this.loads.get(guildId);
    if (pending === undefined) {
      const load = cache.beginCommandPermissionsLoad(guildId);
      pending = getGuildCommandPermissions(this.deps.rest, this.deps.applicationId, guildId)
        .then((list) => load.commit(list), (err: unknown) => {
          load.abort();
          throw err;
        })
        .finally(() => this.loads.delete(guildId));
      this.loads.set(guildId, pending);
    }
    return pending;
  }

  private async resolve(guildId: string, name: string): Promise<CommandRef | undefined> {
    for (const scope of [guildId, null]) {
      const commands = await this.list(scope);
      const matching = commands.filter((c) => c.name === name);
      const found = matching.find((c) => (c.type ?? 1) === 1) ?? matching[0];
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private list(guildId: string | null): Promise<APIApplicationCommand[]> {
    const key = guildId ?? '';
    const cached = this.lists.get(key);
    if (cached !== undefined && this.now() - cached.at < this.ttl) return cached.commands;
    const { rest, applicationId } = this.deps;
    const commands = guildId === null ? getGlobalCommands(rest, applicationId) : getGuildCommands(rest, applicationId, guildId);
    const entry = { at: this.now(), commands };
    // One entry per guild asked about: without a sweep, the guilds a bot left would stay for good.
    if (this.lists.size >= MAX_LISTS) for (const [k, e] of this.lists) if (entry.at - e.at >= this.ttl) this.lists.delete(k);
    this.lists.set(key, entry);
    // A failed read is not kept: the next question asks again.
    commands.catch(() => {
      if (this.lists.get(key) === entry) this.lists.delete(key);
    });
    return commands;
  }
}
