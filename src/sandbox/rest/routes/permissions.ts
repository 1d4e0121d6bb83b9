/**
 * Guild application command permissions (protocol §S2.7, §S4.3, §S5, §15.5): read with the
 * app's token; edit with a user's bearer token carrying applications.commands.permissions.update (a bot
 * token gets 403 / 20001), at most 100 overwrites, @everyone (guild_id) and all-channels (guild_id - 1)
 * constants, APPLICATION_COMMAND_PERMISSIONS_UPDATE on the gateway. Batch edit answers 405.
 */
import { isSnowflake, previousSnowflake } from '../../../api/snowflake.js';
import type { SandboxCore } from '../../core.js';
import { addTreeError, emptyErrorTree, Errors, invalidFormBody } from '../../errors.js';
import type { CommandPermission } from '../../state/command-permissions.js';
import { P } from '../../state/permissions.js';
import { jsonValue } from '../body.js';
import type { RestContext, RouteDef } from '../types.js';
import { commandAccess } from './commands.js';
import { isObject } from '../../../util/is-object.js';

const EDIT_SCOPE = 'applications.commands.permissions.update';
const MAX_OVERWRITES = 100;

export function permissionRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const perms = core.commandPermissions;

  /** The permissions target: a command of this guild, a global command, or the application id. */
  function target(guildId: string, id: string): void {
    if (id === store.applicationId) return;
    if (!core.commands.find(guildId, id)) throw Errors.unknownCommand();
  }

  function parse(ctx: RestContext, guildId: string): CommandPermission[] {
    const body = jsonValue(ctx.body);
    const tree = emptyErrorTree();
    if (!isObject(body) || body.permissions === undefined) {
      addTreeError(tree, ['permissions'], { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
      throw invalidFormBody(tree);
    }
    const list = body.permissions;
    if (!Array.isArray(list)) {
      addTreeError(tree, ['permissions'], { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
      throw invalidFormBody(tree);
    }
    if (list.length > MAX_OVERWRITES) {
      addTreeError(tree, ['permissions'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_OVERWRITES} or fewer in length.` });
      throw invalidFormBody(tree);
    }
    const guild = store.requireGuild(guildId);
    const members = store.members(guild);
    const allChannels = previousSnowflake(guildId);
    const out: CommandPermission[] = [];
    list.forEach((item: unknown, i) => {
      if (!isObject(item)) {
        addTreeError(tree, ['permissions', i], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
        return;
      }
      const { id, type, permission } = item;
      let ok = true;
      if (!isSnowflake(id)) {
        addTreeError(tree, ['permissions', i, 'id'], { code: 'NUMBER_TYPE_COERCE', message: `Value "${String(id)}" is not snowflake.` });
        ok = false;
      }
      if (type !== 1 && type !== 2 && type !== 3) {
        addTreeError(tree, ['permissions', i, 'type'], { code: 'ENUM_TYPE_COERCE', message: `Value "${String(type)}" is not a valid enum value.` });
        ok = false;
      }
      if (typeof permission !== 'boolean') {
        addTreeError(tree, ['permissions', i, 'permission'], { code: 'BOOLEAN_TYPE_CONVERT', message: 'Must be either true or false.' });
        ok = false;
      }
      if (!ok) return;
      const sid = id as string;
      // Targets must exist in the guild; the constants stand for @everyone and for all channels.
      if (type === 1 && !guild.roles.some((r) => r.id === sid)) {
        addTreeError(tree, ['permissions', i, 'id'], { code: 'APPLICATION_COMMAND_PERMISSIONS_UNKNOWN_ROLE', message: 'Unknown role.' });
      } else if (type === 2 && !members.has(sid) && !store.user(sid)) {
        addTreeError(tree, ['permissions', i, 'id'], { code: 'APPLICATION_COMMAND_PERMISSIONS_UNKNOWN_USER', message: 'Unknown user.' });
      } else if (type === 3 && sid !== allChannels && !guild.channels.some((c) => c.id === sid)) {
        addTreeError(tree, ['permissions', i, 'id'], { code: 'APPLICATION_COMMAND_PERMISSIONS_UNKNOWN_CHANNEL', message: 'Unknown channel.' });
      } else {
        out.push({ id: sid, type: type as 1 | 2 | 3, permission: permission as boolean });
      }
    });
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
    return out;
  }

  const base = '/applications/:applicationId/guilds/:guildId/commands';
  return [
    {
      method: 'GET',
      path: `${base}/permissions`,
      bucket: 'permissions.read',
      major: 'guildId',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        const guildId = commandAccess(core, ctx, false)!;
        return { status: 200, body: perms.list(guildId) };
      },
    },
    {
      // Batch edit is disabled by the service (protocol §S4.3, permissions v2): a real 405, not the unmodelled marker.
      method: 'PUT',
      path: `${base}/permissions`,
      bucket: 'permissions.edit',
      major: 'guildId',
      auth: 'bot-or-bearer',
      handler: () => {
        throw Errors.methodNotAllowed();
      },
    },
    {
      method: 'GET',
      path: `${base}/:commandId/permissions`,
      bucket: 'permissions.read',
      major: 'guildId',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        const guildId = commandAccess(core, ctx, false)!;
        const id = ctx.params.commandId!;
        target(guildId, id);
        const entry = perms.get(guildId, id);
        if (!entry) throw Errors.unknownCommandPermissions();
        return { status: 200, body: entry };
      },
    },
    {
      method: 'PUT',
      path: `${base}/:commandId/permissions`,
      bucket: 'permissions.edit',
      major: 'guildId',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        if (ctx.params.applicationId !== store.applicationId) throw Errors.notAuthorizedForApplication();
        // A bot token causes an error (protocol §S5): 403 / 20001 as observed.
        if (ctx.auth.kind !== 'bearer') throw Errors.botsCannotUse();
        const token = ctx.auth.token;
        if (!token.scopes.has(EDIT_SCOPE)) throw Errors.missingAccess();
        const guildId = ctx.params.guildId!;
        const guild = store.guild(guildId);
        if (!guild) throw Errors.missingAccess();
        // The user's permissions count, not the app's: MANAGE_GUILD and MANAGE_ROLES in the guild.
        if (!store.members(guild).has(token.userId)) throw Errors.missingAccess();
        const userPerms = store.permissionsOf(guild, token.userId);
        const needed = P.MANAGE_GUILD | P.MANAGE_ROLES;
        if ((userPerms & needed) !== needed) throw Errors.missingPermissions();
        const id = ctx.params.commandId!;
        target(guildId, id);
        const list = parse(ctx, guildId);
        const entry = perms.set(guildId, id, list);
        core.gateway.guild(guildId, 'APPLICATION_COMMAND_PERMISSIONS_UPDATE', JSON.stringify(entry));
        return { status: 200, body: entry };
      },
    },
  ];
}
