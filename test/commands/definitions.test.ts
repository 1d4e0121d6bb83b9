/**
 * Plugin definitions: the payload is the definition minus handlers; grouping into scopes (and development
 * mode); validation of runtime fields and of every scope with paths into the definitions array; advisories.
 */
import { describe, expect, it } from 'vitest';
import {
  GLOBAL_SCOPE,
  groupByScope,
  lintCommands,
  scopeKey,
  toPayload,
  validateDefinitions,
  type CommandDefinition,
} from '../../src/commands/index.js';
import { pc } from './helpers.js';

interface Ctx {
  reply(text: string): Promise<void>;
  options: { sides: number };
}
const run = async (ctx: Ctx): Promise<void> => ctx.reply('ok');

// The design card's example must type-check as a definition (tsc runs over test/ in CI).
const dice: CommandDefinition<Ctx, Ctx> = {
  name: 'roll',
  description: 'Roll a die',
  options: [{ type: 4, name: 'sides', description: 'How many sides', min_value: 2, max_value: 120, autocomplete: true }],
  async run(ctx) {
    await ctx.reply(`You rolled ${1 + Math.floor(Math.random() * ctx.options.sides)}`);
  },
  async autocomplete() {
    return [6, 20, 100].map((n) => ({ name: `d${n}`, value: n }));
  },
};
const mod: CommandDefinition<Ctx, Ctx> = {
  name: 'mod',
  description: 'Moderation',
  guilds: ['900000000000000001', '900000000000000002'],
  options: [
    { type: 1, name: 'ban', description: 'Ban', run, options: [{ type: 6, name: 'user', description: 'Who', required: true }] },
    { type: 2, name: 'case', description: 'Cases', options: [{ type: 1, name: 'view', description: 'View one', run }] },
  ],
};
const menu: CommandDefinition<Ctx> = { type: 2, name: 'User info', run };
const launch: CommandDefinition<Ctx> = { type: 4, name: 'Launch', handler: 2 };

describe('toPayload', () => {
  it('strips run, autocomplete and guilds, also on subcommands, without touching the definition', () => {
    expect(toPayload(dice)).toEqual({
      name: 'roll',
      description: 'Roll a die',
      options: [{ type: 4, name: 'sides', description: 'How many sides', min_value: 2, max_value: 120, autocomplete: true }],
    });
    const p = toPayload(mod) as unknown as { options: Array<{ run?: unknown; options?: Array<{ run?: unknown }> }> };
    expect('guilds' in p).toBe(false);
    expect(p.options[0]!.run).toBeUndefined();
    expect(p.options[1]!.options![0]!.run).toBeUndefined();
    expect(JSON.stringify(p)).toBe(JSON.stringify(JSON.parse(JSON.stringify(toPayload(mod)))));
    expect(mod.guilds).toHaveLength(2);
    expect((mod.options![0] as { run?: unknown }).run).toBe(run);
  });

  it('strips the runtime setting deferEphemeral too, and lint does not call it unknown in a definition', () => {
    const slow = { name: 'slow', description: 'Slow', deferEphemeral: true, run };
    expect(toPayload(slow as CommandDefinition<Ctx, Ctx>)).toEqual({ name: 'slow', description: 'Slow' });
    expect(lintCommands([slow], { scope: 'global', definitions: true })).toEqual([]);
  });
});

