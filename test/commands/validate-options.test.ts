/**
 * Option rules of spec 2.4, 2.5 and 8: option types and the fields each may carry, required-before-optional,
 * unique names, choices, autocomplete, ranges, channel types, nesting, localized names.
 */
import { describe, expect, it } from 'vitest';
import { validateCommand } from '../../src/commands/index.js';
import { pc } from './helpers.js';

type Opt = Record<string, unknown>;
const o = (type: number, name: string, extra: Opt = {}): Opt => ({ type, name, description: `the ${name}`, ...extra });
const S = (name: string, extra?: Opt) => o(3, name, extra);
const I = (name: string, extra?: Opt) => o(4, name, extra);
const N = (name: string, extra?: Opt) => o(10, name, extra);
const B = (name: string, extra?: Opt) => o(5, name, extra);
const U = (name: string, extra?: Opt) => o(6, name, extra);
const C = (name: string, extra?: Opt) => o(7, name, extra);
const A = (name: string, extra?: Opt) => o(11, name, extra);
const sub = (name: string, options?: Opt[]) => o(1, name, options ? { options } : {});
const group = (name: string, options?: Opt[]) => o(2, name, options ? { options } : {});
const cmd = (...options: unknown[]) => ({ name: 'cmd', description: 'A command', options });

const check = (def: unknown) => pc(validateCommand(def, { scope: 'global' }));

function rule(name: string, valid: unknown[], invalid: Array<[unknown, string[]]>): void {
  describe(name, () => {
    it('accepts valid definitions', () => {
      for (const def of valid) expect(check(def), JSON.stringify(def)).toEqual([]);
    });
    it('rejects invalid ones at the right path', () => {
      for (const [def, expected] of invalid) expect(check(def), JSON.stringify(def)).toEqual([...expected].sort());
    });
  });
}

const MAX_INT = 2 ** 53 - 1;

rule(
  'option type is required and one of 1-11',
  [cmd(...[3, 4, 5, 6, 7, 8, 9, 10, 11].map((t) => o(t, `o${t}`))), cmd(sub('a'), group('b', [sub('c')]))],
  [
    [cmd({ name: 'x', description: 'y' }), ['options[0].type BASE_TYPE_REQUIRED']],
    [cmd(o(12, 'x')), ['options[0].type ENUM_TYPE_COERCE']],
    [cmd(o(0, 'x')), ['options[0].type ENUM_TYPE_COERCE']],
    [cmd({ type: '3', name: 'x', description: 'y' }), ['options[0].type NUMBER_TYPE_COERCE']],
  ],
);

rule(
  'option names follow the CHAT_INPUT naming rules and 1-32 characters',
  [cmd(S('user-id'), S('क्रम'), S('ชื่อ'), S('名前'))],
  [
    [cmd(S('User')), ['options[0].name APPLICATION_COMMAND_NAME_LOWERCASE']],
    [cmd(S('my option')), ['options[0].name STRING_TYPE_REGEX']],
    [cmd(S('a'.repeat(33))), ['options[0].name BASE_TYPE_BAD_LENGTH']],
    [cmd({ type: 3, description: 'y' }), ['options[0].name BASE_TYPE_REQUIRED']],
    [cmd(sub('Sub')), ['options[0].name APPLICATION_COMMAND_NAME_LOWERCASE']],
  ],
);

rule(
  'option description is required, 1-100 characters',
  [cmd(S('a', { description: 'x'.repeat(100) }))],
  [
    [cmd({ type: 3, name: 'a' }), ['options[0].description BASE_TYPE_REQUIRED']],
    [cmd(S('a', { description: '' })), ['options[0].description BASE_TYPE_BAD_LENGTH']],
    [cmd(S('a', { description: 'x'.repeat(101) })), ['options[0].description BASE_TYPE_BAD_LENGTH']],
  ],
);

rule(
  'option localizations follow the name / description rules',
  [cmd(S('user', { name_localizations: { fr: 'utilisateur', ja: 'ユーザー' }, description_localizations: { fr: 'Le membre' } }))],
  [
    [cmd(S('user', { name_localizations: { fr: 'Utilisateur' } })), ['options[0].name_localizations.fr APPLICATION_COMMAND_NAME_LOWERCASE']],
    [cmd(S('user', { name_localizations: { 'fr-FR': 'utilisateur' } })), ['options[0].name_localizations.fr-FR ENUM_TYPE_COERCE']],
    [cmd(S('user', { description_localizations: { fr: 'x'.repeat(101) } })), ['options[0].description_localizations.fr BASE_TYPE_BAD_LENGTH']],
  ],
);

