/**
 * The service's wording for invalid commands. The sandbox validates with the commands layer (src/commands), whose
 * problem codes and messages are written for a reader at a terminal; the service answers terser codes and
 * messages. Each problem is translated here into the inner error the service sends, at the path it sends it, and
 * the validator's own code and message ride along in an extra `sandbox_detail` field whenever they differ (a
 * client reading only `code` and `message`, like discord.js, sees the service's answer).
 *
 * Sources (real answers of the service, quoted in public issues and bot code; "docs" is discord-api-docs,
 * developers/reference.mdx "Error Messages"):
 * - BASE_TYPE_REQUIRED "This field is required": docs (Object Error); dbm-network/mods#1016 (`2.description`).
 * - BASE_TYPE_BAD_LENGTH "Must be between 1 and 100 in length.": sealbro/go-discord-caller#58
 *   (`1 -> description_localizations -> tr`), LandOfTheRair/LandOfTheRair#441; 2-32 for usernames:
 *   matrix-org/matrix-appservice-discord#123.
 * - BASE_TYPE_MAX_LENGTH "Must be 25 or fewer in length." at `options` / `choices`: TiagoMarinho/Soph#39
 *   (`0.options[2].choices`), Shunshun94/discord-bcdicebot#142 (`options.4.options`).
 * - APPLICATION_COMMAND_TOO_LARGE "Command exceeds maximum size (8000)" at the root: docs (Request Error).
 * - APPLICATION_COMMAND_INVALID_NAME "Command name is invalid" for names breaking the naming rules (characters
 *   or case): Garlic-Team/gcommands#295 (`options[0].name`), interactions-py/interactions.py#172.
 * - APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID "Required options must be placed before non-required options" at
 *   the option (`0.options[2]`): discord.js users' logs in public repositories (search
 *   "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID").
 * - APPLICATION_COMMANDS_DUPLICATE_NAME "Application command names must be unique" at the list item (`errors[i]`):
 *   deploy scripts in public repositories that read `errors[index]._errors[].code`.
 * - APPLICATION_COMMAND_OPTIONS_TYPE_INVALID "Sub-command and sub-command group option types are mutually
 *   exclusive to all other types" at `options`: emulators quoting the service, and bots naming the code.
 * - MODEL_TYPE_CONVERT "Expected an object/dictionary.": a response quoted in bot code (`errors.0._errors`).
 * - BASE_TYPE_CHOICES "Value must be one of (0, 1, 2, 3, 4, 5).": docs (Array Error), the format used for enums.
 * Recalled, not found in a public capture (the usual phrasing of the service's type errors, as the sandbox's
 * other routes use it): STRING_TYPE_CONVERT 'Could not interpret "x" as string.', NUMBER_TYPE_COERCE 'Value "x" is
 * not int.' / 'is not snowflake.' (the latter also quoted by bots for path ids), BOOLEAN_TYPE_CONVERT, DICT_TYPE_CONVERT,
 * LIST_TYPE_CONVERT, ENUM_TYPE_COERCE.
 * Unknown (the validator's code and message are sent as they are): APPLICATION_COMMAND_FIELD_NOT_ALLOWED,
 * _DESCRIPTION_NOT_ALLOWED, _GLOBAL_ONLY, _CONTEXT_UNSUPPORTED, _INTEGRATION_TYPE_UNSUPPORTED, _ENTRY_POINT_IN_GUILD,
 * _HANDLER_NOT_EMBEDDED, _PERMISSIONS_INVALID, _OPTIONS_NAME_ALREADY_EXISTS, _OPTIONS_LOCALIZED_NAME_CONFLICT,
 * _AUTOCOMPLETE_WITH_CHOICES, _OPTION_RANGE_INVALID, APPLICATION_COMMANDS_DUPLICATE_ID, APPLICATION_COMMANDS_TOO_MANY,
 * NUMBER_TYPE_MIN, NUMBER_TYPE_MAX, and subcommand nesting (APPLICATION_COMMAND_OPTIONS_TYPE_INVALID below `type`).
 */
import type { Problem } from '../commands/index.js';
import { addTreeError, emptyErrorTree, type ErrorTree, type InnerError } from './errors.js';

type Segment = string | number;

/** An inner error as the sandbox sends it: the service's code and message, and the validator's detail. */
export interface SandboxInnerError extends InnerError {
  sandbox_detail?: { code: string; message: string };
}

const OPTION_TYPES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const COMMAND_TYPES = [1, 2, 3, 4];
const HANDLER_TYPES = [1, 2];

