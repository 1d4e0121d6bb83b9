/**
 * Steps of the scripted session (openapi-session.ts) for the guild-side writes: members, roles, bans,
 * channels, overwrites and threads. The first step is refused (the bot lacks the permission); then the bot is
 * given the seeded Admin role, so the rest answers as for a bot with the permissions it needs.
 */
import type { Session, Step } from './openapi-session.js';

const UNKNOWN = '100000000000000001';

function keepId(name: string): (body: Record<string, unknown>, s: Session) => void {
  return (body, s) => s.ids.set(name, String(body.id));
}

/** The bot gets Admin besides its own role; `kickee` is a plain member nobody else uses. */
function grantAdmin(s: Session): void {
  const guild = s.ids.get('guild')!;
  const roles = s.sb.state.roleIds(guild);
  s.sb.state.updateMember(guild, s.sb.applicationId, { roles: [roles.at(-1)!, roles.at(-2)!] });
  s.ids.set('kickee', s.sb.state.memberIds(guild).filter((id) => id !== s.sb.applicationId)[4]!);
}

/** Back to the bot's own role alone (an earlier group of the session may have given it more). */
function ownRoleOnly(s: Session): void {
  const guild = s.ids.get('guild')!;
  const own = s.ids.get('bot_role');
  if (own !== undefined) s.sb.state.updateMember(guild, s.sb.applicationId, { roles: [own] });
}

const soon = (): string => new Date(Date.now() + 600_000).toISOString();

const members: Step[] = [
  { name: 'edit a member without the permission', method: 'PATCH', path: '/guilds/{guild}/members/{member}', body: { nick: 'x' }, before: ownRoleOnly, status: 403 },
  { name: 'search members', method: 'GET', path: '/guilds/{guild}/members/search?query=u&limit=5', before: grantAdmin, status: 200 },
  { name: 'search members without a query', method: 'GET', path: '/guilds/{guild}/members/search', status: 400 },
  { name: 'time out a member', method: 'PATCH', path: '/guilds/{guild}/members/{member}', body: { nick: 'Quiet', communication_disabled_until: soon() }, status: 200 },
  { name: 'time out too far ahead', method: 'PATCH', path: '/guilds/{guild}/members/{member}', body: { communication_disabled_until: '2999-01-01T00:00:00.000Z' }, status: 400 },
  { name: 'add a role to a member', method: 'PUT', path: '/guilds/{guild}/members/{member}/roles/{role}', status: 204 },
  { name: 'remove a role from a member', method: 'DELETE', path: '/guilds/{guild}/members/{member}/roles/{role}', status: 204 },
  { name: 'add an unknown role', method: 'PUT', path: `/guilds/{guild}/members/{member}/roles/${UNKNOWN}`, status: 404 },
  { name: 'kick a member', method: 'DELETE', path: '/guilds/{guild}/members/{kickee}', status: 204 },
  { name: 'kick the owner', method: 'DELETE', path: '/guilds/{guild}/members/{owner}', status: 403 },
];

const roles: Step[] = [
  { name: 'create a role', method: 'POST', path: '/guilds/{guild}/roles', body: { name: 'Muted', color: 0x99aab5, permissions: '0' }, status: 200, keep: keepId('new_role') },
  { name: 'create a role, badly', method: 'POST', path: '/guilds/{guild}/roles', body: { color: 'red' }, status: 400 },
  { name: 'edit a role', method: 'PATCH', path: '/guilds/{guild}/roles/{new_role}', body: { name: 'Silenced', hoist: true }, status: 200 },
  { name: 'move a role', method: 'PATCH', path: '/guilds/{guild}/roles', body: [{ id: '{new_role}', position: 2 }], status: 200 },
  { name: 'delete a role', method: 'DELETE', path: '/guilds/{guild}/roles/{new_role}', status: 204 },
  { name: 'delete @everyone', method: 'DELETE', path: '/guilds/{guild}/roles/{guild}', status: 400 },
];

