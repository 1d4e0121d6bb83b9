/**
 * Crossposting (discord-api-docs "Crosspost Message"): publish a message of an announcement channel (type 5) to
 * the channels that follow it. The bot needs SEND_MESSAGES for its own message and MANAGE_MESSAGES as well for
 * anyone else's (a webhook's); any other channel type is 50024; a message published already is 40033. The
 * message gains the CROSSPOSTED flag, comes back with 200 and is dispatched as MESSAGE_UPDATE. Nothing follows
 * a channel in the sandbox, so no copy is posted anywhere.
 */
import type { SandboxCore } from '../../core.js';
import { SandboxApiError, Errors } from '../../errors.js';
import { P } from '../../state/permissions.js';
import { messageDispatchJson } from '../../state/serialize.js';
import type { RestContext, RouteDef } from '../types.js';
import { guildChannelOf, requireChannelPermission, type Json } from './guild-access.js';

const ANNOUNCEMENT = 5;
const CROSSPOSTED = 1 << 0;

export function crosspostRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;

  const crosspost = (ctx: RestContext): Json => {
    const { guild, channel } = guildChannelOf(store, ctx, { messageId: 'message_id' });
    requireChannelPermission(store, guild, channel, 0n);
    if (channel.type !== ANNOUNCEMENT) throw Errors.wrongChannelType();
    const record = store.messages.get(channel.id, ctx.params.messageId!);
    if (record === undefined) throw Errors.unknownMessage();
    const own = (record.message.author as { id?: unknown } | undefined)?.id === store.applicationId;
    requireChannelPermission(store, guild, channel, own ? P.SEND_MESSAGES : P.SEND_MESSAGES | P.MANAGE_MESSAGES);
    const flags = typeof record.message.flags === 'number' ? record.message.flags : 0;
    if ((flags & CROSSPOSTED) !== 0) throw new SandboxApiError(400, 40033, 'This message has already been crossposted');
    // A crosspost is not an edit: edited_timestamp stays as it was.
    record.message = { ...record.message, flags: flags | CROSSPOSTED };
    const bot = own ? store.members(guild).get(store.applicationId) : undefined;
    store.emit(guild.id, 'MESSAGE_UPDATE', messageDispatchJson(guild, bot, record.message));
    return record.message;
  };

  return [
    {
      method: 'POST',
      path: '/channels/:channelId/messages/:messageId/crosspost',
      bucket: 'messages.crosspost',
      major: 'channelId',
      auth: 'bot',
      handler: (ctx) => ({ status: 200, body: crosspost(ctx) }),
    },
  ];
}
