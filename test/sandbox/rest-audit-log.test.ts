/**
 * The audit log through gatehouse's REST client: VIEW_AUDIT_LOG, entries the modelled changes record (webhooks,
 * invites, kicks, bans, roles, channels, member roles) with X-Audit-Log-Reason as `reason`, the filters
 * (user_id, target_id, action_type, before / after, limit) and GUILD_AUDIT_LOG_ENTRY_CREATE under GUILD_MODERATION.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  addMemberRole,
  ApiError,
  banMember,
  createGuildChannel,
  createChannelInvite,
  createRole,
  createWebhook,
  deleteChannel,
  deleteInvite,
  deleteRole,
  deleteWebhook,
  editChannel,
  editRole,
  editWebhook,
  getAuditLog,
  getRole,
  kickMember,
  RestClient,
  unbanMember,
} from '../../src/rest/index.js';
import { createSandbox, DEFAULT_BUCKETS, type Sandbox } from '../../src/sandbox/index.js';
import { identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const GUILDS = 1;
const GUILD_MODERATION = 1 << 2;

async function start(admin = true) {
  const buckets = Object.fromEntries(Object.keys(DEFAULT_BUCKETS).map((n) => [n, { limit: 1000, windowMs: 1000 }]));
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 12 }, gateway: { identifyWindowMs: 0 }, rest: { buckets } });
  sandboxes.push(sb);
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  if (admin) sb.state.updateMember(g, sb.applicationId, { roles: [roles.at(-1)!, roles.at(-2)!] });
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const client = (await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS | GUILD_MODERATION })).client;
  clients.push(client);
  const members = sb.state.memberIds(g).filter((id) => id !== sb.applicationId);
  return { sb, g, rest, client, channel: sb.state.channelIds(g)[0]!, moderator: roles.at(-3)!, a: members[4]!, b: members[5]! };
}

describe('the audit log', () => {
  it('needs VIEW_AUDIT_LOG (403 / 50013)', async () => {
    const { g, rest } = await start(false);
    const err = await getAuditLog(rest, g).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).status, (err as ApiError).code]).toEqual([403, 50013]);
  });

  it('GUILD_AUDIT_LOG_ENTRY_CREATE reaches only a bot with VIEW_AUDIT_LOG; the entry is kept either way', async () => {
    const { sb, g, rest, client } = await start(false);
    const botRole = sb.state.roleIds(g).at(-1)!;
    const MANAGE_ROLES = 1n << 28n;
    const VIEW_AUDIT_LOG = 1n << 7n;
    const base = BigInt((await getRole(rest, g, botRole)).permissions);
    sb.state.channels.updateRole(g, botRole, { permissions: (base | MANAGE_ROLES).toString() });
    const unseen = await createRole(rest, g, { name: 'unseen' });
    sb.state.channels.updateRole(g, botRole, { permissions: (base | MANAGE_ROLES | VIEW_AUDIT_LOG).toString() });
    const seen = await createRole(rest, g, { name: 'seen' });
    expect((await client.nextDispatch('GUILD_AUDIT_LOG_ENTRY_CREATE')).d).toMatchObject({ target_id: seen.id });
    expect(client.dispatches('GUILD_AUDIT_LOG_ENTRY_CREATE').map((p) => (p.d as { target_id: string }).target_id)).toEqual([seen.id]);
    expect((await getAuditLog(rest, g, { action_type: 30 })).audit_log_entries.map((e) => e.target_id)).toEqual([seen.id, unseen.id]);
  });

  it('records the modelled changes, newest first, with the reason and an event for each', async () => {
    const { sb, g, rest, client, channel, moderator, a, b } = await start();
    const hook = await createWebhook(rest, channel, { name: 'Relay' }, { reason: 'bridge to the forum' });
    await editWebhook(rest, hook.id, { name: 'Relay 2' });
    await deleteWebhook(rest, hook.id);
    const inv = await createChannelInvite(rest, channel, { max_age: 0 });
    await deleteInvite(rest, inv.code);
    await kickMember(rest, g, a, { reason: 'spam' });
    await banMember(rest, g, b, {}, { reason: 'raid' });
    await unbanMember(rest, g, b);
    const role = await createRole(rest, g, { name: 'Muted' });
    await editRole(rest, g, role.id, { name: 'Silenced' });
    await addMemberRole(rest, g, sb.state.memberIds(g).find((id) => id !== sb.applicationId && id !== a && id !== b && id !== sb.state.memberIds(g)[0])!, moderator);
    await deleteRole(rest, g, role.id);
    const made = await createGuildChannel(rest, g, { name: 'logs' });
    await editChannel(rest, made.id, { name: 'mod-logs' });
    await deleteChannel(rest, made.id);

    const log = await getAuditLog(rest, g);
    const types = log.audit_log_entries.map((e) => e.action_type);
    expect(types).toEqual([12, 11, 10, 32, 25, 31, 30, 23, 22, 20, 42, 40, 52, 51, 50]);
    const byType = new Map(log.audit_log_entries.map((e) => [e.action_type as number, e]));
    expect(byType.get(50)).toMatchObject({ target_id: hook.id, user_id: sb.applicationId, reason: 'bridge to the forum' });
    expect(byType.get(50)!.changes).toEqual(expect.arrayContaining([{ key: 'name', new_value: 'Relay' }]));
    expect(byType.get(51)!.changes).toEqual([{ key: 'name', old_value: 'Relay', new_value: 'Relay 2' }]);
    expect(byType.get(20)).toMatchObject({ target_id: a, reason: 'spam' });
    expect(byType.get(22)).toMatchObject({ target_id: b, reason: 'raid' });
    expect(byType.get(25)!.changes).toEqual([{ key: '$add', new_value: [{ id: moderator, name: 'Moderator' }] }]);
    expect(byType.get(31)!.changes).toEqual([{ key: 'name', old_value: 'Muted', new_value: 'Silenced' }]);
    expect(byType.get(11)!.changes).toEqual([{ key: 'name', old_value: 'logs', new_value: 'mod-logs' }]);
    expect('reason' in byType.get(51)!).toBe(false);
    expect(log.users.map((u) => u.id)).toEqual(expect.arrayContaining([sb.applicationId, a, b]));
    const event = await client.nextDispatch('GUILD_AUDIT_LOG_ENTRY_CREATE');
    expect(event.d).toMatchObject({ guild_id: g, action_type: 50, target_id: hook.id, reason: 'bridge to the forum' });
  });

  it('filters by action_type, user_id and target_id, and pages with limit, before and after', async () => {
    const { sb, g, rest, channel } = await start();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createRole(rest, g, { name: `r${i}` })).id);
    await createChannelInvite(rest, channel, { unique: true });
    const roles = await getAuditLog(rest, g, { action_type: 30 });
    expect(roles.audit_log_entries.map((e) => e.target_id)).toEqual([...ids].reverse());
    expect((await getAuditLog(rest, g, { target_id: ids[2]! })).audit_log_entries).toHaveLength(1);
    expect((await getAuditLog(rest, g, { user_id: sb.applicationId })).audit_log_entries).toHaveLength(6);
    expect((await getAuditLog(rest, g, { user_id: '100000000000000001' })).audit_log_entries).toEqual([]);
    const all = (await getAuditLog(rest, g, { action_type: 30 })).audit_log_entries.map((e) => e.id);
    const newest2 = await getAuditLog(rest, g, { action_type: 30, limit: 2 });
    expect(newest2.audit_log_entries.map((e) => e.id)).toEqual(all.slice(0, 2));
    const older = await getAuditLog(rest, g, { action_type: 30, before: all[1]!, limit: 2 });
    expect(older.audit_log_entries.map((e) => e.id)).toEqual(all.slice(2, 4));
    const after = await getAuditLog(rest, g, { action_type: 30, after: all[4]!, limit: 2 });
    expect(after.audit_log_entries.map((e) => e.id)).toEqual(all.slice(2, 4));
    const bad = await getAuditLog(rest, g, { limit: 101 }).then(() => null, (e: unknown) => e);
    expect((bad as ApiError).code).toBe(50035);
  });
});
