/**
 * Stage instances and voice states (discord-api-docs "Stage Instance" and "Voice" resources). A stage instance
 * lives on a stage channel (type 13) of a guild: opening one needs the bot to be a moderator of the channel
 * (MANAGE_CHANNELS, MUTE_MEMBERS, MOVE_MEMBERS there), one per channel (150006), topic 1-120 characters, privacy
 * level 2 (1, public, is deprecated and refused); STAGE_INSTANCE_CREATE / _UPDATE / _DELETE go out under GUILDS.
 * Nobody is ever connected to voice in the sandbox (it has no voice connections), so every voice state is unknown
 * (10065) once the request itself is valid, and a channel status is set as by a bot not in the channel: it needs
 * SET_VOICE_CHANNEL_STATUS and MANAGE_CHANNELS (status up to 500 characters, protocol §8). The service's events for
 * a status change are not shown by the spec (protocol §6), so none is sent.
 */
import type { SandboxCore } from '../../core.js';
import { Errors, SandboxApiError } from '../../errors.js';
import type { StageInstanceRecord } from '../../state/assets-model.js';
import { stageInstanceObject } from '../../state/assets-serialize.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import { isSnowflake, snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { FormErrors, guildChannelOf, guildOf, objectBody, requireChannelPermission, requireGuildPermission, type Json } from './guild-access.js';
import { memberOf } from './members.js';

const STAGE_MODERATOR = P.MANAGE_CHANNELS | P.MUTE_MEMBERS | P.MOVE_MEMBERS;
const SET_VOICE_CHANNEL_STATUS = 1n << 48n;

const unknownStage = (): SandboxApiError => new SandboxApiError(404, 10067, 'Unknown Stage Instance');
const unknownVoiceState = (): SandboxApiError => new SandboxApiError(404, 10065, 'Unknown Voice State');

function stagesOf(guild: GuildRecord): Map<string, StageInstanceRecord> {
  return (guild.stageInstances ??= new Map());
}

/** topic (1-120) and privacy_level (2) of a create or modify. */
function stageFields(form: FormErrors, body: Json, create: boolean): Partial<Pick<StageInstanceRecord, 'topic' | 'privacyLevel'>> {
  const out: ReturnType<typeof stageFields> = {};
  if (create && (body.topic === undefined || body.topic === null)) form.add(['topic'], 'BASE_TYPE_REQUIRED', 'This field is required');
  const topic = form.string(body, 'topic', 1, 120);
  if (typeof topic === 'string') out.topic = topic;
  const privacy = body.privacy_level;
  if (privacy === 2) out.privacyLevel = 2;
  else if (privacy !== undefined && privacy !== null) form.add(['privacy_level'], 'BASE_TYPE_CHOICES', 'Value must be one of {2}.');
  return out;
}

