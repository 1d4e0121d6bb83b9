/**
 * `gatehouse commands access COMMAND --guild G --user U [--channel C]`: can this member use this command here, and
 * why not? It reads what the answer depends on over REST, as the bot sees it (the guild with its owner and roles,
 * the member, the channel and a thread's parent, the command, the guild's command permission settings), and
 * applies command permissions v2 (src/api/command-access.ts) over the permissions the member has there
 * (src/api/permissions.ts). Against the configured service (DISCORD_TOKEN, DISCORD_API_URL), or without a token
 * the running sandbox of this checkout (or `--url`). Exit 0 allowed, 1 denied, 2 when it cannot tell (an unknown
 * command, guild, member or channel; bad usage).
 */
import type { APIApplicationCommand, APIChannel, APIGuild, APIGuildMember, RESTGetAPIGuildApplicationCommandsPermissionsResult } from 'discord-api-types/v10';
import { evaluateCommandAccess, type CommandAccess, type CommandPermissionEntry } from '../api/command-access.js';
import { computePermissions, isThreadType, parsePermissions, permissionNames, type PermissionOverwrite } from '../api/permissions.js';
import { isSnowflake } from '../api/snowflake.js';
import { ApiError, getGlobalCommands, getGuildCommandPermissions, getGuildCommands, RestClient } from '../rest/index.js';
import { parseVerb, str, type Values, type VerbSpec } from './args.js';
import { loadConfigFor } from './config.js';
import type { CliIo } from './io.js';
import { admin, findSandbox, TARGET_OPTIONS } from './sandbox-client.js';

export const ACCESS: VerbSpec = {
  verb: 'commands access',
  args: 'COMMAND',
  summary:
    'Can a member use a command (its name, or its id) in a channel, and why not? Reads the guild, member, channel, command and command permission settings over REST and applies command permissions v2. Exit 0 allowed, 1 denied, 2 cannot tell.',
  positionals: { min: 1, max: 1 },
  options: {
    guild: { type: 'string', value: 'ID', id: true, help: 'the guild' },
    user: { type: 'string', value: 'ID', id: true, help: 'the member' },
    channel: { type: 'string', value: 'ID', id: true, help: 'the channel or thread (default: none, so only All Channels settings and guild-wide permissions count)' },
    ...TARGET_OPTIONS,
  },
  notes: [
    'Without DISCORD_TOKEN it asks the running sandbox of this checkout (npm start, gatehouse sandbox), or the one at --url.',
    'example: gatehouse commands access ban --guild 123 --user 456 --channel 789',
  ],
};

interface Target {
  rest: RestClient;
  applicationId: string;
  /** What was asked, for the first line. */
  where: string;
}

class CannotTell extends Error {}

async function target(values: Values, io: CliIo): Promise<Target | null> {
  const url = str(values, 'url');
  if (url === undefined) {
    const config = loadConfigFor('commands access', io);
    if (config === null) return null;
    if (config.token !== undefined) {
      const rest = new RestClient({ baseUrl: config.apiUrl, token: config.token, retries: 1 });
      const app = await rest.request<{ id: string }>({ method: 'GET', route: '/applications/@me' });
      return { rest, applicationId: app.id, where: `${config.apiUrl} (DISCORD_TOKEN)` };
    }
  }
  const sandbox = findSandbox(values, io, 'commands access');
  if (sandbox === null) return null;
  const info = await admin<{ restUrl: string; botToken: string; applicationId: string }>(sandbox, 'GET', '');
  return { rest: new RestClient({ baseUrl: info.restUrl, token: info.botToken, retries: 1 }), applicationId: info.applicationId, where: sandbox.description };
}

/** A REST read that may answer 404: undefined then (unknown guild, member, channel). */
async function maybe<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

function overwritesOf(channel: APIChannel): PermissionOverwrite[] {
  const list = (channel as { permission_overwrites?: Array<{ id: string; type: number; allow: string; deny: string }> }).permission_overwrites ?? [];
  return list.map((o) => ({ id: o.id, type: o.type, allow: parsePermissions(o.allow), deny: parsePermissions(o.deny) }));
}

