/**
 * Normalization: a local definition and the command the service sends back become the same value when nothing
 * changed, whatever the key order, the omitted defaults, or the server-only fields (id, application_id,
 * guild_id, version, name_localized, description_localized, ...). See NormalizedCommand for the rules.
 *
 * Input is expected to be valid (validate first); on broken input these functions do not throw, they coerce.
 */
import type { APIApplicationCommand } from 'discord-api-types/v10';
import { dict } from '../util/dict.js';
import { CommandType, HandlerType, OptionType } from './constants.js';
import type {
  CommandPayload,
  LocalizationDict,
  NormalizedChoice,
  NormalizedCommand,
  NormalizedOption,
  ScopeKind,
} from './types.js';
import { isObject } from '../util/is-object.js';


function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/**
 * null for absent, null and empty dictionaries; otherwise a copy with keys sorted (key order is meaningless).
 * The copy has no prototype: its keys are locales as sent, and `__proto__` must stay a key like any other.
 */
export function normalizeLocalizations(v: unknown): LocalizationDict | null {
  if (!isObject(v)) return null;
  const keys = Object.keys(v);
  if (keys.length === 0) return null;
  keys.sort();
  const out = dict<string>();
  for (const k of keys) {
    const s = v[k];
    if (typeof s === 'string') out[k] = s;
  }
  return out;
}

/** A set of small integers (contexts, integration types, channel types): sorted, without duplicates. */
function intSet(v: unknown): number[] {
  if (!Array.isArray(v)) return [];
  const out: number[] = [];
  for (const x of v) if (isInt(x) && !out.includes(x)) out.push(x);
  return out.sort((a, b) => a - b);
}

const DECIMAL = /^[0-9]+$/;

function permissions(v: unknown): string | null {
  if (typeof v === 'string') return DECIMAL.test(v) ? BigInt(v).toString() : v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return null;
}

function normalizeChoice(c: unknown): NormalizedChoice {
  const o = isObject(c) ? c : {};
  const value = typeof o.value === 'string' || typeof o.value === 'number' ? o.value : '';
  return { name: str(o.name), name_localizations: normalizeLocalizations(o.name_localizations), value };
}

function isValueType(t: number): boolean {
  return t === OptionType.STRING || t === OptionType.INTEGER || t === OptionType.NUMBER;
}

/** Valid commands nest options 3 deep; deeper levels (or cycles in JS objects) are cut off. */
const MAX_DEPTH = 4;

export function normalizeOption(input: unknown, depth = 1): NormalizedOption {
  const o = isObject(input) ? input : {};
  const type = isInt(o.type) ? o.type : 0;
  const out: NormalizedOption = {
    type,
    name: str(o.name),
    name_localizations: normalizeLocalizations(o.name_localizations),
    description: str(o.description),
    description_localizations: normalizeLocalizations(o.description_localizations),
  };
  if (type === OptionType.SUB_COMMAND || type === OptionType.SUB_COMMAND_GROUP) {
    const options = normalizeOptions(o.options, depth + 1);
    if (options.length > 0) out.options = options;
    return out;
  }
  out.required = o.required === true;
  if (isValueType(type)) {
    if (Array.isArray(o.choices) && o.choices.length > 0) out.choices = o.choices.map(normalizeChoice);
    if (o.autocomplete === true) out.autocomplete = true;
  }
  if (type === OptionType.INTEGER || type === OptionType.NUMBER) {
    if (typeof o.min_value === 'number') out.min_value = o.min_value;
    if (typeof o.max_value === 'number') out.max_value = o.max_value;
  }
  if (type === OptionType.STRING) {
    if (isInt(o.min_length)) out.min_length = o.min_length;
    if (isInt(o.max_length)) out.max_length = o.max_length;
  }
  if (type === OptionType.CHANNEL) {
    const ct = intSet(o.channel_types);
    if (ct.length > 0) out.channel_types = ct;
  }
  if (type === OptionType.ATTACHMENT && Array.isArray(o.file_types) && o.file_types.length > 0) {
    out.file_types = o.file_types.filter((x): x is string => typeof x === 'string').sort();
  }
  return out;
}

export function normalizeOptions(v: unknown, depth = 1): NormalizedOption[] {
  if (!Array.isArray(v) || depth > MAX_DEPTH) return [];
  return v.map((o) => normalizeOption(o, depth));
}