export function stageVoiceRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  /** The stage channel at `channelId` (10003 unknown, 50024 not a stage), the bot a moderator of it. */
  const stageChannel = (channelId: string): { guild: GuildRecord; channel: ChannelRecord } => {
    const found = store.guildChannel(channelId);
    if (!found) throw Errors.unknownChannel();
    if (found.channel.type !== 13) throw Errors.wrongChannelType();
    requireChannelPermission(store, found.guild, found.channel, STAGE_MODERATOR);
    return found;
  };
  const emit = (guild: GuildRecord, t: string, s: StageInstanceRecord): void => {
    guild.payloadCache.clear();
    store.emit(guild.id, t, JSON.stringify(stageInstanceObject(s)));
  };
  const liveStage = (ctx: RestContext): { guild: GuildRecord; stage: StageInstanceRecord } => {
    const { guild, channel } = guildChannelOf(store, ctx);
    const stage = stagesOf(guild).get(channel.id);
    if (!stage) throw unknownStage();
    return { guild, stage };
  };

  const create = (ctx: RestContext): Json => {
    const body = objectBody(ctx);
    const form = new FormErrors();
    const fields = stageFields(form, body, true);
    const ch = body.channel_id;
    if (ch === undefined || ch === null) form.add(['channel_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
    else if (typeof ch !== 'string' || !isSnowflake(ch)) form.add(['channel_id'], 'NUMBER_TYPE_COERCE', `Value "${String(ch)}" is not snowflake.`);
    form.throwIfAny();
    const { guild, channel } = stageChannel(ch as string);
    if (stagesOf(guild).has(channel.id)) throw new SandboxApiError(400, 150006, 'The Stage is already open');
    const event = typeof body.guild_scheduled_event_id === 'string' ? body.guild_scheduled_event_id : null;
    const stage: StageInstanceRecord = { id: store.ids.next(), guildId: guild.id, channelId: channel.id, topic: fields.topic!, privacyLevel: 2, scheduledEventId: event };
    stagesOf(guild).set(channel.id, stage);
    emit(guild, 'STAGE_INSTANCE_CREATE', stage);
    return stageInstanceObject(stage);
  };

  const modify = (ctx: RestContext): Json => {
    const { guild, stage } = liveStage(ctx);
    stageChannel(stage.channelId);
    const form = new FormErrors();
    const fields = stageFields(form, objectBody(ctx), false);
    form.throwIfAny();
    Object.assign(stage, fields);
    emit(guild, 'STAGE_INSTANCE_UPDATE', stage);
    return stageInstanceObject(stage);
  };

  const remove = (ctx: RestContext): void => {
    const { guild, stage } = liveStage(ctx);
    stageChannel(stage.channelId);
    stagesOf(guild).delete(stage.channelId);
    emit(guild, 'STAGE_INSTANCE_DELETE', stage);
  };

  const s = { auth: 'bot' } as const;
  return [
    { ...s, method: 'POST', path: '/stage-instances', bucket: 'stage-instances', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    { ...s, major: 'channelId', method: 'GET', path: '/stage-instances/:channelId', bucket: 'stage-instances', handler: (ctx) => ({ status: 200, body: stageInstanceObject(liveStage(ctx).stage) }) },
    { ...s, major: 'channelId', method: 'PATCH', path: '/stage-instances/:channelId', bucket: 'stage-instances', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...s, major: 'channelId', method: 'DELETE', path: '/stage-instances/:channelId', bucket: 'stage-instances', handler: (ctx) => (remove(ctx), { status: 204 }) },
    ...voiceRoutes(core),
  ];
}

/** Voice states: none exists, so every valid request ends in 10065; the channel status as described above. */
function voiceRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const patchBody = (ctx: RestContext, guild: GuildRecord, self: boolean): void => {
    const body = objectBody(ctx);
    const form = new FormErrors();
    form.bool(body, 'suppress');
    const ch = body.channel_id;
    if (ch !== undefined && ch !== null && (typeof ch !== 'string' || !isSnowflake(ch))) form.add(['channel_id'], 'NUMBER_TYPE_COERCE', `Value "${String(ch)}" is not snowflake.`);
    const rts = body.request_to_speak_timestamp;
    if (self && rts !== undefined && rts !== null && (typeof rts !== 'string' || Number.isNaN(Date.parse(rts)))) form.add(['request_to_speak_timestamp'], 'DATE_TYPE_CONVERT', 'Could not parse the value as a date.');
    form.throwIfAny();
    if (typeof ch === 'string') {
      const channel = guild.channels.find((c) => c.id === ch);
      if (!channel) throw Errors.unknownChannel();
      if (channel.type !== 13) throw Errors.wrongChannelType();
    }
  };

  const voiceStatus = (ctx: RestContext): void => {
    const { guild, channel } = guildChannelOf(store, ctx);
    if (channel.type !== 2) throw Errors.wrongChannelType();
    const body = objectBody(ctx);
    const form = new FormErrors();
    form.string(body, 'status', 0, 500);
    form.throwIfAny();
    requireChannelPermission(store, guild, channel, SET_VOICE_CHANNEL_STATUS | P.MANAGE_CHANNELS);
  };

  const v = { major: 'guildId', auth: 'bot', bucket: 'voice-states' } as const;
  const base = '/guilds/:guildId/voice-states';
  return [
    { ...v, method: 'GET', path: `${base}/@me`, handler: (ctx) => {
      guildOf(store, ctx);
      throw unknownVoiceState();
    } },
    { ...v, method: 'PATCH', path: `${base}/@me`, handler: (ctx) => {
      patchBody(ctx, guildOf(store, ctx), true);
      throw unknownVoiceState();
    } },
    { ...v, method: 'GET', path: `${base}/:userId`, handler: (ctx) => {
      guildOf(store, ctx, { userId: 'user_id' });
      throw unknownVoiceState();
    } },
    { ...v, method: 'PATCH', path: `${base}/:userId`, handler: (ctx) => {
      const guild = guildOf(store, ctx, { userId: 'user_id' });
      requireGuildPermission(store, guild, P.MUTE_MEMBERS);
      patchBody(ctx, guild, false);
      memberOf(store, guild, ctx.params.userId!);
      throw unknownVoiceState();
    } },
    { major: 'channelId', auth: 'bot', bucket: 'voice-states', method: 'PUT', path: '/channels/:channelId/voice-status', handler: (ctx) => {
      snowflakeParams(ctx, { channelId: 'channel_id' });
      voiceStatus(ctx);
      return { status: 204 };
    } },
  ];
}
