/**
 * The scripted session of test/sandbox/openapi-responses.test.ts: a table of requests over every operation the
 * sandbox models, in order, each with the status it must answer. Every answer's body is then checked against the
 * pinned description's response schema for that operation and status.
 *
 * Adding a route: add steps to STEPS (at least one per operation; a 2xx where one can be had, and the 4xx answers
 * the route gives). A path is written with `{name}` placeholders for the session's values (see Session.ids:
 * `guild`, `channel`, `owner`, ... and whatever an earlier step kept); the operation is found in the description
 * from the concrete path, so no template needs repeating here. A step that needs a value from its answer keeps it
 * with `keep`.
 */
import type { Sandbox } from '../../src/sandbox/index.js';
import type { RawGatewayClient } from './helpers.js';
import { GUILD_STEPS } from './openapi-session-guild.js';
import { HOOK_STEPS } from './openapi-session-hooks.js';
import { ASSET_STEPS } from './openapi-session-assets.js';
import { APP_STEPS } from './openapi-session-app.js';

export type StepAuth =
  | 'bot'
  | 'none'
  /** An OAuth2 bearer token with these scopes, of the guild owner or of the session user named by `as`. */
  | { readonly bearer: readonly string[]; readonly as?: string }
  /** HTTP Basic with the application's client id and secret (the OAuth2 token endpoint). */
  | 'client';

export interface Session {
  readonly sb: Sandbox;
  readonly gateway: RawGatewayClient;
  /** Values for `{name}` placeholders: seeded ids at the start, then what steps keep. */
  readonly ids: Map<string, string>;
}

/** A JSON value, or one built from the session (ids of earlier steps). */
type Value = unknown;

export interface Step {
  /** What the step shows, for messages (the operation is found from the path). */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the version segment, with `{name}` placeholders; may carry a query. */
  readonly path: string;
  readonly auth?: StepAuth;
  /** JSON body (placeholders in strings are replaced too). */
  readonly body?: Value;
  /** A form-encoded body instead (the OAuth2 token endpoint). */
  readonly form?: Readonly<Record<string, string>>;
  /** A multipart body instead: plain fields and one file (sticker uploads). */
  readonly multipart?: { readonly fields: Readonly<Record<string, string>>; readonly file: { readonly field: string; readonly name: string; readonly type: string; readonly bytes: number } };
  readonly status: number;
  /** Runs before the request (invoke a command, force a rate limit). */
  readonly before?: (s: Session) => Promise<void> | void;
  /** Keeps values of the answer for later steps. */
  readonly keep?: (body: Record<string, unknown>, s: Session) => void;
}

const UNKNOWN = '100000000000000001';
const PERMISSIONS_SCOPE = 'applications.commands.permissions.update';

const embed = { title: 'Timed out', description: '<@1> for 10 minutes', color: 0xe67e22, fields: [{ name: 'Reason', value: 'spam' }] };
const buttons = [{ type: 1, components: [{ type: 2, style: 1, label: 'Undo', custom_id: 'undo' }] }];
const slash = { name: 'ping', description: 'Replies with pong', options: [{ type: 3, name: 'text', description: 'What to say' }] };

/** Invoke `ping` as the owner and keep the interaction's id and token under `${prefix}` and `${prefix}_token`. */
function invokePing(prefix: string): (s: Session) => Promise<void> {
  return async (s) => {
    const record = await s.sb.invoke({ name: 'ping', guildId: s.ids.get('guild')!, userId: s.ids.get('owner')!, options: { text: 'hi' } });
    await s.gateway.nextDispatch('INTERACTION_CREATE');
    s.ids.set(prefix, record.id);
    s.ids.set(`${prefix}_token`, record.token);
  };
}

function keepId(name: string): (body: Record<string, unknown>, s: Session) => void {
  return (body, s) => s.ids.set(name, String(body.id));
}

const gateway: Step[] = [
  { name: 'gateway URL', method: 'GET', path: '/gateway', auth: 'none', status: 200 },
  { name: 'gateway URL for bots', method: 'GET', path: '/gateway/bot', status: 200 },
  { name: 'gateway/bot without a token', method: 'GET', path: '/gateway/bot', auth: 'none', status: 401 },
];