describe('groupByScope', () => {
  it('puts commands without guilds in the global scope and the others in each named guild', () => {
    const { groups, notes } = groupByScope([mod, dice, menu, launch]);
    expect(groups.map((g) => [scopeKey(g.scope), g.sources])).toEqual([
      ['global', [1, 2, 3]],
      ['guild:900000000000000001', [0]],
      ['guild:900000000000000002', [0]],
    ]);
    expect(groups[1]!.commands[0]).toBe(mod);
    expect(notes).toEqual([]);
  });

  it('a guild named twice in guilds is one scope with the command once', () => {
    const twice = { ...dice, guilds: ['900000000000000003', '900000000000000003'] } as CommandDefinition<Ctx, Ctx>;
    const { groups } = groupByScope([twice]);
    expect(groups.map((g) => [scopeKey(g.scope), g.sources])).toEqual([['guild:900000000000000003', [0]]]);
    expect(validateDefinitions([twice])).toEqual([]);
  });

  it('development mode puts everything into one guild, without entry points and global-only fields', () => {
    const withContexts = { ...dice, contexts: [0, 1], integration_types: [0] } as CommandDefinition<Ctx, Ctx>;
    const { groups, notes } = groupByScope([withContexts, mod, launch, menu], { devGuildId: '42' });
    expect(groups.map((g) => [scopeKey(g.scope), g.sources])).toEqual([['guild:42', [0, 1, 3]]]);
    expect(groups[0]!.commands[0]).not.toHaveProperty('contexts');
    expect(groups[0]!.commands[0]).not.toHaveProperty('integration_types');
    expect(withContexts).toHaveProperty('contexts'); // the definition itself is untouched
    expect(notes.map((n) => n.index)).toEqual([0, 2]);
  });
});

describe('validateDefinitions', () => {
  it('accepts well-formed definitions', () => {
    expect(validateDefinitions([dice, mod, menu, launch])).toEqual([]);
    expect(validateDefinitions([{ type: 4, name: 'Play', handler: 1, run }])).toEqual([]);
  });

  it('checks handlers: functions, and only where they can be called', () => {
    const defs = [
      { name: 'a', description: 'x', run: 'not a function' },
      { name: 'b', description: 'x', run, options: [{ type: 1, name: 'sub', description: 's' }] },
      { name: 'c', description: 'x', options: [{ type: 2, name: 'grp', description: 'g', run, options: [{ type: 1, name: 's', description: 's', autocomplete: 5 }] }] },
      { name: 'd', description: 'x', options: [{ type: 3, name: 'o', description: 'o', run }] },
      { type: 3, name: 'Quote', run, autocomplete: run },
      { type: 4, name: 'Launch', run },
    ];
    expect(pc(validateDefinitions(defs))).toEqual(
      [
        '[0].run DEFINITION_HANDLER_INVALID',
        '[1].run DEFINITION_HANDLER_INVALID',
        '[2].options[0].run DEFINITION_HANDLER_INVALID',
        '[2].options[0].options[0].autocomplete DEFINITION_HANDLER_INVALID',
        '[3].options[0].run DEFINITION_HANDLER_INVALID',
        '[4].autocomplete DEFINITION_HANDLER_INVALID',
        '[5].run DEFINITION_HANDLER_INVALID',
      ].sort(),
    );
  });

  it('checks guilds: a non-empty array of guild ids, never on an entry point', () => {
    const defs = [
      { name: 'a', description: 'x', guilds: [] },
      { name: 'b', description: 'x', guilds: '123' },
      { name: 'c', description: 'x', guilds: ['123', 'abc'] },
      { type: 4, name: 'Launch', guilds: ['123'] },
    ];
    expect(pc(validateDefinitions(defs))).toEqual(
      [
        '[0].guilds DEFINITION_GUILDS_INVALID',
        '[1].guilds DEFINITION_GUILDS_INVALID',
        '[2].guilds[1] DEFINITION_GUILDS_INVALID',
        '[3].guilds APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD',
        '[3].type APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD',
      ].sort(),
    );
  });

  it('validates every scope with paths into the definitions array, once per problem', () => {
    const defs = [
      { name: 'ping', description: 'Global ping' },
      { name: 'ping', description: 'Guild ping', guilds: ['1', '2'] },
      { name: 'ping', description: 'Another guild ping', guilds: ['2'] },
      { name: 'Bad', description: 'x', guilds: ['1', '2'], contexts: [0, 1] },
    ];
    const problems = validateDefinitions(defs);
    expect(pc(problems)).toEqual(
      [
        '[2].name APPLICATION_COMMANDS_DUPLICATE_NAME', // in guild 2, after [1]
        '[3].name APPLICATION_COMMAND_NAME_LOWERCASE',
        '[3].contexts APPLICATION_COMMAND_GLOBAL_ONLY',
        '[3].contexts[1] APPLICATION_COMMAND_CONTEXT_UNSUPPORTED',
      ].sort(),
    );
    expect(problems.find((p) => p.code === 'APPLICATION_COMMANDS_DUPLICATE_NAME')!.message).toContain('[1]');
  });

  it('counts per scope: 100 global commands plus 100 guild commands are fine, 101 in a guild are not', () => {
    const make = (n: number, guilds?: string[]) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, description: 'x', ...(guilds ? { guilds } : {}) }));
    expect(validateDefinitions([...make(100), ...make(100, ['7'])])).toEqual([]);
    expect(pc(validateDefinitions([...make(100), ...make(101, ['7'])]))).toEqual(['[200] APPLICATION_COMMANDS_TOO_MANY']);
  });

  it('in development mode validates the guild they will land in', () => {
    const defs = [{ name: 'a', description: 'x', contexts: [0, 1] }, { type: 4, name: 'Launch' }];
    expect(validateDefinitions(defs, { devGuildId: '42' })).toEqual([]);
    expect(pc(validateDefinitions(defs))).toEqual([]);
  });

  it('rejects a non-array', () => {
    expect(pc(validateDefinitions({ name: 'x' }))).toEqual([' LIST_TYPE_CONVERT']);
  });
});