/** The value at a path of the request body (own properties only: the body came from outside). */
function valueAt(body: unknown, segments: readonly Segment[]): unknown {
  let node: unknown = body;
  for (const seg of segments) {
    if (typeof seg === 'number') {
      if (!Array.isArray(node)) return undefined;
      node = node[seg];
    } else {
      if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, seg)) return undefined;
      node = (node as Record<string, unknown>)[seg];
    }
  }
  return node;
}

function show(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** The allowed values of an enum field, by where it sits: a command's type, an option's type, a handler. */
function enumChoices(segments: readonly Segment[]): number[] | null {
  const last = segments[segments.length - 1];
  if (last === 'handler') return HANDLER_TYPES;
  if (last !== 'type') return null;
  return segments.includes('options') ? OPTION_TYPES : COMMAND_TYPES;
}

/** Where the service reports a problem, when it differs from the validator's path. */
function servicePath(p: Problem): Segment[] {
  // Duplicate command names are reported on the list item, not its name.
  if (p.code === 'APPLICATION_COMMANDS_DUPLICATE_NAME' && p.segments[p.segments.length - 1] === 'name') return p.segments.slice(0, -1);
  return p.segments;
}

/** The service's code and message for one problem; null when the validator's own are kept. */
function serviceWording(p: Problem, body: unknown): InnerError | null {
  const between = /between (\d+) and (\d+)/.exec(p.message);
  const fewer = /(\d+) or fewer/.exec(p.message);
  switch (p.code) {
    case 'BASE_TYPE_REQUIRED':
      return { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
    case 'BASE_TYPE_BAD_LENGTH':
      return between ? { code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between ${between[1]} and ${between[2]} in length.` } : null;
    case 'BASE_TYPE_MAX_LENGTH':
      return fewer ? { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${fewer[1]} or fewer in length.` } : null;
    case 'APPLICATION_COMMAND_TOO_LARGE':
      return { code: 'APPLICATION_COMMAND_TOO_LARGE', message: 'Command exceeds maximum size (8000)' };
    case 'STRING_TYPE_REGEX':
    case 'APPLICATION_COMMAND_NAME_LOWERCASE':
      return { code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' };
    case 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID':
      return { code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', message: 'Required options must be placed before non-required options' };
    case 'APPLICATION_COMMANDS_DUPLICATE_NAME':
      return { code: 'APPLICATION_COMMANDS_DUPLICATE_NAME', message: 'Application command names must be unique' };
    case 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID':
      // Mixing subcommands with other options is reported on the options list itself.
      return p.segments[p.segments.length - 1] === 'options'
        ? { code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', message: 'Sub-command and sub-command group option types are mutually exclusive to all other types' }
        : null;
    case 'MODEL_TYPE_CONVERT':
      return { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' };
    case 'ENUM_TYPE_COERCE': {
      const choices = enumChoices(p.segments);
      if (choices) return { code: 'BASE_TYPE_CHOICES', message: `Value must be one of (${choices.join(', ')}).` };
      return { code: 'ENUM_TYPE_COERCE', message: `Value "${show(valueAt(body, p.segments) ?? p.segments[p.segments.length - 1])}" is not a valid enum value.` };
    }
    case 'NUMBER_TYPE_COERCE': {
      const v = show(valueAt(body, p.segments));
      if (p.message.includes('snowflake')) return { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` };
      if (p.message.includes('integer')) return { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not int.` };
      return { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not a valid number.` };
    }
    case 'STRING_TYPE_CONVERT':
      return { code: 'STRING_TYPE_CONVERT', message: `Could not interpret "${show(valueAt(body, p.segments))}" as string.` };
    case 'BOOLEAN_TYPE_CONVERT':
      return { code: 'BOOLEAN_TYPE_CONVERT', message: 'Must be either true or false.' };
    case 'DICT_TYPE_CONVERT':
      return { code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' };
    case 'LIST_TYPE_CONVERT':
      return { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' };
    default:
      return null;
  }
}

/** One inner error for a problem: the service's wording when known, the validator's detail beside it. */
export function serviceInnerError(p: Problem, body: unknown): SandboxInnerError {
  const wording = serviceWording(p, body);
  if (wording === null) return { code: p.code, message: p.message };
  if (wording.code === p.code && wording.message === p.message) return wording;
  return { ...wording, sandbox_detail: { code: p.code, message: p.message } };
}

/** The 50035 `errors` tree for the problems of a command request, in the service's words. */
export function commandErrorTree(problems: readonly Problem[], body: unknown): ErrorTree {
  const tree = emptyErrorTree();
  for (const p of problems) addTreeError(tree, servicePath(p), serviceInnerError(p, body));
  return tree;
}
