/**
 * The kit's public types as a plugin author's test uses them. `npm run typecheck` compiles this file: a type that
 * changes shape, or a misuse that starts to compile (the @ts-expect-error lines), fails it. At run time the
 * uses stay inside a function that is never called: vitest only checks that the module loads.
 */
import type { APIApplicationCommandOptionChoice, APIMessage, APIModalInteractionResponseCallbackData } from 'discord-api-types/v10';
import { afterEach, describe, expectTypeOf, it } from 'vitest';
import { definePlugin } from '../../src/index.js';
import type { Runtime } from '../../src/entries/runtime.js';
import {
  BotStartError,
  KitTimeoutError,
  Reply,
  commandPermission,
  startBot,
  startSandbox,
  testKit,
  type ForcedRateLimit,
  type LogLine,
  type Sandbox,
  type SandboxMessageRecord,
  type TestBot,
  type TestEntitlement,
  type TestGuild,
  type TestKit,
  type TestMember,
  type TestSandbox,
} from '../../src/testing/index.js';
import { z } from 'zod';

const configured = definePlugin({
  name: 'configured',
  config: z.object({ greeting: z.string() }),
  commands: [{ name: 'hi', description: 'Hi', async run(ctx) { await ctx.reply('hi'); } }],
});

async function usage(): Promise<void> {
  const kit: TestKit = testKit(afterEach);
  // Plugin objects with a config schema, and paths, in one list; configuration as in config/*.json.
  const bot = await kit.startBot({ plugins: [configured, './plugins/dice.ts'], config: { plugins: { config: { configured: { greeting: 'hey' } } } }, timeoutMs: 5_000 });
  expectTypeOf(bot).toEqualTypeOf<TestBot>();
  expectTypeOf(bot).toExtend<TestSandbox>();
  expectTypeOf(bot.runtime).toEqualTypeOf<Runtime>();
  expectTypeOf(bot.sandbox).toEqualTypeOf<Sandbox>();
  expectTypeOf(bot.guild).toEqualTypeOf<TestGuild>();

  const reply = await bot.invoke('dice roll', { options: { sides: 6 }, user: bot.owner });
  expectTypeOf(reply).toEqualTypeOf<Reply>();
  expectTypeOf(reply.content).toEqualTypeOf<string | undefined>();
  expectTypeOf(reply.ephemeral).toEqualTypeOf<boolean>();
  expectTypeOf(reply.message).toEqualTypeOf<APIMessage | null>();
  expectTypeOf(reply.followups).toEqualTypeOf<readonly APIMessage[]>();
  expectTypeOf(reply.edits).toEqualTypeOf<readonly APIMessage[]>();
  expectTypeOf(reply.modal).toEqualTypeOf<APIModalInteractionResponseCallbackData | null>();
  expectTypeOf(reply.choices).toEqualTypeOf<readonly APIApplicationCommandOptionChoice[] | null>();
  expectTypeOf(reply.waitForFollowup(0)).toEqualTypeOf<Promise<APIMessage>>();
  expectTypeOf(await reply.waitFor((r) => r.followups.length > 0, 'a follow-up')).toEqualTypeOf<Reply>();

  const member = await bot.join({ username: 'alice', roles: ['Moderator'] });
  expectTypeOf(member).toEqualTypeOf<TestMember>();
  await bot.invoke('dice roll', { user: member, options: { sides: 20 } });
  await reply.click('vote:yes', { user: member });
  await reply.select('menu', ['a', 'b']);
  await (await reply.click('open-form')).submitModal({ text: 'hello', picks: ['x'] });
  await bot.autocomplete('dice roll', 'sides', { options: { sides: 1 } });
  await bot.updateMember(member, { nick: null });
  await bot.leave(member);
  const entitlement = await bot.grantEntitlement({ user: member });
  expectTypeOf(entitlement).toEqualTypeOf<TestEntitlement>();
  await entitlement.end({ endsAt: new Date() });
  await bot.setCommandPermissions('dice', [commandPermission.role(await bot.roleId('Moderator'), true), commandPermission.everyone(bot.guild, false)]);
  const limit = bot.rateLimit({ bucket: 'interaction.callback', retryAfterMs: 100 });
  expectTypeOf(limit).toEqualTypeOf<ForcedRateLimit>();
  expectTypeOf(await bot.reconnect({ via: 'close', code: 4000 })).toEqualTypeOf<{ resumed: boolean }>();
  expectTypeOf(await bot.waitForMessage((m) => m.message.content === 'hi')).toEqualTypeOf<SandboxMessageRecord>();
  expectTypeOf(bot.warnings).toEqualTypeOf<readonly LogLine[]>();
  expectTypeOf<LogLine['level']>().toEqualTypeOf<number>();

  const bare = await startSandbox({ sandbox: { seed: { guilds: 2 } } });
  expectTypeOf(bare.token).toBeString();
  expectTypeOf(bare.apiBase).toBeString();
  expectTypeOf(bare.guildIds).toEqualTypeOf<readonly string[]>();
  await bare.close();
  await (await startBot({ plugins: [] })).close();

  // @ts-expect-error plugins are required
  await startBot({});
  // @ts-expect-error an option value is a string, number, boolean or something with an id
  await bot.invoke('dice roll', { options: { sides: [6] } });
  // @ts-expect-error a forced 429 names its bucket
  bot.rateLimit({ retryAfterMs: 100 });
  // @ts-expect-error reconnect via op 7 or a close, nothing else
  await bot.reconnect({ via: 'invalid-session' });
  // @ts-expect-error select values are strings
  await reply.select('menu', [1]);
  // @ts-expect-error the errors are classes a test can check with instanceof
  const notAClass: string = KitTimeoutError;
  void notAClass;
  void BotStartError;
}

describe('the kit\'s types', () => {
  it('compile as a plugin author uses them (see npm run typecheck)', () => {
    expectTypeOf(usage).returns.toEqualTypeOf<Promise<void>>();
  });
});
