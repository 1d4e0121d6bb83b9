/**
 * docs/performance-results.md is written by `npm run bench`: a run replaces the sections of the benchmarks it ran
 * and keeps the others.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { RESULTS_TITLE, sectionBody, sectionNames, withSection } from '../../bench/lib/results-file.js';

const facts = { command: 'npm run bench -- ingest', startedAt: new Date('2026-01-02T03:04:05Z'), seconds: 12, loadBefore: 1.5, loadAfter: 2.25, commit: 'abc1234' };

describe('the results file', () => {
  it('starts with its title and adds a section per benchmark, replacing only the one that ran again', () => {
    let doc = withSection('', 'a.bench.ts', 'first a');
    expect(doc.startsWith(RESULTS_TITLE)).toBe(true);
    doc = withSection(doc, 'b.bench.ts', 'first b');
    doc = withSection(doc, 'a.bench.ts', 'second a');
    expect(sectionNames(doc)).toEqual(['a.bench.ts', 'b.bench.ts']);
    expect(doc).toContain('second a');
    expect(doc).not.toContain('first a');
    expect(doc).toContain('first b');
  });

  it('records what ran where, and the report as printed (colours and fences made harmless)', () => {
    const body = sectionBody('ingest.bench.ts', facts, '\x1b[32mok\x1b[39m\n| a | b |\n```\n');
    expect(body).toContain('`npm run bench -- ingest`, at commit abc1234, 2026-01-02;');
    expect(body).toContain('load average 1.5 at the start, 2.3 at the end; 12 s.');
    expect(body).toContain('```text\nok\n| a | b |\n\'\'\'\n```');
  });

  it('docs/performance-results.md holds sections of benchmarks that exist, each closed', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'performance-results.md'), 'utf8');
    const names = sectionNames(doc);
    expect(names).toContain('ingest.bench.ts');
    for (const name of names) {
      expect(existsSync(join(ROOT, 'bench', name)), name).toBe(true);
      expect(doc.split(`<!-- bench:${name}:end -->`).length, name).toBe(2);
    }
  });
});
