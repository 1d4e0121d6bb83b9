/**
 * Deep diff of a local command against a registered one, on normalized forms.
 *
 * `integration_types`, `contexts`, `dm_permission` and `default_permission` are compared only when the local
 * definition sets them: their server default depends on the application's settings (integration_types), on
 * each other (dm_permission follows contexts) or is legacy, so a definition that leaves them out leaves them
 * to the service, and a sync never rewrites them behind the owner's back. To reset one, set it explicitly.
 */
import { normalizeCommand } from './normalize.js';
import { renderPath, type PathSegment } from './problems.js';
import { OPTIONAL_MANAGED_FIELDS, type NormalizedCommand, type ScopeKind } from './types.js';
import { isObject } from '../util/is-object.js';

export interface FieldChange {
  /** `description`, `options[0].choices[2].name`, ... */
  path: string;
  segments: PathSegment[];
  /** The registered value (undefined when the registered command lacks it). */
  before: unknown;
  /** The local value (undefined when the local definition lacks it). */
  after: unknown;
}

export interface CommandDiff {
  equal: boolean;
  /** Top-level fields that differ, in field order: what an edit must send. */
  fields: (keyof NormalizedCommand)[];
  changes: FieldChange[];
}

const FIELD_ORDER: readonly (keyof NormalizedCommand)[] = [
  'type',
  'name',
  'name_localizations',
  'description',
  'description_localizations',
  'options',
  'default_member_permissions',
  'nsfw',
  'handler',
  'default_permission',
  'dm_permission',
  'integration_types',
  'contexts',
];

const OPTIONAL = new Set<string>(OPTIONAL_MANAGED_FIELDS);

function walk(before: unknown, after: unknown, segs: PathSegment[], out: FieldChange[]): void {
  if (before === after) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      segs.push(i);
      walk(i < before.length ? before[i] : undefined, i < after.length ? after[i] : undefined, segs, out);
      segs.pop();
    }
    return;
  }
  if (isObject(before) && isObject(after)) {
    for (const k of Object.keys(after)) {
      segs.push(k);
      walk(before[k], after[k], segs, out);
      segs.pop();
    }
    for (const k of Object.keys(before)) {
      // Own keys only: `in` would also find `constructor` on a plain object that never had it.
      if (Object.hasOwn(after, k)) continue;
      segs.push(k);
      walk(before[k], undefined, segs, out);
      segs.pop();
    }
    return;
  }
  const s = segs.slice();
  out.push({ path: renderPath(s), segments: s, before, after });
}

/** Diff of two normalized commands: `local` is what should be, `registered` what is. */
export function diffNormalized(local: NormalizedCommand, registered: NormalizedCommand): CommandDiff {
  const changes: FieldChange[] = [];
  const fields: (keyof NormalizedCommand)[] = [];
  const segs: PathSegment[] = [];
  for (const f of FIELD_ORDER) {
    const after = local[f];
    if (after === undefined && OPTIONAL.has(f)) continue;
    const before = registered[f];
    const n = changes.length;
    segs.push(f);
    walk(before, after, segs, changes);
    segs.pop();
    if (changes.length > n) fields.push(f);
  }
  return { equal: changes.length === 0, fields, changes };
}

/** Diff of a local definition (or payload) against a registered command, for one scope. */
export function diffCommand(local: unknown, registered: unknown, scope: ScopeKind): CommandDiff {
  return diffNormalized(normalizeCommand(local, scope), normalizeCommand(registered, scope));
}

/** Whether a sync would leave `registered` alone for this local definition. */
export function commandsEqual(local: unknown, registered: unknown, scope: ScopeKind): boolean {
  return diffCommand(local, registered, scope).equal;
}