const identity: Step[] = [
  { name: 'the bot user', method: 'GET', path: '/users/@me', status: 200 },
  { name: 'the application', method: 'GET', path: '/applications/@me', status: 200 },
  { name: 'edit the application', method: 'PATCH', path: '/applications/@me', body: { description: 'Moderation and dice', tags: ['moderation'] }, status: 200 },
  { name: 'edit the application, badly', method: 'PATCH', path: '/applications/@me', body: { tags: 'moderation' }, status: 400 },
  { name: 'a user', method: 'GET', path: '/users/{owner}', status: 200 },
  { name: 'an unknown user', method: 'GET', path: `/users/${UNKNOWN}`, status: 404 },
  { name: 'edit the bot user', method: 'PATCH', path: '/users/@me', body: { username: 'gatehouse-bot' }, status: 200 },
  { name: "the bot's guilds", method: 'GET', path: '/users/@me/guilds?limit=10', status: 200 },
  { name: 'open a DM', method: 'POST', path: '/users/@me/channels', body: { recipient_id: '{owner}' }, status: 200, keep: keepId('dm') },
  { name: 'open a DM without a recipient', method: 'POST', path: '/users/@me/channels', body: {}, status: 400 },
];

const guilds: Step[] = [
  { name: 'a guild', method: 'GET', path: '/guilds/{guild}', status: 200 },
  { name: 'a guild with counts', method: 'GET', path: '/guilds/{guild}?with_counts=true', status: 200 },
  { name: 'an unknown guild', method: 'GET', path: `/guilds/${UNKNOWN}`, status: 404 },
  { name: "a guild's roles", method: 'GET', path: '/guilds/{guild}/roles', status: 200 },
  { name: 'a role', method: 'GET', path: '/guilds/{guild}/roles/{role}', status: 200 },
  { name: 'an unknown role', method: 'GET', path: `/guilds/{guild}/roles/${UNKNOWN}`, status: 404 },
  { name: "a guild's channels", method: 'GET', path: '/guilds/{guild}/channels', status: 200 },
  { name: "a guild's members", method: 'GET', path: '/guilds/{guild}/members?limit=5', status: 200 },
  { name: 'a member', method: 'GET', path: '/guilds/{guild}/members/{owner}', status: 200 },
  { name: 'an unknown member', method: 'GET', path: `/guilds/{guild}/members/${UNKNOWN}`, status: 404 },
  { name: "the bot's nickname", method: 'PATCH', path: '/guilds/{guild}/members/@me', body: { nick: 'Gate' }, status: 200 },
];

/** Gives the bot the seeded Moderator role (kick, ban, manage roles and nicknames, moderate members). */
function moderatorBot(s: Session): void {
  const guild = s.ids.get('guild')!;
  s.sb.state.updateMember(guild, s.sb.applicationId, { roles: [s.ids.get('bot_role')!, s.ids.get('moderator')!] });
}

/** Leaves the bot with its own role only, as seeded: the group starts and ends so, whatever ran before. */
function plainBot(s: Session): void {
  s.sb.state.updateMember(s.ids.get('guild')!, s.sb.applicationId, { roles: [s.ids.get('bot_role')!] });
}

const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString();

