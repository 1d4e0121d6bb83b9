/**
 * Example: moderation through the REST route helpers.
 *   /timeout member minutes [reason]   time a member out, give them the timeout role, log it with an embed
 *   /untimeout member [reason]         end the timeout, take the role back, log it
 *
 * Configuration (`plugins.config.moderation`, or GATEHOUSE_PLUGIN__MODERATION__LOG_CHANNEL_ID and so on):
 *   logChannelId   the channel the log embeds go to
 *   timeoutRoleId  the role a timed-out member wears (it must be below the bot's highest role)
 * Until both are set, the commands answer with what is missing.
 *
 * The bot needs MODERATE_MEMBERS and MANAGE_ROLES in the guild, and to send messages and embeds in the log
 * channel. The commands are for members who can moderate (default_member_permissions) and only in guilds.
 * Each step's failure is told to the moderator as it is; a timeout that did not happen gets no role and no log.
 */
import { z } from 'zod';
import { ApiError, defineCommand, definePlugin, type PluginCommandContext } from 'gatehouse';
import {
  addMemberRole,
  createMessage,
  removeMemberRole,
  timeoutMember,
  type RestRequester,
} from 'gatehouse/rest';

const snowflake = z.string().regex(/^[1-9]\d{0,19}$/, 'must be a snowflake (an id as a decimal string)');
// Optional, so that the examples load on a fresh checkout; the commands say what is missing until it is set.
const config = z.object({ logChannelId: snowflake.optional(), timeoutRoleId: snowflake.optional() });
type ModerationConfig = z.infer<typeof config>;

const NOT_SET_UP =
  'Moderation is not set up: set plugins.config.moderation.logChannelId and timeoutRoleId ' +
  '(or GATEHOUSE_PLUGIN__MODERATION__LOG_CHANNEL_ID and GATEHOUSE_PLUGIN__MODERATION__TIMEOUT_ROLE_ID).';

/** MODERATE_MEMBERS (1 << 40), as the service writes permission bit sets: a decimal string (docs/protocol.md §12.5). */
const MODERATE_MEMBERS = String(1n << 40n);
/** The longest timeout the service accepts: 28 days. */
const MAX_MINUTES = 28 * 24 * 60;
const AUDIT_REASON_MAX = 512;

const COLOR_TIMEOUT = 0xe67e22;
const COLOR_RELEASE = 0x2ecc71;

/** The audit log shows the bot as the actor: name the moderator in the reason. */
function auditReason(ctx: PluginCommandContext<unknown, ModerationConfig>, reason: string | undefined): string {
  const text = `${ctx.user.username}: ${reason ?? 'no reason given'}`;
  return [...text].length <= AUDIT_REASON_MAX ? text : `${[...text].slice(0, AUDIT_REASON_MAX - 1).join('')}…`;
}

/** What to tell the moderator when the service refused a step. */
function refusal(step: string, err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 50013)
      return `I could not ${step}: I lack the permission, or their highest role is not below mine.`;
    if (err.code === 10007) return `I could not ${step}: they are not a member of this server.`;
    return `I could not ${step}: ${err.apiMessage} (code ${err.code ?? err.status}).`;
  }
  return `I could not ${step}: ${(err as Error).message}.`;
}

/** The settings, or null while one is missing (`ctx.config` is the section as the schema parsed it at load). */
function settings(ctx: PluginCommandContext<unknown, ModerationConfig>): Required<ModerationConfig> | null {
  const { logChannelId, timeoutRoleId } = ctx.config;
  return logChannelId !== undefined && timeoutRoleId !== undefined ? { logChannelId, timeoutRoleId } : null;
}

async function postLog(
  rest: RestRequester,
  channelId: string,
  embed: { title: string; color: number; fields: { name: string; value: string; inline?: boolean }[] },
): Promise<string | null> {
  try {
    await createMessage(rest, channelId, {
      embeds: [{ ...embed, timestamp: new Date().toISOString() }],
      // The log names people; it must not ping them.
      allowed_mentions: { parse: [] },
    });
    return null;
  } catch (err) {
    return refusal('post to the log channel', err);
  }
}

