/** The benchmark's plugin: one slash command answered at once (the answer is the HTTP response body). */
import { definePlugin } from 'gatehouse';

export default definePlugin({
  name: 'bench-ping',
  commands: [
    {
      name: 'ping',
      description: 'Answers pong',
      options: [{ type: 3, name: 'text', description: 'Echoed back' }],
      async run(ctx) {
        await ctx.reply(`pong ${String(ctx.options.text ?? '')}`);
      },
    },
  ],
});
