/**
 * Validation of command definitions against spec sections 2.1-2.6 and 8: everything that can be decided from a
 * definition, or from the list of one scope. Input is untrusted (`unknown`): nothing here throws, every problem
 * is reported at once with the exact path, and a broken part does not hide problems elsewhere.
 *
 * Decisions where the spec leaves room (also in docs/plugins.md "Application commands"):
 * - Lengths count Unicode code points (see text.ts).
 * - `?` fields must be absent or of their type; only `??` fields may be null (name_localizations,
 *   description_localizations, default_member_permissions, dm_permission, default_permission, contexts).
 * - Guild scope rejects dm_permission, integration_types and contexts by default. The guild bulk-overwrite
 *   request lists integration_types/contexts with defaults, but the spec marks all three "global commands only",
 *   the guild create/edit endpoints do not take them, and the only values that would mean anything for a guild
 *   command are the defaults; a definition that sets them expects an effect it will not get. A guild command
 *   naming BOT_DM gets an extra problem on that entry (guild commands do not support BOT_DM). The sandbox,
 *   which must accept what the service accepts, passes `globalOnlyInGuild: 'ignore'`: only their shapes are
 *   checked there (the guild bulk default of contexts is [0,1,2], BOT_DM included).
 * - PRIVATE_CHANNEL without USER_INSTALL is accepted (the spec calls it "not meaningful", not invalid, and the
 *   guild bulk default itself pairs [0,1,2] with [0]); lintCommands reports it as an advisory.
 * - USER/MESSAGE commands accept `description` only as "" and description_localizations only as null or {}.
 * - An entry point's description is optional, up to 100 characters; its name follows the USER/MESSAGE rule
 *   (the service's own entry point is named "Launch").
 * - Option name localizations must differ from the default names of the other options of the same options
 *   array and from the other options' names in that locale (the array is where names must be unique).
 * - Unknown fields are not errors (the service ignores them); lintCommands reports them.
 */
import {
  CHANNEL_TYPES,
  COMMAND_TYPE_NAMES,
  CommandType,
  ContextType,
  LIMITS,
  LOCALES,
  OPTION_TYPE_NAMES,
  OptionType,
  SCOPE_LIMITS,
} from './constants.js';
import { compareProblems, makeProblem, type PathSegment, type Problem, type ProblemCode } from './problems.js';
import { codePointLength, firstInvalidNameChar, firstUppercaseChar } from './text.js';
import type { ScopeKind } from './types.js';
import { isSnowflake } from '../api/snowflake.js';
import { isObject } from '../util/is-object.js';

export interface ValidateOptions {
  scope: ScopeKind;
  /** Integration types enabled for the application; when given, commands may name only these (protocol §S2.3). */
  appIntegrationTypes?: readonly number[];
  /** Whether the application has Activities (EMBEDDED flag). `false` rejects `handler`; unknown by default. */
  embedded?: boolean;
  /**
   * dm_permission, integration_types and contexts in guild scope: 'reject' (default) reports them as global
   * only; 'ignore' checks only their shapes, as the service, which ignores them for guild commands, does.
   */
  globalOnlyInGuild?: 'reject' | 'ignore';
}

export interface ValidateCommandOptions extends ValidateOptions {
  /** Position in a list: paths then start with `[index]`. */
  index?: number;
}

type Obj = Record<string, unknown>;

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** What a command contributes to the checks over the whole list of a scope. */
interface CommandFacts {
  type: number | undefined;
  name: string | undefined;
  id: string | undefined;
}

/** Walks one structure, keeping the current path on a stack so that only problems allocate a path. */
class Walker {
  readonly problems: Problem[] = [];
  readonly segs: PathSegment[] = [];
  /** Running total of the 8000-character budget of the current command. */
  size = 0;

  constructor(readonly o: ValidateOptions) {}

  add(code: ProblemCode, message: string, ...extra: PathSegment[]): void {
    const segs = extra.length === 0 ? this.segs : this.segs.concat(extra);
    this.problems.push(makeProblem(segs, code, message));
  }

  // --- field readers: report a type problem and return undefined when the field is unusable ---

  string(obj: Obj, field: string, required: boolean, nullable = false): string | undefined {
    const v = obj[field];
    if (v === undefined || (v === null && !nullable)) {
      if (required || v === null) {
        this.add('BASE_TYPE_REQUIRED', required ? 'this field is required' : 'must not be null', field);
      }
      return undefined;
    }
    if (v === null) return undefined;
    if (typeof v !== 'string') {
      this.add('STRING_TYPE_CONVERT', `must be a string, not ${kind(v)}`, field);
      return undefined;
    }
    return v;
  }

