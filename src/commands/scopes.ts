/**
 * Grouping plugin definitions into scopes: global, or each guild named in `guilds: [...]`.
 *
 * Development mode (`devGuildId`) registers everything in that one guild instead: guild commands are live
 * immediately there, which global commands are not. The global scope is then left alone (no group for it).
 * Entry points cannot be guild commands, so they are skipped in development mode; the global-only fields
 * (dm_permission, integration_types, contexts) are dropped from the copies put into the guild. Each such
 * adjustment is returned as a note.
 */
import { CommandType } from './constants.js';
import { GLOBAL_SCOPE, guildScope, scopeKey, type Scope } from './types.js';

export interface ScopeGroup<D> {
  scope: Scope;
  commands: D[];
  /** For each command, its index in the input (to name it in problems and logs). */
  sources: number[];
}

export interface GroupOptions {
  /** Development mode: every command goes to this guild. */
  devGuildId?: string;
}

export interface GroupResult<D> {
  /** Global first (when any), then guilds in the order first named. */
  groups: ScopeGroup<D>[];
  notes: { index: number; message: string }[];
}

const GLOBAL_ONLY_FIELDS = ['dm_permission', 'integration_types', 'contexts'] as const;

function field(def: unknown, name: string): unknown {
  return typeof def === 'object' && def !== null ? (def as Record<string, unknown>)[name] : undefined;
}

export function groupByScope<D>(defs: readonly D[], options: GroupOptions = {}): GroupResult<D> {
  const byKey = new Map<string, ScopeGroup<D>>();
  const notes: GroupResult<D>['notes'] = [];
  const add = (scope: Scope, def: D, index: number): void => {
    const k = scopeKey(scope);
    let g = byKey.get(k);
    if (g === undefined) byKey.set(k, (g = { scope, commands: [], sources: [] }));
    g.commands.push(def);
    g.sources.push(index);
  };

  defs.forEach((def, index) => {
    const dev = options.devGuildId;
    if (dev !== undefined) {
      if (field(def, 'type') === CommandType.PRIMARY_ENTRY_POINT) {
        notes.push({ index, message: 'entry point command skipped: it cannot be a guild command (development mode)' });
        return;
      }
      const dropped = GLOBAL_ONLY_FIELDS.filter((f) => field(def, f) !== undefined);
      if (dropped.length > 0) {
        const copy = { ...(def as object) } as Record<string, unknown>;
        for (const f of dropped) delete copy[f];
        notes.push({ index, message: `${dropped.join(', ')} dropped: global commands only (development mode)` });
        add(guildScope(dev), copy as D, index);
      } else {
        add(guildScope(dev), def, index);
      }
      return;
    }
    const guilds = field(def, 'guilds');
    if (Array.isArray(guilds) && guilds.length > 0) {
      const seen = new Set<string>();
      for (const g of guilds) {
        if (typeof g !== 'string' || seen.has(g)) continue;
        seen.add(g);
        add(guildScope(g), def, index);
      }
    } else {
      add(GLOBAL_SCOPE, def, index);
    }
  });
  const global = byKey.get('global');
  const groups = [...byKey.values()].filter((g) => g !== global);
  if (global !== undefined) groups.unshift(global);
  return { groups, notes };
}