const bans: Step[] = [
  { name: 'ban a member', method: 'PUT', path: '/guilds/{guild}/bans/{member}', body: { delete_message_seconds: 0 }, status: 204 },
  { name: 'list bans', method: 'GET', path: '/guilds/{guild}/bans?limit=10', status: 200 },
  { name: 'a ban', method: 'GET', path: '/guilds/{guild}/bans/{member}', status: 200 },
  { name: 'an unknown ban', method: 'GET', path: `/guilds/{guild}/bans/${UNKNOWN}`, status: 404 },
  { name: 'lift a ban', method: 'DELETE', path: '/guilds/{guild}/bans/{member}', status: 204 },
  { name: 'bulk-ban', method: 'POST', path: '/guilds/{guild}/bulk-ban', body: { user_ids: ['{member}'] }, status: 200 },
  { name: 'bulk-ban nobody new', method: 'POST', path: '/guilds/{guild}/bulk-ban', body: { user_ids: ['{member}'] }, status: 400 },
];

const channels: Step[] = [
  { name: 'create a channel', method: 'POST', path: '/guilds/{guild}/channels', body: { name: 'mod-log', topic: 'what happened' }, status: 201, keep: keepId('new_channel') },
  { name: 'create a channel of no type', method: 'POST', path: '/guilds/{guild}/channels', body: { name: 'x', type: 99 }, status: 400 },
  { name: 'move channels', method: 'PATCH', path: '/guilds/{guild}/channels', body: [{ id: '{new_channel}', position: 5 }], status: 204 },
  { name: 'edit a channel', method: 'PATCH', path: '/channels/{new_channel}', body: { name: 'audit', rate_limit_per_user: 5 }, status: 200 },
  { name: 'put an overwrite', method: 'PUT', path: '/channels/{new_channel}/permissions/{guild}', body: { type: 0, deny: '2048' }, status: 204 },
  { name: 'delete an overwrite', method: 'DELETE', path: '/channels/{new_channel}/permissions/{guild}', status: 204 },
  { name: 'delete an unknown overwrite', method: 'DELETE', path: `/channels/{new_channel}/permissions/${UNKNOWN}`, status: 404 },
];

const threads: Step[] = [
  { name: 'a message to start a thread from', method: 'POST', path: '/channels/{channel}/messages', body: { content: 'discuss' }, status: 200, keep: keepId('thread') },
  { name: 'a thread from a message', method: 'POST', path: '/channels/{channel}/messages/{thread}/threads', body: { name: 'discussion', auto_archive_duration: 60 }, status: 201 },
  { name: 'a second thread from that message', method: 'POST', path: '/channels/{channel}/messages/{thread}/threads', body: { name: 'again' }, status: 400 },
  { name: 'a private thread', method: 'POST', path: '/channels/{channel}/threads', body: { name: 'staff', type: 12 }, status: 201, keep: keepId('private_thread') },
  { name: 'leave a thread', method: 'DELETE', path: '/channels/{thread}/thread-members/@me', status: 204 },
  { name: 'join a thread', method: 'PUT', path: '/channels/{thread}/thread-members/@me', status: 204 },
  { name: 'add a thread member', method: 'PUT', path: '/channels/{thread}/thread-members/{owner}', status: 204 },
  { name: 'thread members', method: 'GET', path: '/channels/{thread}/thread-members?with_member=true', status: 200 },
  { name: 'a thread member', method: 'GET', path: '/channels/{thread}/thread-members/{owner}', status: 200 },
  { name: 'an unknown thread member', method: 'GET', path: `/channels/{thread}/thread-members/${UNKNOWN}`, status: 404 },
  { name: 'remove a thread member', method: 'DELETE', path: '/channels/{thread}/thread-members/{owner}', status: 204 },
  { name: 'active threads', method: 'GET', path: '/guilds/{guild}/threads/active', status: 200 },
  { name: 'archive a thread', method: 'PATCH', path: '/channels/{thread}', body: { archived: true }, status: 200 },
  { name: 'archive the private thread', method: 'PATCH', path: '/channels/{private_thread}', body: { archived: true }, status: 200 },
  { name: 'public archived threads', method: 'GET', path: '/channels/{channel}/threads/archived/public?limit=10', status: 200 },
  { name: 'private archived threads', method: 'GET', path: '/channels/{channel}/threads/archived/private', status: 200 },
  { name: "the bot's private archived threads", method: 'GET', path: '/channels/{channel}/users/@me/threads/archived/private', status: 200 },
  { name: 'delete a thread', method: 'DELETE', path: '/channels/{thread}', status: 200 },
  { name: 'delete a channel', method: 'DELETE', path: '/channels/{new_channel}', status: 200 },
];