  boolean(obj: Obj, field: string, nullable: boolean): void {
    const v = obj[field];
    if (v === undefined || (v === null && nullable)) return;
    if (typeof v !== 'boolean') this.add('BOOLEAN_TYPE_CONVERT', `must be a boolean, not ${kind(v)}`, field);
  }

  /** Reports at `field` below the current path, or at the current path itself when `field` is null. */
  addAt(field: PathSegment | null, code: ProblemCode, message: string): void {
    if (field === null) this.add(code, message);
    else this.add(code, message, field);
  }

  length(value: string, min: number, max: number, field: PathSegment | null): number {
    const n = codePointLength(value);
    if (n < min || n > max) this.addAt(field, 'BASE_TYPE_BAD_LENGTH', `must be between ${min} and ${max} characters long (is ${n})`);
    return n;
  }

  /** Checks a name; `chatInput` applies naming rules 1 and 2. Returns its length. */
  name(value: string, chatInput: boolean, field: PathSegment | null): number {
    const n = this.length(value, LIMITS.nameMin, LIMITS.nameMax, field);
    if (chatInput) {
      const bad = firstInvalidNameChar(value);
      if (bad !== null) {
        this.addAt(field, 'STRING_TYPE_REGEX', `may contain only letters, numbers, '-', '_', "'" and Devanagari/Thai marks; found ${bad}`);
      }
      const upper = firstUppercaseChar(value);
      if (upper !== null) {
        this.addAt(field, 'APPLICATION_COMMAND_NAME_LOWERCASE', `must be lowercase; ${upper} has a lowercase variant`);
      }
    }
    return n;
  }

  /**
   * Checks a localization dictionary: keys are locales, values strings that follow `rule` (reported at the
   * value's path). Returns the dictionary (or undefined) and the length of the longest value.
   */
  localizations(obj: Obj, field: string, rule: LocalizedRule): { dict: Obj | undefined; longest: number } {
    const v = obj[field];
    if (v === undefined || v === null) return { dict: undefined, longest: 0 };
    if (!isObject(v)) {
      this.add('DICT_TYPE_CONVERT', `must be an object of locale -> string, not ${kind(v)}`, field);
      return { dict: undefined, longest: 0 };
    }
    let longest = 0;
    this.segs.push(field);
    for (const locale of Object.keys(v)) {
      this.segs.push(locale);
      if (!LOCALES.has(locale)) this.add('ENUM_TYPE_COERCE', `'${locale}' is not a valid locale`);
      const value = v[locale];
      if (typeof value !== 'string') {
        this.add('STRING_TYPE_CONVERT', `must be a string, not ${kind(value)}`);
      } else {
        const n = rule.name ? this.name(value, rule.chatInput, null) : this.length(value, rule.min, rule.max, null);
        if (n > longest) longest = n;
      }
      this.segs.pop();
    }
    this.segs.pop();
    return { dict: v, longest };
  }

  /**
   * Whether `field` is present and valid for the option type (protocol §S2.4); reports it when it is present but not
   * valid. With an unknown type only the fields' own shapes are checked.
   */
  allowed(opt: Obj, type: number | undefined, field: string, ok: boolean, types: string): boolean {
    if (opt[field] === undefined) return false;
    if (type !== undefined && !ok) {
      this.add('APPLICATION_COMMAND_FIELD_NOT_ALLOWED', `${field} is valid only for ${types} options, not ${OPTION_TYPE_NAMES[type]}`, field);
      return false;
    }
    return true;
  }

  /** An enum list (integration_types, contexts, channel_types). Returns the valid entries. */
  enumList(obj: Obj, field: string, allowed: (n: number) => boolean, label: string): number[] | undefined {
    const v = obj[field];
    if (!Array.isArray(v)) {
      this.add('LIST_TYPE_CONVERT', `must be an array, not ${kind(v)}`, field);
      return undefined;
    }
    const out: number[] = [];
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (!isInt(x)) this.add('NUMBER_TYPE_COERCE', `must be an integer ${label}, not ${kind(x)}`, field, i);
      else if (!allowed(x)) this.add('ENUM_TYPE_COERCE', `${x} is not a valid ${label}`, field, i);
      else out.push(x);
    }
    return out;
  }
}