describe('lintCommands (advisories, not errors)', () => {
  it('names unknown fields (typos) at every level; knows server-only and, for definitions, runtime fields', () => {
    const list = [
      {
        name: 'a',
        description: 'x',
        id: '1',
        version: '2',
        application_id: '3',
        min_val: 1,
        options: [
          { type: 4, name: 'n', description: 'd', min_val: 2, choices: [{ name: 'c', value: 1, label: 'C' }] },
          { type: 1, name: 's', description: 'd', run },
        ],
        run,
      },
    ];
    expect(pc(lintCommands(list, { scope: 'global' }))).toEqual(
      [
        '[0].min_val UNKNOWN_FIELD',
        '[0].run UNKNOWN_FIELD',
        '[0].options[0].min_val UNKNOWN_FIELD',
        '[0].options[0].choices[0].label UNKNOWN_FIELD',
        '[0].options[1].run UNKNOWN_FIELD',
      ].sort(),
    );
    expect(pc(lintCommands(list, { scope: 'global', definitions: true }))).toEqual(
      ['[0].min_val UNKNOWN_FIELD', '[0].options[0].min_val UNKNOWN_FIELD', '[0].options[0].choices[0].label UNKNOWN_FIELD'].sort(),
    );
  });

  it('warns about PRIVATE_CHANNEL without USER_INSTALL, deprecated fields and empty groups', () => {
    const list = [
      { name: 'a', description: 'x', contexts: [0, 2], integration_types: [0] },
      { name: 'b', description: 'x', contexts: [0, 2], integration_types: [0, 1] },
      { name: 'c', description: 'x', contexts: [2] },
      { name: 'd', description: 'x', dm_permission: false, default_permission: true },
      { name: 'e', description: 'x', options: [{ type: 2, name: 'g', description: 'g' }, { type: 2, name: 'h', description: 'h', options: [] }] },
    ];
    expect(pc(lintCommands(list, { scope: 'global' }))).toEqual(
      [
        '[0].contexts[1] PRIVATE_CHANNEL_WITHOUT_USER_INSTALL',
        '[3].dm_permission DEPRECATED_FIELD',
        '[3].default_permission DEPRECATED_FIELD',
        '[4].options[0] EMPTY_SUBCOMMAND_GROUP',
        '[4].options[1] EMPTY_SUBCOMMAND_GROUP',
      ].sort(),
    );
    // With the application's default known, an omitted integration_types is judged by it.
    expect(pc(lintCommands([list[2]], { scope: 'global', appIntegrationTypes: [0] }))).toEqual(['[0].contexts[0] PRIVATE_CHANNEL_WITHOUT_USER_INSTALL']);
  });

  it('returns nothing for the realistic fixtures', async () => {
    const { fixture } = await import('./helpers.js');
    expect(lintCommands(fixture('moderation-global.json'), { scope: 'global' })).toEqual([]);
    expect(lintCommands(fixture('moderation-guild.json'), { scope: 'guild' })).toEqual([]);
    expect(GLOBAL_SCOPE.kind).toBe('global');
  });
});
