/**
 * No citation in src/ points outside the repository. Comments cite the protocol notes as `protocol §7.4` (Part A
 * of docs/protocol.md: the gateway and HTTP API) or `protocol §S2.7` (Part B: the product spec, by the spec's own
 * numbers), several at once as `protocol §14.4, §14.5` or `protocol §14.1-§14.3`; every `§` in src/ must be part of
 * such a citation and name a heading of docs/protocol.md. The older forms (`reference §8.2`, `spec 2.7`, a file
 * outside the repository) fail, and so does a citation of a README or docs/ section that does not exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { headings } from '../helpers/markdown.js';

const ID = String.raw`S?\d+(?:\.\d+)*`;
/** One citation: `protocol §ID`, then more ids joined by ", ", " and ", ", and ", "-" or " to ". */
const CITATION = new RegExp(String.raw`\b[Pp]rotocol §(${ID})((?:(?:, and |, | and |-|–| to )§${ID})*)`, 'g');
/** Numbered citations of documents that are not in the repository. */
const OUTSIDE: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /\b(?:spec|reference)(?: section)? §?\d/gi, why: 'cite docs/protocol.md as "protocol §N" (Part A) or "protocol §SN" (Part B)' },
  { pattern: /discord-protocol\.md|\bdesign\.md\b|shared\/spec|spec\/000_|\/work\//g, why: 'a file outside the repository' },
];

/** The section ids of docs/protocol.md: `§7.4` in `### §7.4 Resume`. */
export function protocolSections(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const h of headings(markdown)) {
    const m = new RegExp(`^§(${ID})\\s`).exec(`${h.text} `);
    if (m !== null) out.add(m[1]!);
  }
  return out;
}

/**
 * The text with comment continuations joined, so that a citation wrapped over two comment lines reads as one,
 * and for each character of the joined text the line it came from.
 */
function joined(text: string): { text: string; lineAt: (index: number) => number } {
  const lines: number[] = [];
  let out = '';
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n') {
      const rest = /^\n[ \t]*(?:\*(?!\/)|\/\/|#|--)?[ \t]*/.exec(text.slice(i, i + 40))![0];
      out += ' ';
      lines.push(line);
      line++;
      i += rest.length - 1;
      continue;
    }
    out += text[i];
    lines.push(line);
  }
  return { text: out, lineAt: (index) => lines[index] ?? line };
}

export interface Problem {
  readonly line: number;
  readonly text: string;
  readonly why: string;
}

/** What is wrong with the citations of one file's text. */
export function citationProblems(source: string, sections: ReadonlySet<string>, docHeadings: (doc: string) => Set<string> | null): Problem[] {
  const { text, lineAt } = joined(source);
  const problems: Problem[] = [];
  const excerpt = (at: number): string => text.slice(Math.max(0, at - 30), at + 30).trim();
  const covered = new Set<number>();
  for (const m of text.matchAll(CITATION)) {
    const ids = [m[1]!, ...[...m[2]!.matchAll(new RegExp(`§(${ID})`, 'g'))].map((x) => x[1]!)];
    for (const id of ids) {
      if (!sections.has(id)) problems.push({ line: lineAt(m.index), text: m[0], why: `docs/protocol.md has no section §${id}` });
    }
    for (let i = m.index; i < m.index + m[0].length; i++) covered.add(i);
  }
  for (const m of text.matchAll(/§/g)) {
    if (!covered.has(m.index)) problems.push({ line: lineAt(m.index), text: excerpt(m.index), why: 'a § outside a "protocol §N" citation' });
  }
  for (const { pattern, why } of OUTSIDE) {
    for (const m of text.matchAll(pattern)) problems.push({ line: lineAt(m.index), text: excerpt(m.index), why });
  }
  // A named section of README or of a docs/ page must exist there; a docs/ page must exist.
  for (const m of text.matchAll(/\b(README(?:\.md)?|docs\/[\w./-]+\.md)(?: section)? "([^"]+)"/g)) {
    const doc = m[1]!.startsWith('README') ? 'README.md' : m[1]!;
    const titles = docHeadings(doc);
    if (titles === null) problems.push({ line: lineAt(m.index), text: m[0], why: `${doc} does not exist` });
    else if (!titles.has(m[2]!)) problems.push({ line: lineAt(m.index), text: m[0], why: `${doc} has no heading "${m[2]!}"` });
  }
  for (const m of text.matchAll(/\bdocs\/[\w./-]+\.md\b/g)) {
    if (docHeadings(m[0]) === null) problems.push({ line: lineAt(m.index), text: m[0], why: `${m[0]} does not exist` });
  }
  return problems;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

const protocol = readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8');
const sections = protocolSections(protocol);
const titleCache = new Map<string, Set<string> | null>();
function docHeadings(doc: string): Set<string> | null {
  if (!titleCache.has(doc)) {
    const path = join(ROOT, doc);
    titleCache.set(doc, existsSync(path) ? new Set(headings(readFileSync(path, 'utf8')).map((h) => h.text)) : null);
  }
  return titleCache.get(doc)!;
}

describe('citations in src/', () => {
  it('docs/protocol.md has the sections the citations name (the heading reader works)', () => {
    expect(sections.has('8.2')).toBe(true);
    expect(sections.has('S2.7')).toBe(true);
    expect(sections.has('7')).toBe(true);
    expect(sections.size).toBeGreaterThan(100);
  });

  it('every § is a "protocol §N" citation of an existing section, and nothing cites a document outside the repository', () => {
    const files = filesUnder(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(200);
    const problems = files.flatMap((file) =>
      citationProblems(readFileSync(file, 'utf8'), sections, docHeadings).map((p) => `${relative(ROOT, file)}:${p.line}: ${p.why}: ${p.text}`),
    );
    expect(problems).toEqual([]);
  });

  it('the checks can fail', () => {
    const check = (source: string): string[] => citationProblems(source, sections, docHeadings).map((p) => `${p.line}: ${p.why}`);
    expect(check('// protocol §8.2, §S2.7 and §14.1-§14.3')).toEqual([]);
    expect(check('/**\n * the gateway (protocol\n * §7.4, §7.7) resumes\n */')).toEqual([]);
    expect(check('// protocol §99.1')).toEqual(['1: docs/protocol.md has no section §99.1']);
    expect(check('// reference §8.2')).toEqual(['1: a § outside a "protocol §N" citation', expect.stringMatching(/^1: cite docs\/protocol\.md/)]);
    expect(check('x\n// (spec 2.7, 8)')).toEqual([expect.stringMatching(/^2: cite docs\/protocol\.md/)]);
    expect(check('// §14.4-14.5')).toHaveLength(1);
    expect(check('// see /work/shared/design.md')).toHaveLength(2);
    expect(check('// README "No such section"')).toEqual(['1: README.md has no heading "No such section"']);
    expect(check('// docs/nowhere.md')).toEqual(['1: docs/nowhere.md does not exist']);
  });
});