export async function access(
  rest: RestClient,
  applicationId: string,
  query: { command: string; guildId: string; userId: string; channelId?: string },
): Promise<{ result: CommandAccess; command: APIApplicationCommand; permissions: bigint }> {
  const { guildId, userId, channelId } = query;
  const guild = await maybe(rest.request<APIGuild>({ method: 'GET', route: '/guilds/{guild_id}', params: { guild_id: guildId } }));
  if (guild === undefined) throw new CannotTell(`guild ${guildId} is unknown (or the bot is not in it)`);
  const member = guild.owner_id === userId ? undefined : await maybe(rest.request<APIGuildMember>({ method: 'GET', route: '/guilds/{guild_id}/members/{user_id}', params: { guild_id: guildId, user_id: userId } }));
  if (member === undefined && guild.owner_id !== userId) throw new CannotTell(`user ${userId} is not a member of guild ${guildId}`);
  let channel: APIChannel | undefined;
  let source: APIChannel | undefined;
  if (channelId !== undefined) {
    channel = await maybe(rest.request<APIChannel>({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: channelId } }));
    if (channel === undefined || (channel as { guild_id?: string }).guild_id !== guildId) throw new CannotTell(`channel ${channelId} is not a channel of guild ${guildId}`);
    source = channel;
    const parentId = (channel as { parent_id?: string | null }).parent_id;
    if (isThreadType(channel.type)) {
      source = typeof parentId === 'string' ? await maybe(rest.request<APIChannel>({ method: 'GET', route: '/channels/{channel_id}', params: { channel_id: parentId } })) : undefined;
      if (source === undefined) throw new CannotTell(`the parent channel of thread ${channelId} is unknown`);
    }
  }
  const [guildCommands, globalCommands] = await Promise.all([getGuildCommands(rest, applicationId, guildId), getGlobalCommands(rest, applicationId)]);
  const byId = isSnowflake(query.command);
  const pick = (list: APIApplicationCommand[]): APIApplicationCommand | undefined => {
    const matching = list.filter((c) => (byId ? c.id === query.command : c.name === query.command));
    return matching.find((c) => (c.type ?? 1) === 1) ?? matching[0];
  };
  const command = pick(guildCommands) ?? pick(globalCommands);
  if (command === undefined) throw new CannotTell(`no command ${byId ? 'with id' : 'named'} ${query.command} in guild ${guildId} or global`);
  const settings: RESTGetAPIGuildApplicationCommandsPermissionsResult = await getGuildCommandPermissions(rest, applicationId, guildId);
  const entries = (id: string): CommandPermissionEntry[] | undefined => settings.find((s) => s.id === id)?.permissions;
  const everyone = guild.roles.find((r) => r.id === guildId);
  const roleIds = member?.roles.filter((r) => r !== guildId) ?? [];
  const byRole = new Map(guild.roles.map((r) => [r.id, parsePermissions(r.permissions)]));
  const until = member?.communication_disabled_until;
  const permissions = computePermissions(
    {
      guildId,
      ownerId: guild.owner_id,
      userId,
      everyone: parsePermissions(everyone?.permissions),
      rolePermissions: roleIds.map((r) => byRole.get(r) ?? 0n),
      roleIds,
      timedOutUntil: typeof until === 'string' ? Date.parse(until) : null,
    },
    source === undefined || channel === undefined ? undefined : { overwrites: overwritesOf(source), thread: isThreadType(channel.type) },
  );
  const result = evaluateCommandAccess({
    guildId,
    applicationId,
    userId,
    roleIds,
    // No channel asked: no channel's own setting can match (only All Channels).
    channelId: channelId ?? '',
    parentId: channel !== undefined && isThreadType(channel.type) ? ((channel as { parent_id?: string | null }).parent_id ?? null) : null,
    permissions,
    owner: guild.owner_id === userId,
    command,
    commandPermissions: entries(command.id),
    applicationPermissions: entries(applicationId),
  });
  return { result, command, permissions };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(ACCESS, args, io);
  if (typeof parsed === 'number') return parsed;
  const guildId = str(parsed.values, 'guild');
  const userId = str(parsed.values, 'user');
  const channelId = str(parsed.values, 'channel');
  if (guildId === undefined || userId === undefined) {
    io.err('gatehouse commands access: --guild and --user are required');
    return 2;
  }
  let t: Target | null;
  try {
    t = await target(parsed.values, io);
  } catch (err) {
    io.err(`gatehouse commands access: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  if (t === null) return 2;
  try {
    const { result, command, permissions } = await access(t.rest, t.applicationId, { command: parsed.positionals[0]!, guildId, userId, ...(channelId !== undefined ? { channelId } : {}) });
    io.out(result.message);
    io.out(`  command /${command.name} (${command.id}${command.guild_id !== undefined ? `, guild command` : ', global'}), default_member_permissions ${command.default_member_permissions === null || command.default_member_permissions === undefined ? 'none' : JSON.stringify(command.default_member_permissions)}`);
    const names = permissionNames(permissions);
    io.out(`  user ${userId} ${channelId !== undefined ? `in channel ${channelId}` : 'guild-wide (no channel given)'}: ${names.length > 20 ? `${names.length} permissions` : names.join(', ') || 'no permissions'}`);
    io.out(`  read from ${t.where}`);
    return result.allowed ? 0 : 1;
  } catch (err) {
    io.err(`gatehouse commands access: ${err instanceof CannotTell ? 'cannot tell: ' : ''}${err instanceof Error ? err.message : String(err)}`);
    return 2;
  } finally {
    t.rest.close();
  }
}