/** What each value of a localization dictionary must satisfy (constants, so no closure per call). */
type LocalizedRule = { name: true; chatInput: boolean } | { name: false; min: number; max: number };
const CHAT_NAME: LocalizedRule = { name: true, chatInput: true };
const MENU_NAME: LocalizedRule = { name: true, chatInput: false };
const DESCRIPTION: LocalizedRule = { name: false, min: LIMITS.descriptionMin, max: LIMITS.descriptionMax };
const ENTRY_DESCRIPTION: LocalizedRule = { name: false, min: 0, max: LIMITS.descriptionMax };
const CHOICE_NAME: LocalizedRule = { name: false, min: LIMITS.choiceNameMin, max: LIMITS.choiceNameMax };

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…` : v)})`;
  if (typeof v === 'number') return `a number (${v})`;
  return `a ${typeof v}`;
}

const COMMAND_TYPES_TEXT = '1 (CHAT_INPUT), 2 (USER), 3 (MESSAGE), 4 (PRIMARY_ENTRY_POINT)';
const DECIMAL = /^[0-9]+$/;
const MAX_BITSET = 1n << 64n;

function commandInto(w: Walker, def: unknown): CommandFacts | null {
  w.size = 0;
  if (!isObject(def)) {
    w.add('MODEL_TYPE_CONVERT', `must be a command object, not ${kind(def)}`);
    return null;
  }
  const type = commandType(w, def);
  const chatInput = type === CommandType.CHAT_INPUT;
  if (type === CommandType.PRIMARY_ENTRY_POINT && w.o.scope === 'guild') {
    w.add('APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD', 'PRIMARY_ENTRY_POINT commands cannot be guild commands', 'type');
  }

  // name and its localizations (each value follows the name's rule).
  const name = w.string(def, 'name', true);
  let nameSize = name === undefined ? 0 : w.name(name, chatInput, 'name');
  const nameLocs = w.localizations(def, 'name_localizations', chatInput ? CHAT_NAME : MENU_NAME);
  nameSize = Math.max(nameSize, nameLocs.longest);
  w.size += nameSize + descriptionInto(w, def, type);

  // options: CHAT_INPUT only.
  if (def.options !== undefined) {
    if (chatInput) optionsInto(w, def.options, 'command', 1);
    else if (type !== undefined && !(Array.isArray(def.options) && def.options.length === 0)) {
      w.add('APPLICATION_COMMAND_FIELD_NOT_ALLOWED', 'only CHAT_INPUT commands take options', 'options');
    }
  }
  defaultMemberPermissionsInto(w, def.default_member_permissions);
  w.boolean(def, 'nsfw', false);
  w.boolean(def, 'default_permission', true);
  globalOnlyFieldsInto(w, def);
  handlerInto(w, def, type);

  // id: allowed in a bulk overwrite item, to keep a command's identity.
  let id: string | undefined;
  if (def.id !== undefined) {
    if (isSnowflake(def.id)) id = def.id;
    else w.add('NUMBER_TYPE_COERCE', `must be a snowflake (decimal string), not ${kind(def.id)}`, 'id');
  }

  if (w.size > LIMITS.commandSize) {
    w.add(
      'APPLICATION_COMMAND_TOO_LARGE',
      `Command exceeds maximum size (${LIMITS.commandSize}): names, descriptions and choice values add up to ${w.size} characters (longest localization of each field counted)`,
    );
  }
  return { type, name, id };
}

/** The command's type (default 1); undefined when invalid, which leaves the type-specific rules unchecked rather than guessed. */
function commandType(w: Walker, def: Obj): number | undefined {
  if (def.type === undefined) return CommandType.CHAT_INPUT;
  if (!isInt(def.type)) {
    w.add('NUMBER_TYPE_COERCE', `must be an integer command type: ${COMMAND_TYPES_TEXT}`, 'type');
    return undefined;
  }
  if (COMMAND_TYPE_NAMES[def.type] === undefined) {
    w.add('ENUM_TYPE_COERCE', `${def.type} is not a command type: ${COMMAND_TYPES_TEXT}`, 'type');
    return undefined;
  }
  return def.type;
}

/**
 * The description and its localizations: 1-100 for CHAT_INPUT; "" only for USER/MESSAGE; optional up to 100 for
 * an entry point. Returns its size (the longest of them).
 */
