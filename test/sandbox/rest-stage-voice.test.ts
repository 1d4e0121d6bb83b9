/**
 * Stage instances and voice states of the sandbox through gatehouse's RestClient: a stage opens on a stage
 * channel the bot moderates, once, with STAGE_INSTANCE_* dispatches; voice states are unknown (10065) because
 * nobody is connected to voice in the sandbox; a voice channel status needs SET_VOICE_CHANNEL_STATUS and
 * MANAGE_CHANNELS.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGuildChannel,
  deleteChannel,
  createStageInstance,
  deleteStageInstance,
  editCurrentUserVoiceState,
  editStageInstance,
  editUserVoiceState,
  getCurrentUserVoiceState,
  getStageInstance,
  getUserVoiceState,
  setVoiceChannelStatus,
} from '../../src/rest/index.js';
import { cleanup, connect, refusal, start } from './assets-helpers.js';

afterEach(cleanup);

const GUILDS = 1;

describe('stage instances', () => {
  it('open, get, change and close a stage, each a STAGE_INSTANCE_* dispatch; a second open is 150006', async () => {
    const { sb, rest, g } = await start();
    const gw = await connect(sb, GUILDS);
    const stage = await createGuildChannel(rest, g, { name: 'Town hall', type: 13 });
    const opened = await createStageInstance(rest, { channel_id: stage.id, topic: 'Q&A' });
    expect(opened).toMatchObject({ guild_id: g, channel_id: stage.id, topic: 'Q&A', privacy_level: 2, guild_scheduled_event_id: null });
    expect((await gw.nextDispatch('STAGE_INSTANCE_CREATE')).d).toMatchObject({ id: opened.id, topic: 'Q&A' });
    const again = await refusal(createStageInstance(rest, { channel_id: stage.id, topic: 'Q&A' }));
    expect([again.status, again.code]).toEqual([400, 150006]);
    expect((await getStageInstance(rest, stage.id)).topic).toBe('Q&A');
    expect((await editStageInstance(rest, stage.id, { topic: 'AMA' })).topic).toBe('AMA');
    expect((await gw.nextDispatch('STAGE_INSTANCE_UPDATE')).d).toMatchObject({ topic: 'AMA' });
    await deleteStageInstance(rest, stage.id);
    expect((await gw.nextDispatch('STAGE_INSTANCE_DELETE')).d).toMatchObject({ id: opened.id });
    expect((await refusal(getStageInstance(rest, stage.id))).code).toBe(10067);
  });

  it('deleting the stage channel ends its stage instance (STAGE_INSTANCE_DELETE)', async () => {
    const { sb, rest, g } = await start();
    const gw = await connect(sb, GUILDS);
    const stage = await createGuildChannel(rest, g, { name: 'Town hall', type: 13 });
    const opened = await createStageInstance(rest, { channel_id: stage.id, topic: 'Q&A' });
    await deleteChannel(rest, stage.id);
    expect((await gw.nextDispatch('STAGE_INSTANCE_DELETE')).d).toMatchObject({ id: opened.id, channel_id: stage.id });
    expect((await refusal(getStageInstance(rest, stage.id))).code).toBe(10003);
  });

  it('needs a stage channel the bot moderates, and a topic of 1-120 characters', async () => {
    const { sb, rest, g, channel, botRole } = await start();
    const stage = await createGuildChannel(rest, g, { name: 'Town hall', type: 13 });
    expect((await refusal(createStageInstance(rest, { channel_id: channel, topic: 'x' }))).code).toBe(50024);
    const long = await refusal(createStageInstance(rest, { channel_id: stage.id, topic: 'x'.repeat(121) }));
    expect(long.fieldErrors.map((f) => [f.path, f.code])).toEqual([['topic', 'BASE_TYPE_BAD_LENGTH']]);
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole] });
    const denied = await refusal(createStageInstance(rest, { channel_id: stage.id, topic: 'x' }));
    expect([denied.status, denied.code]).toEqual([403, 50013]);
  });
});

describe('voice states', () => {
  it('nobody is in voice: 10065 for the bot and for members, after the request itself is checked', async () => {
    const { sb, rest, g, channel } = await start({ fast: true });
    const member = sb.state.memberIds(g).find((id) => id !== sb.applicationId)!;
    expect((await refusal(getCurrentUserVoiceState(rest, g))).code).toBe(10065);
    expect((await refusal(getUserVoiceState(rest, g, member))).code).toBe(10065);
    const stage = await createGuildChannel(rest, g, { name: 'Town hall', type: 13 });
    expect((await refusal(editCurrentUserVoiceState(rest, g, { channel_id: stage.id, suppress: false }))).code).toBe(10065);
    expect((await refusal(editCurrentUserVoiceState(rest, g, { channel_id: channel, suppress: false }))).code).toBe(50024);
    expect((await refusal(editUserVoiceState(rest, g, member, { channel_id: stage.id, suppress: true }))).code).toBe(10065);
    expect((await refusal(editUserVoiceState(rest, g, '100000000000000001', { channel_id: stage.id, suppress: true }))).code).toBe(10013);
  });

  it('a voice channel status: voice channels only, SET_VOICE_CHANNEL_STATUS and MANAGE_CHANNELS', async () => {
    const { sb, rest, g, channel, voice, botRole } = await start();
    await setVoiceChannelStatus(rest, voice, 'Playing chess');
    await setVoiceChannelStatus(rest, voice, null);
    expect((await refusal(setVoiceChannelStatus(rest, channel, 'x'))).code).toBe(50024);
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole] });
    expect((await refusal(setVoiceChannelStatus(rest, voice, 'x'))).code).toBe(50013);
  });
});
