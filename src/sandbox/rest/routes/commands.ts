/** Application command endpoints, global and guild (protocol §S4.1, §S4.2, §15.4). */
import type { SandboxCore } from '../../core.js';
import { Errors } from '../../errors.js';
import { localizedView } from '../../state/commands.js';
import { jsonValue } from '../body.js';
import type { RestContext, RestResult, RouteDef } from '../types.js';

/** Query booleans: True/true/1 and False/false/0 (protocol §2.3). */
export function queryBool(value: string | null): boolean {
  return value === 'true' || value === 'True' || value === '1';
}

const UPDATE_SCOPE = 'applications.commands.update';

/**
 * Checks shared by every command endpoint: the application is ours, the token may act for it (a bot token, or
 * the app's client-credentials token, with applications.commands.update for writes), and the guild has the app.
 */
export function commandAccess(core: SandboxCore, ctx: RestContext, write: boolean): string | null {
  if (ctx.params.applicationId !== core.store.applicationId) throw Errors.notAuthorizedForApplication();
  if (ctx.auth.kind === 'bearer') {
    const t = ctx.auth.token;
    if (!t.clientCredentials || (write && !t.scopes.has(UPDATE_SCOPE))) throw Errors.missingAccess();
  }
  const guildId = ctx.params.guildId ?? null;
  if (guildId !== null && !core.store.guild(guildId)) throw Errors.missingAccess();
  return guildId;
}

function countWrite(core: SandboxCore): void {
  core.counters.commandWrites++;
}

export function commandRoutes(core: SandboxCore): RouteDef[] {
  const reg = core.commands;
  const routes: RouteDef[] = [];
  for (const base of ['/applications/:applicationId/commands', '/applications/:applicationId/guilds/:guildId/commands']) {
    const major = base.includes(':guildId') ? 'guildId' : undefined;
    const list = (ctx: RestContext): RestResult => {
      const guildId = commandAccess(core, ctx, false);
      const withLocalizations = queryBool(ctx.query.get('with_localizations'));
      return { status: 200, body: reg.list(guildId).map((c) => localizedView(c, ctx.locale, withLocalizations)) };
    };
    const create = (ctx: RestContext): RestResult => {
      countWrite(core);
      const guildId = commandAccess(core, ctx, true);
      const { command, created } = reg.create(guildId, jsonValue(ctx.body));
      if (created) core.counters.commandCreates++;
      return { status: created ? 201 : 200, body: command };
    };
    const bulk = (ctx: RestContext): RestResult => {
      countWrite(core);
      const guildId = commandAccess(core, ctx, true);
      const { commands, created } = reg.bulk(guildId, jsonValue(ctx.body));
      core.counters.commandCreates += created;
      return { status: 200, body: commands };
    };
    const getOne = (ctx: RestContext): RestResult => {
      const guildId = commandAccess(core, ctx, false);
      const cmd = reg.get(guildId, ctx.params.commandId!);
      if (!cmd) throw Errors.unknownCommand();
      return { status: 200, body: cmd };
    };
    const edit = (ctx: RestContext): RestResult => {
      countWrite(core);
      const guildId = commandAccess(core, ctx, true);
      return { status: 200, body: reg.edit(guildId, ctx.params.commandId!, jsonValue(ctx.body)) };
    };
    const remove = (ctx: RestContext): RestResult => {
      countWrite(core);
      const guildId = commandAccess(core, ctx, true);
      reg.delete(guildId, ctx.params.commandId!);
      return { status: 204 };
    };
    const one = `${base}/:commandId`;
    routes.push(
      { method: 'GET', path: base, bucket: 'commands.read', major, auth: 'bot-or-bearer', handler: list },
      { method: 'POST', path: base, bucket: 'commands.create', major, auth: 'bot-or-bearer', handler: create },
      { method: 'PUT', path: base, bucket: 'commands.bulk', major, auth: 'bot-or-bearer', handler: bulk },
      { method: 'GET', path: one, bucket: 'commands.read', major, auth: 'bot-or-bearer', handler: getOne },
      { method: 'PATCH', path: one, bucket: 'commands.edit', major, auth: 'bot-or-bearer', handler: edit },
      { method: 'DELETE', path: one, bucket: 'commands.delete', major, auth: 'bot-or-bearer', handler: remove },
    );
  }
  return routes;
}