function descriptionInto(w: Walker, def: Obj, type: number | undefined): number {
  const chatInput = type === CommandType.CHAT_INPUT;
  if (type === CommandType.USER || type === CommandType.MESSAGE) {
    const d = def.description;
    if (d === null) w.add('BASE_TYPE_REQUIRED', 'must be "" (never null) for USER and MESSAGE commands', 'description');
    else if (d !== undefined && d !== '') {
      w.add('APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED', `${COMMAND_TYPE_NAMES[type]} commands take no description (only "")`, 'description');
    }
    const dl = def.description_localizations;
    if (dl !== undefined && dl !== null && !(isObject(dl) && Object.keys(dl).length === 0)) {
      w.add(
        'APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED',
        `${COMMAND_TYPE_NAMES[type]} commands take no description localizations`,
        'description_localizations',
      );
    }
    return 0;
  }
  let size = 0;
  const min = chatInput ? LIMITS.descriptionMin : 0;
  const d = w.string(def, 'description', chatInput);
  if (d !== undefined) size = w.length(d, min, LIMITS.descriptionMax, 'description');
  const dl = w.localizations(def, 'description_localizations', chatInput ? DESCRIPTION : ENTRY_DESCRIPTION);
  return Math.max(size, dl.longest);
}

/** default_member_permissions: a permission bit set serialized as a decimal string, or null. */
function defaultMemberPermissionsInto(w: Walker, perms: unknown): void {
  if (perms === undefined || perms === null) return;
  if (typeof perms !== 'string') {
    w.add('STRING_TYPE_CONVERT', `must be a permission bit set as a decimal string, not ${kind(perms)}`, 'default_member_permissions');
  } else if (!DECIMAL.test(perms) || BigInt(perms) >= MAX_BITSET) {
    w.add(
      'APPLICATION_COMMAND_PERMISSIONS_INVALID',
      `must be a permission bit set as a decimal string (e.g. "0" or "8192"), not ${JSON.stringify(perms)}`,
      'default_member_permissions',
    );
  }
}

/** dm_permission, integration_types and contexts: fields of global commands only. */
function globalOnlyFieldsInto(w: Walker, def: Obj): void {
  const o = w.o;
  const rejectGlobalOnly = o.scope === 'guild' && o.globalOnlyInGuild !== 'ignore';
  if (def.dm_permission !== undefined && def.dm_permission !== null && rejectGlobalOnly) {
    w.add('APPLICATION_COMMAND_GLOBAL_ONLY', 'dm_permission is for global commands only', 'dm_permission');
  } else {
    w.boolean(def, 'dm_permission', true);
  }
  if (def.integration_types !== undefined) {
    if (rejectGlobalOnly) w.add('APPLICATION_COMMAND_GLOBAL_ONLY', 'integration_types is for global commands only', 'integration_types');
    else integrationTypesInto(w, def);
  }
  if (def.contexts !== undefined && def.contexts !== null) {
    if (rejectGlobalOnly) {
      w.add('APPLICATION_COMMAND_GLOBAL_ONLY', 'contexts is for global commands only', 'contexts');
      if (Array.isArray(def.contexts)) {
        def.contexts.forEach((c: unknown, i: number) => {
          if (c === ContextType.BOT_DM) {
            w.add('APPLICATION_COMMAND_CONTEXT_UNSUPPORTED', 'guild commands do not support the BOT_DM context', 'contexts', i);
          }
        });
      }
    } else {
      w.enumList(def, 'contexts', (n) => n >= 0 && n <= 2, 'interaction context (0 GUILD, 1 BOT_DM, 2 PRIVATE_CHANNEL)');
    }
  }
}

/** integration_types of a global command: valid entries, each enabled for the application when that is known. */
function integrationTypesInto(w: Walker, def: Obj): void {
  const integrationTypes = w.enumList(def, 'integration_types', (n) => n === 0 || n === 1, 'integration type (0 GUILD_INSTALL, 1 USER_INSTALL)');
  const supported = w.o.appIntegrationTypes;
  if (integrationTypes === undefined || supported === undefined) return;
  const list = def.integration_types as unknown[];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (isInt(t) && (t === 0 || t === 1) && !supported.includes(t)) {
      w.add('APPLICATION_COMMAND_INTEGRATION_TYPE_UNSUPPORTED', `integration type ${t} is not enabled for the application`, 'integration_types', i);
    }
  }
}

