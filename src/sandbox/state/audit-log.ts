/**
 * The audit log of each guild (discord-api-docs "Audit Log" resource): what the sandbox's modelled changes
 * record, one line per change from the route that made it. Each entry also goes out as
 * GUILD_AUDIT_LOG_ENTRY_CREATE (intent GUILD_MODERATION, and only to a bot with VIEW_AUDIT_LOG: protocol §9). Bounded: the newest MAX_AUDIT_ENTRIES per
 * guild are kept (the service keeps 45 days; a sandbox that runs for long keeps the last ones).
 */
import type { GuildRecord } from './model.js';
import { P } from './permissions.js';
import type { SandboxStore } from './store.js';

export const MAX_AUDIT_ENTRIES = 1000;

/** Audit log action types the sandbox records (discord-api-docs "Audit Log Events"). */
export const AuditAction = {
  CHANNEL_CREATE: 10,
  CHANNEL_UPDATE: 11,
  CHANNEL_DELETE: 12,
  MEMBER_KICK: 20,
  MEMBER_BAN_ADD: 22,
  MEMBER_BAN_REMOVE: 23,
  MEMBER_UPDATE: 24,
  MEMBER_ROLE_UPDATE: 25,
  ROLE_CREATE: 30,
  ROLE_UPDATE: 31,
  ROLE_DELETE: 32,
  INVITE_CREATE: 40,
  INVITE_DELETE: 42,
  WEBHOOK_CREATE: 50,
  WEBHOOK_UPDATE: 51,
  WEBHOOK_DELETE: 52,
} as const;

export interface AuditChange {
  key: string;
  old_value?: unknown;
  new_value?: unknown;
}

export interface AuditEntry {
  id: string;
  actionType: number;
  /** Who made the change: the bot, in the sandbox. */
  userId: string;
  targetId: string | null;
  changes: AuditChange[];
  options: Record<string, string> | null;
  reason: string | null;
}

export interface AuditInput {
  action: number;
  targetId: string | null;
  /** `X-Audit-Log-Reason` of the request (guild-access.ts `auditReason`). */
  reason: string | null;
  changes?: AuditChange[];
  options?: Record<string, string>;
}

const logs = new WeakMap<SandboxStore, Map<string, AuditEntry[]>>();

/** A guild's entries, oldest first. */
export function auditEntries(store: SandboxStore, guildId: string): readonly AuditEntry[] {
  return logs.get(store)?.get(guildId) ?? [];
}

/** The entry as the service sends it (REST and GUILD_AUDIT_LOG_ENTRY_CREATE): absent fields absent. */
export function auditEntryObject(e: AuditEntry): Record<string, unknown> {
  const o: Record<string, unknown> = { id: e.id, action_type: e.actionType, user_id: e.userId, target_id: e.targetId };
  if (e.changes.length > 0) o.changes = e.changes;
  if (e.options !== null) o.options = e.options;
  if (e.reason !== null) o.reason = e.reason;
  return o;
}

/** Record a change the bot made in a guild, and dispatch it. */
export function recordAudit(store: SandboxStore, guildId: string, input: AuditInput): void {
  let byGuild = logs.get(store);
  if (byGuild === undefined) logs.set(store, (byGuild = new Map()));
  let list = byGuild.get(guildId);
  if (list === undefined) byGuild.set(guildId, (list = []));
  const entry: AuditEntry = {
    id: store.ids.next(),
    actionType: input.action,
    userId: store.applicationId,
    targetId: input.targetId,
    changes: input.changes ?? [],
    options: input.options ?? null,
    reason: input.reason,
  };
  list.push(entry);
  if (list.length > MAX_AUDIT_ENTRIES) list.splice(0, list.length - MAX_AUDIT_ENTRIES);
  const guild = store.guild(guildId);
  if (guild === undefined || (store.permissionsOf(guild, store.applicationId) & P.VIEW_AUDIT_LOG) === 0n) return;
  store.emit(guildId, 'GUILD_AUDIT_LOG_ENTRY_CREATE', JSON.stringify({ ...auditEntryObject(entry), guild_id: guildId }));
}

/** Changes between two versions of a record, for the keys given (only the keys whose value changed). */
export function changesOf(before: Record<string, unknown> | null, after: Record<string, unknown> | null, keys: readonly string[]): AuditChange[] {
  const out: AuditChange[] = [];
  for (const key of keys) {
    const was = before?.[key];
    const now = after?.[key];
    if (JSON.stringify(was) === JSON.stringify(now)) continue;
    const change: AuditChange = { key };
    if (was !== undefined) change.old_value = was;
    if (now !== undefined) change.new_value = now;
    out.push(change);
  }
  return out;
}

/** MEMBER_ROLE_UPDATE changes: `$add` / `$remove` with the roles' ids and names (only the keys that apply). */
export function roleChanges(guild: GuildRecord, before: readonly string[], after: readonly string[]): AuditChange[] {
  const named = (ids: string[]): Array<{ id: string; name: string }> => ids.map((id) => ({ id, name: guild.roles.find((r) => r.id === id)?.name ?? '' }));
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const out: AuditChange[] = [];
  if (added.length > 0) out.push({ key: '$add', new_value: named(added) });
  if (removed.length > 0) out.push({ key: '$remove', new_value: named(removed) });
  return out;
}
