/**
 * An in-memory stand-in for the service's command endpoints, implementing CommandsPort the way spec 4 describes
 * them: create upserts by (type, name) (new -> a create counted against the daily limit), edit replaces the
 * given fields, delete removes, bulk overwrite replaces the whole scope and counts only commands that did not
 * exist (matched by id, else by type and name). Its answers fill defaults its own way (independent of
 * normalize.ts), with server-only fields. The REST layer and the sandbox replace it in integration tests.
 */
import type { CommandPayload, CommandsPort, RegisteredCommand, Scope } from '../../src/commands/index.js';
import { scopeKey } from '../../src/commands/index.js';

type Stored = Record<string, unknown> & { id: string; type: number; name: string };

export interface Call {
  method: 'list' | 'create' | 'edit' | 'delete' | 'bulkOverwrite';
  scope: string;
  id?: string;
  body?: unknown;
}

export class FakeService implements CommandsPort {
  readonly scopes = new Map<string, Stored[]>();
  readonly calls: Call[] = [];
  creates = 0;
  private nextId = 1000n;
  /** Make the next write to this scope fail. */
  failNextWrite = new Set<string>();

  constructor(readonly applicationId = '1100000000000000000') {}

  private list0(scope: Scope): Stored[] {
    const k = scopeKey(scope);
    let l = this.scopes.get(k);
    if (l === undefined) this.scopes.set(k, (l = []));
    return l;
  }

  private answer(scope: Scope, c: Stored): RegisteredCommand {
    const out: Record<string, unknown> = {
      nsfw: false,
      default_member_permissions: null,
      name_localizations: null,
      description_localizations: null,
      ...c,
      application_id: this.applicationId,
      version: String(this.nextId++),
      name_localized: c.name,
    };
    if (out.description === undefined) out.description = '';
    if (scope.kind === 'guild') out.guild_id = scope.guildId;
    else {
      out.dm_permission ??= true;
      out.integration_types ??= [0];
      out.contexts ??= null;
    }
    return structuredClone(out) as unknown as RegisteredCommand;
  }

  private write(scope: Scope): void {
    const k = scopeKey(scope);
    if (this.failNextWrite.delete(k)) throw new Error(`fake service: write to ${k} failed`);
  }

  /** Seeds a registered command without counting it as a call. */
  seed(scope: Scope, body: Record<string, unknown>): RegisteredCommand {
    const c = { type: 1, ...structuredClone(body), id: String(this.nextId++) } as Stored;
    this.list0(scope).push(c);
    return this.answer(scope, c);
  }

  async list(scope: Scope): Promise<RegisteredCommand[]> {
    this.calls.push({ method: 'list', scope: scopeKey(scope) });
    return this.list0(scope).map((c) => this.answer(scope, c));
  }

  async create(scope: Scope, body: CommandPayload): Promise<RegisteredCommand> {
    this.calls.push({ method: 'create', scope: scopeKey(scope), body });
    this.write(scope);
    const l = this.list0(scope);
    const type = (body.type as number | undefined) ?? 1;
    const i = l.findIndex((c) => c.type === type && c.name === body.name);
    if (i >= 0) {
      // Upsert: an existing command of that name is overwritten, keeping its id.
      l[i] = { ...structuredClone(body), type, id: l[i]!.id } as Stored;
      return this.answer(scope, l[i]!);
    }
    this.creates++;
    const c = { ...structuredClone(body), type, id: String(this.nextId++) } as Stored;
    l.push(c);
    return this.answer(scope, c);
  }

  async edit(scope: Scope, id: string, body: Partial<CommandPayload>): Promise<RegisteredCommand> {
    this.calls.push({ method: 'edit', scope: scopeKey(scope), id, body });
    this.write(scope);
    const c = this.list0(scope).find((x) => x.id === id);
    if (c === undefined) throw new Error(`fake service: unknown command ${id}`);
    Object.assign(c, structuredClone(body));
    return this.answer(scope, c);
  }

  async delete(scope: Scope, id: string): Promise<void> {
    this.calls.push({ method: 'delete', scope: scopeKey(scope), id });
    this.write(scope);
    const l = this.list0(scope);
    const i = l.findIndex((x) => x.id === id);
    if (i < 0) throw new Error(`fake service: unknown command ${id}`);
    l.splice(i, 1);
  }

  async bulkOverwrite(scope: Scope, body: CommandPayload[]): Promise<RegisteredCommand[]> {
    this.calls.push({ method: 'bulkOverwrite', scope: scopeKey(scope), body });
    this.write(scope);
    const old = this.list0(scope);
    const next: Stored[] = body.map((item) => {
      const type = (item.type as number | undefined) ?? 1;
      const { id: _given, ...rest } = item;
      const prev = item.id !== undefined ? old.find((c) => c.id === item.id) : old.find((c) => c.type === type && c.name === item.name);
      if (prev === undefined) this.creates++;
      return { ...structuredClone(rest), type, id: prev?.id ?? String(this.nextId++) } as Stored;
    });
    this.scopes.set(scopeKey(scope), next);
    return next.map((c) => this.answer(scope, c));
  }

  writes(): Call[] {
    return this.calls.filter((c) => c.method !== 'list');
  }
}
