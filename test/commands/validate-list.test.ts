/**
 * Rules over the list of one scope (spec 8: counts per type, one entry point globally and none in a guild;
 * names unique per type), realistic multi-command lists, untrusted input, and the 50035 error tree.
 */
import { describe, expect, it } from 'vitest';
import {
  invalidFormBody,
  problemsToErrorTree,
  renderPath,
  validateCommand,
  validateCommands,
} from '../../src/commands/index.js';
import { clone, fixture, pc, prng } from './helpers.js';

type Def = Record<string, unknown>;
const chats = (n: number): Def[] => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, description: 'x' }));
const menus = (type: 2 | 3, n: number): Def[] => Array.from({ length: n }, (_, i) => ({ type, name: `Menu ${i}` }));
const entry: Def = { type: 4, name: 'Launch', handler: 2 };

describe('validateCommands: counts per type and scope', () => {
  it('accepts the full allowance of a global scope: 100 CHAT_INPUT, 15 USER, 15 MESSAGE, 1 entry point', () => {
    const list = [...chats(100), ...menus(2, 15), ...menus(3, 15), entry];
    expect(validateCommands(list, { scope: 'global' })).toEqual([]);
  });

  it('accepts the full allowance of a guild: 100 CHAT_INPUT, 15 USER, 15 MESSAGE', () => {
    expect(validateCommands([...chats(100), ...menus(2, 15), ...menus(3, 15)], { scope: 'guild' })).toEqual([]);
  });

  it('rejects the 101st CHAT_INPUT command, once, at its index', () => {
    expect(pc(validateCommands(chats(102), { scope: 'global' }))).toEqual(['[100] APPLICATION_COMMANDS_TOO_MANY']);
    expect(pc(validateCommands(chats(101), { scope: 'guild' }))).toEqual(['[100] APPLICATION_COMMANDS_TOO_MANY']);
  });

  it('rejects the 16th USER and the 16th MESSAGE command', () => {
    expect(pc(validateCommands([...menus(2, 16)], { scope: 'global' }))).toEqual(['[15] APPLICATION_COMMANDS_TOO_MANY']);
    expect(pc(validateCommands([...chats(1), ...menus(3, 16)], { scope: 'guild' }))).toEqual(['[16] APPLICATION_COMMANDS_TOO_MANY']);
  });

  it('allows one PRIMARY_ENTRY_POINT globally, none in a guild', () => {
    expect(pc(validateCommands([entry, { ...entry, name: 'Play' }], { scope: 'global' }))).toEqual([
      '[1] APPLICATION_COMMANDS_TOO_MANY',
    ]);
    expect(pc(validateCommands([...chats(1), entry], { scope: 'guild' }))).toEqual([
      '[1].type APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD',
    ]);
  });

  it('counts types separately (an invalid-type command counts toward none)', () => {
    const list = [...menus(2, 15), ...menus(3, 15), { type: 7, name: 'x' }];
    expect(pc(validateCommands(list, { scope: 'global' }))).toEqual(['[30].type ENUM_TYPE_COERCE']);
  });
});

describe('validateCommands: unique names per type, unique ids', () => {
  it('accepts the same name under different types', () => {
    const list = [
      { name: 'report', description: 'Report' },
      { type: 2, name: 'report' },
      { type: 3, name: 'report' },
    ];
    expect(validateCommands(list, { scope: 'global' })).toEqual([]);
  });

  it('rejects a second command of the same type and name, at its name', () => {
    const list = [
      { name: 'ping', description: 'a' },
      { name: 'pong', description: 'b' },
      { name: 'ping', description: 'c' },
      { type: 2, name: 'Info' },
      { type: 2, name: 'Info' },
    ];
    const problems = validateCommands(list, { scope: 'guild' });
    expect(pc(problems)).toEqual(['[2].name APPLICATION_COMMANDS_DUPLICATE_NAME', '[4].name APPLICATION_COMMANDS_DUPLICATE_NAME']);
    expect(problems[0]!.message).toContain('[0]');
  });

  it('rejects a repeated id in a bulk overwrite', () => {
    const list = [
      { id: '1', name: 'a', description: 'a' },
      { id: '2', name: 'b', description: 'b' },
      { id: '1', name: 'c', description: 'c' },
    ];
    expect(pc(validateCommands(list, { scope: 'global' }))).toEqual(['[2].id APPLICATION_COMMANDS_DUPLICATE_ID']);
  });

  it('rejects a list that is not an array, as a whole-request problem', () => {
    expect(pc(validateCommands({ name: 'ping' }, { scope: 'global' }))).toEqual([' LIST_TYPE_CONVERT']);
  });
});

