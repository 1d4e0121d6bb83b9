/** custom_id patterns: parsing, matching, and exact overlap detection between patterns. */
import { describe, expect, it } from 'vitest';
import {
  compileCustomId,
  CustomIdConflictError,
  CustomIdTable,
  matchCustomId,
  overlapExample,
} from '../../src/interactions/custom-id.js';

const c = compileCustomId;

describe('custom_id patterns', () => {
  it('matches exact ids and named parameters; a parameter never holds its pattern\'s punctuation', () => {
    expect(matchCustomId(c('settings'), 'settings')).toEqual({});
    expect(matchCustomId(c('settings'), 'settings2')).toBeNull();
    expect({ ...matchCustomId(c('poll:{id}:{choice}'), 'poll:42:yes') }).toEqual({ id: '42', choice: 'yes' });
    expect(matchCustomId(c('poll:{id}:{choice}'), 'poll:42:yes:extra')).toBeNull();
    expect(matchCustomId(c('poll:{id}:{choice}'), 'poll::yes')).toBeNull();
    expect({ ...matchCustomId(c('vote/{id}'), 'vote/a-b') }).toEqual({ id: 'a-b' });
    expect({ ...matchCustomId(c('x[{a}].{b}'), 'x[1].2') }).toEqual({ a: '1', b: '2' });
    // Parameters come back in a null-prototype object: an id cannot reach Object.prototype.
    expect(Object.getPrototypeOf(matchCustomId(c('p:{constructor}'), 'p:1'))).toBeNull();
  });

  it('refuses patterns it cannot match unambiguously, saying why', () => {
    expect(() => c('a{b')).toThrow(/"\{" at position 2 is never closed/);
    expect(() => c('a}b')).toThrow(/"\}" at position 2 closes no parameter/);
    expect(() => c('{a}{b}')).toThrow(/parameters \{a\} and \{b\} touch/);
    expect(() => c('{a}:{a}')).toThrow(/parameter \{a\} appears twice/);
    expect(() => c('{1x}')).toThrow(/parameter name "1x"/);
    expect(() => c('')).toThrow(/non-empty/);
    expect(() => c('x'.repeat(101))).toThrow(/a custom_id has at most 100/);
  });

  it('finds an id two patterns share, or proves there is none', () => {
    expect(overlapExample(c('poll:{id}'), c('poll:{other}'))).toMatch(/^poll:.$/);
    expect(overlapExample(c('poll:{id}'), c('poll:{id}:{choice}'))).toBeNull();
    expect(overlapExample(c('a-{x}'), c('{y}-b'))).toBe('a-b');
    expect(overlapExample(c('x{a}'), c('{b}y'))).toBe('xy');
    expect(overlapExample(c('vote/{id}'), c('vote-{id}'))).toBeNull();
    expect(overlapExample(c('poll:new'), c('poll:{id}'))).toBe('poll:new');
    expect(overlapExample(c('poll:new'), c('poll:old'))).toBeNull();
    const example = overlapExample(c('{a}:end'), c('start:{b}'));
    expect(example).toBe('start:end');
  });
});

describe('CustomIdTable', () => {
  it('routes exact ids before patterns, and refuses overlaps across owners naming both', () => {
    const table = new CustomIdTable<string>();
    table.add('polls', c('poll:{id}'), 'pattern');
    table.add('polls', c('poll:new'), 'exact');
    expect(table.find('poll:new')?.route.value).toBe('exact');
    expect(table.find('poll:12')?.route.value).toBe('pattern');
    expect(table.find('other')).toBeUndefined();

    const clash = table.conflict('votes', c('poll:{x}'));
    expect(clash).toBeInstanceOf(CustomIdConflictError);
    expect(clash?.message).toBe('custom_id pattern "poll:{x}" of plugin "votes" overlaps "poll:{id}" of plugin "polls": "poll:x" would match both');
    expect(() => table.add('votes', c('poll:draft'), 'x')).toThrow(/custom_id pattern "poll:draft" of plugin "votes" overlaps "poll:\{id\}" of plugin "polls"/);
    expect(() => table.add('votes', c('poll:new'), 'x')).toThrow('custom_id "poll:new" of plugin "votes" is already handled by plugin "polls"');
    // A replacement of the same plugin is checked without its running version.
    expect(table.conflict('polls', c('poll:{x}'), 'polls')).toBeNull();
    table.removeOwner('polls');
    expect(table.size).toBe(0);
  });
});
