/**
 * Registered application commands per scope (global, or one guild) with the service's semantics (protocol §S4,
 * §S8, §15.3): upsert by (type, name), edits replace the given fields, bulk overwrite matching by id
 * or (type, name), version snowflakes that change on substantial edits, per-type counts (30032) and the
 * daily create budget per scope (30034). Validation is the commands layer's (src/commands), answered in the
 * service's words (../command-errors.ts); test/fixtures/service-reference holds the documented answers the REST
 * surface must reproduce, independently of that validator.
 */
import {
  CommandType,
  DEFAULT_ENTRY_POINT_NAME,
  HandlerType,
  SCOPE_LIMITS,
  normalizeCommand,
  toServerCommand,
  validateCommand,
  validateCommands,
  type Problem,
  type ScopeKind,
  type ValidateOptions,
} from '../../commands/index.js';
import type { SnowflakeGenerator } from '../../api/snowflake.js';
import { commandErrorTree } from '../command-errors.js';
import { addTreeError, SandboxApiError, emptyErrorTree, Errors, formError, invalidFormBody } from '../errors.js';
import { pickLocalization } from '../locales.js';
import { isObject } from '../../util/is-object.js';

export type StoredCommand = Record<string, unknown> & { id: string; name: string; type: number; version: string };

/** Body fields a create / edit / bulk item may carry. */
const BODY_FIELDS = [
  'name',
  'name_localizations',
  'description',
  'description_localizations',
  'options',
  'default_member_permissions',
  'dm_permission',
  'default_permission',
  'integration_types',
  'contexts',
  'type',
  'nsfw',
  'handler',
] as const;

const DAY_MS = 86_400_000;

export interface CommandRegistryOptions {
  applicationId: string;
  ids: SnowflakeGenerator;
  dailyCreates: number;
  /** Activities enabled (EMBEDDED flag). */
  embedded: boolean;
  appIntegrationTypes: readonly number[];
  /** A command left the scope, or was renamed: its permissions go (protocol §S2.7). */
  onPermissionsDropped: (guildId: string | null, commandId: string) => void;
}

interface Daily {
  count: number;
  resetAt: number;
}

function scopeKind(guildId: string | null): ScopeKind {
  return guildId === null ? 'global' : 'guild';
}

function pickBody(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of BODY_FIELDS) if (input[k] !== undefined) out[k] = input[k];
  return out;
}

/** A 50035 in the service's words, with the validator's detail beside them (see ../command-errors.ts). */
function problemsError(problems: readonly Problem[], body: unknown): SandboxApiError {
  return invalidFormBody(commandErrorTree(problems, body));
}

export class CommandRegistry {
  private readonly scopes = new Map<string, Map<string, StoredCommand>>();
  private readonly daily = new Map<string, Daily>();

  constructor(private readonly o: CommandRegistryOptions) {
    if (o.embedded) {
      // With Activities on, the service creates the entry point "Launch" with handler 2 (protocol §S2.6).
      this.insert(null, { type: CommandType.PRIMARY_ENTRY_POINT, name: DEFAULT_ENTRY_POINT_NAME, description: 'Launch an activity', handler: HandlerType.SERVICE_LAUNCH_ACTIVITY }, null);
    }
  }

  private scope(guildId: string | null): Map<string, StoredCommand> {
    const key = guildId ?? 'global';
    let s = this.scopes.get(key);
    if (s === undefined) {
      s = new Map();
      this.scopes.set(key, s);
    }
    return s;
  }

  list(guildId: string | null): StoredCommand[] {
    return [...this.scope(guildId).values()];
  }

  get(guildId: string | null, id: string): StoredCommand | undefined {
    return this.scope(guildId).get(id);
  }

  /** A command usable in a guild: that guild's, or a global one. */
  find(guildId: string | null, id: string): StoredCommand | undefined {
    return (guildId !== null ? this.scope(guildId).get(id) : undefined) ?? this.scope(null).get(id);
  }

