/** The front door stays short: README.md is at most 250 lines (issue 32 allows 300), and the rest lives in docs/. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';

describe('the front door', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('README.md is at most 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('has the sections a newcomer comes for, and a first plugin with its test', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Quick start', 'A first plugin', 'Deploying', 'Documentation']);
    expect(readme).toContain('```ts file=plugins/hello.ts');
    expect(readme).toContain('```ts file=test/hello.test.ts');
  });
});
