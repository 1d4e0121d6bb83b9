/**
 * Steps of the scripted session (openapi-session.ts) for guild membership (the bot leaving a guild, a user
 * added with their access token, a user's own member), guild settings, the application by id, auto moderation,
 * the OAuth2-user routes and SKU subscriptions. The bot leaves the session's second guild only, and joins it
 * again before the group ends.
 */
import type { Session, Step } from './openapi-session.js';

const UNKNOWN = '100000000000000001';

/** The second guild, and a user of it who is not in the first (to be added there with their token). */
function secondGuild(s: Session): void {
  const [first, second] = s.sb.state.guildIds as [string, string];
  const inFirst = new Set(s.sb.state.memberIds(first));
  s.ids.set('guild2', second);
  const joiner = s.sb.state.memberIds(second).filter((id) => !inFirst.has(id)).at(-1)!;
  s.ids.set('joiner', joiner);
  s.ids.set('join_token', s.sb.issueBearerToken(['identify', 'guilds.join'], joiner));
  s.ids.set('no_join_token', s.sb.issueBearerToken(['identify'], joiner));
}

const membership: Step[] = [
  { name: 'leave a guild', method: 'DELETE', path: '/users/@me/guilds/{guild2}', before: secondGuild, status: 204 },
  { name: 'leave a guild already left', method: 'DELETE', path: '/users/@me/guilds/{guild2}', status: 404 },
  { name: 'leave an unknown guild', method: 'DELETE', path: `/users/@me/guilds/${UNKNOWN}`, before: (s) => s.sb.state.joinGuild(s.ids.get('guild2')!), status: 404 },
  { name: 'add a member with a token without guilds.join', method: 'PUT', path: '/guilds/{guild}/members/{joiner}', body: { access_token: '{no_join_token}' }, status: 403 },
  { name: 'add a member without a token', method: 'PUT', path: '/guilds/{guild}/members/{joiner}', body: {}, status: 400 },
  { name: 'add a member with their token', method: 'PUT', path: '/guilds/{guild}/members/{joiner}', body: { access_token: '{join_token}' }, status: 201 },
  { name: 'add a member already there', method: 'PUT', path: '/guilds/{guild}/members/{joiner}', body: { access_token: '{join_token}' }, status: 204 },
  { name: "a user's own member", method: 'GET', path: '/users/@me/guilds/{guild}/member', auth: { bearer: ['guilds.members.read'] }, status: 200 },
  { name: "a user's own member without the scope", method: 'GET', path: '/users/@me/guilds/{guild}/member', auth: { bearer: ['identify'] }, status: 401 },
  { name: "a user's own member with the bot token", method: 'GET', path: '/users/@me/guilds/{guild}/member', status: 403 },
];

/** The bot with the seeded Moderator role (MANAGE_GUILD) besides its own, or its own role alone. */
function withModerator(on: boolean): (s: Session) => void {
  return (s) => {
    const roles = s.sb.state.roleIds(s.ids.get('guild')!);
    s.sb.state.updateMember(s.ids.get('guild')!, s.sb.applicationId, { roles: on ? [roles.at(-1)!, roles.at(-3)!] : [roles.at(-1)!] });
  };
}

const settings: Step[] = [
  { name: 'edit the guild without the permission', method: 'PATCH', path: '/guilds/{guild}', before: withModerator(false), body: { name: 'Renamed' }, status: 403 },
  { name: 'edit the guild', method: 'PATCH', path: '/guilds/{guild}', before: withModerator(true), body: { name: 'Renamed', verification_level: 2, afk_timeout: 900, premium_progress_bar_enabled: true }, status: 200 },
  { name: 'edit the guild, badly', method: 'PATCH', path: '/guilds/{guild}', body: { name: 'x', afk_timeout: 61 }, status: 400 },
  { name: 'the application by id', method: 'GET', path: '/applications/{app}', status: 200 },
  { name: 'another application', method: 'GET', path: `/applications/${UNKNOWN}`, status: 403 },
  { name: 'edit the application by id', method: 'PATCH', path: '/applications/{app}', body: { description: 'Moderation', explicit_content_filter: 1 }, status: 200 },
  { name: 'edit the application by id, badly', method: 'PATCH', path: '/applications/{app}', body: { explicit_content_filter: 7 }, status: 400 },
];

const keywordRule = { name: 'No spam', event_type: 1, trigger_type: 1, trigger_metadata: { keyword_filter: ['spam*'] }, actions: [{ type: 1, metadata: { custom_message: 'No spam' } }], enabled: true };

function keepRule(body: Record<string, unknown>, s: Session): void {
  s.ids.set('rule', String(body.id));
}

