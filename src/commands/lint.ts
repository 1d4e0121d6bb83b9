/**
 * Advisories: things the service accepts but that are probably not what the author meant. Separate from
 * validation so that the sandbox, which answers like the service, never rejects what the service accepts.
 */
import { CommandType, ContextType, IntegrationType, OptionType } from './constants.js';
import { makeProblem, type PathSegment, type Problem } from './problems.js';
import { RUNTIME_FIELDS, type ScopeKind } from './types.js';
import { isObject } from '../util/is-object.js';

export interface LintOptions {
  scope: ScopeKind;
  /** Accept `run`, `autocomplete` and `guilds` (plugin definitions rather than payloads). */
  definitions?: boolean;
  /** The application's installation contexts, the default of integration_types. */
  appIntegrationTypes?: readonly number[];
}

const COMMAND_FIELDS = new Set([
  'id', 'type', 'name', 'name_localizations', 'description', 'description_localizations', 'options',
  'default_member_permissions', 'dm_permission', 'default_permission', 'nsfw', 'integration_types', 'contexts',
  'handler',
  // Sent by the service; harmless in a file made from a GET answer.
  'application_id', 'guild_id', 'version', 'name_localized', 'description_localized',
]);
const OPTION_FIELDS = new Set([
  'type', 'name', 'name_localizations', 'description', 'description_localizations', 'required', 'choices',
  'options', 'channel_types', 'min_value', 'max_value', 'min_length', 'max_length', 'autocomplete', 'file_types',
  'name_localized', 'description_localized',
]);
/** A subcommand group in a plugin's definition may carry preconditions for its subcommands (never sent). */
const GROUP_DEFINITION_FIELDS = new Set([...OPTION_FIELDS, 'preconditions']);
const CHOICE_FIELDS = new Set(['name', 'name_localizations', 'value', 'name_localized']);

type Obj = Record<string, unknown>;

function unknownFields(obj: Obj, known: ReadonlySet<string>, runtime: boolean, segs: PathSegment[], out: Problem[]): void {
  for (const k of Object.keys(obj)) {
    if (known.has(k) || (runtime && RUNTIME_FIELDS.has(k))) continue;
    out.push(makeProblem([...segs, k], 'UNKNOWN_FIELD', `unknown field '${k}' (the service ignores it)`));
  }
}

function lintOptions(opts: unknown, segs: PathSegment[], o: LintOptions, out: Problem[], depth = 1): void {
  if (!Array.isArray(opts) || depth > 3) return;
  opts.forEach((opt: unknown, i: number) => {
    if (!isObject(opt)) return;
    const here = [...segs, 'options', i];
    const group = o.definitions === true && opt.type === OptionType.SUB_COMMAND_GROUP;
    unknownFields(opt, group ? GROUP_DEFINITION_FIELDS : OPTION_FIELDS, o.definitions === true && opt.type === OptionType.SUB_COMMAND, here, out);
    if (opt.type === OptionType.SUB_COMMAND_GROUP && (!Array.isArray(opt.options) || opt.options.length === 0)) {
      out.push(makeProblem(here, 'EMPTY_SUBCOMMAND_GROUP', 'a subcommand group without subcommands does not appear in the command explorer'));
    }
    if (Array.isArray(opt.choices)) {
      opt.choices.forEach((c: unknown, j: number) => {
        if (isObject(c)) unknownFields(c, CHOICE_FIELDS, false, [...here, 'choices', j], out);
      });
    }
    lintOptions(opt.options, here, o, out, depth + 1);
  });
}

export function lintCommand(def: unknown, options: LintOptions & { index?: number }): Problem[] {
  const out: Problem[] = [];
  if (!isObject(def)) return out;
  const segs: PathSegment[] = options.index === undefined ? [] : [options.index];
  unknownFields(def, COMMAND_FIELDS, options.definitions === true, segs, out);
  if (def.dm_permission !== undefined && def.dm_permission !== null) {
    out.push(makeProblem([...segs, 'dm_permission'], 'DEPRECATED_FIELD', 'dm_permission is deprecated; use contexts'));
  }
  if (def.default_permission !== undefined && def.default_permission !== null) {
    out.push(makeProblem([...segs, 'default_permission'], 'DEPRECATED_FIELD', 'default_permission is deprecated; use default_member_permissions'));
  }
  if (options.scope === 'global' && Array.isArray(def.contexts)) {
    const at = def.contexts.indexOf(ContextType.PRIVATE_CHANNEL);
    const types = Array.isArray(def.integration_types) ? (def.integration_types as unknown[]) : options.appIntegrationTypes;
    if (at >= 0 && types !== undefined && !types.includes(IntegrationType.USER_INSTALL)) {
      out.push(
        makeProblem(
          [...segs, 'contexts', at],
          'PRIVATE_CHANNEL_WITHOUT_USER_INSTALL',
          'PRIVATE_CHANNEL is meaningful only when integration_types includes USER_INSTALL (1)',
        ),
      );
    }
  }
  if ((def.type ?? CommandType.CHAT_INPUT) === CommandType.CHAT_INPUT) lintOptions(def.options, segs, options, out);
  return out;
}

/** Advisories over a list (each command with its index). */
export function lintCommands(list: unknown, options: LintOptions): Problem[] {
  if (!Array.isArray(list)) return [];
  const out: Problem[] = [];
  list.forEach((def: unknown, index: number) => out.push(...lintCommand(def, { ...options, index })));
  return out;
}
