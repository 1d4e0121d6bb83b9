/**
 * Guild scheduled events of the sandbox through gatehouse's RestClient: the fields each entity type requires,
 * the permission rules, status transitions, subscribers with paging, and GUILD_SCHEDULED_EVENT_* dispatches
 * behind the GUILD_SCHEDULED_EVENTS intent; and GUILD_CREATE / GET /guilds/{id} carrying what was made.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGuildChannel,
  createGuildEmoji,
  createGuildSticker,
  createScheduledEvent,
  createStageInstance,
  deleteScheduledEvent,
  editScheduledEvent,
  getScheduledEvent,
  listScheduledEventExceptionUsers,
  listScheduledEventUsers,
  listScheduledEvents,
} from '../../src/rest/index.js';
import { cleanup, connect, refusal, start } from './assets-helpers.js';
import { PNG_DATA_URI } from './openapi-session-assets.js';

afterEach(cleanup);

const GUILDS = 1;
const GUILD_SCHEDULED_EVENTS = 1 << 16;
const inDays = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString();
const external = () => ({ name: 'Meetup', privacy_level: 2 as const, entity_type: 3 as const, scheduled_start_time: inDays(1), scheduled_end_time: inDays(2), entity_metadata: { location: 'The park' } });

describe('scheduled events', () => {
  it('create, get, list, modify, delete an external event; each a dispatch under GUILD_SCHEDULED_EVENTS', async () => {
    const { sb, rest, g } = await start();
    const gw = await connect(sb, GUILDS | GUILD_SCHEDULED_EVENTS);
    const ev = await createScheduledEvent(rest, g, external());
    expect(ev).toMatchObject({ guild_id: g, name: 'Meetup', status: 1, entity_type: 3, channel_id: null, creator_id: sb.applicationId, entity_metadata: { location: 'The park' }, creator: { id: sb.applicationId } });
    expect(ev.user_count).toBeUndefined();
    expect((await gw.nextDispatch('GUILD_SCHEDULED_EVENT_CREATE')).d).toMatchObject({ id: ev.id, status: 1 });
    expect((await getScheduledEvent(rest, g, ev.id, { with_user_count: true })).user_count).toBe(0);
    expect((await listScheduledEvents(rest, g)).map((e) => e.id)).toEqual([ev.id]);
    const moved = await editScheduledEvent(rest, g, ev.id, { entity_metadata: { location: 'The pier' }, description: 'Bring snacks' });
    expect(moved).toMatchObject({ entity_metadata: { location: 'The pier' }, description: 'Bring snacks' });
    expect((await gw.nextDispatch('GUILD_SCHEDULED_EVENT_UPDATE')).d).toMatchObject({ id: ev.id, description: 'Bring snacks' });
    await deleteScheduledEvent(rest, g, ev.id);
    expect((await gw.nextDispatch('GUILD_SCHEDULED_EVENT_DELETE')).d).toMatchObject({ id: ev.id });
    expect((await refusal(getScheduledEvent(rest, g, ev.id))).code).toBe(10070);
  });

  it('requires per entity type: location and end for external, a channel of the right type for voice and stage', async () => {
    const { rest, g, voice, channel } = await start();
    const noPlace = await refusal(createScheduledEvent(rest, g, { ...external(), entity_metadata: {} as { location: string }, scheduled_end_time: null as unknown as string }));
    expect(noPlace.fieldErrors.map((f) => [f.path, f.code])).toEqual([
      ['entity_metadata.location', 'BASE_TYPE_REQUIRED'],
      ['scheduled_end_time', 'BASE_TYPE_REQUIRED'],
    ]);
    const noChannel = await refusal(createScheduledEvent(rest, g, { name: 'Talk', privacy_level: 2, entity_type: 2, scheduled_start_time: inDays(1) }));
    expect(noChannel.fieldErrors.map((f) => [f.path, f.code])).toEqual([['channel_id', 'BASE_TYPE_REQUIRED']]);
    const wrongType = await refusal(createScheduledEvent(rest, g, { name: 'Talk', privacy_level: 2, entity_type: 2, channel_id: channel, scheduled_start_time: inDays(1) }));
    expect(wrongType.code).toBe(50024);
    const past = await refusal(createScheduledEvent(rest, g, { ...external(), scheduled_start_time: inDays(-1) }));
    expect(past.fieldErrors.map((f) => f.code)).toEqual(['GUILD_SCHEDULED_EVENT_SCHEDULE_PAST']);
    const ok = await createScheduledEvent(rest, g, { name: 'Talk', privacy_level: 2, entity_type: 2, channel_id: voice, scheduled_start_time: inDays(1) });
    expect(ok).toMatchObject({ entity_type: 2, channel_id: voice, entity_metadata: null, scheduled_end_time: null });
  });

  it('status: scheduled to active to completed, scheduled to canceled; nothing else, and nothing after the end', async () => {
    const { rest, g, voice } = await start({ fast: true });
    const ev = await createScheduledEvent(rest, g, { name: 'Talk', privacy_level: 2, entity_type: 2, channel_id: voice, scheduled_start_time: inDays(1) });
    expect((await refusal(editScheduledEvent(rest, g, ev.id, { status: 3 }))).fieldErrors.map((f) => f.path)).toEqual(['status']);
    expect((await editScheduledEvent(rest, g, ev.id, { status: 2 })).status).toBe(2);
    expect((await refusal(editScheduledEvent(rest, g, ev.id, { status: 4 }))).code).toBe(50035);
    expect((await editScheduledEvent(rest, g, ev.id, { status: 3 })).status).toBe(3);
    const finished = await refusal(editScheduledEvent(rest, g, ev.id, { name: 'Again' }));
    expect([finished.status, finished.code]).toEqual([400, 180000]);
    const other = await createScheduledEvent(rest, g, external());
    expect((await editScheduledEvent(rest, g, other.id, { status: 4 })).status).toBe(4);
  });

  it('needs CREATE_EVENTS (and CONNECT in a voice channel); hidden channels hide their events', async () => {
    const { sb, rest, g, botRole, admin, voice } = await start({ admin: false });
    const e = await refusal(createScheduledEvent(rest, g, external()));
    expect([e.status, e.code]).toEqual([403, 50013]);
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole, admin] });
    const ev = await createScheduledEvent(rest, g, { name: 'Talk', privacy_level: 2, entity_type: 2, channel_id: voice, scheduled_start_time: inDays(1) });
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole] });
    sb.state.channels.setOverwrite(voice, { id: g, type: 0, deny: String(1 << 10) });
    expect(await listScheduledEvents(rest, g)).toEqual([]);
    expect((await refusal(getScheduledEvent(rest, g, ev.id))).code).toBe(50001);
  });

  it('subscribers in user id order with limit, before, after and with_member; an occurrence has none', async () => {
    const { sb, rest, g } = await start();
    const gw = await connect(sb, GUILDS | GUILD_SCHEDULED_EVENTS);
    const ev = await createScheduledEvent(rest, g, external());
    const humans = sb.state.memberIds(g).filter((id) => id !== sb.applicationId);
    for (const id of [...humans].reverse()) sb.state.setEventInterest(g, ev.id, id);
    expect((await gw.nextDispatch('GUILD_SCHEDULED_EVENT_USER_ADD')).d).toEqual({ guild_scheduled_event_id: ev.id, user_id: humans.at(-1), guild_id: g });
    const sorted = [...humans].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const all = await listScheduledEventUsers(rest, g, ev.id);
    expect(all.map((u) => u.user.id)).toEqual(sorted);
    expect(all[0]!.member).toBeUndefined();
    const page = await listScheduledEventUsers(rest, g, ev.id, { limit: 2, after: sorted[0]!, with_member: true });
    expect(page.map((u) => u.user.id)).toEqual(sorted.slice(1, 3));
    expect(page[0]!.member).toMatchObject({ user: { id: sorted[1] } });
    const before = await listScheduledEventUsers(rest, g, ev.id, { limit: 2, before: sorted[3]!, after: sorted[0]! });
    expect(before.map((u) => u.user.id)).toEqual(sorted.slice(1, 3));
    expect((await getScheduledEvent(rest, g, ev.id, { with_user_count: true })).user_count).toBe(humans.length);
    sb.state.setEventInterest(g, ev.id, sorted[0]!, false);
    expect((await gw.nextDispatch('GUILD_SCHEDULED_EVENT_USER_REMOVE')).d).toMatchObject({ user_id: sorted[0] });
    expect(await listScheduledEventExceptionUsers(rest, g, ev.id, '100000000000000001')).toEqual([]);
  });

  it('a session without GUILD_SCHEDULED_EVENTS gets none of them', async () => {
    const { sb, rest, g } = await start();
    const gw = await connect(sb, GUILDS);
    await createScheduledEvent(rest, g, external());
    await rest.request({ method: 'POST', route: '/guilds/{guild_id}/roles', params: { guild_id: g }, body: { name: 'x' } });
    await gw.nextDispatch('GUILD_ROLE_CREATE');
    expect(gw.dispatches().filter((p) => p.t?.startsWith('GUILD_SCHEDULED_EVENT'))).toEqual([]);
  });
});

describe('GUILD_CREATE and GET /guilds/{id}', () => {
  it('carry what was made: emojis, stickers, scheduled events, stage instances', async () => {
    const { sb, rest, g } = await start();
    const emoji = await createGuildEmoji(rest, g, { name: 'gate', image: PNG_DATA_URI });
    const sticker = await createGuildSticker(rest, g, { name: 'wave', tags: 'wave', file: { name: 'w.png', data: new Uint8Array(8), contentType: 'image/png' } });
    const ev = await createScheduledEvent(rest, g, external());
    const stage = await createGuildChannel(rest, g, { name: 'Town hall', type: 13 });
    const open = await createStageInstance(rest, { channel_id: stage.id, topic: 'Q&A' });
    const gw = await connect(sb, GUILDS);
    const created = gw.dispatches('GUILD_CREATE')[0] ?? (await gw.nextDispatch('GUILD_CREATE'));
    const d = created.d as Record<string, Array<{ id: string }>>;
    expect(d.emojis!.map((e) => e.id)).toEqual([emoji.id]);
    expect(d.stickers!.map((s) => s.id)).toEqual([sticker.id]);
    expect(d.guild_scheduled_events!.map((e) => e.id)).toEqual([ev.id]);
    expect(d.stage_instances!.map((s) => s.id)).toEqual([open.id]);
    const guild = (await rest.request({ method: 'GET', route: '/guilds/{guild_id}', params: { guild_id: g } })) as Record<string, Array<{ id: string }>>;
    expect(guild.emojis!.map((e) => e.id)).toEqual([emoji.id]);
    expect(guild.stickers!.map((s) => s.id)).toEqual([sticker.id]);
  });
});