const autoModeration: Step[] = [
  { name: 'auto moderation rules without the permission', method: 'GET', path: '/guilds/{guild}/auto-moderation/rules', before: withModerator(false), status: 403 },
  { name: 'create an auto moderation rule', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', before: withModerator(true), body: keywordRule, status: 200, keep: keepRule },
  { name: 'create a mention-spam rule', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', body: { name: 'Mentions', event_type: 1, trigger_type: 5, trigger_metadata: { mention_total_limit: 5 }, actions: [{ type: 2, metadata: { channel_id: '{channel}' } }, { type: 3, metadata: { duration_seconds: 60 } }] }, status: 200 },
  { name: 'create a preset rule', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', body: { name: 'Presets', event_type: 1, trigger_type: 4, trigger_metadata: { presets: [1, 2] } }, status: 200 },
  { name: 'create a spam rule', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', body: { name: 'Spam', event_type: 1, trigger_type: 3, actions: [{ type: 1 }] }, status: 200 },
  { name: 'create a member profile rule', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', body: { name: 'Names', event_type: 2, trigger_type: 6, trigger_metadata: { keyword_filter: ['admin'] }, actions: [{ type: 4 }] }, status: 200 },
  { name: 'a second mention-spam rule', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', body: { name: 'Again', event_type: 1, trigger_type: 5 }, status: 400 },
  { name: 'create a rule, badly', method: 'POST', path: '/guilds/{guild}/auto-moderation/rules', body: { name: 'x', event_type: 1, trigger_type: 1, trigger_metadata: { keyword_filter: ['y'.repeat(61)] } }, status: 400 },
  { name: 'list auto moderation rules', method: 'GET', path: '/guilds/{guild}/auto-moderation/rules', status: 200 },
  { name: 'an auto moderation rule', method: 'GET', path: '/guilds/{guild}/auto-moderation/rules/{rule}', status: 200 },
  { name: 'an unknown auto moderation rule', method: 'GET', path: `/guilds/{guild}/auto-moderation/rules/${UNKNOWN}`, status: 404 },
  { name: 'edit an auto moderation rule', method: 'PATCH', path: '/guilds/{guild}/auto-moderation/rules/{rule}', body: { name: 'Spam filter', exempt_channels: ['{channel}'] }, status: 200 },
  { name: 'edit an auto moderation rule, badly', method: 'PATCH', path: '/guilds/{guild}/auto-moderation/rules/{rule}', body: { event_type: 2 }, status: 400 },
  { name: 'delete an auto moderation rule', method: 'DELETE', path: '/guilds/{guild}/auto-moderation/rules/{rule}', status: 204 },
  { name: 'delete it again', method: 'DELETE', path: '/guilds/{guild}/auto-moderation/rules/{rule}', status: 404 },
];

const ROLE_CONNECTION = '/users/@me/applications/{app}/role-connection';
const WRITE = { bearer: ['role_connections.write'] } as const;

const oauth2User: Step[] = [
  { name: "a user's connections", method: 'GET', path: '/users/@me/connections', auth: { bearer: ['connections'] }, status: 200 },
  { name: "a user's connections without the scope", method: 'GET', path: '/users/@me/connections', auth: { bearer: ['identify'] }, status: 401 },
  { name: "the bot's connections", method: 'GET', path: '/users/@me/connections', status: 200 },
  { name: 'a role connection not set yet', method: 'GET', path: ROLE_CONNECTION, auth: WRITE, status: 200 },
  { name: 'set a role connection', method: 'PUT', path: ROLE_CONNECTION, auth: WRITE, body: { platform_name: 'Chess', platform_username: 'knight42', metadata: { elo: '1800' } }, status: 200 },
  { name: 'the role connection', method: 'GET', path: ROLE_CONNECTION, auth: WRITE, status: 200 },
  { name: 'set a role connection, badly', method: 'PUT', path: ROLE_CONNECTION, auth: WRITE, body: { platform_name: 'x'.repeat(51) }, status: 400 },
  { name: 'a role connection with the bot token', method: 'GET', path: ROLE_CONNECTION, status: 403 },
  { name: 'remove the role connection', method: 'DELETE', path: ROLE_CONNECTION, auth: WRITE, status: 204 },
  { name: "a user's entitlements", method: 'GET', path: '/users/@me/applications/{app}/entitlements', auth: { bearer: ['identify', 'applications.entitlements'] }, status: 200 },
  { name: "a user's entitlements with the bot token", method: 'GET', path: '/users/@me/applications/{app}/entitlements', status: 403 },
];

/** The seeded subscription (user 2 subscribes to the second SKU). */
function subscriber(s: Session): void {
  s.ids.set('sub_sku', s.sb.state.skuIds[1]!);
  s.ids.set('subscriber', s.sb.state.memberIds(s.ids.get('guild')!).filter((id) => id !== s.sb.applicationId)[2]!);
}

const subscriptions: Step[] = [
  { name: "a user's subscriptions of a SKU", method: 'GET', path: '/skus/{sub_sku}/subscriptions?user_id={subscriber}', before: subscriber, status: 200, keep: (body, s) => s.ids.set('subscription', String((body as unknown as Array<{ id: string }>)[0]!.id)) },
  { name: 'subscriptions without user_id', method: 'GET', path: '/skus/{sub_sku}/subscriptions', status: 400 },
  { name: 'subscriptions of an unknown SKU', method: 'GET', path: `/skus/${UNKNOWN}/subscriptions?user_id={subscriber}`, status: 404 },
  { name: 'a subscription', method: 'GET', path: '/skus/{sub_sku}/subscriptions/{subscription}', status: 200 },
  { name: 'an unknown subscription', method: 'GET', path: `/skus/{sub_sku}/subscriptions/${UNKNOWN}`, status: 404 },
];

export const APP_STEPS: readonly Step[] = [...membership, ...settings, ...autoModeration, ...oauth2User, ...subscriptions];
