/** The front door stays short: the draft of the new README (docs/README-draft.md) is at most 250 lines. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';

describe('the front door', () => {
  it('docs/README-draft.md is at most 250 lines', () => {
    const lines = readFileSync(join(ROOT, 'docs', 'README-draft.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
