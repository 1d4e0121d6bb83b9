/**
 * Example: a message context-menu command; the target message arrives in the interaction's resolved data.
 */
import { definePlugin } from 'gatehouse';

export default definePlugin({
  name: 'word-count',
  commands: [
    {
      type: 3,
      name: 'Count words',
      async run(ctx) {
        const data = ctx.interaction.data;
        const message = 'resolved' in data && data.resolved !== undefined && 'messages' in data.resolved
          ? data.resolved.messages[ctx.targetId!]
          : undefined;
        const words = (message?.content ?? '').split(/\s+/u).filter((w) => w.length > 0).length;
        await ctx.reply({ content: `That message has ${words} word${words === 1 ? '' : 's'}.`, ephemeral: true });
      },
    },
  ],
});