const moderation: Step[] = [
  { name: 'edit a member without the permission', method: 'PATCH', path: '/guilds/{guild}/members/{target}', before: plainBot, body: { nick: 'Quiet' }, status: 403 },
  { name: 'list bans without the permission', method: 'GET', path: '/guilds/{guild}/bans', status: 403 },
  { name: 'search members', method: 'GET', path: '/guilds/{guild}/members/search?query=&limit=10', before: moderatorBot, status: 200 },
  { name: 'search members without a query', method: 'GET', path: '/guilds/{guild}/members/search', status: 400 },
  { name: 'nick and timeout', method: 'PATCH', path: '/guilds/{guild}/members/{target}', get body() { return { nick: 'Quiet', communication_disabled_until: inAnHour() }; }, status: 200 },
  { name: 'a timeout beyond 28 days', method: 'PATCH', path: '/guilds/{guild}/members/{target}', get body() { return { communication_disabled_until: new Date(Date.now() + 29 * 86_400_000).toISOString() }; }, status: 400 },
  { name: 'mute a member not in voice', method: 'PATCH', path: '/guilds/{guild}/members/{target}', body: { mute: true }, status: 400 },
  { name: "edit the owner's nick", method: 'PATCH', path: '/guilds/{guild}/members/{owner}', body: { nick: 'x' }, status: 403 },
  { name: 'lift the timeout', method: 'PATCH', path: '/guilds/{guild}/members/{target}', body: { communication_disabled_until: null }, status: 200 },
  { name: 'add a role to a member', method: 'PUT', path: '/guilds/{guild}/members/{target}/roles/{role}', status: 204 },
  { name: 'add the bot role to a member', method: 'PUT', path: '/guilds/{guild}/members/{target}/roles/{bot_role}', status: 403 },
  { name: 'remove a role from a member', method: 'DELETE', path: '/guilds/{guild}/members/{target}/roles/{role}', status: 204 },
  { name: 'kick a member', method: 'DELETE', path: '/guilds/{guild}/members/{kicked}', status: 204 },
  { name: 'a kicked member', method: 'GET', path: '/guilds/{guild}/members/{kicked}', status: 404 },
  { name: 'create a role', method: 'POST', path: '/guilds/{guild}/roles', body: { name: 'Muted', color: 0x123456, permissions: '0' }, status: 200, keep: keepId('new_role') },
  { name: 'create a role with Administrator', method: 'POST', path: '/guilds/{guild}/roles', body: { permissions: '8' }, status: 403 },
  { name: 'edit a role', method: 'PATCH', path: '/guilds/{guild}/roles/{new_role}', body: { name: 'Silenced', hoist: true }, status: 200 },
  { name: 'reorder roles', method: 'PATCH', path: '/guilds/{guild}/roles', body: [{ id: '{new_role}', position: 2 }], status: 200 },
  { name: 'lift a role above the bot', method: 'PATCH', path: '/guilds/{guild}/roles', body: [{ id: '{admin}', position: 99 }], status: 403 },
  { name: 'delete a role', method: 'DELETE', path: '/guilds/{guild}/roles/{new_role}', status: 204 },
  { name: 'delete @everyone', method: 'DELETE', path: '/guilds/{guild}/roles/{guild}', status: 400 },
  { name: 'ban a member', method: 'PUT', path: '/guilds/{guild}/bans/{banned}', body: { delete_message_seconds: 60 }, status: 204 },
  { name: 'ban with too long a message deletion', method: 'PUT', path: '/guilds/{guild}/bans/{banned}', body: { delete_message_seconds: 700_000 }, status: 400 },
  { name: 'a ban', method: 'GET', path: '/guilds/{guild}/bans/{banned}', status: 200 },
  { name: 'list bans', method: 'GET', path: '/guilds/{guild}/bans?limit=10', status: 200 },
  { name: 'lift a ban', method: 'DELETE', path: '/guilds/{guild}/bans/{banned}', status: 204 },
  { name: 'a lifted ban', method: 'GET', path: '/guilds/{guild}/bans/{banned}', status: 404 },
  { name: 'bulk ban', method: 'POST', path: '/guilds/{guild}/bulk-ban', body: { user_ids: ['{bulk1}', '{bulk2}', '{owner}'] }, status: 200 },
  { name: 'bulk ban nobody new', method: 'POST', path: '/guilds/{guild}/bulk-ban', body: { user_ids: ['{bulk1}'] }, status: 400 },
  { name: 'kick without the permission', method: 'DELETE', path: '/guilds/{guild}/members/{target}', before: plainBot, status: 403 },
];

