/**
 * Command-level rules of spec 2.1-2.3 and 2.6: each rule accepts a valid definition and rejects an invalid one
 * with the exact path and code (and nothing else).
 */
import { describe, expect, it } from 'vitest';
import { validateCommand, type ValidateCommandOptions } from '../../src/commands/index.js';
import { pc } from './helpers.js';

type Def = Record<string, unknown>;
const chat = (extra: Def = {}): Def => ({ name: 'ping', description: 'Check the bot', ...extra });
const user = (extra: Def = {}): Def => ({ type: 2, name: 'Report User', ...extra });
const message = (extra: Def = {}): Def => ({ type: 3, name: 'Quote message', ...extra });
const entry = (extra: Def = {}): Def => ({ type: 4, name: 'Launch', ...extra });
const G: ValidateCommandOptions = { scope: 'global' };
const GUILD: ValidateCommandOptions = { scope: 'guild' };

interface Case {
  rule: string;
  valid: Def[];
  invalid: Array<[Def | unknown, string[]]>;
  options?: ValidateCommandOptions;
}

const cases: Case[] = [
  {
    rule: 'name is required and a string',
    valid: [chat()],
    invalid: [
      [{ description: 'x' }, ['name BASE_TYPE_REQUIRED']],
      [chat({ name: null }), ['name BASE_TYPE_REQUIRED']],
      [chat({ name: 42 }), ['name STRING_TYPE_CONVERT']],
    ],
  },
  {
    rule: 'CHAT_INPUT name is 1-32 characters',
    valid: [chat({ name: 'a' }), chat({ name: 'a'.repeat(32) })],
    invalid: [
      [chat({ name: '' }), ['name BASE_TYPE_BAD_LENGTH']],
      [chat({ name: 'a'.repeat(33) }), ['name BASE_TYPE_BAD_LENGTH']],
    ],
  },
  {
    rule: 'lengths count code points: 32 astral letters are a valid name, 33 are not',
    // U+1D49C MATHEMATICAL SCRIPT CAPITAL A: a letter (\p{L}) without a lowercase variant, 2 UTF-16 units each.
    valid: [chat({ name: '\u{1D49C}'.repeat(32) }), chat({ description: '\u{1F600}'.repeat(100) })],
    invalid: [
      [chat({ name: '\u{1D49C}'.repeat(33) }), ['name BASE_TYPE_BAD_LENGTH']],
      [chat({ description: '\u{1F600}'.repeat(101) }), ['description BASE_TYPE_BAD_LENGTH']],
    ],
  },
  {
    rule: 'CHAT_INPUT name matches the naming regex (unicode flag)',
    valid: [
      chat({ name: "it's-a_name" }),
      chat({ name: 'r2d2' }),
      chat({ name: '日本語' }),
      chat({ name: 'नमस्ते' }), // Devanagari with virama and vowel signs (combining marks)
      chat({ name: 'สวัสดี' }), // Thai with combining vowel and tone marks
      chat({ name: 'привет' }),
      chat({ name: '٣٤' }), // Arabic-Indic digits (\p{N})
    ],
    invalid: [
      [chat({ name: 'two words' }), ['name STRING_TYPE_REGEX']],
      [chat({ name: 'dot.name' }), ['name STRING_TYPE_REGEX']],
      [chat({ name: 'smile\u{1F600}' }), ['name STRING_TYPE_REGEX']],
      // A Latin base letter with a combining acute accent (script Inherited, category Mn) is not allowed.
      [chat({ name: 'cafe\u0301' }), ['name STRING_TYPE_REGEX']],
    ],
  },
  {
    rule: 'CHAT_INPUT name uses the lowercase variant of every letter that has one',
    valid: [
      chat({ name: 'δοκιμή' }),
      chat({ name: 'straße' }), // ß is lowercase (its uppercase is SS)
      chat({ name: 'ıi' }), // dotless and dotted i are both lowercase
      chat({ name: '\u{10428}' }), // DESERET SMALL LETTER LONG I (astral, lowercase)
      chat({ name: '\u{1D49C}' }), // uppercase letter without a lowercase variant
      chat({ name: 'ㄱ中' }), // uncased scripts
    ],
    invalid: [
      [chat({ name: 'Ping' }), ['name APPLICATION_COMMAND_NAME_LOWERCASE']],
      [chat({ name: 'Δοκιμή' }), ['name APPLICATION_COMMAND_NAME_LOWERCASE']],
      [chat({ name: '\u{10400}' }), ['name APPLICATION_COMMAND_NAME_LOWERCASE']], // DESERET CAPITAL LONG I
      [chat({ name: 'ǅ' }), ['name APPLICATION_COMMAND_NAME_LOWERCASE']], // titlecase, lowercase ǆ exists
    ],
  },
  {
    rule: 'USER and MESSAGE names may be mixed case with spaces, 1-32 characters',
    valid: [user(), message(), user({ name: 'A'.repeat(32) }), message({ name: 'Ünïcode Nämé' })],
    invalid: [
      [user({ name: '' }), ['name BASE_TYPE_BAD_LENGTH']],
      [message({ name: 'M'.repeat(33) }), ['name BASE_TYPE_BAD_LENGTH']],
    ],
  },
  {
    rule: 'USER and MESSAGE commands take no description (only "", never null)',
    valid: [user({ description: '' }), message(), message({ description_localizations: null }), user({ description_localizations: {} })],
    invalid: [
      [user({ description: 'Shows a profile' }), ['description APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED']],
      [message({ description: null }), ['description BASE_TYPE_REQUIRED']],
      [message({ description_localizations: { fr: 'x' } }), ['description_localizations APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED']],
    ],
  },
  {
    rule: 'options are for CHAT_INPUT only',
    valid: [user({ options: [] }), chat({ options: [{ type: 3, name: 'text', description: 'Text' }] })],
    invalid: [
      [user({ options: [{ type: 3, name: 'text', description: 'Text' }] }), ['options APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
      [message({ options: [{ type: 3, name: 'text', description: 'Text' }] }), ['options APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
      [entry({ options: [{ type: 3, name: 'text', description: 'Text' }] }), ['options APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
    ],
  },
  {
    rule: 'CHAT_INPUT description is required, 1-100 characters',
    valid: [chat({ description: 'x' }), chat({ description: 'x'.repeat(100) })],
    invalid: [
      [{ name: 'ping' }, ['description BASE_TYPE_REQUIRED']],
      [chat({ description: null }), ['description BASE_TYPE_REQUIRED']],
      [chat({ description: '' }), ['description BASE_TYPE_BAD_LENGTH']],
      [chat({ description: 'x'.repeat(101) }), ['description BASE_TYPE_BAD_LENGTH']],
      [chat({ description: 5 }), ['description STRING_TYPE_CONVERT']],
    ],
  },
  {
    rule: 'type is one of the command types (default 1)',
    valid: [chat({ type: 1 }), user({ type: 2 }), message({ type: 3 }), entry({ type: 4 })],
    invalid: [
      [chat({ type: 5 }), ['type ENUM_TYPE_COERCE']],
      [chat({ type: 0 }), ['type ENUM_TYPE_COERCE']],
      [chat({ type: '1' }), ['type NUMBER_TYPE_COERCE']],
      [chat({ type: 1.5 }), ['type NUMBER_TYPE_COERCE']],
    ],
  },
  {
    rule: 'name_localizations: locale keys from the list, each value follows the name rule',
    valid: [
      chat({ name_localizations: { fr: 'bonjour', 'en-US': 'hello', 'pt-BR': 'olá', hi: 'नमस्ते' } }),
      chat({ name_localizations: null }),
      user({ name_localizations: { fr: 'Signaler Utilisateur' } }),
    ],
    invalid: [
      [chat({ name_localizations: { en: 'hello' } }), ['name_localizations.en ENUM_TYPE_COERCE']],
      [chat({ name_localizations: { fr: 'Bonjour' } }), ['name_localizations.fr APPLICATION_COMMAND_NAME_LOWERCASE']],
      [chat({ name_localizations: { fr: 'bon jour' } }), ['name_localizations.fr STRING_TYPE_REGEX']],
      [chat({ name_localizations: { de: 'a'.repeat(33) } }), ['name_localizations.de BASE_TYPE_BAD_LENGTH']],
      [chat({ name_localizations: { de: '' } }), ['name_localizations.de BASE_TYPE_BAD_LENGTH']],
      [chat({ name_localizations: { de: 7 } }), ['name_localizations.de STRING_TYPE_CONVERT']],
      [chat({ name_localizations: 'fr' }), ['name_localizations DICT_TYPE_CONVERT']],
      [chat({ name_localizations: ['fr'] }), ['name_localizations DICT_TYPE_CONVERT']],
      [user({ name_localizations: { fr: 'S'.repeat(33) } }), ['name_localizations.fr BASE_TYPE_BAD_LENGTH']],
    ],
  },
  {
    rule: 'description_localizations: each value follows the description rule',
    valid: [chat({ description_localizations: { de: 'x'.repeat(100), ja: 'テスト' } })],
    invalid: [
      [chat({ description_localizations: { de: 'x'.repeat(101) } }), ['description_localizations.de BASE_TYPE_BAD_LENGTH']],
      [chat({ description_localizations: { de: '' } }), ['description_localizations.de BASE_TYPE_BAD_LENGTH']],
      [chat({ description_localizations: { xx: 'x' } }), ['description_localizations.xx ENUM_TYPE_COERCE']],
    ],
  },
  {
    rule: 'default_member_permissions is a decimal bit set string, or null',
    valid: [chat({ default_member_permissions: '0' }), chat({ default_member_permissions: '8192' }), chat({ default_member_permissions: null }), chat({ default_member_permissions: '1125899906842624' })],
    invalid: [
      [chat({ default_member_permissions: 8192 }), ['default_member_permissions STRING_TYPE_CONVERT']],
      [chat({ default_member_permissions: '0x10' }), ['default_member_permissions APPLICATION_COMMAND_PERMISSIONS_INVALID']],
      [chat({ default_member_permissions: '-1' }), ['default_member_permissions APPLICATION_COMMAND_PERMISSIONS_INVALID']],
      [chat({ default_member_permissions: '' }), ['default_member_permissions APPLICATION_COMMAND_PERMISSIONS_INVALID']],
      [chat({ default_member_permissions: '18446744073709551616' }), ['default_member_permissions APPLICATION_COMMAND_PERMISSIONS_INVALID']],
    ],
  },
  {
    rule: 'nsfw is a boolean (not nullable)',
    valid: [chat({ nsfw: true }), chat({ nsfw: false })],
    invalid: [
      [chat({ nsfw: 'yes' }), ['nsfw BOOLEAN_TYPE_CONVERT']],
      [chat({ nsfw: null }), ['nsfw BOOLEAN_TYPE_CONVERT']],
    ],
  },
  {
    rule: 'default_permission is a boolean or null',
    valid: [chat({ default_permission: true }), chat({ default_permission: null })],
    invalid: [[chat({ default_permission: 1 }), ['default_permission BOOLEAN_TYPE_CONVERT']]],
  },
  {
    rule: 'dm_permission is a boolean or null, global only',
    valid: [chat({ dm_permission: false }), chat({ dm_permission: null })],
    invalid: [[chat({ dm_permission: 'no' }), ['dm_permission BOOLEAN_TYPE_CONVERT']]],
  },
  {
    rule: 'dm_permission is rejected on guild commands',
    options: GUILD,
    valid: [chat(), chat({ dm_permission: null })],
    invalid: [[chat({ dm_permission: true }), ['dm_permission APPLICATION_COMMAND_GLOBAL_ONLY']]],
  },
  {
    rule: 'integration_types is a list of 0 (GUILD_INSTALL) and 1 (USER_INSTALL)',
    valid: [chat({ integration_types: [0, 1] }), chat({ integration_types: [1] })],
    invalid: [
      [chat({ integration_types: [2] }), ['integration_types[0] ENUM_TYPE_COERCE']],
      [chat({ integration_types: [0, 'x'] }), ['integration_types[1] NUMBER_TYPE_COERCE']],
      [chat({ integration_types: 0 }), ['integration_types LIST_TYPE_CONVERT']],
      [chat({ integration_types: null }), ['integration_types LIST_TYPE_CONVERT']],
    ],
  },
  {
    rule: 'integration types must be supported at application level (when known)',
    options: { scope: 'global', appIntegrationTypes: [0] },
    valid: [chat({ integration_types: [0] }), chat()],
    invalid: [[chat({ integration_types: [0, 1] }), ['integration_types[1] APPLICATION_COMMAND_INTEGRATION_TYPE_UNSUPPORTED']]],
  },
  {
    rule: 'contexts is a list of 0 (GUILD), 1 (BOT_DM), 2 (PRIVATE_CHANNEL), or null',
    valid: [chat({ contexts: [0, 1, 2] }), chat({ contexts: null }), chat({ contexts: [] })],
    invalid: [
      [chat({ contexts: [3] }), ['contexts[0] ENUM_TYPE_COERCE']],
      [chat({ contexts: [0, -1] }), ['contexts[1] ENUM_TYPE_COERCE']],
      [chat({ contexts: { 0: 0 } }), ['contexts LIST_TYPE_CONVERT']],
    ],
  },
  {
    rule: 'integration_types and contexts are rejected on guild commands; BOT_DM is named as unsupported',
    options: GUILD,
    valid: [chat(), chat({ contexts: null })],
    invalid: [
      [chat({ integration_types: [0] }), ['integration_types APPLICATION_COMMAND_GLOBAL_ONLY']],
      [chat({ contexts: [0] }), ['contexts APPLICATION_COMMAND_GLOBAL_ONLY']],
      [chat({ contexts: [0, 1, 2] }), ['contexts APPLICATION_COMMAND_GLOBAL_ONLY', 'contexts[1] APPLICATION_COMMAND_CONTEXT_UNSUPPORTED']],
    ],
  },
  {
    rule: 'handler only on PRIMARY_ENTRY_POINT commands, value 1 or 2',
    valid: [entry({ handler: 1 }), entry({ handler: 2 }), entry()],
    invalid: [
      [chat({ handler: 1 }), ['handler APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
      [user({ handler: 2 }), ['handler APPLICATION_COMMAND_FIELD_NOT_ALLOWED']],
      [entry({ handler: 3 }), ['handler ENUM_TYPE_COERCE']],
      [entry({ handler: '1' }), ['handler NUMBER_TYPE_COERCE']],
    ],
  },
  {
    rule: 'handler is settable only by applications with Activities',
    options: { scope: 'global', embedded: false },
    valid: [entry()],
    invalid: [[entry({ handler: 1 }), ['handler APPLICATION_COMMAND_HANDLER_NOT_EMBEDDED']]],
  },
  {
    rule: 'PRIMARY_ENTRY_POINT commands cannot be guild commands',
    options: GUILD,
    valid: [chat(), user()],
    invalid: [[entry(), ['type APPLICATION_COMMAND_ENTRY_POINT_IN_GUILD']]],
  },
  {
    rule: 'entry point: mixed-case name, optional description up to 100 characters',
    valid: [entry(), entry({ name: 'Play Now', description: 'Start the game' }), entry({ description: '' })],
    invalid: [
      [entry({ description: 'x'.repeat(101) }), ['description BASE_TYPE_BAD_LENGTH']],
      [entry({ name: 'L'.repeat(33) }), ['name BASE_TYPE_BAD_LENGTH']],
      // A description is a string, never null (spec 2.1).
      [entry({ description: null }), ['description BASE_TYPE_REQUIRED']],
    ],
  },
  {
    rule: 'id (bulk overwrite items) is a snowflake string',
    valid: [chat({ id: '1234567890123456789' })],
    invalid: [
      [chat({ id: 1234 }), ['id NUMBER_TYPE_COERCE']],
      [chat({ id: 'abc' }), ['id NUMBER_TYPE_COERCE']],
    ],
  },
  {
    rule: 'a command must be an object',
    valid: [chat()],
    invalid: [
      [null, [' MODEL_TYPE_CONVERT']],
      [[chat()], [' MODEL_TYPE_CONVERT']],
      ['ping', [' MODEL_TYPE_CONVERT']],
    ],
  },
];

describe('validateCommand: command-level rules', () => {
  for (const c of cases) {
    const options = c.options ?? G;
    it(`${c.rule}: accepts valid definitions`, () => {
      for (const def of c.valid) expect(pc(validateCommand(def, options)), JSON.stringify(def)).toEqual([]);
    });
    it(`${c.rule}: rejects invalid ones at the right path`, () => {
      for (const [def, expected] of c.invalid) {
        expect(pc(validateCommand(def, options)), JSON.stringify(def)).toEqual([...expected].sort());
      }
    });
  }

  it('prefixes paths with the index when given', () => {
    const problems = validateCommand(chat({ name: 'Bad' }), { scope: 'global', index: 3 });
    expect(problems).toEqual([
      {
        path: '[3].name',
        segments: [3, 'name'],
        code: 'APPLICATION_COMMAND_NAME_LOWERCASE',
        message: "must be lowercase; 'B' (U+0042) has a lowercase variant",
      },
    ]);
  });

  it('reports every problem of a command at once', () => {
    const def = {
      type: 1,
      name: 'Bad Name',
      description: '',
      nsfw: 'no',
      default_member_permissions: 'all',
      options: [{ type: 3, name: 'x', description: 'y', min_value: 1 }],
    };
    expect(pc(validateCommand(def, G))).toEqual(
      [
        'name STRING_TYPE_REGEX',
        'name APPLICATION_COMMAND_NAME_LOWERCASE',
        'description BASE_TYPE_BAD_LENGTH',
        'nsfw BOOLEAN_TYPE_CONVERT',
        'default_member_permissions APPLICATION_COMMAND_PERMISSIONS_INVALID',
        'options[0].min_value APPLICATION_COMMAND_FIELD_NOT_ALLOWED',
      ].sort(),
    );
  });

  it('does not check type-specific rules against an unknown type (no guessing)', () => {
    // Type 9 is invalid; the name would be wrong for CHAT_INPUT but is not reported as such.
    expect(pc(validateCommand({ type: 9, name: 'Mixed Case', description: 'x' }, G))).toEqual(['type ENUM_TYPE_COERCE']);
  });
});

describe('validateCommand: the 8000-character budget', () => {
  // command 100 + option a (100 + 25 choices x 200) + option b (100 + 13 choices x 200 + one choice of name 100
  // and value `last`) = 8000 + last.length.
  function big(last: string, extra: Def = {}): Def {
    const choices = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `${i}`.padEnd(100, 'n'), value: `${i}`.padEnd(100, 'v') }));
    return {
      name: 'big',
      description: 'd'.repeat(97),
      options: [
        { type: 3, name: 'a', description: 'x'.repeat(99), choices: choices(25) },
        { type: 3, name: 'b', description: 'x'.repeat(99), choices: [...choices(13), { name: 'L'.repeat(100), value: last }] },
      ],
      ...extra,
    };
  }

  it('accepts a command of exactly 8000 characters', () => {
    expect(pc(validateCommand(big(''), G))).toEqual([]);
  });

  it('rejects 8001 characters, as a problem of the whole command', () => {
    const problems = validateCommand(big('z'), G);
    expect(pc(problems)).toEqual([' APPLICATION_COMMAND_TOO_LARGE']);
    expect(problems[0]!.segments).toEqual([]);
    expect(problems[0]!.message).toMatch(/^Command exceeds maximum size \(8000\)/);
  });

  it('counts only the longest localization of each field', () => {
    // Two localizations as long as the default: still 8000 (a sum would be far above).
    const same = big('', { description_localizations: { fr: 'f'.repeat(97), de: 'g'.repeat(97), ja: 'j'.repeat(97) } });
    expect(pc(validateCommand(same, G))).toEqual([]);
    // One localization a character longer than the default: 8001.
    const longer = big('', { description_localizations: { fr: 'f'.repeat(98) } });
    expect(pc(validateCommand(longer, G))).toEqual([' APPLICATION_COMMAND_TOO_LARGE']);
    // Also for the command name, option names and choice names.
    expect(pc(validateCommand(big('', { name_localizations: { fr: 'bigg' } }), G))).toEqual([' APPLICATION_COMMAND_TOO_LARGE']);
    expect(pc(validateCommand(big('', { name_localizations: { fr: 'gib' } }), G))).toEqual([]);
    const opt = big('');
    (opt.options as Def[])[0]!.name_localizations = { fr: 'aa' };
    expect(pc(validateCommand(opt, G))).toEqual([' APPLICATION_COMMAND_TOO_LARGE']);
  });

  it('counts numeric choice values by their characters', () => {
    const choices = (digits: number) =>
      Array.from({ length: 25 }, (_, i) => ({ name: `${i}`.padEnd(100, 'n'), value: i === 0 ? 10 ** (digits - 1) : 10 ** 7 }));
    // command 100 + option a 5100 + option b (100 + 25 x (100 + 8)) = 8000.
    const def = (digits: number): Def => ({
      name: 'big',
      description: 'd'.repeat(97),
      options: [
        { type: 3, name: 'a', description: 'x'.repeat(99), choices: Array.from({ length: 25 }, (_, i) => ({ name: `${i}`.padEnd(100, 'n'), value: `${i}`.padEnd(100, 'v') })) },
        { type: 4, name: 'b', description: 'x'.repeat(99), choices: choices(digits) },
      ],
    });
    expect(pc(validateCommand(def(8), G))).toEqual([]);
    expect(pc(validateCommand(def(9), G))).toEqual([' APPLICATION_COMMAND_TOO_LARGE']);
  });

  it('counts names and descriptions of nested groups and subcommands', () => {
    const sub = (i: number) => ({ type: 1, name: `s${i}`, description: 'x'.repeat(100) });
    const group = (i: number) => ({ type: 2, name: `g${i}`, description: 'x'.repeat(100), options: Array.from({ length: 25 }, (_, j) => sub(j)) });
    const def = { name: 'huge', description: 'x', options: Array.from({ length: 3 }, (_, i) => group(i)) };
    expect(pc(validateCommand(def, G))).toEqual([' APPLICATION_COMMAND_TOO_LARGE']);
    const small = { name: 'fits', description: 'x', options: [group(0)] };
    expect(pc(validateCommand(small, G))).toEqual([]);
  });
});