/** handler: PRIMARY_ENTRY_POINT commands only, of applications with Activities. */
function handlerInto(w: Walker, def: Obj, type: number | undefined): void {
  if (def.handler === undefined) return;
  if (type !== undefined && type !== CommandType.PRIMARY_ENTRY_POINT) {
    w.add('APPLICATION_COMMAND_FIELD_NOT_ALLOWED', 'handler is settable only on PRIMARY_ENTRY_POINT commands', 'handler');
  } else if (!isInt(def.handler)) {
    w.add('NUMBER_TYPE_COERCE', 'must be an integer handler type: 1 (APP_HANDLER), 2 (SERVICE_LAUNCH_ACTIVITY)', 'handler');
  } else if (def.handler !== 1 && def.handler !== 2) {
    w.add('ENUM_TYPE_COERCE', `${def.handler} is not a handler type: 1 (APP_HANDLER), 2 (SERVICE_LAUNCH_ACTIVITY)`, 'handler');
  } else if (w.o.embedded === false) {
    w.add('APPLICATION_COMMAND_HANDLER_NOT_EMBEDDED', 'handler is settable only by applications with Activities', 'handler');
  }
}

type Level = 'command' | 'subcommand' | 'group';

interface OptionFacts {
  type: number | undefined;
  name: string | undefined;
  required: boolean;
  nameLocs: Obj | undefined;
}

const VALUE_TYPES_WITH_CHOICES = new Set<number>([OptionType.STRING, OptionType.INTEGER, OptionType.NUMBER]);

/**
 * `depth` is 1 for a command's options. Valid nesting ends at depth 3 (the options of a subcommand in a
 * group); deeper arrays are already reported as misplaced and are not walked (this also stops on cycles,
 * which JavaScript definitions can contain).
 */
function optionsInto(w: Walker, value: unknown, level: Level, depth: number): void {
  if (depth > 3) return;
  if (!Array.isArray(value)) {
    w.add('LIST_TYPE_CONVERT', `must be an array of options, not ${kind(value)}`, 'options');
    return;
  }
  w.segs.push('options');
  if (value.length > LIMITS.optionsPerLevel) {
    w.add('BASE_TYPE_MAX_LENGTH', `must have ${LIMITS.optionsPerLevel} or fewer options (has ${value.length})`);
  }
  const facts: (OptionFacts | null)[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    w.segs.push(i);
    facts[i] = optionInto(w, value[i] as unknown, depth);
    w.segs.pop();
  }
  nestingInto(w, facts, level);
  requiredFirstInto(w, facts);
  uniqueNamesInto(w, facts);
  w.segs.pop();
}

/** Nesting (protocol §S2.5 and §S8): command > group > subcommand only; no mixing with other option types. */
function nestingInto(w: Walker, facts: readonly (OptionFacts | null)[], level: Level): void {
  let nested = 0;
  let plain = 0;
  for (let i = 0; i < facts.length; i++) {
    const t = facts[i]?.type;
    if (t === undefined) continue;
    const isNested = t === OptionType.SUB_COMMAND || t === OptionType.SUB_COMMAND_GROUP;
    if (isNested) nested++;
    else plain++;
    if (level === 'group' && t !== OptionType.SUB_COMMAND) {
      w.add('APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', `a subcommand group may contain only subcommands (type 1), not ${OPTION_TYPE_NAMES[t]}`, i, 'type');
    } else if (level === 'subcommand' && isNested) {
      w.add('APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', `a subcommand cannot contain a ${OPTION_TYPE_NAMES[t]}`, i, 'type');
    }
  }
  if (level === 'command' && nested > 0 && plain > 0) {
    w.add(
      'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
      'subcommands and subcommand groups cannot be mixed with other option types (a command with subcommands cannot be invoked itself)',
    );
  }
}

/** Required options come before optional ones (among value options). */
function requiredFirstInto(w: Walker, facts: readonly (OptionFacts | null)[]): void {
  let optionalAt = -1;
  for (let i = 0; i < facts.length; i++) {
    const f = facts[i];
    if (f == null || f.type === undefined || f.type <= OptionType.SUB_COMMAND_GROUP) continue;
    if (!f.required) {
      if (optionalAt < 0) optionalAt = i;
    } else if (optionalAt >= 0) {
      w.add(
        'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
        `required options must be placed before non-required options (option ${optionalAt} is optional)`,
        i,
      );
    }
  }
}

