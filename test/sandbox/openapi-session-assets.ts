/**
 * Steps of the scripted session (openapi-session.ts) for expressions and events: guild and application emojis
 * (and reacting with one), stickers, scheduled events, stage instances and voice states. The first step of each
 * group is refused (the bot has only its own role); then the bot is given the seeded Admin role.
 */
import type { Session, Step } from './openapi-session.js';

const UNKNOWN = '100000000000000001';
/** A 1x1 PNG as image data. */
export const PNG_DATA_URI =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

function keepId(name: string): (body: Record<string, unknown>, s: Session) => void {
  return (body, s) => s.ids.set(name, String(body.id));
}

function ownRoleOnly(s: Session): void {
  s.sb.state.updateMember(s.ids.get('guild')!, s.sb.applicationId, { roles: [s.ids.get('bot_role')!] });
}

function withAdmin(s: Session): void {
  s.sb.state.updateMember(s.ids.get('guild')!, s.sb.applicationId, { roles: [s.ids.get('bot_role')!, s.ids.get('admin')!] });
}

const emojis: Step[] = [
  { name: 'create an emoji without the permission', method: 'POST', path: '/guilds/{guild}/emojis', before: ownRoleOnly, body: { name: 'gate', image: PNG_DATA_URI }, status: 403 },
  { name: 'create an emoji', method: 'POST', path: '/guilds/{guild}/emojis', before: withAdmin, body: { name: 'gate', image: PNG_DATA_URI }, status: 201, keep: keepId('emoji') },
  { name: 'create an emoji with a bad name and no image', method: 'POST', path: '/guilds/{guild}/emojis', body: { name: 'a b' }, status: 400 },
  { name: "a guild's emojis", method: 'GET', path: '/guilds/{guild}/emojis', status: 200 },
  { name: 'an emoji', method: 'GET', path: '/guilds/{guild}/emojis/{emoji}', status: 200 },
  { name: 'an unknown emoji', method: 'GET', path: `/guilds/{guild}/emojis/${UNKNOWN}`, status: 404 },
  { name: 'rename an emoji and limit it to a role', method: 'PATCH', path: '/guilds/{guild}/emojis/{emoji}', body: { name: 'gate_2', roles: ['{role}'] }, status: 200 },
  { name: 'a message to react to with it', method: 'POST', path: '/channels/{channel}/messages', body: { content: 'custom' }, status: 200, keep: keepId('emoji_target') },
  { name: 'react with the custom emoji', method: 'PUT', path: '/channels/{channel}/messages/{emoji_target}/reactions/gate_2:{emoji}/@me', status: 204 },
  { name: 'delete an emoji', method: 'DELETE', path: '/guilds/{guild}/emojis/{emoji}', status: 204 },
  { name: 'application emojis', method: 'GET', path: '/applications/{app}/emojis', status: 200 },
  { name: 'create an application emoji', method: 'POST', path: '/applications/{app}/emojis', body: { name: 'app_gate', image: PNG_DATA_URI }, status: 201, keep: keepId('app_emoji') },
  { name: 'create an application emoji with a taken name', method: 'POST', path: '/applications/{app}/emojis', body: { name: 'app_gate', image: PNG_DATA_URI }, status: 400 },
  { name: 'an application emoji', method: 'GET', path: '/applications/{app}/emojis/{app_emoji}', status: 200 },
  { name: 'rename an application emoji', method: 'PATCH', path: '/applications/{app}/emojis/{app_emoji}', body: { name: 'app_gate_2' }, status: 200 },
  { name: 'delete an application emoji', method: 'DELETE', path: '/applications/{app}/emojis/{app_emoji}', status: 204 },
  { name: 'a deleted application emoji', method: 'GET', path: '/applications/{app}/emojis/{app_emoji}', status: 404 },
];

const stickerFile = { field: 'file', name: 'wave.png', type: 'image/png', bytes: 64 };

