/** Spec §8 limits checked before a message or a modal is sent. */
import { describe, expect, it } from 'vitest';
import { checkResponse, MessageLimitError, messageProblems, modalProblems } from '../../src/interactions/message-limits.js';

const V2 = 1 << 15;
const text = (i: number) => ({ type: 10, content: `t${i}` });
const row = (i: number) => ({ type: 1, components: [{ type: 2, style: 1, label: 'b', custom_id: `b${i}` }] });

describe('message limits', () => {
  it('counts every component of a Components V2 message, nested ones included: 40 pass, 41 do not', () => {
    // A container (1) with 39 text displays = 40 components.
    expect(messageProblems({ flags: V2, components: [{ type: 17, components: Array.from({ length: 39 }, (_, i) => text(i)) }] })).toEqual([]);
    expect(messageProblems({ flags: V2, components: [{ type: 17, components: Array.from({ length: 40 }, (_, i) => text(i)) }] })).toEqual([
      { path: 'components', message: '41 components in total (nested ones count); a Components V2 message (flag 1 << 15) allows at most 40' },
    ]);
    // A section's accessory counts too.
    const section = { type: 9, components: [text(0)], accessory: { type: 2, style: 1, label: 'x', custom_id: 'x' } };
    expect(messageProblems({ flags: V2, components: Array.from({ length: 13 }, () => section) })).toHaveLength(0);
    expect(messageProblems({ flags: V2, components: Array.from({ length: 14 }, () => section) })[0]?.message).toMatch(/^42 components/);
  });

  it('allows 5 action rows in a legacy message, and says what V2 components need', () => {
    expect(messageProblems({ components: [1, 2, 3, 4, 5].map(row) })).toEqual([]);
    expect(messageProblems({ components: [1, 2, 3, 4, 5, 6].map(row) })[0]).toEqual({
      path: 'components',
      message: '6 action rows; a message without Components V2 allows at most 5 (set flags: 1 << 15 for the 40-component layout)',
    });
    expect(messageProblems({ components: [text(0)] })).toEqual([
      { path: 'components[0]', message: 'a Text Display component (type 10) needs the IS_COMPONENTS_V2 flag (flags: 1 << 15)' },
    ]);
    expect(messageProblems({ flags: V2, content: 'hi', components: [text(0)] })[0]?.path).toBe('content');
    // An edit without flags keeps the message's: V2 components there are fine.
    expect(messageProblems({ components: [text(0)] }, { edit: true })).toEqual([]);
  });

  it('allows 25 fields per embed', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    expect(messageProblems({ embeds: [{ fields: fields(25) }] })).toEqual([]);
    expect(messageProblems({ embeds: [{}, { fields: fields(26) }] })).toEqual([{ path: 'embeds[1].fields', message: '26 fields; an embed allows at most 25' }]);
  });

  it('checks a modal: 1-5 components, title, custom_id, and file uploads of 0-10 files', () => {
    const upload = (extra: Record<string, unknown>) => ({ type: 18, label: 'Files', component: { type: 19, custom_id: 'f', ...extra } });
    expect(modalProblems({ custom_id: 'm', title: 'T', components: [upload({ min_values: 0, max_values: 10 })] })).toEqual([]);
    expect(modalProblems({ custom_id: 'm', title: 'T', components: [upload({ max_values: 11 })] })).toEqual([
      { path: 'components[0].component.max_values', message: 'a file upload takes between 0 and 10 files; got 11' },
    ]);
    expect(modalProblems({ custom_id: 'm', title: 'T', components: [upload({ min_values: 3, max_values: 2 })] })[0]?.message).toBe('3 is more than max_values (2)');
    expect(modalProblems({ custom_id: '', title: 'x'.repeat(46), components: [] }).map((p) => p.path)).toEqual(['custom_id', 'title', 'components']);
  });

  it('rejects before sending, naming what was not sent and every field', () => {
    const err = (() => {
      try {
        checkResponse({ type: 4, data: { components: [1, 2, 3, 4, 5, 6].map(row) as never, embeds: [{ fields: Array.from({ length: 30 }, () => ({ name: 'a', value: 'b' })) }] } });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(MessageLimitError);
    expect((err as Error).message).toBe(
      'reply not sent: \n  components: 6 action rows; a message without Components V2 allows at most 5 (set flags: 1 << 15 for the 40-component layout)\n  embeds[0].fields: 30 fields; an embed allows at most 25',
    );
  });
});
