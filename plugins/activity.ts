/**
 * Example: the entry-point command of an app with Activities. With handler 1 (APP_HANDLER) the app decides
 * what happens; here it launches the Activity (callback type 12). Without this plugin the service's own
 * "Launch" command (handler 2) stays registered and the service launches the Activity itself.
 */
import { definePlugin } from 'gatehouse';

export default definePlugin({
  name: 'activity',
  commands: [
    {
      type: 4,
      name: 'launch',
      description: 'Start the activity',
      handler: 1,
      async run(ctx) {
        await ctx.launchActivity();
      },
    },
  ],
});
