/**
 * The ingest benchmark's plugin, an ordinary gatehouse plugin: it counts member and entitlement events and
 * answers its slash command, so every interaction goes router -> handler -> REST callback.
 */
// Types only: the compiled benchmark (--compiled) loads this file next to its own compiled copy of gatehouse,
// and a runtime import of 'gatehouse' would load the package's build a second time.
import type { PluginDefinition } from 'gatehouse';
import { ingestCounters } from '../counters.js';
import { BENCH_COMMAND } from '../workload.js';

const c = ingestCounters();

export default {
  name: 'ingest-counter',
  commands: [
    {
      ...BENCH_COMMAND,
      async run(ctx) {
        c.interactions++;
        try {
          await ctx.reply('pong');
          c.answered++;
        } catch (err) {
          c.answerErrors++;
          c.answerError ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        }
        c.onCount();
      },
    },
  ],
  on: {
    guildCreate() {
      c.guildCreates++;
      c.onCount();
    },
    guildMemberAdd() {
      c.memberAdds++;
      c.onCount();
    },
    guildMemberUpdate() {
      c.memberUpdates++;
      c.onCount();
    },
    guildMemberRemove() {
      c.memberRemoves++;
      c.onCount();
    },
    entitlementCreate() {
      c.entitlementCreates++;
      c.onCount();
    },
    entitlementUpdate() {
      c.entitlementUpdates++;
      c.onCount();
    },
  },
} satisfies PluginDefinition;
