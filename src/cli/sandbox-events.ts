/**
 * Events a plugin can receive, made to happen in a running sandbox: members joining, changing and leaving,
 * entitlements granted and ended, command permissions updated. Each prints which sandbox it used, what it
 * did, and the REST requests the bot made in answer (a welcome message, a role change, ...).
 */
import type { CliIo } from './io.js';
import { int, list, parseVerb, str, UsageError, type Values, type VerbSpec } from './args.js';
import { cli } from './hint.js';
import { admin, AdminError, botRequestsAfter, findSandbox, journalMark, TARGET_OPTIONS, type SandboxTarget } from './sandbox-client.js';
import { describeRequests } from './sandbox-describe.js';
import { isSnowflake } from '../api/snowflake.js';

const GUILD = { type: 'string', value: 'ID', id: true, help: 'the guild (default: the first seeded guild)' } as const;
const WAIT = { type: 'string', value: 'MS', help: 'how long to watch for the bot\'s answer (default 3000)' } as const;

export const MEMBER_JOIN: VerbSpec = {
  verb: 'sandbox member join',
  summary: 'A new member joins a guild (GUILD_MEMBER_ADD).',
  options: {
    guild: GUILD,
    id: { type: 'string', value: 'ID', id: true, help: 'the user id (default: a new user)' },
    username: { type: 'string', value: 'NAME', help: 'the new user\'s name' },
    nick: { type: 'string', value: 'NICK', help: 'a nickname' },
    role: { type: 'string', value: 'ID', id: true, multiple: true, help: 'a role to have' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
  notes: [`example: ${cli('sandbox member join --username ada')}`],
};

export const MEMBER_UPDATE: VerbSpec = {
  verb: 'sandbox member update',
  args: 'USER_ID',
  summary: 'A member\'s nickname or roles change (GUILD_MEMBER_UPDATE).',
  positionals: { min: 1, max: 1, ids: true },
  options: {
    guild: GUILD,
    nick: { type: 'string', value: 'NICK', help: 'the new nickname' },
    'clear-nick': { type: 'boolean', help: 'remove the nickname' },
    role: { type: 'string', value: 'ID', id: true, multiple: true, help: 'the roles to have from now on' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
};

export const MEMBER_LEAVE: VerbSpec = {
  verb: 'sandbox member leave',
  args: 'USER_ID',
  summary: 'A member leaves a guild (GUILD_MEMBER_REMOVE).',
  positionals: { min: 1, max: 1, ids: true },
  options: { guild: GUILD, wait: WAIT, ...TARGET_OPTIONS },
};

export const ENTITLEMENT_GRANT: VerbSpec = {
  verb: 'sandbox entitlement grant',
  summary: 'A user (or a guild) gets an entitlement to a SKU (ENTITLEMENT_CREATE).',
  options: {
    sku: { type: 'string', value: 'ID', id: true, help: 'the SKU (default: the first subscription SKU)' },
    user: { type: 'string', value: 'ID', id: true, help: 'the user it belongs to (default: the first guild\'s owner)' },
    guild: { type: 'string', value: 'ID', id: true, help: 'a guild it belongs to instead of a user' },
    subscription: { type: 'boolean', help: 'created by a subscription' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
};

export const ENTITLEMENT_END: VerbSpec = {
  verb: 'sandbox entitlement end',
  args: 'ENTITLEMENT_ID',
  summary: 'A subscription entitlement ends: ends_at is set (ENTITLEMENT_UPDATE).',
  positionals: { min: 1, max: 1, ids: true },
  options: { at: { type: 'string', value: 'ISO_DATE', help: 'when it ends (default: now)' }, wait: WAIT, ...TARGET_OPTIONS },
};

export const PERMISSIONS: VerbSpec = {
  verb: 'sandbox permissions',
  args: 'COMMAND',
  summary:
    'Set a command\'s permission overwrites in a guild as an admin would (APPLICATION_COMMAND_PERMISSIONS_UPDATE). Overwrites are ID:allow or ID:deny.',
  positionals: { min: 1, max: 1 },
  options: {
    guild: GUILD,
    role: { type: 'string', value: 'ID:allow|deny', multiple: true, help: 'a role overwrite' },
    user: { type: 'string', value: 'ID:allow|deny', multiple: true, help: 'a user overwrite' },
    channel: { type: 'string', value: 'ID:allow|deny', multiple: true, help: 'a channel overwrite' },
    type: { type: 'string', value: '1|2|3', help: 'the command type when names repeat (default: the slash command)' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
  notes: [`example: ${cli('sandbox permissions dice --role 123456789012345678:deny')}`],
};

/** Do something to the sandbox, then print what the bot did about it. */
async function act(spec: VerbSpec, args: string[], io: CliIo, action: (values: Values, positionals: string[], target: SandboxTarget) => Promise<string>): Promise<number> {
  const parsed = parseVerb(spec, args, io);
  if (typeof parsed === 'number') return parsed;
  try {
    const wait = int(parsed.values, 'wait', 1, 60_000) ?? 3_000;
    const target = findSandbox(parsed.values, io, spec.verb);
    if (target === null) return 1;
    io.out(target.description);
    try {
      const mark = await journalMark(target);
      io.out(await action(parsed.values, parsed.positionals, target));
      for (const line of describeRequests(await botRequestsAfter(target, mark, wait))) io.out(line);
      return 0;
    } catch (err) {
      if (err instanceof AdminError) io.err(`gatehouse ${spec.verb}: ${err.message}`);
      else if (err instanceof UsageError) throw err;
      else io.err(`gatehouse ${spec.verb}: cannot reach the sandbox at ${target.adminUrl} (${err instanceof Error ? err.message : String(err)})`);
      return 1;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse ${spec.verb}: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

async function guildOf(values: Values, target: SandboxTarget): Promise<string> {
  const given = str(values, 'guild');
  if (given !== undefined) return given;
  const first = (await admin<Array<{ id: string }>>(target, 'GET', '/guilds'))[0];
  if (first === undefined) throw new AdminError(404, 'the sandbox has no guild');
  return first.id;
}

export function memberJoin(args: string[], io: CliIo): Promise<number> {
  return act(MEMBER_JOIN, args, io, async (values, _positionals, target) => {
    const guildId = await guildOf(values, target);
    const body: Record<string, unknown> = {};
    for (const key of ['id', 'username', 'nick'] as const) {
      const v = str(values, key);
      if (v !== undefined) body[key] = v;
    }
    const roles = list(values, 'role');
    if (roles.length > 0) body.roles = roles;
    const { id } = await admin<{ id: string }>(target, 'POST', `/guilds/${guildId}/members`, body);
    return `GUILD_MEMBER_ADD: user ${id} joined guild ${guildId}`;
  });
}

export function memberUpdate(args: string[], io: CliIo): Promise<number> {
  return act(MEMBER_UPDATE, args, io, async (values, [userId], target) => {
    const guildId = await guildOf(values, target);
    const body: Record<string, unknown> = {};
    const nick = str(values, 'nick');
    if (values['clear-nick'] === true) body.nick = null;
    else if (nick !== undefined) body.nick = nick;
    const roles = list(values, 'role');
    if (roles.length > 0) body.roles = roles;
    if (Object.keys(body).length === 0) throw new UsageError('say what changes: --nick, --clear-nick or --role');
    await admin(target, 'PATCH', `/guilds/${guildId}/members/${encodeURIComponent(userId!)}`, body);
    return `GUILD_MEMBER_UPDATE: member ${userId!} of guild ${guildId} changed (${Object.keys(body).join(', ')})`;
  });
}

export function memberLeave(args: string[], io: CliIo): Promise<number> {
  return act(MEMBER_LEAVE, args, io, async (values, [userId], target) => {
    const guildId = await guildOf(values, target);
    await admin(target, 'DELETE', `/guilds/${guildId}/members/${encodeURIComponent(userId!)}`);
    return `GUILD_MEMBER_REMOVE: user ${userId!} left guild ${guildId}`;
  });
}

export function entitlementGrant(args: string[], io: CliIo): Promise<number> {
  return act(ENTITLEMENT_GRANT, args, io, async (values, _positionals, target) => {
    let skuId = str(values, 'sku');
    if (skuId === undefined) {
      const skus = await admin<Array<{ id: string; type: number }>>(target, 'GET', '/skus');
      skuId = (skus.find((s) => s.type === 5) ?? skus[0])?.id;
      if (skuId === undefined) throw new AdminError(404, 'the sandbox has no SKU');
    }
    const body: Record<string, unknown> = { skuId };
    const guildId = str(values, 'guild');
    if (guildId !== undefined) body.guildId = guildId;
    else {
      let userId = str(values, 'user');
      if (userId === undefined) {
        const guild = await guildOf({}, target);
        const info = await admin<{ applicationId: string }>(target, 'GET', '');
        userId = (await admin<string[]>(target, 'GET', `/guilds/${guild}/members`)).find((id) => id !== info.applicationId);
      }
      body.userId = userId;
    }
    if (values.subscription === true) body.subscription = true;
    const { id } = await admin<{ id: string }>(target, 'POST', '/entitlements', body);
    return `ENTITLEMENT_CREATE: entitlement ${id} to SKU ${skuId} for ${guildId !== undefined ? `guild ${guildId}` : `user ${String(body.userId)}`}`;
  });
}

export function entitlementEnd(args: string[], io: CliIo): Promise<number> {
  return act(ENTITLEMENT_END, args, io, async (values, [id], target) => {
    const at = str(values, 'at');
    if (at !== undefined && Number.isNaN(new Date(at).getTime())) throw new UsageError(`--at must be an ISO 8601 date; got ${at}`);
    await admin(target, 'POST', `/entitlements/${encodeURIComponent(id!)}/end`, at !== undefined ? { endsAt: at } : {});
    return `ENTITLEMENT_UPDATE: entitlement ${id!} ends ${at ?? 'now'}`;
  });
}

function overwrites(values: Values, flag: 'role' | 'user' | 'channel', type: number): Array<{ id: string; type: number; permission: boolean }> {
  return list(values, flag).map((spec) => {
    const colon = spec.lastIndexOf(':');
    const id = spec.slice(0, colon);
    const verdict = spec.slice(colon + 1);
    if (colon === -1 || !isSnowflake(id) || (verdict !== 'allow' && verdict !== 'deny')) throw new UsageError(`--${flag} takes ID:allow or ID:deny; got ${spec}`);
    return { id, type, permission: verdict === 'allow' };
  });
}

export function permissions(args: string[], io: CliIo): Promise<number> {
  return act(PERMISSIONS, args, io, async (values, [name], target) => {
    const guildId = await guildOf(values, target);
    const list = [...overwrites(values, 'role', 1), ...overwrites(values, 'user', 2), ...overwrites(values, 'channel', 3)];
    const type = int(values, 'type', 1, 3);
    const matches = (c: { name: string; type?: number }): boolean => c.name === name && (type === undefined ? (c.type ?? 1) === 1 : (c.type ?? 1) === type);
    const guildCommands = await admin<Array<{ id: string; name: string; type?: number }>>(target, 'GET', `/commands?guild_id=${guildId}`);
    const globalCommands = await admin<Array<{ id: string; name: string; type?: number }>>(target, 'GET', '/commands');
    const command = guildCommands.find(matches) ?? globalCommands.find(matches);
    if (command === undefined) throw new AdminError(404, `no command '${name!}' is registered globally or in guild ${guildId}`);
    // Editing permissions takes a user's bearer token (protocol §S5): the guild owner's, as the sandbox issues it.
    const info = await admin<{ restUrl: string; applicationId: string }>(target, 'GET', '');
    const { access_token: token } = await admin<{ access_token: string }>(target, 'POST', '/oauth2/tokens', { scopes: ['applications.commands.permissions.update'] });
    const res = await fetch(`${info.restUrl}/applications/${info.applicationId}/guilds/${guildId}/commands/${command.id}/permissions`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ permissions: list }),
    });
    if (!res.ok) throw new AdminError(res.status, `the sandbox refused the permissions: ${await res.text()}`);
    return `APPLICATION_COMMAND_PERMISSIONS_UPDATE: /${name!} in guild ${guildId} has ${list.length} overwrite${list.length === 1 ? '' : 's'}`;
  });
}