describe('validateCommands over realistic lists', () => {
  const global = fixture('moderation-global.json');
  const guild = fixture('moderation-guild.json');

  it('a moderation bot of 20 commands (subcommands, groups, localizations, context menus) is valid globally', () => {
    expect(global).toHaveLength(20);
    expect(validateCommands(global, { scope: 'global' })).toEqual([]);
  });

  it('its guild variant is valid in a guild, and the global one is not (global-only fields)', () => {
    expect(validateCommands(guild, { scope: 'guild' })).toEqual([]);
    const problems = validateCommands(global, { scope: 'guild' });
    expect(problems.length).toBeGreaterThan(0);
    expect(new Set(problems.map((p) => p.code))).toEqual(
      new Set(['APPLICATION_COMMAND_GLOBAL_ONLY', 'APPLICATION_COMMAND_CONTEXT_UNSUPPORTED']),
    );
    expect(pc(problems)).toContain('[13].contexts[1] APPLICATION_COMMAND_CONTEXT_UNSUPPORTED');
  });

  it('finds every problem planted in it at once, each at its path', () => {
    const list = clone(global) as Def[];
    const opts = (i: number) => list[i]!.options as Def[];
    (opts(2)[1]!.choices as Def[])[4]!.value = 10.5; // timeout > minutes: INTEGER choice
    (opts(3)[0]!.options as Def[])[1]!.max_length = 2; // warn add reason: min_length 3 > max_length 2
    ((opts(8)[0]!.options as Def[])[1]!.options as Def[])[0]!.name = 'User'; // role member remove user
    list[15]!.name_localizations = { ...(list[15]!.name_localizations as Def), ko: '도움 말' }; // help: space
    list[17]!.description = 'Warn this user'; // USER command with a description
    list.push({ name: 'ban', description: 'again' });
    expect(pc(validateCommands(list, { scope: 'global' }))).toEqual(
      [
        '[2].options[1].choices[4].value NUMBER_TYPE_COERCE',
        '[3].options[0].options[1].max_length APPLICATION_COMMAND_OPTION_RANGE_INVALID',
        '[8].options[0].options[1].options[0].name APPLICATION_COMMAND_NAME_LOWERCASE',
        '[15].name_localizations.ko STRING_TYPE_REGEX',
        '[17].description APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED',
        '[20].name APPLICATION_COMMANDS_DUPLICATE_NAME',
      ].sort(),
    );
  });

  it('validateCommand on one fixture command reports paths without an index', () => {
    const ban = clone(global[0]) as Def;
    (ban.options as Def[])[1]!.min_value = -1;
    (ban.options as Def[])[1]!.max_value = 8;
    (ban.options as Def[])[1]!.choices = [{ name: 'one', value: 1 }];
    expect(pc(validateCommand(ban, { scope: 'global' }))).toEqual([]);
    (ban.options as Def[])[1]!.type = 5;
    expect(pc(validateCommand(ban, { scope: 'global' }))).toEqual([
      'options[1].choices APPLICATION_COMMAND_FIELD_NOT_ALLOWED',
      'options[1].max_value APPLICATION_COMMAND_FIELD_NOT_ALLOWED',
      'options[1].min_value APPLICATION_COMMAND_FIELD_NOT_ALLOWED',
    ]);
  });
});

