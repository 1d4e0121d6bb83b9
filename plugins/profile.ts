/**
 * Example: a user context-menu command that shows what the cache knows of the member, and member events.
 */
import { definePlugin } from 'gatehouse';

export default definePlugin({
  name: 'profile',
  commands: [
    {
      type: 2,
      name: 'Show profile',
      // Every answer is ephemeral; a member request can make it slower than the 2 s guard, whose defer must
      // then be ephemeral too.
      deferEphemeral: true,
      async run(ctx) {
        const userId = ctx.targetId!;
        if (ctx.guildId === undefined) {
          await ctx.reply({ content: 'Profiles are shown in servers only.', ephemeral: true });
          return;
        }
        // The cache is current: GUILD_CREATE, chunks and member events are applied before any handler runs.
        // Members not cached yet (large guilds list only some at connect) are fetched once through op 8;
        // the chunk that answers is applied to the cache before the request resolves.
        let member = await ctx.cache.getMember(ctx.guildId, userId);
        if (member === undefined) {
          await ctx.plugin.requestMembers({ guildId: ctx.guildId, userIds: [userId], timeoutMs: 2000 }).catch(() => undefined);
          member = await ctx.cache.getMember(ctx.guildId, userId);
        }
        if (member === undefined) {
          await ctx.reply({ content: `<@${userId}> is not in the member cache.`, ephemeral: true });
          return;
        }
        const roles = await Promise.all(member.roles.map((id) => ctx.cache.getRole(ctx.guildId!, id)));
        const name = member.nick ?? member.user?.globalName ?? member.user?.username ?? userId;
        const lines = [
          `**${name}**${member.user?.bot ? ' (bot)' : ''}`,
          `Joined: ${member.joinedAt === null ? 'unknown' : new Date(member.joinedAt).toISOString().slice(0, 10)}`,
          `Roles: ${roles.map((r) => r?.name ?? 'unknown').join(', ') || 'none'}`,
        ];
        await ctx.reply({ content: lines.join('\n'), ephemeral: true });
      },
    },
  ],
  on: {
    guildMemberAdd(member, ctx) {
      ctx.log.info({ guildId: member.guild_id, userId: member.user.id }, 'member joined');
    },
    guildMemberRemove(event, ctx) {
      ctx.log.info({ guildId: event.guild_id, userId: event.user.id }, 'member left');
    },
  },
});