  private validateOptions(guildId: string | null): ValidateOptions {
    return {
      scope: scopeKind(guildId),
      embedded: this.o.embedded,
      appIntegrationTypes: this.o.appIntegrationTypes,
      // The guild bulk overwrite takes them (with defaults), the guild create/edit ignore them: never an error.
      globalOnlyInGuild: 'ignore',
    };
  }

  private build(guildId: string | null, body: Record<string, unknown>, id: string, version: string): StoredCommand {
    const cmd = toServerCommand(body, scopeKind(guildId), {
      id,
      applicationId: this.o.applicationId,
      version,
      ...(guildId !== null ? { guildId } : {}),
      appIntegrationTypes: this.o.appIntegrationTypes,
    }) as unknown as StoredCommand;
    return cmd;
  }

  private insert(guildId: string | null, body: Record<string, unknown>, existing: StoredCommand | null): StoredCommand {
    const id = existing?.id ?? this.o.ids.next();
    const version = existing && this.same(guildId, existing, body) ? existing.version : this.o.ids.next();
    const cmd = this.build(guildId, body, id, version);
    this.scope(guildId).set(id, cmd);
    return cmd;
  }

  /** Whether a body describes the same command (then the version stays). */
  private same(guildId: string | null, existing: StoredCommand, body: Record<string, unknown>): boolean {
    const kind = scopeKind(guildId);
    const a = normalizeCommand(existing, kind);
    const b = normalizeCommand(this.build(guildId, body, existing.id, existing.version), kind);
    return JSON.stringify(a) === JSON.stringify(b);
  }

  private typeOf(body: Record<string, unknown>): number {
    return typeof body.type === 'number' ? body.type : CommandType.CHAT_INPUT;
  }

  private findByName(guildId: string | null, type: number, name: unknown): StoredCommand | undefined {
    for (const c of this.scope(guildId).values()) if (c.type === type && c.name === name) return c;
    return undefined;
  }

  private dailyWindow(guildId: string | null, now: number): Daily {
    const key = guildId ?? 'global';
    let d = this.daily.get(key);
    if (d === undefined || now >= d.resetAt) {
      d = { count: 0, resetAt: now + DAY_MS };
      this.daily.set(key, d);
    }
    return d;
  }

  /** Creates left today in a scope. */
  dailyRemaining(guildId: string | null): number {
    return Math.max(0, this.o.dailyCreates - this.dailyWindow(guildId, Date.now()).count);
  }

  private chargeDaily(guildId: string | null, n: number): void {
    if (n === 0) return;
    const d = this.dailyWindow(guildId, Date.now());
    if (d.count + n > this.o.dailyCreates) throw Errors.maxDailyCreates(this.o.dailyCreates);
    d.count += n;
  }

  /** POST: upsert by (type, name). `created` tells 201 from 200. */
  create(guildId: string | null, input: unknown): { command: StoredCommand; created: boolean } {
    const problems = validateCommand(input, this.validateOptions(guildId));
    if (problems.length > 0) throw problemsError(problems, input);
    const body = pickBody(input as Record<string, unknown>);
    const type = this.typeOf(body);
    const existing = this.findByName(guildId, type, body.name);
    if (existing) return { command: this.insert(guildId, body, existing), created: false };
    const limit = SCOPE_LIMITS[scopeKind(guildId)][type] ?? 0;
    const count = this.list(guildId).filter((c) => c.type === type).length;
    if (count >= limit) throw Errors.maxCommands(limit);
    this.chargeDaily(guildId, 1);
    return { command: this.insert(guildId, body, null), created: true };
  }