describe('untrusted input', () => {
  function randomValue(rand: () => number, depth: number): unknown {
    const r = rand();
    if (depth > 4 || r < 0.3) {
      const pick = [null, true, false, 0, -1, 1.5, 2 ** 60, '', 'x', 'Ünï', 'a b', '\u{1F600}', 3, 4, 11][Math.floor(rand() * 15)];
      return pick;
    }
    if (r < 0.5) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    const keys = ['type', 'name', 'description', 'options', 'choices', 'value', 'required', 'name_localizations', 'min_value', 'max_length', 'channel_types', 'contexts', 'autocomplete', 'fr', 'handler'];
    const obj: Record<string, unknown> = {};
    const n = Math.floor(rand() * 6);
    for (let i = 0; i < n; i++) obj[keys[Math.floor(rand() * keys.length)]!] = randomValue(rand, depth + 1);
    return obj;
  }

  it('never throws, whatever the JSON, and always returns problems with rendered paths', () => {
    const rand = prng(42);
    const deadline = Date.now() + 5000;
    for (let i = 0; i < 3000 && Date.now() < deadline; i++) {
      const v = randomValue(rand, 0);
      for (const scope of ['global', 'guild'] as const) {
        const problems = [...validateCommands(v, { scope }), ...validateCommands([v, v], { scope }), ...validateCommand(v, { scope })];
        for (const p of problems) expect(p.path).toBe(renderPath(p.segments));
      }
    }
  });

  it('handles odd objects: null prototype, __proto__ keys, bigint, symbol, functions, cycles', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { name: 'ping', description: 'x' });
    expect(validateCommand(bare, { scope: 'global' })).toEqual([]);
    const proto = JSON.parse('{"name":"ping","description":"x","__proto__":{"type":9}}') as unknown;
    expect(validateCommand(proto, { scope: 'global' })).toEqual([]);
    expect(pc(validateCommand({ name: 10n, description: Symbol('x'), nsfw: () => true }, { scope: 'global' }))).toEqual([
      'description STRING_TYPE_CONVERT',
      'name STRING_TYPE_CONVERT',
      'nsfw BOOLEAN_TYPE_CONVERT',
    ]);
    const sub: Def = { type: 1, name: 'loop', description: 'x' };
    sub.options = [sub];
    const problems = validateCommand({ name: 'cyclic', description: 'x', options: [sub] }, { scope: 'global' });
    expect(pc(problems)).toContain('options[0].options[0].type APPLICATION_COMMAND_OPTIONS_TYPE_INVALID');
  });
});

describe('problem paths and the 50035 error tree', () => {
  it('renders list, nested and non-identifier paths', () => {
    expect(renderPath([0, 'options', 2, 'choices', 5, 'value'])).toBe('[0].options[2].choices[5].value');
    expect(renderPath(['options', 2, 'name'])).toBe('options[2].name');
    expect(renderPath(['name_localizations', 'en-US'])).toBe('name_localizations.en-US');
    expect(renderPath(['name_localizations', 'en US'])).toBe('name_localizations["en US"]');
    expect(renderPath([])).toBe('');
  });

  it('builds the nested errors tree: string keys, _errors leaves, whole-request errors at the root', () => {
    const list = [
      { name: 'ok', description: 'fine' },
      { name: 'Bad', description: '', options: [{ type: 3, name: 'x', description: 'y', choices: [{ name: 'a', value: 1 }] }] },
    ];
    const tree = problemsToErrorTree(validateCommands(list, { scope: 'global' }));
    expect(tree).toEqual({
      '1': {
        name: { _errors: [{ code: 'APPLICATION_COMMAND_NAME_LOWERCASE', message: expect.any(String) }] },
        description: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: expect.any(String) }] },
        options: { '0': { choices: { '0': { value: { _errors: [{ code: 'STRING_TYPE_CONVERT', message: expect.any(String) }] } } } } },
      },
    });
    const whole = invalidFormBody(validateCommands('nope', { scope: 'global' }));
    expect(whole).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: { _errors: [{ code: 'LIST_TYPE_CONVERT', message: expect.any(String) }] },
    });
  });

  it('keeps a node that is both a leaf and a parent', () => {
    const many = Array.from({ length: 26 }, (_, i) => ({ type: 3, name: `o${i}`, description: 'd' }));
    many[3]!.name = 'O3';
    const tree = problemsToErrorTree(validateCommand({ name: 'x', description: 'y', options: many }, { scope: 'global' }));
    expect(tree.options).toMatchObject({
      _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }],
      '3': { name: { _errors: [{ code: 'APPLICATION_COMMAND_NAME_LOWERCASE' }] } },
    });
  });
});
