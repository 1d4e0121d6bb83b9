/**
 * Problems found in command definitions, and their rendering.
 *
 * A Problem names the exact place (`segments`, rendered as `path`) and a short machine `code`. Codes follow the
 * style of the service's inner error codes (the `_errors[].code` strings of a 50035 "Invalid Form Body" answer)
 * so the sandbox can answer with the same tree the real service would: where the service's own code is known
 * (BASE_TYPE_REQUIRED, BASE_TYPE_BAD_LENGTH, APPLICATION_COMMAND_TOO_LARGE, ...) it is used, otherwise a code of
 * the same shape is coined. Every code is listed in PROBLEM_CODES with its meaning.
 */

export type PathSegment = string | number;

export interface Problem {
  /** Rendered path: `[0].options[2].choices[5].value` for a list, `options[2].name` for one command. */
  path: string;
  segments: PathSegment[];
  message: string;
  code: ProblemCode;
}

/** Every code a Problem may carry, with what it means. */
export const PROBLEM_CODES = {
  // Shape and JSON types.
  BASE_TYPE_REQUIRED: 'a required field is missing (or null where null is not allowed)',
  MODEL_TYPE_CONVERT: 'a command, option or choice is not a JSON object',
  DICT_TYPE_CONVERT: 'a localization dictionary is not a JSON object',
  LIST_TYPE_CONVERT: 'a field that holds a list is not an array',
  STRING_TYPE_CONVERT: 'a field that holds a string is not a string',
  NUMBER_TYPE_COERCE: 'a field that holds a number (or integer, or snowflake) holds something else',
  BOOLEAN_TYPE_CONVERT: 'a field that holds a boolean is not a boolean',
  ENUM_TYPE_COERCE: 'a value is not one of the allowed values (command/option/handler/channel type, context, locale)',
  // Sizes and ranges.
  BASE_TYPE_BAD_LENGTH: 'a string is too short or too long (lengths count Unicode code points)',
  BASE_TYPE_MAX_LENGTH: 'a list has too many elements (options, choices)',
  NUMBER_TYPE_MIN: 'a number is below its allowed range',
  NUMBER_TYPE_MAX: 'a number is above its allowed range',
  APPLICATION_COMMAND_TOO_LARGE: 'name + description + values of the whole command exceed 8000 characters',
  // Names.
  STRING_TYPE_REGEX: "a CHAT_INPUT command or option name has a character outside ^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]$",
  APPLICATION_COMMAND_NAME_LOWERCASE: 'a CHAT_INPUT command or option name has a letter whose lowercase variant exists',
  // Fields per command type / option type / scope.
  APPLICATION_COMMAND_FIELD_NOT_ALLOWED: 'a field is not valid for this command type or option type',
  APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED: 'USER and MESSAGE commands take no description (only "")',
  APPLICATION_COMMAND_GLOBAL_ONLY: 'dm_permission, integration_types and contexts are for global commands only',
  APPLICATION_COMMAND_CONTEXT_UNSUPPORTED: 'guild commands do not support the BOT_DM context',
  APPLICATION_COMMAND_INTEGRATION_TYPE_UNSUPPORTED: 'an integration type the application does not support',
  APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD: 'PRIMARY_ENTRY_POINT commands cannot be guild commands',
  APPLICATION_COMMAND_HANDLER_NOT_EMBEDDED: 'handler is settable only by applications with Activities (EMBEDDED)',
  APPLICATION_COMMAND_PERMISSIONS_INVALID: 'default_member_permissions is not a permission bit set as a decimal string',
  // Options.
  APPLICATION_COMMAND_OPTIONS_TYPE_INVALID: 'subcommand nesting broken (command > group > subcommand only, no mixing)',
  APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID: 'a required option follows an optional one',
  APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS: 'two options of one options array share a name',
  APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT:
    "an option's localized name equals another option's default name, or another option's name in that locale",
  APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES: 'autocomplete is true while choices are present',
  APPLICATION_COMMAND_OPTION_RANGE_INVALID: 'min_value > max_value, or min_length > max_length',
  // The list of one scope.
  APPLICATION_COMMANDS_DUPLICATE_NAME: 'two commands of the same type share a name in one scope',
  APPLICATION_COMMANDS_DUPLICATE_ID: 'two commands of one bulk overwrite carry the same id',
  APPLICATION_COMMANDS_TOO_MANY: 'more commands of a type than a scope allows (100 / 15 / 15 / 1 global, 0 in a guild)',
  // Plugin definitions (runtime-only fields; never sent).
  DEFINITION_HANDLER_INVALID: 'run / autocomplete is not a function, or sits where it can never be called',
  DEFINITION_GUILDS_INVALID: 'guilds is not a non-empty array of guild ids',
  // Advisories from lintCommands (accepted by the service, but probably not what was meant).
  UNKNOWN_FIELD: 'a field the service does not know (a typo?); the service ignores it',
  DEPRECATED_FIELD: 'a deprecated field (dm_permission: use contexts; default_permission: use default_member_permissions)',
  PRIVATE_CHANNEL_WITHOUT_USER_INSTALL: 'PRIVATE_CHANNEL is meaningful only when integration_types includes USER_INSTALL',
  EMPTY_SUBCOMMAND_GROUP: 'a subcommand group without subcommands does not appear in the command explorer',
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `[0].options[2].name`, `name_localizations.en-US`, `name_localizations["bad key"]`. */
export function renderPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENT.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Field order for sorting: the order fields appear in the spec's tables. */
const FIELD_RANK = new Map(
  [
    'id', 'type', 'name', 'name_localizations', 'description', 'description_localizations', 'required', 'choices',
    'value', 'options', 'channel_types', 'min_value', 'max_value', 'min_length', 'max_length', 'autocomplete',
    'file_types', 'default_member_permissions', 'dm_permission', 'default_permission', 'nsfw', 'integration_types',
    'contexts', 'handler', 'run', 'guilds',
  ].map((f, i) => [f, i]),
);

function compareSegment(a: PathSegment, b: PathSegment): number {
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  if (typeof b === 'number') return 1;
  if (a === b) return 0;
  const ra = FIELD_RANK.get(a) ?? FIELD_RANK.size;
  const rb = FIELD_RANK.get(b) ?? FIELD_RANK.size;
  return ra !== rb ? ra - rb : a < b ? -1 : 1;
}

/** Orders problems as a reader meets them: by index, then by field in spec order, parents before children. */
export function compareProblems(a: Problem, b: Problem): number {
  const n = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const c = compareSegment(a.segments[i]!, b.segments[i]!);
    if (c !== 0) return c;
  }
  return a.segments.length - b.segments.length;
}