const stickers: Step[] = [
  { name: 'upload a sticker without the permission', method: 'POST', path: '/guilds/{guild}/stickers', before: ownRoleOnly, multipart: { fields: { name: 'wave', tags: 'wave', description: '' }, file: stickerFile }, status: 403 },
  { name: 'upload a sticker', method: 'POST', path: '/guilds/{guild}/stickers', before: withAdmin, multipart: { fields: { name: 'wave', tags: 'wave', description: 'Waves hello' }, file: stickerFile }, status: 201, keep: keepId('sticker') },
  { name: 'upload a sticker without tags or file', method: 'POST', path: '/guilds/{guild}/stickers', multipart: { fields: { name: 'x' }, file: { ...stickerFile, field: 'other' } }, status: 400 },
  { name: "a guild's stickers", method: 'GET', path: '/guilds/{guild}/stickers', status: 200 },
  { name: 'a guild sticker', method: 'GET', path: '/guilds/{guild}/stickers/{sticker}', status: 200 },
  { name: 'a sticker', method: 'GET', path: '/stickers/{sticker}', status: 200 },
  { name: 'an unknown sticker', method: 'GET', path: `/stickers/${UNKNOWN}`, status: 404 },
  { name: 'edit a sticker', method: 'PATCH', path: '/guilds/{guild}/stickers/{sticker}', body: { name: 'waving', description: null }, status: 200 },
  { name: 'edit a sticker, badly', method: 'PATCH', path: '/guilds/{guild}/stickers/{sticker}', body: { name: 'w' }, status: 400 },
  { name: 'delete a sticker', method: 'DELETE', path: '/guilds/{guild}/stickers/{sticker}', status: 204 },
  { name: 'a deleted guild sticker', method: 'GET', path: '/guilds/{guild}/stickers/{sticker}', status: 404 },
];

const inDays = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString();
const external = () => ({ name: 'Meetup', privacy_level: 2, entity_type: 3, scheduled_start_time: inDays(1), scheduled_end_time: inDays(2), entity_metadata: { location: 'The park' } });

const events: Step[] = [
  { name: 'create an event without the permission', method: 'POST', path: '/guilds/{guild}/scheduled-events', before: ownRoleOnly, get body() { return external(); }, status: 403 },
  { name: 'create an external event', method: 'POST', path: '/guilds/{guild}/scheduled-events', before: withAdmin, get body() { return external(); }, status: 200, keep: keepId('event') },
  { name: 'create an external event without a place or end', method: 'POST', path: '/guilds/{guild}/scheduled-events', get body() { return { ...external(), entity_metadata: {}, scheduled_end_time: null }; }, status: 400 },
  {
    name: 'create a voice event',
    method: 'POST',
    path: '/guilds/{guild}/scheduled-events',
    before: (s) => void s.ids.set('voice', s.sb.state.channelIds(s.ids.get('guild')!)[2]!),
    get body() { return { name: 'Voice hangout', privacy_level: 2, entity_type: 2, channel_id: '{voice}', scheduled_start_time: inDays(1), description: 'Come and talk' }; },
    status: 200,
    keep: keepId('voice_event'),
  },
  { name: "a guild's events with user counts", method: 'GET', path: '/guilds/{guild}/scheduled-events?with_user_count=true', status: 200 },
  { name: 'an event', method: 'GET', path: '/guilds/{guild}/scheduled-events/{event}?with_user_count=true', status: 200 },
  { name: 'an unknown event', method: 'GET', path: `/guilds/{guild}/scheduled-events/${UNKNOWN}`, status: 404 },
  { name: "an event's users", method: 'GET', path: '/guilds/{guild}/scheduled-events/{event}/users?with_member=true&limit=10', before: (s) => s.sb.state.setEventInterest(s.ids.get('guild')!, s.ids.get('event')!, s.ids.get('owner')!), status: 200 },
  { name: "an event's users, badly", method: 'GET', path: '/guilds/{guild}/scheduled-events/{event}/users?limit=500', status: 400 },
  { name: "an occurrence's users", method: 'GET', path: `/guilds/{guild}/scheduled-events/{event}/${UNKNOWN}/users`, status: 200 },
  { name: 'start an event', method: 'PATCH', path: '/guilds/{guild}/scheduled-events/{voice_event}', body: { status: 2 }, status: 200 },
  { name: 'put a started event back', method: 'PATCH', path: '/guilds/{guild}/scheduled-events/{voice_event}', body: { status: 1 }, status: 400 },
  { name: 'end an event', method: 'PATCH', path: '/guilds/{guild}/scheduled-events/{voice_event}', body: { status: 3 }, status: 200 },
  { name: 'edit an ended event', method: 'PATCH', path: '/guilds/{guild}/scheduled-events/{voice_event}', body: { name: 'Again' }, status: 400 },
  { name: 'delete an event', method: 'DELETE', path: '/guilds/{guild}/scheduled-events/{event}', status: 204 },
];

