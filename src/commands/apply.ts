/**
 * Carrying out a sync plan through a port. This module does no I/O of its own: the REST layer implements
 * CommandsPort (and the sandbox tests can implement it in memory).
 */
import { planSync, type CommandEditBody, type PlanOptions, type ScopePlan, type SyncPlan } from './plan.js';
import { scopeKey, type CommandPayload, type RegisteredCommand, type Scope } from './types.js';

/** Command endpoints of one application, per scope (global, or one guild). */
export interface CommandsPort {
  /** GET .../commands?with_localizations=true: the full localization dictionaries are needed to diff. */
  list(scope: Scope): Promise<RegisteredCommand[]>;
  /** POST .../commands */
  create(scope: Scope, body: CommandPayload): Promise<RegisteredCommand>;
  /** PATCH .../commands/{id}: each given field replaces the old value. */
  edit(scope: Scope, commandId: string, body: CommandEditBody): Promise<RegisteredCommand>;
  /** DELETE .../commands/{id} */
  delete(scope: Scope, commandId: string): Promise<void>;
  /** PUT .../commands: replaces every command of the scope. */
  bulkOverwrite(scope: Scope, body: CommandPayload[]): Promise<RegisteredCommand[]>;
}

export interface ScopeSummary {
  scope: Scope;
  key: string;
  strategy: ScopePlan['strategy'];
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  kept: number;
  /** Requests made through the port (writes only). */
  requests: number;
  /** The scope's commands after the sync, as the service returned them (complete only without error). */
  registered: RegisteredCommand[];
  /** The failure that stopped this scope; other scopes went on. */
  error?: unknown;
}

export interface SyncSummary {
  scopes: ScopeSummary[];
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  requests: number;
  ok: boolean;
}

async function applyScope(plan: ScopePlan, port: CommandsPort): Promise<ScopeSummary> {
  const s: ScopeSummary = {
    scope: plan.scope,
    key: plan.key,
    strategy: plan.strategy,
    created: 0,
    updated: 0,
    deleted: 0,
    unchanged: plan.unchanged.length,
    kept: plan.kept.length,
    requests: 0,
    registered: [],
  };
  try {
    if (plan.strategy === 'bulk' && plan.bulkBody !== undefined) {
      s.requests++;
      s.registered = await port.bulkOverwrite(plan.scope, plan.bulkBody);
      s.created = plan.creates.length;
      s.updated = plan.edits.length;
      s.deleted = plan.deletes.length;
      return s;
    }
    const registered: RegisteredCommand[] = [];
    for (const u of plan.unchanged) registered.push(u.registered);
    for (const k of plan.kept) registered.push(k.registered);
    // Deletes first: they free names and per-type slots (e.g. the 100th CHAT_INPUT) for what follows.
    for (const d of plan.deletes) {
      s.requests++;
      await port.delete(plan.scope, d.id);
      s.deleted++;
    }
    for (const e of plan.edits) {
      s.requests++;
      registered.push(await port.edit(plan.scope, e.id, e.body));
      s.updated++;
    }
    for (const c of plan.creates) {
      s.requests++;
      registered.push(await port.create(plan.scope, c.body));
      s.created++;
    }
    s.registered = registered;
  } catch (error) {
    s.error = error;
  }
  return s;
}

/** Carries out a plan, scope by scope, one request at a time (the REST layer paces them). */
export async function applyPlan(plan: SyncPlan, port: CommandsPort): Promise<SyncSummary> {
  const summary: SyncSummary = { scopes: [], created: 0, updated: 0, deleted: 0, unchanged: 0, requests: 0, ok: true };
  for (const sp of plan.scopes) {
    const s = await applyScope(sp, port);
    summary.scopes.push(s);
    summary.created += s.created;
    summary.updated += s.updated;
    summary.deleted += s.deleted;
    summary.unchanged += s.unchanged;
    summary.requests += s.requests;
    if (s.error !== undefined) summary.ok = false;
  }
  return summary;
}

export interface DesiredScope {
  scope: Scope;
  /** Definitions or payloads of the scope (validated). */
  commands: readonly unknown[];
}

export interface SyncOptions extends PlanOptions {
  /**
   * Scopes to check although no definition names them (e.g. guilds that had commands at the last sync): their
   * commands are deleted. A scope that is neither desired nor listed here is not touched.
   */
  alsoCheck?: readonly Scope[];
  /** Plan only; make no writes. */
  dryRun?: boolean;
}

/** Lists each scope through the port, plans, and (unless dryRun) applies. */
export async function syncCommands(
  desired: readonly DesiredScope[],
  port: CommandsPort,
  options: SyncOptions = {},
): Promise<{ plan: SyncPlan; summary: SyncSummary | null }> {
  const states = new Map<string, { scope: Scope; desired: unknown[] }>();
  for (const d of desired) {
    const k = scopeKey(d.scope);
    const s = states.get(k);
    if (s === undefined) states.set(k, { scope: d.scope, desired: [...d.commands] });
    else s.desired.push(...d.commands);
  }
  for (const scope of options.alsoCheck ?? []) {
    const k = scopeKey(scope);
    if (!states.has(k)) states.set(k, { scope, desired: [] });
  }
  const withRegistered = [];
  for (const s of states.values()) {
    withRegistered.push({ scope: s.scope, desired: s.desired, registered: await port.list(s.scope) });
  }
  const plan = planSync(withRegistered, options);
  if (options.dryRun === true) return { plan, summary: null };
  return { plan, summary: await applyPlan(plan, port) };
}
