/**
 * Steps of the scripted session (openapi-session.ts) for incoming webhooks, crossposting, invites and the audit
 * log. The first step is refused (the bot has only its own role); then the bot is given the seeded Admin role,
 * which the last step takes away again.
 */
import type { Session, Step } from './openapi-session.js';

const UNKNOWN = '100000000000000001';
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

function keepId(name: string): (body: Record<string, unknown>, s: Session) => void {
  return (body, s) => s.ids.set(name, String(body.id));
}

/** Keeps a webhook's id and token under `name` and `${name}_token`. */
function keepHook(name: string): (body: Record<string, unknown>, s: Session) => void {
  return (body, s) => {
    s.ids.set(name, String(body.id));
    s.ids.set(`${name}_token`, String(body.token));
  };
}

function botRoles(s: Session, admin: boolean): void {
  const guild = s.ids.get('guild')!;
  const roles = s.sb.state.roleIds(guild);
  s.sb.state.updateMember(guild, s.sb.applicationId, { roles: admin ? [roles.at(-1)!, roles.at(-2)!] : [roles.at(-1)!] });
}

const webhooks: Step[] = [
  { name: 'create a webhook without the permission', method: 'POST', path: '/channels/{channel}/webhooks', body: { name: 'Relay' }, before: (s) => botRoles(s, false), status: 403 },
  { name: 'create a webhook', method: 'POST', path: '/channels/{channel}/webhooks', body: { name: 'Relay', avatar: PNG }, before: (s) => botRoles(s, true), status: 200, keep: keepHook('hook') },
  { name: 'create a webhook named clyde', method: 'POST', path: '/channels/{channel}/webhooks', body: { name: 'Clyde' }, status: 400 },
  { name: 'a second webhook', method: 'POST', path: '/channels/{channel}/webhooks', body: { name: 'Spare' }, status: 200, keep: keepHook('spare') },
  { name: "a channel's webhooks", method: 'GET', path: '/channels/{channel}/webhooks', status: 200 },
  { name: "a guild's webhooks", method: 'GET', path: '/guilds/{guild}/webhooks', status: 200 },
  { name: 'a webhook', method: 'GET', path: '/webhooks/{hook}', status: 200 },
  { name: 'an unknown webhook', method: 'GET', path: `/webhooks/${UNKNOWN}`, status: 404 },
  { name: 'edit a webhook', method: 'PATCH', path: '/webhooks/{hook}', body: { name: 'Relay 2', avatar: null }, status: 200 },
  { name: 'edit a webhook, badly', method: 'PATCH', path: '/webhooks/{hook}', body: { name: '' }, status: 400 },
  { name: 'a webhook by its token', method: 'GET', path: '/webhooks/{hook}/{hook_token}', auth: 'none', status: 200 },
  { name: 'a webhook by a wrong token', method: 'GET', path: '/webhooks/{hook}/not-the-token', auth: 'none', status: 401 },
  { name: 'edit a webhook by its token', method: 'PATCH', path: '/webhooks/{hook}/{hook_token}', auth: 'none', body: { name: 'Relay 3' }, status: 200 },
  { name: 'execute a webhook', method: 'POST', path: '/webhooks/{hook}/{hook_token}', auth: 'none', body: { content: 'relayed' }, status: 204 },
  { name: 'execute a webhook and wait', method: 'POST', path: '/webhooks/{hook}/{hook_token}?wait=true', auth: 'none', body: { content: 'relayed', username: 'Bridge' }, status: 200, keep: keepId('hook_message') },
  { name: 'execute a webhook with nothing', method: 'POST', path: '/webhooks/{hook}/{hook_token}?wait=true', auth: 'none', body: {}, status: 400 },
  { name: "a webhook's message", method: 'GET', path: '/webhooks/{hook}/{hook_token}/messages/{hook_message}', auth: 'none', status: 200 },
  { name: "edit a webhook's message", method: 'PATCH', path: '/webhooks/{hook}/{hook_token}/messages/{hook_message}', auth: 'none', body: { content: 'relayed (edited)' }, status: 200 },
  { name: "delete a webhook's message", method: 'DELETE', path: '/webhooks/{hook}/{hook_token}/messages/{hook_message}', auth: 'none', status: 204 },
  { name: "a webhook's deleted message", method: 'GET', path: '/webhooks/{hook}/{hook_token}/messages/{hook_message}', auth: 'none', status: 404 },
  { name: 'delete a webhook by its token', method: 'DELETE', path: '/webhooks/{spare}/{spare_token}', auth: 'none', status: 204 },
  { name: 'delete a webhook', method: 'DELETE', path: '/webhooks/{hook}', status: 204 },
  { name: 'delete a deleted webhook', method: 'DELETE', path: '/webhooks/{hook}', status: 404 },
];

const crosspost: Step[] = [
  { name: 'an announcement channel', method: 'POST', path: '/guilds/{guild}/channels', body: { name: 'news', type: 5 }, status: 201, keep: keepId('news') },
  { name: 'a message to publish', method: 'POST', path: '/channels/{news}/messages', body: { content: 'release notes' }, status: 200, keep: keepId('news_message') },
  { name: 'publish a message', method: 'POST', path: '/channels/{news}/messages/{news_message}/crosspost', status: 200 },
  { name: 'publish it again', method: 'POST', path: '/channels/{news}/messages/{news_message}/crosspost', status: 400 },
  { name: 'publish an unknown message', method: 'POST', path: `/channels/{news}/messages/${UNKNOWN}/crosspost`, status: 404 },
];

function keepCode(name: string): (body: Record<string, unknown>, s: Session) => void {
  return (body, s) => s.ids.set(name, String(body.code));
}

const invites: Step[] = [
  { name: 'create an invite', method: 'POST', path: '/channels/{channel}/invites', body: { max_age: 3600, max_uses: 10, unique: true }, status: 200, keep: keepCode('invite') },
  { name: 'create an invite with defaults', method: 'POST', path: '/channels/{channel}/invites', body: {}, status: 200 },
  { name: 'create an invite, badly', method: 'POST', path: '/channels/{channel}/invites', body: { max_age: -1 }, status: 400 },
  { name: "a channel's invites", method: 'GET', path: '/channels/{channel}/invites', status: 200 },
  { name: "a guild's invites", method: 'GET', path: '/guilds/{guild}/invites', status: 200 },
  { name: 'an invite', method: 'GET', path: '/invites/{invite}?with_counts=true', auth: 'none', status: 200 },
  { name: 'an unknown invite', method: 'GET', path: '/invites/nothing', auth: 'none', status: 404 },
  { name: 'revoke an invite', method: 'DELETE', path: '/invites/{invite}', status: 200 },
  { name: 'revoke it again', method: 'DELETE', path: '/invites/{invite}', status: 404 },
];

const auditLog: Step[] = [
  { name: 'the audit log', method: 'GET', path: '/guilds/{guild}/audit-logs', status: 200 },
  { name: 'the audit log, filtered', method: 'GET', path: '/guilds/{guild}/audit-logs?action_type=50&limit=5', status: 200 },
  { name: 'the audit log with too high a limit', method: 'GET', path: '/guilds/{guild}/audit-logs?limit=500', status: 400 },
  { name: 'the audit log without the permission', method: 'GET', path: '/guilds/{guild}/audit-logs', before: (s) => botRoles(s, false), status: 403 },
];

/** In order: the refused step first, then everything as a bot with Admin. */
export const HOOK_STEPS: readonly Step[] = [...webhooks, ...crosspost, ...invites, ...auditLog];
