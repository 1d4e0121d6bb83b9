/**
 * Typed helpers at every nesting level. The type assertions here are checked by the compiler
 * (`npm run typecheck` covers test/), and the handlers also run, through the real router.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineButton,
  defineCommand,
  defineModal,
  definePlugin,
  defineSelect,
  defineSubcommand,
  defineSubcommandGroup,
  type CustomIdParams,
  type PluginCommand,
} from '../../src/index.js';
import type { ResolvedChannel, ResolvedRole, ResolvedUser } from '../../src/interactions/options.js';

describe('typed helpers', () => {
  it('types options in a subcommand inside a group inside a command, and the group fits where the API wants it', () => {
    const set = defineSubcommand({
      type: 1,
      name: 'set',
      description: 'Set a value',
      options: [
        { type: 3, name: 'key', description: 'Key', required: true },
        { type: 4, name: 'ttl', description: 'Seconds' },
      ],
      run(ctx) {
        expectTypeOf(ctx.options.key).toEqualTypeOf<string>();
        expectTypeOf(ctx.options.ttl).toEqualTypeOf<number | undefined>();
        return ctx.reply(ctx.options.key);
      },
    });
    const group = defineSubcommandGroup({ type: 2, name: 'config', description: 'Configuration', options: [set] });
    const command = defineCommand({
      name: 'admin',
      description: 'Admin tools',
      options: [group, defineSubcommand({ type: 1, name: 'ping', description: 'Ping' })],
    });
    // A plain object command takes both too (the TS2322 the README example met).
    const plugin = definePlugin({
      name: 'types',
      commands: [command, { name: 'plain', description: 'Plain', options: [group, set] }],
    });
    expect(plugin.commands).toHaveLength(2);
  });

  it('types custom_id parameters, select values by kind, modal params, and the config by its schema', () => {
    expectTypeOf<CustomIdParams<'poll:{id}:{choice}'>>().toEqualTypeOf<{ readonly id: string; readonly choice: string }>();
    expectTypeOf<CustomIdParams<'static'>>().toEqualTypeOf<{}>();
    const button = defineButton({
      customId: 'poll:{id}:{choice}',
      run(ctx) {
        expectTypeOf(ctx.params.choice).toEqualTypeOf<string>();
        return ctx.update(`${ctx.params.id} ${ctx.params.choice}`);
      },
    });
    const selects = [
      defineSelect({ customId: 'a', kind: 'stringSelect', run: (ctx) => expectTypeOf(ctx.values).toEqualTypeOf<readonly string[]>() }),
      defineSelect({ customId: 'b', kind: 'userSelect', run: (ctx) => expectTypeOf(ctx.values).toEqualTypeOf<readonly ResolvedUser[]>() }),
      defineSelect({ customId: 'c', kind: 'roleSelect', run: (ctx) => expectTypeOf(ctx.values).toEqualTypeOf<readonly ResolvedRole[]>() }),
      defineSelect({ customId: 'd', kind: 'channelSelect', run: (ctx) => expectTypeOf(ctx.values).toEqualTypeOf<readonly ResolvedChannel[]>() }),
      defineSelect({ customId: 'e', kind: 'mentionableSelect', run: (ctx) => expectTypeOf(ctx.values).toEqualTypeOf<ReadonlyArray<ResolvedUser | ResolvedRole>>() }),
    ];
    const modal = defineModal({ customId: 'form:{id}', run: (ctx) => ctx.reply(`${ctx.params.id}: ${ctx.text('name') ?? ''}`) });
    const plugin = definePlugin({
      name: 'typed-config',
      config: z.object({ greeting: z.string().default('hi'), limit: z.number().int() }),
      components: [button, ...selects],
      modals: [modal],
      setup(ctx) {
        expectTypeOf(ctx.config.greeting).toEqualTypeOf<string>();
        expectTypeOf(ctx.config.limit).toEqualTypeOf<number>();
      },
    });
    expect(plugin.components).toHaveLength(6);
    expect(button).toMatchObject({ customId: 'poll:{id}:{choice}', kind: 'button' });
  });

  it('types ctx.config in command and autocomplete handlers by the plugin\'s schema', () => {
    const config = z.object({ logChannelId: z.string().optional(), limit: z.number().int().default(3) });
    type Config = z.infer<typeof config>;
    // Made apart from the plugin: the declared type gives the config type.
    const apart: PluginCommand<Config> = defineCommand({
      name: 'apart',
      description: 'Apart',
      run(ctx) {
        expectTypeOf(ctx.config).toEqualTypeOf<Config>();
      },
    });
    const plugin = definePlugin({
      name: 'typed-commands',
      config,
      commands: [
        apart,
        {
          name: 'inline',
          description: 'A plain object command',
          run(ctx) {
            expectTypeOf(ctx.config.limit).toEqualTypeOf<number>();
            expectTypeOf(ctx.plugin.config.logChannelId).toEqualTypeOf<string | undefined>();
            // @ts-expect-error: not a key of the schema
            void ctx.config.nope;
          },
        },
        defineCommand({
          name: 'typed',
          description: 'Typed options and config together',
          options: [{ type: 3, name: 'q', description: 'Query', required: true, autocomplete: true }],
          run(ctx) {
            expectTypeOf(ctx.options.q).toEqualTypeOf<string>();
            expectTypeOf(ctx.config).toEqualTypeOf<Config>();
          },
          autocomplete(ctx) {
            expectTypeOf(ctx.config.limit).toEqualTypeOf<number>();
          },
        }, config),
        // Without the schema or a declared type, a call inside `commands` sees the section as a bag; a loose
        // command still fits, and does not loosen the plugin's own config type (setup below).
        defineCommand({ name: 'loose', description: 'Loose', run: (ctx) => expectTypeOf(ctx.config).toEqualTypeOf<Readonly<Record<string, unknown>>>() }),
        defineCommand({
          name: 'group',
          description: 'Subcommands',
          options: [defineSubcommand({ type: 1, name: 'leaf', description: 'Leaf' })],
        }),
      ],
      setup(ctx) {
        expectTypeOf(ctx.config.limit).toEqualTypeOf<number>();
      },
    });
    expect(plugin.commands).toHaveLength(5);
    // A plugin without a schema keeps the section as a bag.
    definePlugin({
      name: 'bag',
      commands: [{ name: 'bag', description: 'Bag', run: (ctx) => expectTypeOf(ctx.config).toEqualTypeOf<Readonly<Record<string, unknown>>>() }],
    });
  });
});
