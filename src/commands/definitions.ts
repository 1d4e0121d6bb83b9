/**
 * Validation of plugin definitions as a whole: the runtime-only fields (handlers, `guilds`), then every scope
 * the definitions end up in, with paths relative to the definitions array (`[3].options[0].name`), so a
 * problem found in guild X's list still names the definition that caused it.
 */
import { CommandType, HandlerType, OptionType } from './constants.js';
import { compareProblems, makeProblem, type PathSegment, type Problem } from './problems.js';
import { stripRuntimeFields } from './payload.js';
import { groupByScope, type GroupOptions } from './scopes.js';
import { validateList, type ValidateOptions } from './validate.js';
import { isSnowflake } from '../api/snowflake.js';
import { isObject } from '../util/is-object.js';

export interface ValidateDefinitionsOptions extends Omit<ValidateOptions, 'scope'>, GroupOptions {}

type Obj = Record<string, unknown>;

function handler(out: Problem[], obj: Obj, field: 'run' | 'autocomplete', segs: PathSegment[], where: string | null): void {
  const v = obj[field];
  if (v === undefined) return;
  if (typeof v !== 'function') {
    out.push(makeProblem([...segs, field], 'DEFINITION_HANDLER_INVALID', `must be a function, not ${v === null ? 'null' : typeof v}`));
  } else if (where !== null) {
    out.push(makeProblem([...segs, field], 'DEFINITION_HANDLER_INVALID', where));
  }
}

function runtimeProblems(def: unknown, index: number, out: Problem[]): void {
  if (!isObject(def)) return; // the scope validation reports it
  const at: PathSegment[] = [index];
  const type = def.type ?? CommandType.CHAT_INPUT;
  const options = Array.isArray(def.options) ? (def.options as unknown[]) : [];
  const hasSub = options.some(
    (o) => isObject(o) && (o.type === OptionType.SUB_COMMAND || o.type === OptionType.SUB_COMMAND_GROUP),
  );

  let runWhere: string | null = null;
  if (type === CommandType.CHAT_INPUT && hasSub) {
    runWhere = 'a command with subcommands cannot be invoked itself; put run on its subcommands';
  } else if (type === CommandType.PRIMARY_ENTRY_POINT && def.handler !== HandlerType.APP_HANDLER) {
    runWhere = 'never called: with handler 2 (the default) the service launches the Activity itself; set handler 1';
  }
  handler(out, def, 'run', at, runWhere);
  handler(out, def, 'autocomplete', at, type === CommandType.CHAT_INPUT ? null : 'only CHAT_INPUT commands autocomplete');

  const guilds = def.guilds;
  if (guilds !== undefined) {
    if (type === CommandType.PRIMARY_ENTRY_POINT) {
      out.push(makeProblem([...at, 'guilds'], 'APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD', 'PRIMARY_ENTRY_POINT commands cannot be guild commands'));
    } else if (!Array.isArray(guilds) || guilds.length === 0) {
      out.push(makeProblem([...at, 'guilds'], 'DEFINITION_GUILDS_INVALID', 'must be a non-empty array of guild ids (omit it for a global command)'));
    } else {
      guilds.forEach((g: unknown, i: number) => {
        if (!isSnowflake(g)) {
          out.push(makeProblem([...at, 'guilds', i], 'DEFINITION_GUILDS_INVALID', 'must be a guild id (a snowflake string)'));
        }
      });
    }
  }

  // Handlers inside options: subcommands may carry run/autocomplete; groups and value options may not.
  const walk = (opts: unknown[], segs: PathSegment[], depth: number): void => {
    if (depth > 3) return;
    opts.forEach((o, i) => {
      if (!isObject(o)) return;
      const here = [...segs, 'options', i];
      if (o.type === OptionType.SUB_COMMAND) {
        handler(out, o, 'run', here, null);
        handler(out, o, 'autocomplete', here, null);
      } else if (o.type === OptionType.SUB_COMMAND_GROUP) {
        const why = 'a subcommand group cannot be invoked; put it on its subcommands';
        handler(out, o, 'run', here, why);
        if (typeof o.autocomplete === 'function') handler(out, o, 'autocomplete', here, why);
      } else {
        // On a value option `autocomplete: true` is the API's field (validated with the payload); a function
        // there is a handler in the wrong place.
        const why = 'handlers belong on commands and subcommands, not on value options';
        handler(out, o, 'run', here, why);
        if (typeof o.autocomplete === 'function') handler(out, o, 'autocomplete', here, why);
      }
      if (Array.isArray(o.options)) walk(o.options as unknown[], here, depth + 1);
    });
  };
  walk(options, at, 1);
}

/**
 * Problems of a plugin's (or all plugins') command definitions: runtime fields, then each scope's list
 * (global, every guild in `guilds`, or the development guild), deduplicated across scopes.
 */
export function validateDefinitions(defs: unknown, options: ValidateDefinitionsOptions = {}): Problem[] {
  if (!Array.isArray(defs)) {
    return [makeProblem([], 'LIST_TYPE_CONVERT', 'commands must be an array of command definitions')];
  }
  const out: Problem[] = [];
  defs.forEach((d, i) => runtimeProblems(d, i, out));
  const { groups } = groupByScope(defs as unknown[], options);
  const seen = new Set<string>();
  for (const p of out) seen.add(`${p.path}\u0000${p.code}\u0000${p.message}`);
  for (const g of groups) {
    const payloads = g.commands.map((c) => stripRuntimeFields(c));
    const problems = validateList(payloads, { ...options, scope: g.scope.kind }, (i) => g.sources[i]!);
    for (const p of problems) {
      const k = `${p.path}\u0000${p.code}\u0000${p.message}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(p);
    }
  }
  return out.sort(compareProblems);
}