  /** PATCH: each given field replaces the old value; `type` cannot change. */
  edit(guildId: string | null, id: string, input: unknown): StoredCommand {
    const existing = this.get(guildId, id);
    if (!existing) throw Errors.unknownCommand();
    if (!isObject(input)) throw formError([], 'MODEL_TYPE_CONVERT', 'Expected an object/dictionary.');
    const patch = pickBody(input);
    const base = pickBody(existing);
    // dm_permission follows contexts: new contexts without a dm_permission of their own set it anew.
    if (patch.contexts !== undefined && patch.dm_permission === undefined) delete base.dm_permission;
    const merged: Record<string, unknown> = { ...base, ...patch, type: existing.type };
    const problems = validateCommand(merged, this.validateOptions(guildId));
    if (problems.length > 0) throw problemsError(problems, merged);
    const clash = this.findByName(guildId, existing.type, merged.name);
    if (clash && clash.id !== id) throw Errors.commandNameExists();
    const renamed = merged.name !== existing.name;
    const cmd = this.insert(guildId, merged, existing);
    if (renamed) this.o.onPermissionsDropped(guildId, id);
    return cmd;
  }

  delete(guildId: string | null, id: string): void {
    if (!this.scope(guildId).delete(id)) throw Errors.unknownCommand();
    this.o.onPermissionsDropped(guildId, id);
  }

  /** PUT: the scope becomes exactly this list. Returns the commands in list order and how many are new. */
  bulk(guildId: string | null, input: unknown): { commands: StoredCommand[]; created: number } {
    const problems = validateCommands(input, this.validateOptions(guildId));
    if (problems.length > 0) throw problemsError(problems, input);
    const items = (input as unknown[]).map((x) => x as Record<string, unknown>);
    const scope = this.scope(guildId);
    const matches: Array<StoredCommand | null> = items.map(() => null);
    const claimed = new Set<string>();
    const tree = emptyErrorTree();
    // Items naming an id claim their command first, so that an earlier item with that command's old name
    // becomes a new command rather than taking it.
    items.forEach((item, i) => {
      if (item.id === undefined || item.id === null) return;
      const match = typeof item.id === 'string' ? scope.get(item.id) : undefined;
      if (!match) addTreeError(tree, [i, 'id'], { code: 'APPLICATION_COMMAND_INVALID_ID', message: 'Unknown application command in this scope.' });
      else {
        matches[i] = match;
        claimed.add(match.id);
      }
    });
    if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
    items.forEach((item, i) => {
      if (item.id !== undefined && item.id !== null) return;
      const match = this.findByName(guildId, this.typeOf(item), item.name);
      if (match && !claimed.has(match.id)) {
        matches[i] = match;
        claimed.add(match.id);
      }
    });
    const created = matches.filter((m) => m === null).length;
    this.chargeDaily(guildId, created);

    for (const old of [...scope.values()]) {
      if (!claimed.has(old.id)) {
        scope.delete(old.id);
        this.o.onPermissionsDropped(guildId, old.id);
      }
    }
    const out = items.map((item, i) => {
      const match = matches[i]!;
      const body = pickBody(item);
      if (match) body.type = match.type;
      const cmd = this.insert(guildId, body, match);
      if (match && match.name !== cmd.name) this.o.onPermissionsDropped(guildId, match.id);
      return cmd;
    });
    return { commands: out, created };
  }
}

/**
 * A command as a GET list shows it: without with_localizations the dictionaries give way to name_localized /
 * description_localized for the requester's locale, on the command and on every option (discord-api-docs,
 * "Retrieving localized commands", whose example shows both) and choice; a locale missing from a dictionary
 * leaves that field out.
 */
export function localizedView(cmd: StoredCommand, locale: string | null, withLocalizations: boolean): Record<string, unknown> {
  if (withLocalizations) return cmd;
  return localizeNode(cmd, locale);
}

function localizeNode(node: Record<string, unknown>, locale: string | null): Record<string, unknown> {
  const { name_localizations, description_localizations, ...rest } = node;
  const out: Record<string, unknown> = rest;
  if (locale !== null) {
    const name = pickLocalization(name_localizations, locale);
    const description = pickLocalization(description_localizations, locale);
    if (name !== undefined) out.name_localized = name;
    if (description !== undefined) out.description_localized = description;
  }
  for (const key of ['options', 'choices'] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((x: unknown) => (isObject(x) ? localizeNode(x, locale) : x));
  }
  return out;
}
