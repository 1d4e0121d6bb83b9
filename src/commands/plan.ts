/**
 * Sync plan: what to write so that the registered commands of each scope equal the local definitions, with
 * the fewest writes.
 *
 * Matching. A registered command is matched to a definition by (type, name): names are unique per type and
 * scope, and the create endpoint itself upserts by that key. Then:
 *   unchanged -> nothing; changed -> one edit (PATCH) carrying only the changed top-level fields (each given
 *   field replaces the old value whole, so e.g. all of `options` is sent when one choice changed);
 *   new -> create (POST); gone -> delete.
 * A command that only changed is never deleted and created again: deleting (or renaming) a command destroys
 * its permission overwrites (protocol §S2.7), and every create counts toward the 200-per-day limit.
 *
 * Two refinements of the (type, name) match, both turning a delete + create into one edit:
 * - Entry point: a scope holds at most one PRIMARY_ENTRY_POINT, so a local entry point is matched to the
 *   registered one whatever its name. The one the service creates ("Launch", handler 2) stays when no plugin
 *   defines an entry point; a plugin's own entry point replaces it by an edit (a create would fail: max 1).
 * - Rename (option `detectRenames`, default on): a new definition and a gone command of the same type whose
 *   bodies are equal apart from name / name_localizations become one edit of the name. The rename loses the
 *   permissions either way (protocol §S2.7), but keeps the id, costs one write instead of two and no create.
 *
 * Bulk overwrite or single calls. The bulk overwrite (PUT of the whole scope) is one request whatever the
 * number of changes, but it replaces every command of every type in the scope, and every command in it
 * that did not exist before counts toward the daily create limit. Single calls cost one request each. We use:
 * - nothing when nothing changed (the common boot: zero writes);
 * - single calls when the scope needs fewer than `bulkThreshold` (default 2) writes: for one write, a PATCH of
 *   the changed fields is as cheap in requests as a PUT and far smaller, and touches nothing else;
 * - the bulk overwrite from `bulkThreshold` writes on: one request instead of N saves rate-limit budget (the
 *   command write routes have small buckets), and it costs no extra creates because every command we keep
 *   goes in with its `id` (matched, renamed, and the kept entry point), so only truly new commands count -
 *   exactly as many creates as the single calls would make. Fields sync leaves to the service (see diff.ts)
 *   are copied from the registered command so the PUT does not reset them, and the kept "Launch" is sent back
 *   as it is, since a PUT without it would delete it.
 * `strategy: 'single' | 'bulk'` forces one or the other.
 */
import type { RESTPatchAPIApplicationCommandJSONBody } from 'discord-api-types/v10';
import { normalizeCommand, toRequestBody } from './normalize.js';
import { diffNormalized, type FieldChange } from './diff.js';
import { COMMAND_TYPE_NAMES, CommandType, DEFAULT_ENTRY_POINT_NAME } from './constants.js';
import {
  OPTIONAL_MANAGED_FIELDS,
  scopeKey,
  type CommandPayload,
  type NormalizedCommand,
  type RegisteredCommand,
  type Scope,
} from './types.js';

export type SyncStrategy = 'auto' | 'single' | 'bulk';

export interface PlanOptions {
  strategy?: SyncStrategy;
  /** With 'auto': use the bulk overwrite when a scope needs at least this many single writes. Default 2. */
  bulkThreshold?: number;
  /** Turn a delete + create of an otherwise identical command into one rename edit. Default true. */
  detectRenames?: boolean;
}

export interface CommandRef {
  type: number;
  name: string;
}

export interface CreateOp extends CommandRef {
  body: CommandPayload;
}

/** The body of an edit (PATCH): only changed fields, each replacing the old value whole. */
export type CommandEditBody = RESTPatchAPIApplicationCommandJSONBody;

export interface EditOp extends CommandRef {
  id: string;
  /** Set when the edit renames the command (permissions are lost on rename, protocol §S2.7). */
  previousName?: string;
  fields: string[];
  changes: FieldChange[];
  body: CommandEditBody;
}

export interface DeleteOp extends CommandRef {
  id: string;
}

export interface KeptCommand extends CommandRef {
  id: string;
  reason: string;
  registered: RegisteredCommand;
}

export interface UnchangedCommand extends CommandRef {
  id: string;
  registered: RegisteredCommand;
}

export interface ScopePlan {
  scope: Scope;
  /** 'global' or 'guild:<id>'. */
  key: string;
  strategy: 'none' | 'single' | 'bulk';
  creates: CreateOp[];
  edits: EditOp[];
  deletes: DeleteOp[];
  unchanged: UnchangedCommand[];
  kept: KeptCommand[];
  /** Single calls needed: creates + edits + deletes. */
  writes: number;
  /** Requests applyPlan will make: 0, 1 (bulk) or `writes`. */
  requests: number;
  /** Commands that count toward the daily create limit. */
  newCommands: number;
  /** The PUT body, when strategy is 'bulk'. */
  bulkBody?: CommandPayload[];
}

