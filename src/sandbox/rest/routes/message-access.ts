/**
 * The message of a route, wherever it lives (a guild channel or thread, or one of the bot's DMs), with the bot's
 * permissions there: a guild channel's with its overwrites (no VIEW_CHANNEL: 50001), a DM's the fixed set the
 * service gives apps in DMs.
 */
import { Errors } from '../../errors.js';
import type { MessageRecord } from '../../state/messages.js';
import type { ChannelRecord, GuildRecord } from '../../state/model.js';
import { BOT_DM_APP_PERMISSIONS, P } from '../../state/permissions.js';
import type { SandboxStore } from '../../state/store.js';
import { snowflakeParams } from '../params.js';
import type { RestContext } from '../types.js';

export interface ChannelPlace {
  channelId: string;
  /** null in DMs. */
  guild: GuildRecord | null;
  channel: ChannelRecord | null;
  /** The bot's permissions in the channel. */
  perms: bigint;
}

export function channelPlace(store: SandboxStore, ctx: RestContext, extra: Record<string, string> = {}): ChannelPlace {
  snowflakeParams(ctx, { channelId: 'channel_id', ...extra });
  const id = ctx.params.channelId!;
  const found = store.guildChannel(id);
  if (found) {
    const perms = store.channelPermissionsOf(found.guild, found.channel, store.applicationId);
    if ((perms & P.VIEW_CHANNEL) === 0n) throw Errors.missingAccess();
    return { channelId: id, guild: found.guild, channel: found.channel, perms };
  }
  if (store.messages.dm(id)) return { channelId: id, guild: null, channel: null, perms: BOT_DM_APP_PERMISSIONS };
  throw Errors.unknownChannel();
}

/** The bot must hold `need` in the place (50013). */
export function requirePerms(place: ChannelPlace, need: bigint): void {
  if ((place.perms & need) !== need) throw Errors.missingPermissions();
}

/** The live message `messageId` of the route's channel (10008). */
export function messageAt(store: SandboxStore, ctx: RestContext, param = 'messageId'): { place: ChannelPlace; record: MessageRecord } {
  const place = channelPlace(store, ctx, { [param]: 'message_id' });
  const record = store.messages.get(place.channelId, ctx.params[param]!);
  if (!record) throw Errors.unknownMessage();
  return { place, record };
}