export function makeProblem(segments: readonly PathSegment[], code: ProblemCode, message: string): Problem {
  const segs = segments.slice();
  return { path: renderPath(segs), segments: segs, message, code };
}

/** One line per problem, as the CLI prints it. An empty path is the whole command (or the whole list). */
export function formatProblem(p: Problem, root = '(command)'): string {
  return `${p.path === '' ? root : p.path}: ${p.message} (${p.code})`;
}

export interface InnerError {
  code: string;
  message: string;
}

/** A node of the 50035 `errors` tree: children by field name / array index, leaves carry `_errors`. */
export interface ErrorTree {
  _errors?: InnerError[];
  [key: string]: ErrorTree | InnerError[] | undefined;
}

/** An empty `errors` tree. Its nodes have no prototype (see addTreeError). */
export function emptyErrorTree(): ErrorTree {
  return Object.create(null) as ErrorTree;
}

/**
 * Add one leaf error at a path (`['options', 0, 'name']`) of an `errors` tree.
 *
 * Path segments come from the request (locale keys, field names), so every node is a prototype-free object:
 * a segment such as `__proto__` or `constructor` is an ordinary key there, never the way into Object.prototype
 * (on a plain `{}` one such request would set `Object.prototype._errors` for the whole process). A segment
 * named `_errors` cannot be a child beside the leaf list of the same name; its errors join that list.
 */
export function addTreeError(tree: ErrorTree, path: readonly PathSegment[], error: InnerError): void {
  let node = tree;
  for (const seg of path) {
    const key = String(seg);
    if (key === '_errors') continue;
    let child = Object.hasOwn(node, key) ? node[key] : undefined;
    if (child === undefined || Array.isArray(child)) {
      child = emptyErrorTree();
      node[key] = child;
    }
    node = child;
  }
  const leaf = Object.hasOwn(node, '_errors') ? node._errors : undefined;
  if (leaf === undefined) node._errors = [error];
  else leaf.push(error);
}

/**
 * The service's nested `errors` tree for a 50035 "Invalid Form Body": keys are field names or array indexes as
 * strings, each leaf `{ _errors: [{ code, message }] }`; problems about the whole request land in `_errors` at
 * the root.
 */
export function problemsToErrorTree(problems: readonly Problem[]): ErrorTree {
  const root = emptyErrorTree();
  for (const p of problems) addTreeError(root, p.segments, { code: p.code, message: p.message });
  return root;
}

/** The whole 50035 body, as the service answers an invalid command request. */
export function invalidFormBody(problems: readonly Problem[]): { code: 50035; message: string; errors: ErrorTree } {
  return { code: 50035, message: 'Invalid Form Body', errors: problemsToErrorTree(problems) };
}