const stages: Step[] = [
  { name: 'a stage channel', method: 'POST', path: '/guilds/{guild}/channels', body: { name: 'Town hall', type: 13 }, status: 201, keep: keepId('stage_channel') },
  { name: 'open a stage without the permission', method: 'POST', path: '/stage-instances', before: ownRoleOnly, body: { channel_id: '{stage_channel}', topic: 'Q&A' }, status: 403 },
  { name: 'open a stage', method: 'POST', path: '/stage-instances', before: withAdmin, body: { channel_id: '{stage_channel}', topic: 'Q&A', privacy_level: 2 }, status: 200 },
  { name: 'open it again', method: 'POST', path: '/stage-instances', body: { channel_id: '{stage_channel}', topic: 'Q&A' }, status: 400 },
  { name: 'a stage instance', method: 'GET', path: '/stage-instances/{stage_channel}', status: 200 },
  { name: 'change the topic', method: 'PATCH', path: '/stage-instances/{stage_channel}', body: { topic: 'AMA' }, status: 200 },
  { name: 'change the topic, badly', method: 'PATCH', path: '/stage-instances/{stage_channel}', body: { topic: '' }, status: 400 },
  { name: 'close the stage', method: 'DELETE', path: '/stage-instances/{stage_channel}', status: 204 },
  { name: 'a closed stage', method: 'GET', path: '/stage-instances/{stage_channel}', status: 404 },
];

const voice: Step[] = [
  { name: "the bot's voice state (not in voice)", method: 'GET', path: '/guilds/{guild}/voice-states/@me', status: 404 },
  { name: "a member's voice state (not in voice)", method: 'GET', path: '/guilds/{guild}/voice-states/{owner}', status: 404 },
  { name: 'suppress the bot (not in voice)', method: 'PATCH', path: '/guilds/{guild}/voice-states/@me', body: { channel_id: '{stage_channel}', suppress: true }, status: 404 },
  { name: 'suppress the bot, badly', method: 'PATCH', path: '/guilds/{guild}/voice-states/@me', body: { suppress: 'yes' }, status: 400 },
  { name: 'suppress a member (not in voice)', method: 'PATCH', path: '/guilds/{guild}/voice-states/{owner}', body: { channel_id: '{stage_channel}', suppress: true }, status: 404 },
  { name: 'set a voice channel status', method: 'PUT', path: '/channels/{voice}/voice-status', body: { status: 'Playing chess' }, status: 204 },
  { name: 'set a text channel status', method: 'PUT', path: '/channels/{channel}/voice-status', body: { status: 'x' }, status: 400 },
];

/** In order; the bot is left with its own role only. */
export const ASSET_STEPS: readonly Step[] = [...emojis, ...stickers, ...events, ...stages, ...voice, { name: 'back to the own role', method: 'GET', path: '/guilds/{guild}/emojis', before: ownRoleOnly, status: 200 }];