/** Unique names within the array; localized names distinct from the other options' default and localized names. */
function uniqueNamesInto(w: Walker, facts: readonly (OptionFacts | null)[]): void {
  const byName = new Map<string, number>();
  for (let i = 0; i < facts.length; i++) {
    const n = facts[i]?.name;
    if (n === undefined) continue;
    const first = byName.get(n);
    if (first === undefined) byName.set(n, i);
    else w.add('APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', `option names must be unique; '${n}' is also option ${first}`, i, 'name');
  }
  let perLocale: Map<string, Map<string, number>> | undefined;
  for (let i = 0; i < facts.length; i++) {
    const locs = facts[i]?.nameLocs;
    if (locs === undefined) continue;
    perLocale ??= new Map();
    for (const locale of Object.keys(locs)) {
      const v = locs[locale];
      if (typeof v !== 'string') continue;
      const owner = byName.get(v);
      if (owner !== undefined && owner !== i) {
        w.add(
          'APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT',
          `'${v}' is the name of option ${owner}; localized option names must differ from the other options' names`,
          i,
          'name_localizations',
          locale,
        );
        continue;
      }
      let seen = perLocale.get(locale);
      if (seen === undefined) perLocale.set(locale, (seen = new Map()));
      const other = seen.get(v);
      if (other !== undefined) {
        w.add(
          'APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT',
          `'${v}' is already the ${locale} name of option ${other}`,
          i,
          'name_localizations',
          locale,
        );
      } else {
        seen.set(v, i);
      }
    }
  }
}

function optionInto(w: Walker, opt: unknown, depth: number): OptionFacts | null {
  if (!isObject(opt)) {
    w.add('MODEL_TYPE_CONVERT', `must be an option object, not ${kind(opt)}`);
    return null;
  }
  let type: number | undefined;
  if (opt.type === undefined || opt.type === null) {
    w.add('BASE_TYPE_REQUIRED', 'this field is required', 'type');
  } else if (!isInt(opt.type)) {
    w.add('NUMBER_TYPE_COERCE', `must be an integer option type (1-11), not ${kind(opt.type)}`, 'type');
  } else if (OPTION_TYPE_NAMES[opt.type] === undefined) {
    w.add('ENUM_TYPE_COERCE', `${opt.type} is not an option type (1-11)`, 'type');
  } else {
    type = opt.type;
  }

  const name = w.string(opt, 'name', true);
  let nameSize = name === undefined ? 0 : w.name(name, true, 'name');
  const nameLocs = w.localizations(opt, 'name_localizations', CHAT_NAME);
  nameSize = Math.max(nameSize, nameLocs.longest);
  const desc = w.string(opt, 'description', true);
  let descSize = desc === undefined ? 0 : w.length(desc, LIMITS.descriptionMin, LIMITS.descriptionMax, 'description');
  const descLocs = w.localizations(opt, 'description_localizations', DESCRIPTION);
  descSize = Math.max(descSize, descLocs.longest);
  w.size += nameSize + descSize;

  // Fields per option type (protocol §S2.4). With an unknown type only the fields' own shapes are checked.
  const isSub = type === OptionType.SUB_COMMAND;
  const isGroup = type === OptionType.SUB_COMMAND_GROUP;
  const withChoices = type === undefined || VALUE_TYPES_WITH_CHOICES.has(type);
  const numeric = type === undefined || type === OptionType.INTEGER || type === OptionType.NUMBER;

  let required = false;
  if (w.allowed(opt, type, 'required', !isSub && !isGroup, 'non-subcommand')) {
    w.boolean(opt, 'required', false);
    required = opt.required === true;
  }

  let choiceCount = 0;
  if (w.allowed(opt, type, 'choices', withChoices, 'STRING, INTEGER and NUMBER')) {
    choiceCount = choicesInto(w, opt.choices, type);
  }

  if (w.allowed(opt, type, 'autocomplete', withChoices, 'STRING, INTEGER and NUMBER')) {
    w.boolean(opt, 'autocomplete', false);
    if (opt.autocomplete === true && choiceCount > 0) {
      w.add('APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES', 'autocomplete may not be true when choices are present', 'autocomplete');
    }
  }

  if (w.allowed(opt, type, 'options', type === undefined || isSub || isGroup, 'SUB_COMMAND and SUB_COMMAND_GROUP')) {
    if (type !== undefined) optionsInto(w, opt.options, isGroup ? 'group' : 'subcommand', depth + 1);
  }

  if (w.allowed(opt, type, 'channel_types', type === undefined || type === OptionType.CHANNEL, 'CHANNEL')) {
    w.enumList(opt, 'channel_types', (n) => CHANNEL_TYPES.has(n), 'channel type');
  }

  const minV = w.allowed(opt, type, 'min_value', numeric, 'INTEGER and NUMBER') ? numberFor(w, opt, 'min_value', type) : undefined;
  const maxV = w.allowed(opt, type, 'max_value', numeric, 'INTEGER and NUMBER') ? numberFor(w, opt, 'max_value', type) : undefined;
  if (minV !== undefined && maxV !== undefined && minV > maxV) {
    w.add('APPLICATION_COMMAND_OPTION_RANGE_INVALID', `max_value (${maxV}) must not be below min_value (${minV})`, 'max_value');
  }

  const isString = type === undefined || type === OptionType.STRING;
  const minL = w.allowed(opt, type, 'min_length', isString, 'STRING') ? intIn(w, opt, 'min_length', LIMITS.minLengthMin, LIMITS.minLengthMax) : undefined;
  const maxL = w.allowed(opt, type, 'max_length', isString, 'STRING') ? intIn(w, opt, 'max_length', LIMITS.maxLengthMin, LIMITS.maxLengthMax) : undefined;
  if (minL !== undefined && maxL !== undefined && minL > maxL) {
    w.add('APPLICATION_COMMAND_OPTION_RANGE_INVALID', `max_length (${maxL}) must not be below min_length (${minL})`, 'max_length');
  }

  if (w.allowed(opt, type, 'file_types', type === undefined || type === OptionType.ATTACHMENT, 'ATTACHMENT')) {
    const ft = opt.file_types;
    if (!Array.isArray(ft)) w.add('LIST_TYPE_CONVERT', `must be an array of strings, not ${kind(ft)}`, 'file_types');
    else {
      if (ft.length > LIMITS.fileTypesMax) {
        w.add('BASE_TYPE_MAX_LENGTH', `must have ${LIMITS.fileTypesMax} or fewer entries (has ${ft.length})`, 'file_types');
      }
      ft.forEach((x: unknown, i: number) => {
        if (typeof x !== 'string') w.add('STRING_TYPE_CONVERT', `must be a string, not ${kind(x)}`, 'file_types', i);
      });
    }
  }

  return { type, name, required, nameLocs: nameLocs.dict };
}

