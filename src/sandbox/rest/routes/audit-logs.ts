/**
 * The audit log (discord-api-docs "Audit Log" resource): GET /guilds/{id}/audit-logs with VIEW_AUDIT_LOG (50013
 * otherwise), filtered by `user_id`, `target_id`, `action_type`, paged with `before` / `after` and `limit`
 * (1-100, default 50), newest first. Entries are what the sandbox's modelled changes recorded through
 * state/audit-log.ts; `users` carries the users the entries name, `webhooks` the guild's webhooks they name.
 */
import type { SandboxCore } from '../../core.js';
import { auditEntries, auditEntryObject, type AuditEntry } from '../../state/audit-log.js';
import { P } from '../../state/permissions.js';
import { userObject } from '../../state/serialize.js';
import type { SandboxStore } from '../../state/store.js';
import { webhookObject, webhooksOf } from '../../state/webhooks.js';
import { compareSnowflakes, queryParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { guildOf, requireGuildPermission, type Json } from './guild-access.js';

/** Entries that pass the filters, newest first, one page of them. */
function pageOf(ctx: RestContext, entries: readonly AuditEntry[]): AuditEntry[] {
  const q = queryParams(ctx, { limit: { min: 1, max: 100, fallback: 50 }, action_type: { min: 1, max: 1_000_000, fallback: 0 } }, ['user_id', 'target_id', 'before', 'after']);
  const userId = q.snowflakes.get('user_id');
  const targetId = q.snowflakes.get('target_id');
  const action = q.ints.get('action_type')!;
  const before = q.snowflakes.get('before');
  const after = q.snowflakes.get('after');
  const limit = q.ints.get('limit')!;
  const matching = entries.filter(
    (e) =>
      (userId === undefined || e.userId === userId) &&
      (targetId === undefined || e.targetId === targetId) &&
      (action === 0 || e.actionType === action) &&
      (before === undefined || compareSnowflakes(e.id, before) < 0) &&
      (after === undefined || compareSnowflakes(e.id, after) > 0),
  );
  // Oldest first as kept: `after` pages forward from the oldest, otherwise the newest page is taken.
  const page = after !== undefined && before === undefined ? matching.slice(0, limit) : matching.slice(-limit);
  return page.reverse();
}

function auditLogObject(store: SandboxStore, restBase: string, guildId: string, page: readonly AuditEntry[]): Json {
  const userIds = new Set<string>();
  const targets = new Set<string>();
  for (const e of page) {
    userIds.add(e.userId);
    if (e.targetId !== null) targets.add(e.targetId);
  }
  for (const id of targets) if (store.user(id) !== undefined) userIds.add(id);
  const users = [...userIds].flatMap((id) => {
    const u = store.user(id);
    return u === undefined ? [] : [userObject(u)];
  });
  const webhooks = webhooksOf(store)
    .list({ guildId })
    .filter((w) => targets.has(w.id))
    .map((w) => webhookObject(store, w, restBase, true));
  return {
    audit_log_entries: page.map(auditEntryObject),
    users,
    integrations: [],
    webhooks,
    guild_scheduled_events: [],
    threads: [],
    application_commands: [],
    auto_moderation_rules: [],
  };
}

export function auditLogRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  return [
    {
      method: 'GET',
      path: '/guilds/:guildId/audit-logs',
      bucket: 'audit-log',
      major: 'guildId',
      auth: 'bot',
      handler: (ctx) => {
        const guild = guildOf(store, ctx);
        requireGuildPermission(store, guild, P.VIEW_AUDIT_LOG);
        return { status: 200, body: auditLogObject(store, core.urls.rest, guild.id, pageOf(ctx, auditEntries(store, guild.id))) };
      },
    },
  ];
}