const THUMBS = encodeURIComponent('👍');
const poll = { question: { text: 'Lunch?' }, answers: [{ poll_media: { text: 'Pizza' } }, { poll_media: { text: 'Soup' } }], duration: 1 };

const messageExtras: Step[] = [
  { name: 'a message to react to', method: 'POST', path: '/channels/{channel}/messages', body: { content: 'react' }, status: 200, keep: keepId('target') },
  { name: 'react', method: 'PUT', path: `/channels/{channel}/messages/{target}/reactions/${THUMBS}/@me`, status: 204 },
  { name: 'react with an unknown emoji', method: 'PUT', path: `/channels/{channel}/messages/{target}/reactions/${encodeURIComponent('x:123456789012345678')}/@me`, status: 400 },
  { name: 'a member reacts', method: 'GET', path: '/channels/{channel}/messages/{target}', before: (s) => s.sb.state.channels.react(s.ids.get('channel')!, s.ids.get('target')!, s.ids.get('owner')!, '👍'), status: 200 },
  { name: 'who reacted', method: 'GET', path: `/channels/{channel}/messages/{target}/reactions/${THUMBS}?limit=10`, status: 200 },
  { name: "remove a member's reaction", method: 'DELETE', path: `/channels/{channel}/messages/{target}/reactions/${THUMBS}/{owner}`, status: 204 },
  { name: 'remove the own reaction', method: 'DELETE', path: `/channels/{channel}/messages/{target}/reactions/${THUMBS}/@me`, status: 204 },
  { name: "remove an emoji's reactions", method: 'DELETE', path: `/channels/{channel}/messages/{target}/reactions/${THUMBS}`, status: 204 },
  { name: 'remove all reactions', method: 'DELETE', path: '/channels/{channel}/messages/{target}/reactions', status: 204 },
  { name: 'pin', method: 'PUT', path: '/channels/{channel}/messages/pins/{target}', status: 204 },
  { name: 'pins', method: 'GET', path: '/channels/{channel}/messages/pins?limit=10', status: 200 },
  { name: 'unpin', method: 'DELETE', path: '/channels/{channel}/messages/pins/{target}', status: 204 },
  { name: 'pin (deprecated route)', method: 'PUT', path: '/channels/{channel}/pins/{target}', status: 204 },
  { name: 'pins (deprecated route)', method: 'GET', path: '/channels/{channel}/pins', status: 200 },
  { name: 'unpin (deprecated route)', method: 'DELETE', path: '/channels/{channel}/pins/{target}', status: 204 },
  { name: 'pin an unknown message', method: 'PUT', path: `/channels/{channel}/messages/pins/${UNKNOWN}`, status: 404 },
  { name: 'a poll', method: 'POST', path: '/channels/{channel}/messages', body: { poll }, status: 200, keep: keepId('poll') },
  { name: 'voters of an answer', method: 'GET', path: '/channels/{channel}/polls/{poll}/answers/1', before: (s) => s.sb.state.channels.vote(s.ids.get('channel')!, s.ids.get('poll')!, s.ids.get('owner')!, [1]), status: 200 },
  { name: 'end a poll', method: 'POST', path: '/channels/{channel}/polls/{poll}/expire', status: 200 },
  { name: 'end it again', method: 'POST', path: '/channels/{channel}/polls/{poll}/expire', status: 400 },
  { name: 'bulk delete', method: 'POST', path: '/channels/{channel}/messages/bulk-delete', body: { messages: ['{target}', '{poll}'] }, status: 204 },
  { name: 'bulk delete one message', method: 'POST', path: '/channels/{channel}/messages/bulk-delete', body: { messages: ['{target}'] }, status: 400 },
];

/** In order: the refused step first, then everything as a bot with Admin. */
export const GUILD_STEPS: readonly Step[] = [...members, ...roles, ...bans, ...channels, ...threads, ...messageExtras];