const messages: Step[] = [
  { name: 'a channel', method: 'GET', path: '/channels/{channel}', status: 200 },
  { name: 'the DM channel', method: 'GET', path: '/channels/{dm}', status: 200 },
  { name: 'an unknown channel', method: 'GET', path: `/channels/${UNKNOWN}`, status: 404 },
  { name: 'post a message with an embed and a button', method: 'POST', path: '/channels/{channel}/messages', body: { content: 'logged', embeds: [embed], components: buttons }, status: 200, keep: keepId('message') },
  { name: 'post a message in the DM', method: 'POST', path: '/channels/{dm}/messages', body: { content: 'hello' }, status: 200 },
  { name: 'post an empty message', method: 'POST', path: '/channels/{channel}/messages', body: {}, status: 400 },
  { name: 'list messages', method: 'GET', path: '/channels/{channel}/messages?limit=10', status: 200 },
  { name: 'a message', method: 'GET', path: '/channels/{channel}/messages/{message}', status: 200 },
  { name: 'edit a message', method: 'PATCH', path: '/channels/{channel}/messages/{message}', body: { content: 'logged (edited)', embeds: [embed] }, status: 200 },
  { name: 'delete a message', method: 'DELETE', path: '/channels/{channel}/messages/{message}', status: 204 },
  { name: 'a deleted message', method: 'GET', path: '/channels/{channel}/messages/{message}', status: 404 },
];

const commands: Step[] = [];
for (const [scope, base] of [
  ['global', '/applications/{app}/commands'],
  ['guild', '/applications/{app}/guilds/{guild}/commands'],
] as const) {
  commands.push(
    { name: `create a ${scope} command`, method: 'POST', path: base, body: { ...slash, name: `${scope}-cmd` }, status: 201, keep: keepId(`${scope}_command`) },
    { name: `create a ${scope} command with a bad name`, method: 'POST', path: base, body: { name: 'Bad Name!', description: 'x' }, status: 400 },
    { name: `list ${scope} commands`, method: 'GET', path: `${base}?with_localizations=true`, status: 200 },
    { name: `a ${scope} command`, method: 'GET', path: `${base}/{${scope}_command}`, status: 200 },
    { name: `edit a ${scope} command`, method: 'PATCH', path: `${base}/{${scope}_command}`, body: { description: 'Edited', default_member_permissions: '8192' }, status: 200 },
    { name: `an unknown ${scope} command`, method: 'GET', path: `${base}/${UNKNOWN}`, status: 404 },
    { name: `delete a ${scope} command`, method: 'DELETE', path: `${base}/{${scope}_command}`, status: 204 },
    { name: `bulk overwrite ${scope} commands`, method: 'PUT', path: base, body: [slash, { type: 2, name: 'Inspect' }], status: 200, keep: (body, s) => s.ids.set(`${scope}_command`, String((body as unknown as Array<{ id: string }>)[0]!.id)) },
  );
}

const permissions: Step[] = [
  { name: "a guild's command permissions", method: 'GET', path: '/applications/{app}/guilds/{guild}/commands/permissions', status: 200 },
  { name: 'batch edit (disabled by the service)', method: 'PUT', path: '/applications/{app}/guilds/{guild}/commands/permissions', body: [], status: 405 },
  { name: 'unknown command permissions', method: 'GET', path: '/applications/{app}/guilds/{guild}/commands/{guild_command}/permissions', status: 404 },
  {
    name: 'edit command permissions',
    method: 'PUT',
    path: '/applications/{app}/guilds/{guild}/commands/{guild_command}/permissions',
    auth: { bearer: [PERMISSIONS_SCOPE] },
    body: { permissions: [{ id: '{guild}', type: 1, permission: true }, { id: '{all_channels}', type: 3, permission: true }] },
    status: 200,
  },
  {
    name: 'edit command permissions as a member without Manage Guild',
    method: 'PUT',
    path: '/applications/{app}/guilds/{guild}/commands/{guild_command}/permissions',
    auth: { bearer: [PERMISSIONS_SCOPE], as: 'bearer_member' },
    body: { permissions: [] },
    status: 403,
  },
  { name: 'edit command permissions with a bot token', method: 'PUT', path: '/applications/{app}/guilds/{guild}/commands/{guild_command}/permissions', body: { permissions: [] }, status: 403 },
  { name: "edit command permissions with a bad body", method: 'PUT', path: '/applications/{app}/guilds/{guild}/commands/{guild_command}/permissions', auth: { bearer: [PERMISSIONS_SCOPE] }, body: { permissions: [{ id: 'x', type: 9 }] }, status: 400 },
  { name: 'command permissions', method: 'GET', path: '/applications/{app}/guilds/{guild}/commands/{guild_command}/permissions', status: 200 },
];