/** min_value / max_value: an integer within the INTEGER range, or a double within the NUMBER range. */
function numberFor(w: Walker, opt: Obj, field: string, type: number | undefined): number | undefined {
  const v = opt[field];
  const integer = type === OptionType.INTEGER;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
    w.add('NUMBER_TYPE_COERCE', `must be ${integer ? 'an integer' : 'a number'}, not ${kind(v)}`, field);
    return undefined;
  }
  return inRange(w, v, type, field) ? v : undefined;
}

function inRange(w: Walker, v: number, type: number | undefined, ...at: PathSegment[]): boolean {
  const integer = type === OptionType.INTEGER;
  const min = integer ? LIMITS.integerMin : LIMITS.numberMin;
  const max = integer ? LIMITS.integerMax : LIMITS.numberMax;
  const label = integer ? 'INTEGER values are -2^53+1 to 2^53-1' : 'NUMBER values are -2^53 to 2^53';
  if (v < min) {
    w.add('NUMBER_TYPE_MIN', `${v} is below the range (${label})`, ...at);
    return false;
  }
  if (v > max) {
    w.add('NUMBER_TYPE_MAX', `${v} is above the range (${label})`, ...at);
    return false;
  }
  return true;
}

function intIn(w: Walker, opt: Obj, field: string, min: number, max: number): number | undefined {
  const v = opt[field];
  if (!isInt(v)) {
    w.add('NUMBER_TYPE_COERCE', `must be an integer, not ${kind(v)}`, field);
    return undefined;
  }
  if (v < min) {
    w.add('NUMBER_TYPE_MIN', `must be at least ${min} (is ${v})`, field);
    return undefined;
  }
  if (v > max) {
    w.add('NUMBER_TYPE_MAX', `must be at most ${max} (is ${v})`, field);
    return undefined;
  }
  return v;
}

/** Returns the number of choices (0 when not a usable array). */
function choicesInto(w: Walker, value: unknown, type: number | undefined): number {
  if (!Array.isArray(value)) {
    w.add('LIST_TYPE_CONVERT', `must be an array of choices, not ${kind(value)}`, 'choices');
    return 0;
  }
  w.segs.push('choices');
  if (value.length > LIMITS.choicesPerOption) {
    w.add('BASE_TYPE_MAX_LENGTH', `must have ${LIMITS.choicesPerOption} or fewer choices (has ${value.length})`);
  }
  for (let i = 0; i < value.length; i++) {
    w.segs.push(i);
    const c: unknown = value[i];
    if (!isObject(c)) {
      w.add('MODEL_TYPE_CONVERT', `must be a choice object, not ${kind(c)}`);
      w.segs.pop();
      continue;
    }
    const name = w.string(c, 'name', true);
    let size = name === undefined ? 0 : w.length(name, LIMITS.choiceNameMin, LIMITS.choiceNameMax, 'name');
    const locs = w.localizations(c, 'name_localizations', CHOICE_NAME);
    size = Math.max(size, locs.longest);
    size += choiceValueInto(w, c, type);
    w.size += size;
    w.segs.pop();
  }
  w.segs.pop();
  return value.length;
}