export default definePlugin({
  name: 'moderation',
  config,
  commands: [
    defineCommand({
      name: 'timeout',
      description: 'Time a member out, give them the timeout role and log it',
      default_member_permissions: MODERATE_MEMBERS,
      contexts: [0],
      options: [
        { type: 6, name: 'member', description: 'Who to time out', required: true },
        {
          type: 4,
          name: 'minutes',
          description: `How long, 1 to ${MAX_MINUTES} (28 days)`,
          required: true,
          min_value: 1,
          max_value: MAX_MINUTES,
        },
        { type: 3, name: 'reason', description: 'Why (shown in the audit log and the log channel)', max_length: 400 },
      ],
      deferEphemeral: true,
      async run(ctx) {
        const guildId = ctx.guildId;
        if (guildId === undefined) {
          await ctx.reply({ content: 'Timeouts work in servers only.', ephemeral: true });
          return;
        }
        const set = settings(ctx);
        if (set === null) {
          await ctx.reply({ content: NOT_SET_UP, ephemeral: true });
          return;
        }
        const { logChannelId, timeoutRoleId } = set;
        const { member: target, minutes, reason } = ctx.options;
        const member = target.id;
        if (target.member === undefined) {
          await ctx.reply({
            content: `<@${member}> is not a member of this server.`,
            ephemeral: true,
            allowed_mentions: { parse: [] },
          });
          return;
        }
        const rest = ctx.plugin.rest;
        const audit = auditReason(ctx, reason);
        const until = Date.now() + minutes * 60_000;
        try {
          await timeoutMember(rest, guildId, member, minutes * 60_000, { reason: audit });
        } catch (err) {
          await ctx.reply({
            content: refusal(`time <@${member}> out`, err),
            ephemeral: true,
            allowed_mentions: { parse: [] },
          });
          return;
        }
        const problems: string[] = [];
        await addMemberRole(rest, guildId, member, timeoutRoleId, { reason: audit }).catch((err: unknown) => {
          problems.push(refusal('give the timeout role', err));
        });
        const logged = await postLog(rest, logChannelId, {
          title: 'Member timed out',
          color: COLOR_TIMEOUT,
          fields: [
            { name: 'Member', value: `<@${member}>`, inline: true },
            { name: 'Moderator', value: `<@${ctx.user.id}>`, inline: true },
            {
              name: 'Duration',
              value: `${minutes} minute${minutes === 1 ? '' : 's'} (until <t:${Math.floor(until / 1000)}:f>)`,
            },
            { name: 'Reason', value: reason ?? 'No reason given' },
          ],
        });
        if (logged !== null) problems.push(logged);
        await ctx.reply({
          content: [`Timed out <@${member}> for ${minutes} minute${minutes === 1 ? '' : 's'}.`, ...problems].join('\n'),
          ephemeral: true,
          allowed_mentions: { parse: [] },
        });
      },
    }, config),
    defineCommand({
      name: 'untimeout',
      description: 'End a member’s timeout, take the timeout role back and log it',
      default_member_permissions: MODERATE_MEMBERS,
      contexts: [0],
      options: [
        { type: 6, name: 'member', description: 'Whose timeout to end', required: true },
        { type: 3, name: 'reason', description: 'Why (shown in the audit log and the log channel)', max_length: 400 },
      ],
      deferEphemeral: true,
      async run(ctx) {
        const guildId = ctx.guildId;
        if (guildId === undefined) {
          await ctx.reply({ content: 'Timeouts work in servers only.', ephemeral: true });
          return;
        }
        const set = settings(ctx);
        if (set === null) {
          await ctx.reply({ content: NOT_SET_UP, ephemeral: true });
          return;
        }
        const { logChannelId, timeoutRoleId } = set;
        const { member: target, reason } = ctx.options;
        const member = target.id;
        const rest = ctx.plugin.rest;
        const audit = auditReason(ctx, reason);
        try {
          await timeoutMember(rest, guildId, member, null, { reason: audit });
        } catch (err) {
          await ctx.reply({
            content: refusal(`end the timeout of <@${member}>`, err),
            ephemeral: true,
            allowed_mentions: { parse: [] },
          });
          return;
        }
        const problems: string[] = [];
        await removeMemberRole(rest, guildId, member, timeoutRoleId, { reason: audit }).catch((err: unknown) => {
          problems.push(refusal('take the timeout role back', err));
        });
        const logged = await postLog(rest, logChannelId, {
          title: 'Timeout ended',
          color: COLOR_RELEASE,
          fields: [
            { name: 'Member', value: `<@${member}>`, inline: true },
            { name: 'Moderator', value: `<@${ctx.user.id}>`, inline: true },
            { name: 'Reason', value: reason ?? 'No reason given' },
          ],
        });
        if (logged !== null) problems.push(logged);
        await ctx.reply({
          content: [`Ended the timeout of <@${member}>.`, ...problems].join('\n'),
          ephemeral: true,
          allowed_mentions: { parse: [] },
        });
      },
    }, config),
  ],
});