const monetization: Step[] = [
  { name: 'list SKUs', method: 'GET', path: '/applications/{app}/skus', status: 200 },
  { name: 'list entitlements', method: 'GET', path: '/applications/{app}/entitlements?exclude_ended=true', status: 200 },
  { name: 'create a test entitlement for a user', method: 'POST', path: '/applications/{app}/entitlements', body: { sku_id: '{sku}', owner_id: '{owner}', owner_type: 2 }, status: 200, keep: keepId('entitlement') },
  { name: 'create a test entitlement for a guild', method: 'POST', path: '/applications/{app}/entitlements', body: { sku_id: '{sku}', owner_id: '{guild}', owner_type: 1 }, status: 200, keep: keepId('guild_entitlement') },
  { name: 'create a test entitlement, badly', method: 'POST', path: '/applications/{app}/entitlements', body: { sku_id: '{sku}' }, status: 400 },
  { name: 'an entitlement', method: 'GET', path: '/applications/{app}/entitlements/{entitlement}', status: 200 },
  { name: 'a guild entitlement', method: 'GET', path: '/applications/{app}/entitlements/{guild_entitlement}', status: 200 },
  { name: 'list entitlements of the guild', method: 'GET', path: '/applications/{app}/entitlements?guild_id={guild}', status: 200 },
  { name: 'an unknown entitlement', method: 'GET', path: `/applications/{app}/entitlements/${UNKNOWN}`, status: 404 },
  { name: 'consume a durable entitlement', method: 'POST', path: '/applications/{app}/entitlements/{entitlement}/consume', status: 400 },
  { name: 'create a consumable test entitlement', method: 'POST', path: '/applications/{app}/entitlements', body: { sku_id: '{consumable_sku}', owner_id: '{owner}', owner_type: 2 }, status: 200, keep: keepId('consumable') },
  { name: 'consume an entitlement', method: 'POST', path: '/applications/{app}/entitlements/{consumable}/consume', status: 204 },
  { name: 'delete a test entitlement', method: 'DELETE', path: '/applications/{app}/entitlements/{entitlement}', status: 204 },
  { name: 'delete an unknown entitlement', method: 'DELETE', path: `/applications/{app}/entitlements/${UNKNOWN}`, status: 404 },
];

const oauth2: Step[] = [
  { name: 'client credentials token', method: 'POST', path: '/oauth2/token', auth: 'client', form: { grant_type: 'client_credentials', scope: 'identify' }, status: 200, keep: (body, s) => s.ids.set('access_token', String(body.access_token)) },
  { name: 'revoke a token', method: 'POST', path: '/oauth2/token/revoke', auth: 'client', form: { token: '{access_token}' }, status: 200 },
];