/** Checks a choice's value against the option type; returns its size in characters for the 8000 budget. */
function choiceValueInto(w: Walker, c: Obj, type: number | undefined): number {
  const v = c.value;
  if (v === undefined || v === null) {
    w.add('BASE_TYPE_REQUIRED', 'this field is required', 'value');
    return 0;
  }
  if (type === OptionType.STRING || (type === undefined && typeof v === 'string')) {
    if (typeof v !== 'string') {
      w.add('STRING_TYPE_CONVERT', `must be a string (the option is STRING), not ${kind(v)}`, 'value');
      return 0;
    }
    return w.length(v, 0, LIMITS.choiceStringValueMax, 'value');
  }
  const integer = type === OptionType.INTEGER;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
    const want = integer ? 'an integer (the option is INTEGER)' : type === undefined ? 'a string or a number' : 'a number (the option is NUMBER)';
    w.add('NUMBER_TYPE_COERCE', `must be ${want}, not ${kind(v)}`, 'value');
    return 0;
  }
  inRange(w, v, type, 'value');
  // A number's characters are those of its JSON form.
  return String(v).length;
}

/** Problems of one command definition (paths start with `[index]` when an index is given). */
export function validateCommand(def: unknown, options: ValidateCommandOptions): Problem[] {
  const w = new Walker(options);
  if (options.index !== undefined) w.segs.push(options.index);
  commandInto(w, def);
  return w.problems.sort(compareProblems);
}

/**
 * Problems of the list of one scope, as it would be sent for a bulk overwrite: each command, plus the rules
 * over the whole list (counts per type, unique names per type, unique ids).
 */
export function validateCommands(list: unknown, options: ValidateOptions): Problem[] {
  if (!Array.isArray(list)) {
    return [makeProblem([], 'LIST_TYPE_CONVERT', `must be an array of commands, not ${kind(list)}`)];
  }
  return validateList(list, options, (i) => i);
}

/** Shared by validateCommands and validateDefinitions: `at(i)` is the path segment of item i. */
export function validateList(list: readonly unknown[], options: ValidateOptions, at: (i: number) => number): Problem[] {
  const w = new Walker(options);
  const facts: (CommandFacts | null)[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    w.segs.push(at(i));
    facts[i] = commandInto(w, list[i]);
    w.segs.pop();
  }

  const limits = SCOPE_LIMITS[options.scope];
  const counts = new Map<number, number>();
  const names = new Map<string, number>();
  const ids = new Map<string, number>();
  for (let i = 0; i < facts.length; i++) {
    const f = facts[i];
    if (f == null) continue;
    if (f.type !== undefined) {
      const n = (counts.get(f.type) ?? 0) + 1;
      counts.set(f.type, n);
      const limit = limits[f.type] ?? 0;
      // The guild entry point is already reported on the command; report a count once, on the first excess.
      if (n === limit + 1 && limit > 0) {
        const total = facts.reduce((acc, g) => acc + (g?.type === f.type ? 1 : 0), 0);
        w.add(
          'APPLICATION_COMMANDS_TOO_MANY',
          `a ${options.scope} scope holds at most ${limit} ${COMMAND_TYPE_NAMES[f.type]} command${limit === 1 ? '' : 's'}; this list has ${total}`,
          at(i),
        );
      }
      if (f.name !== undefined) {
        const key = `${f.type}\u0000${f.name}`;
        const first = names.get(key);
        if (first === undefined) names.set(key, i);
        else {
          w.add(
            'APPLICATION_COMMANDS_DUPLICATE_NAME',
            `application command names must be unique per type; a ${COMMAND_TYPE_NAMES[f.type]} command '${f.name}' is already at [${at(first)}]`,
            at(i),
            'name',
          );
        }
      }
    }
    if (f.id !== undefined) {
      const first = ids.get(f.id);
      if (first === undefined) ids.set(f.id, i);
      else w.add('APPLICATION_COMMANDS_DUPLICATE_ID', `id ${f.id} is already used at [${at(first)}]`, at(i), 'id');
    }
  }
  return w.problems.sort(compareProblems);
}
