/**
 * Load-time checks of declared preconditions, so that a misspelt permission or a window of "10s" keeps the plugin
 * from loading with the field named, instead of letting every user through (or none) at run time.
 */
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { suggestion } from '../../util/did-you-mean.js';
import { isObject } from '../../util/is-object.js';
import { ENGLISH_TEXTS } from './texts.js';

export interface PreconditionProblem {
  path: string;
  message: string;
}

const KEYS = new Set(['cooldown', 'permissions', 'entitlement', 'guildOnly', 'dmOnly', 'owners', 'nsfw', 'custom']);
const COOLDOWN_KEYS = new Set(['limit', 'windowMs', 'per', 'bucket']);
const SCOPES = ['user', 'member', 'guild', 'channel'];
const PERMISSION_NAMES = Object.keys(PermissionFlagsBits);
const TEXT_KEYS = new Set(Object.keys(ENGLISH_TEXTS));

/** Problems of a `preconditions` object at `path`; none for undefined. */
export function preconditionProblems(value: unknown, path: string): PreconditionProblem[] {
  if (value === undefined) return [];
  if (!isObject(value)) return [{ path, message: 'must be an object of preconditions ({ cooldown, permissions, entitlement, ... })' }];
  const out: PreconditionProblem[] = [];
  for (const key of Object.keys(value)) if (!KEYS.has(key)) out.push({ path: `${path}.${key}`, message: `unknown precondition${suggestion(key, KEYS)}` });
  for (const key of ['guildOnly', 'dmOnly', 'owners', 'nsfw']) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') out.push({ path: `${path}.${key}`, message: 'must be true or false' });
  }
  if (value.guildOnly === true && value.dmOnly === true) out.push({ path: `${path}.dmOnly`, message: 'cannot hold together with guildOnly: nobody could run this' });
  out.push(...cooldownProblems(value.cooldown, `${path}.cooldown`));
  out.push(...permissionProblems(value.permissions, `${path}.permissions`));
  const e = value.entitlement;
  if (e !== undefined && e !== null && typeof e !== 'string') {
    if (!isObject(e) || typeof e.sku !== 'string') out.push({ path: `${path}.entitlement`, message: 'must be a SKU id, or { sku, owner? }' });
    else if (e.owner !== undefined && e.owner !== 'user' && e.owner !== 'guild') out.push({ path: `${path}.entitlement.owner`, message: 'must be "user" or "guild"' });
  }
  const c = value.custom;
  if (c !== undefined && c !== null && typeof c !== 'function' && !(Array.isArray(c) && c.every((f) => typeof f === 'function'))) {
    out.push({ path: `${path}.custom`, message: 'must be a function (or a list of them) returning true or the reason' });
  }
  return out;
}

function cooldownProblems(c: unknown, path: string): PreconditionProblem[] {
  if (c === undefined || c === null) return [];
  if (!isObject(c)) return [{ path, message: 'must be { windowMs, limit?, per?, bucket? }' }];
  const out: PreconditionProblem[] = [];
  for (const key of Object.keys(c)) if (!COOLDOWN_KEYS.has(key)) out.push({ path: `${path}.${key}`, message: `unknown key${suggestion(key, COOLDOWN_KEYS)}` });
  if (typeof c.windowMs !== 'number' || !Number.isFinite(c.windowMs) || c.windowMs < 1) out.push({ path: `${path}.windowMs`, message: 'must be a number of milliseconds, 1 or more' });
  if (c.limit !== undefined && (!Number.isInteger(c.limit) || (c.limit as number) < 1)) out.push({ path: `${path}.limit`, message: 'must be a whole number of uses, 1 or more' });
  if (c.per !== undefined && !SCOPES.includes(c.per as string)) out.push({ path: `${path}.per`, message: `must be one of ${SCOPES.join(', ')}` });
  if (c.bucket !== undefined && typeof c.bucket !== 'string') out.push({ path: `${path}.bucket`, message: 'must be a string' });
  return out;
}

function permissionProblems(p: unknown, path: string): PreconditionProblem[] {
  if (p === undefined || p === null) return [];
  if (!isObject(p)) return [{ path, message: 'must be { member?, bot? }' }];
  const out: PreconditionProblem[] = [];
  for (const key of Object.keys(p)) {
    if (key !== 'member' && key !== 'bot') {
      out.push({ path: `${path}.${key}`, message: 'unknown key (member or bot)' });
      continue;
    }
    const list = p[key];
    if (typeof list === 'bigint') continue;
    if (!Array.isArray(list)) {
      out.push({ path: `${path}.${key}`, message: 'must be a list of permission names (PermissionFlagsBits keys) or a bigint' });
      continue;
    }
    list.forEach((name: unknown, i) => {
      if (typeof name !== 'string' || !PERMISSION_NAMES.includes(name)) {
        out.push({ path: `${path}.${key}[${i}]`, message: `${JSON.stringify(name)} is not a permission${typeof name === 'string' ? suggestion(name, PERMISSION_NAMES) : ''}` });
      }
    });
  }
  return out;
}

/** Problems of `preconditionTexts`: locales of known text keys with string values. */
export function textProblems(value: unknown, path: string): PreconditionProblem[] {
  if (value === undefined) return [];
  if (!isObject(value)) return [{ path, message: 'must be an object of translations by locale ({ fr: { cooldown: "..." } })' }];
  const out: PreconditionProblem[] = [];
  for (const locale of Object.keys(value)) {
    const texts = value[locale];
    if (!isObject(texts)) {
      out.push({ path: `${path}.${locale}`, message: 'must be an object of texts' });
      continue;
    }
    for (const key of Object.keys(texts)) {
      if (!TEXT_KEYS.has(key)) out.push({ path: `${path}.${locale}.${key}`, message: `unknown text${suggestion(key, TEXT_KEYS)}` });
      else if (typeof texts[key] !== 'string') out.push({ path: `${path}.${locale}.${key}`, message: 'must be a string' });
    }
  }
  return out;
}

/** Problems of the preconditions a command declares, on it and on its subcommands and groups. */
export function commandPreconditionProblems(command: unknown, path: string, depth = 0): PreconditionProblem[] {
  if (!isObject(command) || depth > 2) return [];
  const out = preconditionProblems(command.preconditions, `${path}.preconditions`);
  if (Array.isArray(command.options)) {
    command.options.forEach((o: unknown, i) => {
      if (isObject(o) && (o.type === 1 || o.type === 2)) out.push(...commandPreconditionProblems(o, `${path}.options[${i}]`, depth + 1));
    });
  }
  return out;
}