export interface SyncPlan {
  scopes: ScopePlan[];
  requests: number;
  newCommands: number;
}

export interface ScopeState {
  scope: Scope;
  /** Local definitions (or payloads) of this scope. Validate them first. */
  desired: readonly unknown[];
  /** What the service holds for this scope (listed with localizations). */
  registered: readonly RegisteredCommand[];
}

function keyOf(n: NormalizedCommand): string {
  return `${n.type}\u0000${n.name}`;
}

function withoutName(n: NormalizedCommand): NormalizedCommand {
  return { ...n, name: '', name_localizations: null };
}

function editBody(local: NormalizedCommand, fields: readonly string[]): CommandEditBody {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    const v = local[f as keyof NormalizedCommand];
    // An emptied options list must be sent as [] to clear the old one.
    body[f] = f === 'options' && v === undefined ? [] : v;
  }
  return body as CommandEditBody;
}

/** Which local command matches which registered one: index arrays, -1 for none. */
interface Matching {
  /** remote index -> local index */
  readonly matchedRemote: Int32Array;
  /** local index -> remote index */
  readonly matchOf: Int32Array;
}

/** The plan of one scope. */
export function planScope(state: ScopeState, options: PlanOptions = {}): ScopePlan {
  const { scope } = state;
  const kind = scope.kind;
  const local = state.desired.map((d) => normalizeCommand(d, kind));
  const remote = state.registered.map((r) => normalizeCommand(r, kind));
  const matching = matchCommands(local, remote, options.detectRenames !== false);

  const plan: ScopePlan = {
    scope,
    key: scopeKey(scope),
    strategy: 'none',
    creates: [],
    edits: [],
    deletes: [],
    unchanged: [],
    kept: [],
    writes: 0,
    requests: 0,
    newCommands: 0,
  };
  planLocal(plan, local, remote, state.registered, matching.matchOf);
  planRemoteLeft(plan, local, remote, state.registered, matching.matchedRemote, kind);

  plan.writes = plan.creates.length + plan.edits.length + plan.deletes.length;
  plan.newCommands = plan.creates.length;
  if (plan.writes === 0) return plan;

  const strategy = options.strategy ?? 'auto';
  const threshold = options.bulkThreshold ?? 2;
  const bulk = strategy === 'bulk' || (strategy === 'auto' && plan.writes >= threshold);
  plan.strategy = bulk ? 'bulk' : 'single';
  plan.requests = bulk ? 1 : plan.writes;
  if (bulk) plan.bulkBody = bulkBody(local, matching.matchOf, remote, state.registered, plan.kept);
  return plan;
}

/** Pair local and registered commands: by type and name, then the one entry point, then renames. */
function matchCommands(local: readonly NormalizedCommand[], remote: readonly NormalizedCommand[], detectRenames: boolean): Matching {
  const remoteByKey = new Map<string, number>();
  for (let i = 0; i < remote.length; i++) {
    const k = keyOf(remote[i]!);
    if (!remoteByKey.has(k)) remoteByKey.set(k, i);
  }
  const matchedRemote = new Int32Array(remote.length).fill(-1);
  const matchOf = new Int32Array(local.length).fill(-1);
  for (let li = 0; li < local.length; li++) {
    const ri = remoteByKey.get(keyOf(local[li]!));
    if (ri !== undefined && matchedRemote[ri] === -1) {
      matchedRemote[ri] = li;
      matchOf[li] = ri;
    }
  }
  // At most one entry point per scope: match it whatever its name.
  for (let li = 0; li < local.length; li++) {
    if (matchOf[li] !== -1 || local[li]!.type !== CommandType.PRIMARY_ENTRY_POINT) continue;
    const ri = remote.findIndex((r, i) => r.type === CommandType.PRIMARY_ENTRY_POINT && matchedRemote[i] === -1);
    if (ri >= 0) {
      matchedRemote[ri] = li;
      matchOf[li] = ri;
    }
  }
  // Renames: a new definition equal to a gone command apart from its name.
  if (detectRenames) {
    for (let li = 0; li < local.length; li++) {
      if (matchOf[li] !== -1) continue;
      const bare = withoutName(local[li]!);
      for (let ri = 0; ri < remote.length; ri++) {
        if (matchedRemote[ri] !== -1 || remote[ri]!.type !== bare.type) continue;
        if (diffNormalized(bare, withoutName(remote[ri]!)).equal) {
          matchedRemote[ri] = li;
          matchOf[li] = ri;
          break;
        }
      }
    }
  }
  return { matchedRemote, matchOf };
}

/** Each local command: a create, an edit or unchanged. */
function planLocal(
  plan: ScopePlan,
  local: readonly NormalizedCommand[],
  remote: readonly NormalizedCommand[],
  registered: readonly RegisteredCommand[],
  matchOf: Int32Array,
): void {
  for (let li = 0; li < local.length; li++) {
    const n = local[li]!;
    const ri = matchOf[li]!;
    if (ri === -1) {
      plan.creates.push({ type: n.type, name: n.name, body: toRequestBody(n) });
      continue;
    }
    const reg = registered[ri]!;
    const d = diffNormalized(n, remote[ri]!);
    if (d.equal) {
      plan.unchanged.push({ type: n.type, name: n.name, id: reg.id, registered: reg });
    } else {
      const edit: EditOp = {
        type: n.type,
        name: n.name,
        id: reg.id,
        fields: d.fields,
        changes: d.changes,
        body: editBody(n, d.fields),
      };
      if (remote[ri]!.name !== n.name) edit.previousName = remote[ri]!.name;
      plan.edits.push(edit);
    }
  }
}