/**
 * The normalized form of a definition, payload or registered command for one scope. Runtime-only fields and
 * server-only fields are ignored; global-only fields are dropped for guild scope.
 */
export function normalizeCommand(input: unknown, scope: ScopeKind): NormalizedCommand {
  const o = isObject(input) ? input : {};
  const type = isInt(o.type) ? o.type : CommandType.CHAT_INPUT;
  const contextMenu = type === CommandType.USER || type === CommandType.MESSAGE;
  const out: NormalizedCommand = {
    type,
    name: str(o.name),
    name_localizations: normalizeLocalizations(o.name_localizations),
    description: contextMenu ? '' : str(o.description),
    description_localizations: contextMenu ? null : normalizeLocalizations(o.description_localizations),
    default_member_permissions: permissions(o.default_member_permissions),
    nsfw: o.nsfw === true,
  };
  if (type === CommandType.CHAT_INPUT) {
    const options = normalizeOptions(o.options);
    if (options.length > 0) out.options = options;
  }
  if (type === CommandType.PRIMARY_ENTRY_POINT) {
    out.handler = isInt(o.handler) ? o.handler : HandlerType.SERVICE_LAUNCH_ACTIVITY;
  }
  // default_permission (legacy) defaults to true, so null and true are the same setting.
  if (o.default_permission !== undefined) out.default_permission = o.default_permission !== false;
  if (scope === 'global') {
    if (o.integration_types !== undefined) out.integration_types = intSet(o.integration_types);
    if (o.contexts !== undefined) out.contexts = o.contexts === null ? null : intSet(o.contexts);
    // dm_permission: null means the default, which is visible.
    if (o.dm_permission !== undefined) out.dm_permission = o.dm_permission !== false;
  }
  return out;
}

/**
 * The body to send for a normalized command (create, or a bulk overwrite item). USER and MESSAGE commands get
 * no description fields: they accept none on creation.
 */
export function toRequestBody(n: NormalizedCommand, id?: string): CommandPayload {
  const body: Record<string, unknown> = {};
  if (id !== undefined) body.id = id;
  body.type = n.type;
  body.name = n.name;
  body.name_localizations = n.name_localizations;
  if (n.type !== CommandType.USER && n.type !== CommandType.MESSAGE) {
    body.description = n.description;
    body.description_localizations = n.description_localizations;
  }
  if (n.options !== undefined) body.options = n.options;
  body.default_member_permissions = n.default_member_permissions;
  body.nsfw = n.nsfw;
  if (n.handler !== undefined) body.handler = n.handler;
  if (n.default_permission !== undefined) body.default_permission = n.default_permission;
  if (n.dm_permission !== undefined) body.dm_permission = n.dm_permission;
  if (n.integration_types !== undefined) body.integration_types = n.integration_types;
  if (n.contexts !== undefined) body.contexts = n.contexts;
  return body as unknown as CommandPayload;
}

export interface ServerCommandMeta {
  id: string;
  applicationId: string;
  version: string;
  /** Set for guild commands. */
  guildId?: string;
  /** The application's configured installation contexts: the default of integration_types. Default [0]. */
  appIntegrationTypes?: readonly number[];
}

/**
 * The command object the service would return for a definition (with_localizations=true): server fields set,
 * every default filled in. For the sandbox, and for tests that need a "fetched" command.
 */
export function toServerCommand(input: unknown, scope: ScopeKind, meta: ServerCommandMeta): APIApplicationCommand {
  const n = normalizeCommand(input, scope);
  const out: Record<string, unknown> = {
    id: meta.id,
    application_id: meta.applicationId,
    version: meta.version,
  };
  if (scope === 'guild' && meta.guildId !== undefined) out.guild_id = meta.guildId;
  Object.assign(out, n);
  out.default_permission = n.default_permission ?? true;
  if (scope === 'global') {
    out.integration_types = n.integration_types ?? [...(meta.appIntegrationTypes ?? [0])];
    out.contexts = n.contexts ?? null;
    // dm_permission follows contexts when they are set (BOT_DM present or not).
    out.dm_permission = n.dm_permission ?? (Array.isArray(n.contexts) ? n.contexts.includes(1) : true);
  }
  return out as unknown as APIApplicationCommand;
}