const interactions: Step[] = [
  { name: 'reply to an interaction', method: 'POST', path: '/interactions/{i1}/{i1_token}/callback', before: invokePing('i1'), body: { type: 4, data: { content: 'pong', embeds: [embed], components: buttons } }, status: 204 },
  { name: 'reply twice', method: 'POST', path: '/interactions/{i1}/{i1_token}/callback', body: { type: 4, data: { content: 'again' } }, status: 400 },
  { name: 'reply with the response', method: 'POST', path: '/interactions/{i2}/{i2_token}/callback?with_response=true', before: invokePing('i2'), body: { type: 4, data: { content: 'pong', embeds: [embed] } }, status: 200 },
  { name: 'reply to an unknown interaction', method: 'POST', path: `/interactions/${UNKNOWN}/{i1_token}/callback`, body: { type: 4, data: { content: 'x' } }, status: 404 },
  { name: 'reply with a bad body', method: 'POST', path: '/interactions/{i3}/{i3_token}/callback', before: invokePing('i3'), body: { type: 42 }, status: 400 },
  { name: 'the original response', method: 'GET', path: '/webhooks/{app}/{i1_token}/messages/@original', auth: 'none', status: 200 },
  { name: 'edit the original response', method: 'PATCH', path: '/webhooks/{app}/{i1_token}/messages/@original', auth: 'none', body: { content: 'pong (edited)', embeds: [embed] }, status: 200 },
  { name: 'a follow-up', method: 'POST', path: '/webhooks/{app}/{i1_token}', auth: 'none', body: { content: 'more', embeds: [embed], components: buttons }, status: 200, keep: keepId('followup') },
  { name: 'a follow-up without content', method: 'POST', path: '/webhooks/{app}/{i1_token}', auth: 'none', body: {}, status: 400 },
  { name: 'a follow-up message', method: 'GET', path: '/webhooks/{app}/{i1_token}/messages/{followup}', auth: 'none', status: 200 },
  { name: 'edit a follow-up', method: 'PATCH', path: '/webhooks/{app}/{i1_token}/messages/{followup}', auth: 'none', body: { content: 'more (edited)' }, status: 200 },
  { name: 'delete a follow-up', method: 'DELETE', path: '/webhooks/{app}/{i1_token}/messages/{followup}', auth: 'none', status: 204 },
  { name: 'a deleted follow-up', method: 'GET', path: '/webhooks/{app}/{i1_token}/messages/{followup}', auth: 'none', status: 404 },
  { name: 'delete the original response', method: 'DELETE', path: '/webhooks/{app}/{i1_token}/messages/@original', auth: 'none', status: 204 },
  { name: 'an unknown webhook token', method: 'GET', path: '/webhooks/{app}/not-a-token/messages/@original', auth: 'none', status: 401 },
];

/** Malformed queries and bodies, and other applications' resources: the service's 4xx for each. */
const refusals: Step[] = [
  { name: 'members with too high a limit', method: 'GET', path: '/guilds/{guild}/members?limit=5000', status: 400 },
  { name: 'messages with too high a limit', method: 'GET', path: '/channels/{channel}/messages?limit=500', status: 400 },
  { name: 'guilds with too high a limit', method: 'GET', path: '/users/@me/guilds?limit=500', status: 400 },
  { name: "another application's commands", method: 'GET', path: `/applications/${UNKNOWN}/commands`, status: 403 },
  { name: 'a message over 2000 characters', method: 'POST', path: '/channels/{channel}/messages', body: { content: 'x'.repeat(2001) }, status: 400 },
  { name: 'an empty username', method: 'PATCH', path: '/users/@me', body: { username: '' }, status: 400 },
  { name: 'a message in an unknown channel', method: 'POST', path: `/channels/${UNKNOWN}/messages`, body: { content: 'x' }, status: 404 },
  { name: 'a member of an unknown guild', method: 'GET', path: `/guilds/${UNKNOWN}/members/{owner}`, status: 404 },
  { name: 'commands with a bearer token without the scope', method: 'GET', path: '/applications/{app}/commands', auth: { bearer: ['identify'] }, status: 403 },
];

const limits: Step[] = [
  { name: 'a rate-limited request (user)', method: 'GET', path: '/channels/{channel}', before: (s) => s.sb.restFaults.rateLimit({ bucket: 'channels.read', retryAfterMs: 1500 }), status: 429 },
  { name: 'a rate-limited request (global)', method: 'GET', path: '/guilds/{guild}', before: (s) => s.sb.restFaults.rateLimit({ bucket: 'guilds.read', retryAfterMs: 1500, scope: 'global' }), status: 429 },
  { name: 'a request without a token', method: 'GET', path: '/channels/{channel}', auth: 'none', status: 401 },
];

/** The session, in order (later groups use what earlier ones created). */
export const STEPS: readonly Step[] = [...gateway, ...identity, ...guilds, ...moderation, ...messages, ...commands, ...permissions, ...monetization, ...oauth2, ...interactions, ...GUILD_STEPS, ...HOOK_STEPS, ...ASSET_STEPS, ...APP_STEPS, ...refusals, ...limits];