/** Each registered command no local one matched: deleted, or kept when it is the global entry point. */
function planRemoteLeft(
  plan: ScopePlan,
  local: readonly NormalizedCommand[],
  remote: readonly NormalizedCommand[],
  registered: readonly RegisteredCommand[],
  matchedRemote: Int32Array,
  kind: Scope['kind'],
): void {
  const localHasEntryPoint = local.some((n) => n.type === CommandType.PRIMARY_ENTRY_POINT);
  for (let ri = 0; ri < remote.length; ri++) {
    if (matchedRemote[ri] !== -1) continue;
    const r = remote[ri]!;
    const reg = registered[ri]!;
    if (r.type === CommandType.PRIMARY_ENTRY_POINT && !localHasEntryPoint && kind === 'global') {
      const reason =
        r.name === DEFAULT_ENTRY_POINT_NAME
          ? 'the entry point the service created for Activities; kept while no plugin defines one'
          : 'the registered entry point; kept while no plugin defines one';
      plan.kept.push({ type: r.type, name: r.name, id: reg.id, reason, registered: reg });
    } else {
      plan.deletes.push({ type: r.type, name: r.name, id: reg.id });
    }
  }
}

/** The PUT body: every local command (with the id it keeps), then the kept commands as registered. */
function bulkBody(
  local: readonly NormalizedCommand[],
  matchOf: Int32Array,
  remote: readonly NormalizedCommand[],
  registered: readonly RegisteredCommand[],
  kept: readonly KeptCommand[],
): CommandPayload[] {
  const out: CommandPayload[] = [];
  for (let li = 0; li < local.length; li++) {
    const ri = matchOf[li]!;
    if (ri === -1) {
      out.push(toRequestBody(local[li]!));
      continue;
    }
    // Fields left to the service keep their registered values (a PUT would otherwise reset them). contexts and
    // dm_permission say the same thing twice (dm_permission follows contexts): when the definition sets one,
    // the registered value of the other could contradict it, and is left out, as an edit would leave it.
    const own = local[li]!;
    const merged: NormalizedCommand = { ...own };
    const r = remote[ri]!;
    for (const f of OPTIONAL_MANAGED_FIELDS) {
      if (own[f] !== undefined || r[f] === undefined) continue;
      if ((f === 'dm_permission' && own.contexts !== undefined) || (f === 'contexts' && own.dm_permission !== undefined)) continue;
      (merged as unknown as Record<string, unknown>)[f] = r[f];
    }
    out.push(toRequestBody(merged, registered[ri]!.id));
  }
  for (const k of kept) {
    const i = registered.indexOf(k.registered);
    out.push(toRequestBody(remote[i]!, k.id));
  }
  return out;
}

/** Plans every scope. Scopes with registered commands but no definitions must be passed with `desired: []`. */
export function planSync(states: readonly ScopeState[], options: PlanOptions = {}): SyncPlan {
  const scopes = states.map((s) => planScope(s, options));
  let requests = 0;
  let newCommands = 0;
  for (const s of scopes) {
    requests += s.requests;
    newCommands += s.newCommands;
  }
  return { scopes, requests, newCommands };
}

function label(ref: CommandRef): string {
  return ref.type === CommandType.CHAT_INPUT ? `/${ref.name}` : `${ref.name} (${COMMAND_TYPE_NAMES[ref.type] ?? ref.type})`;
}

/** Human-readable lines, one per operation, for `gatehouse commands diff` and logs. */
export function describePlan(plan: SyncPlan): string[] {
  const lines: string[] = [];
  for (const s of plan.scopes) {
    const how =
      s.strategy === 'none'
        ? 'up to date'
        : s.strategy === 'bulk'
          ? `${s.writes} changes in one bulk overwrite`
          : `${s.writes} request${s.writes === 1 ? '' : 's'}`;
    lines.push(`${s.key}: ${how} (${s.unchanged.length} unchanged, ${s.newCommands} new)`);
    for (const c of s.creates) lines.push(`  create ${label(c)}`);
    for (const e of s.edits) {
      const rename = e.previousName !== undefined ? ` (renamed from '${e.previousName}'; its permissions are lost)` : '';
      lines.push(`  edit   ${label(e)}${rename}: ${e.changes.map((c) => c.path).join(', ')}`);
    }
    for (const d of s.deletes) lines.push(`  delete ${label(d)} (its permissions are lost)`);
    for (const k of s.kept) lines.push(`  keep   ${label(k)}: ${k.reason}`);
  }
  return lines;
}