rule(
  'required is a boolean, not allowed on SUB_COMMAND and SUB_COMMAND_GROUP',
  [cmd(S('a', { required: true }), S('b', { required: false }), S('c'))],
  [
    [cmd(S('a', { required: 'yes' })), ['options[0].required BOOLEAN_TYPE_CONVERT']],
    [cmd(o(1, 'a', { required: true })), ['options[0].required APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(o(2, 'a', { required: false, options: [sub('b')] })), ['options[0].required APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
  ],
);

rule(
  'required options are listed before optional ones',
  [cmd(S('a', { required: true }), U('b', { required: true }), S('c'), B('d', { required: false })), cmd(sub('x', [S('a', { required: true }), S('b')]))],
  [
    [cmd(S('a'), U('b', { required: true })), ['options[1] APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID']],
    [cmd(S('a', { required: true }), S('b'), S('c', { required: true }), S('d', { required: true })), ['options[2] APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'options[3] APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID']],
    [cmd(sub('x', [S('a', { required: false }), S('b', { required: true })])), ['options[0].options[1] APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID']],
  ],
);

rule(
  'option names are unique within one options array',
  [cmd(sub('ban', [U('user')]), sub('kick', [U('user')]))],
  [
    [cmd(S('a'), U('b'), B('a')), ['options[2].name APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS']],
    [cmd(sub('ban', [U('user'), S('user')])), ['options[0].options[1].name APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS']],
    [cmd(sub('ban'), sub('ban')), ['options[1].name APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS']],
  ],
);

const many = (n: number, make: (name: string) => Opt) => Array.from({ length: n }, (_, i) => make(`o${i}`));
rule(
  'at most 25 options per command, subcommand and group',
  [cmd(...many(25, S)), cmd(sub('s', many(25, S))), cmd(group('g', many(25, (n) => sub(n))))],
  [
    [cmd(...many(26, S)), ['options BASE_TYPE_MAX_LENGTH']],
    [cmd(sub('s', many(26, S))), ['options[0].options BASE_TYPE_MAX_LENGTH']],
    [cmd(group('g', many(26, (n) => sub(n)))), ['options[0].options BASE_TYPE_MAX_LENGTH']],
  ],
);

const ch = (n: number, value: (i: number) => unknown = (i) => `v${i}`) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, value: value(i) }));
rule(
  'choices only on STRING, INTEGER and NUMBER; at most 25',
  [cmd(S('s', { choices: ch(25) }), I('i', { choices: ch(2, (i) => i) }), N('n', { choices: ch(2, (i) => i + 0.5) }))],
  [
    [cmd(B('b', { choices: ch(1) })), ['options[0].choices APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(U('u', { choices: ch(1) })), ['options[0].choices APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(S('s', { choices: ch(26) })), ['options[0].choices BASE_TYPE_MAX_LENGTH']],
    [cmd(S('s', { choices: 'a,b' })), ['options[0].choices LIST_TYPE_CONVERT']],
    [cmd(S('s', { choices: ['a'] })), ['options[0].choices[0] MODEL_TYPE_CONVERT']],
  ],
);

rule(
  'choice name is 1-100 characters; its localizations too',
  [cmd(S('s', { choices: [{ name: 'n'.repeat(100), value: 'v', name_localizations: { fr: 'f'.repeat(100) } }] }))],
  [
    [cmd(S('s', { choices: [{ name: 'n'.repeat(101), value: 'v' }] })), ['options[0].choices[0].name BASE_TYPE_BAD_LENGTH']],
    [cmd(S('s', { choices: [{ name: '', value: 'v' }] })), ['options[0].choices[0].name BASE_TYPE_BAD_LENGTH']],
    [cmd(S('s', { choices: [{ value: 'v' }] })), ['options[0].choices[0].name BASE_TYPE_REQUIRED']],
    [cmd(S('s', { choices: [{ name: 'n', value: 'v', name_localizations: { fr: 'f'.repeat(101) } }] })), ['options[0].choices[0].name_localizations.fr BASE_TYPE_BAD_LENGTH']],
  ],
);

rule(
  'choice value matches the option type; string values up to 100 characters',
  [cmd(S('s', { choices: [{ name: 'a', value: 'v'.repeat(100) }, { name: 'b', value: '' }] }))],
  [
    [cmd(S('s', { choices: [{ name: 'a' }] })), ['options[0].choices[0].value BASE_TYPE_REQUIRED']],
    [cmd(S('s', { choices: [{ name: 'a', value: 1 }] })), ['options[0].choices[0].value STRING_TYPE_CONVERT']],
    [cmd(S('s', { choices: [{ name: 'a', value: 'v'.repeat(101) }] })), ['options[0].choices[0].value BASE_TYPE_BAD_LENGTH']],
    [cmd(I('i', { choices: [{ name: 'a', value: '1' }] })), ['options[0].choices[0].value NUMBER_TYPE_COERCE']],
    [cmd(N('n', { choices: [{ name: 'a', value: 'x' }] })), ['options[0].choices[0].value NUMBER_TYPE_COERCE']],
  ],
);

rule(
  'INTEGER choice values are integers from -2^53+1 to 2^53-1',
  [cmd(I('i', { choices: [{ name: 'max', value: MAX_INT }, { name: 'min', value: -MAX_INT }, { name: 'zero', value: 0 }] }))],
  [
    [cmd(I('i', { choices: ch(6, (k) => (k === 5 ? 1.5 : k)) })), ['options[0].choices[5].value NUMBER_TYPE_COERCE']],
    [cmd(I('i', { choices: [{ name: 'a', value: 2 ** 53 }] })), ['options[0].choices[0].value NUMBER_TYPE_MAX']],
    [cmd(I('i', { choices: [{ name: 'a', value: -(2 ** 53) }] })), ['options[0].choices[0].value NUMBER_TYPE_MIN']],
  ],
);

rule(
  'NUMBER choice values are doubles from -2^53 to 2^53',
  [cmd(N('n', { choices: [{ name: 'max', value: 2 ** 53 }, { name: 'min', value: -(2 ** 53) }, { name: 'half', value: 0.5 }] }))],
  [
    [cmd(N('n', { choices: [{ name: 'a', value: 2 ** 53 + 2 }] })), ['options[0].choices[0].value NUMBER_TYPE_MAX']],
    [cmd(N('n', { choices: [{ name: 'a', value: -(2 ** 53) - 2 }] })), ['options[0].choices[0].value NUMBER_TYPE_MIN']],
    [cmd(N('n', { choices: [{ name: 'a', value: Number.POSITIVE_INFINITY }] })), ['options[0].choices[0].value NUMBER_TYPE_COERCE']],
  ],
);

rule(
  'autocomplete only on STRING, INTEGER and NUMBER, and not true with choices',
  [cmd(S('s', { autocomplete: true }), I('i', { autocomplete: false, choices: ch(1, () => 1) }), N('n', { autocomplete: true, choices: [] }))],
  [
    [cmd(S('s', { autocomplete: true, choices: ch(2) })), ['options[0].autocomplete APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES']],
    [cmd(U('u', { autocomplete: true })), ['options[0].autocomplete APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(S('s', { autocomplete: 'yes' })), ['options[0].autocomplete BOOLEAN_TYPE_CONVERT']],
  ],
);

rule(
  'min_value / max_value on INTEGER (integers) and NUMBER (doubles), in range and in order',
  [cmd(I('i', { min_value: 1, max_value: 10 }), I('j', { min_value: 5, max_value: 5 }), N('n', { min_value: -0.5, max_value: 2 ** 53 }), I('k', { min_value: -MAX_INT }))],
  [
    [cmd(I('i', { min_value: 1.5 })), ['options[0].min_value NUMBER_TYPE_COERCE']],
    [cmd(I('i', { max_value: '10' })), ['options[0].max_value NUMBER_TYPE_COERCE']],
    [cmd(I('i', { min_value: 10, max_value: 1 })), ['options[0].max_value APPLICATION_COMMAND_OPTION_RANGE_INVALID']],
    [cmd(N('n', { min_value: 0.75, max_value: 0.5 })), ['options[0].max_value APPLICATION_COMMAND_OPTION_RANGE_INVALID']],
    [cmd(I('i', { max_value: 2 ** 53 })), ['options[0].max_value NUMBER_TYPE_MAX']],
    [cmd(N('n', { min_value: -(2 ** 53) - 2 })), ['options[0].min_value NUMBER_TYPE_MIN']],
    [cmd(S('s', { min_value: 1 })), ['options[0].min_value APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
  ],
);

rule(
  'min_length 0-6000 and max_length 1-6000 on STRING, in order',
  [cmd(S('a', { min_length: 0, max_length: 6000 }), S('b', { min_length: 6000, max_length: 6000 }), S('c', { max_length: 1 }))],
  [
    [cmd(S('a', { min_length: -1 })), ['options[0].min_length NUMBER_TYPE_MIN']],
    [cmd(S('a', { min_length: 6001 })), ['options[0].min_length NUMBER_TYPE_MAX']],
    [cmd(S('a', { max_length: 0 })), ['options[0].max_length NUMBER_TYPE_MIN']],
    [cmd(S('a', { max_length: 6001 })), ['options[0].max_length NUMBER_TYPE_MAX']],
    [cmd(S('a', { min_length: 1.5 })), ['options[0].min_length NUMBER_TYPE_COERCE']],
    [cmd(S('a', { min_length: 10, max_length: 5 })), ['options[0].max_length APPLICATION_COMMAND_OPTION_RANGE_INVALID']],
    [cmd(I('i', { max_length: 5 })), ['options[0].max_length APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(N('n', { min_length: 1 })), ['options[0].min_length APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
  ],
);

rule(
  'channel_types only on CHANNEL, values are channel types',
  [cmd(C('c', { channel_types: [0, 2, 4, 5, 15] }))],
  [
    [cmd(S('s', { channel_types: [0] })), ['options[0].channel_types APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(C('c', { channel_types: [0, 99] })), ['options[0].channel_types[1] ENUM_TYPE_COERCE']],
    [cmd(C('c', { channel_types: 0 })), ['options[0].channel_types LIST_TYPE_CONVERT']],
  ],
);

rule(
  'file_types only on ATTACHMENT, at most 10 strings',
  [cmd(A('file', { file_types: ['image', '.pdf'] }))],
  [
    [cmd(S('s', { file_types: ['image'] })), ['options[0].file_types APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(A('file', { file_types: Array.from({ length: 11 }, (_, i) => `.x${i}`) })), ['options[0].file_types BASE_TYPE_MAX_LENGTH']],
    [cmd(A('file', { file_types: [1] })), ['options[0].file_types[0] STRING_TYPE_CONVERT']],
  ],
);

rule(
  'nested options only on SUB_COMMAND and SUB_COMMAND_GROUP',
  [cmd(sub('s', [S('x')]))],
  [
    [cmd(S('s', { options: [S('x')] })), ['options[0].options APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    [cmd(sub('s', 'x' as unknown as Opt[])), ['options[0].options LIST_TYPE_CONVERT']],
  ],
);

rule(
  'subcommand nesting: command > group > subcommand only, never mixed with other options',
  [
    cmd(sub('a', [S('x')]), sub('b')),
    cmd(group('g', [sub('a', [S('x', { required: true })]), sub('b')])),
    cmd(group('g', [sub('a')]), sub('b')), // groups and subcommands may sit side by side
  ],
  [
    [cmd(sub('a'), S('x')), ['options APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
    [cmd(S('x'), group('g', [sub('a')])), ['options APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
    [cmd(group('g', [group('h', [sub('a')])])), ['options[0].options[0].type APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
    [cmd(group('g', [S('x')])), ['options[0].options[0].type APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
    [cmd(sub('s', [sub('t')])), ['options[0].options[0].type APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
    [cmd(sub('s', [group('g', [sub('t')])])), ['options[0].options[0].type APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
    [cmd(group('g', [sub('a', [sub('b')])])), ['options[0].options[0].options[0].type APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']],
  ],
);

rule(
  'localized option names differ from the default names and from each other in a locale',
  [
    cmd(U('user', { name_localizations: { fr: 'user' } })), // its own default name is fine
    cmd(U('user', { name_localizations: { fr: 'membre' } }), S('reason', { name_localizations: { fr: 'raison' } })),
    cmd(U('user', { name_localizations: { fr: 'x' } }), S('reason', { name_localizations: { de: 'x' } })), // different locales
    cmd(sub('a', [U('user')]), sub('b', [U('target', { name_localizations: { fr: 'user' } })])), // different arrays
  ],
  [
    [cmd(U('user'), U('target', { name_localizations: { fr: 'user' } })), ['options[1].name_localizations.fr APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT']],
    [cmd(U('user', { name_localizations: { fr: 'membre' } }), U('member', { name_localizations: { fr: 'membre' } })), ['options[1].name_localizations.fr APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT']],
    [cmd(sub('add', [U('user'), U('target', { name_localizations: { de: 'user' } })])), ['options[0].options[1].name_localizations.de APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT']],
    [cmd(sub('add'), o(1, 'remove', { name_localizations: { fr: 'add' } })), ['options[1].name_localizations.fr APPLICATION_COMMAND_OPTIONS_LOCALIZED_NAME_CONFLICT']],
  ],
);

rule(
  'options and option entries must have the right JSON types',
  [cmd()],
  [
    [{ name: 'cmd', description: 'x', options: {} }, ['options LIST_TYPE_CONVERT']],
    [cmd(null, 3), ['options[0] MODEL_TYPE_CONVERT', 'options[1] MODEL_TYPE_CONVERT']],
  ],
);
