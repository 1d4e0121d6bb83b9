/**
 * Every relative link of the repository's documentation resolves on GitHub: README.md, CONTRIBUTING.md,
 * CHANGELOG.md, docs/**\/*.md and src/**\/README.md. A link names a file or folder that exists and is not ignored
 * by git (so a fresh clone has it), and its anchor names a heading of the page it points to, by GitHub's slugs
 * (`#12-http-basics` for `## §2 HTTP basics`), or a line (`#L10`) of a file that long.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { anchors, githubSlug, headings, links } from '../helpers/markdown.js';
import { linkedFiles } from './files.js';

export interface Resolver {
  exists(path: string): boolean;
  ignored(path: string): boolean;
  text(path: string): string;
}

const ignoredCache = new Map<string, boolean>();
const fileSystem: Resolver = {
  exists: (path) => existsSync(join(ROOT, path)),
  ignored: (path) => {
    if (!ignoredCache.has(path)) {
      let ignored = true;
      try {
        execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT, stdio: 'ignore' });
      } catch {
        ignored = false;
      }
      ignoredCache.set(path, ignored);
    }
    return ignoredCache.get(path)!;
  },
  text: (path) => (statSync(join(ROOT, path)).isDirectory() ? '' : readFileSync(join(ROOT, path), 'utf8')),
};

/** What is wrong with the relative links of one page (`page` relative to the repository's root). */
export function linkProblems(page: string, markdown: string, resolver: Resolver): string[] {
  const problems: string[] = [];
  for (const { line, target } of links(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent((hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, ''));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const where = `${page}:${line}: ${target}`;
    const path = pathPart === '' ? page : normalize(join(dirname(page), pathPart));
    if (path.startsWith('..')) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    if (!resolver.exists(path)) {
      problems.push(`${where}: ${path} does not exist`);
      continue;
    }
    if (resolver.ignored(path)) {
      problems.push(`${where}: ${path} is ignored by git, so a clone does not have it`);
      continue;
    }
    if (anchor === null || anchor === '') continue;
    const text = resolver.text(path);
    if (path.endsWith('.md')) {
      if (!anchors(text).has(anchor)) {
        const close = headings(text).find((h) => h.slug.includes(anchor) || anchor.includes(h.slug));
        problems.push(`${where}: ${path} has no heading with the anchor #${anchor}${close ? ` (#${close.slug}?)` : ''}`);
      }
    } else {
      const m = /^L(\d+)(?:-L(\d+))?$/.exec(anchor);
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (m === null || Number(m[2] ?? m[1]) > lines) problems.push(`${where}: not a line of ${path} (#L1 to #L${lines})`);
    }
  }
  return problems;
}

describe('relative links of the documentation', () => {
  const pages = linkedFiles();

  it('reads the pages it should', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/protocol.md');
    expect(pages).toContain('src/testing/README.md');
  });

  it('resolve to files a clone has, and anchors to headings GitHub makes', () => {
    const problems = pages.flatMap((page) => linkProblems(page, readFileSync(join(ROOT, page), 'utf8'), fileSystem));
    expect(problems).toEqual([]);
  });

  it('the checks can fail', () => {
    const files = new Map([
      ['docs/a.md', '# A page\n\n## §2 HTTP basics\n\n## Same\n\n## Same\n'],
      ['docs/b.md', '# B\n'],
      ['docs/ignored.md', '# I\n'],
      ['src/x.ts', 'one\ntwo\n'],
    ]);
    const resolver: Resolver = { exists: (p) => files.has(p), ignored: (p) => p === 'docs/ignored.md', text: (p) => files.get(p) ?? '' };
    const check = (md: string): string[] => linkProblems('docs/b.md', md, resolver).map((p) => p.replace(/^docs\/b\.md:\d+: /, ''));
    expect(githubSlug('§2 HTTP basics')).toBe('2-http-basics');
    expect(check('[a](a.md#2-http-basics) [b](a.md#same-1) [c](../src/x.ts#L2) [d](https://example.com/x) `[e](nowhere.md)`')).toEqual([]);
    expect(check('[a](a.md#http-basics)')).toEqual(['a.md#http-basics: docs/a.md has no heading with the anchor #http-basics (#2-http-basics?)']);
    expect(check('[a](nowhere.md)')).toEqual(['nowhere.md: docs/nowhere.md does not exist']);
    expect(check('[a](../src/x.ts#L3)')).toEqual(['../src/x.ts#L3: not a line of src/x.ts (#L1 to #L2)']);
    expect(check('[a](../../outside.md)')).toEqual(['../../outside.md: leaves the repository']);
    expect(check('see [the same page](#nothing)')).toEqual(['#nothing: docs/b.md has no heading with the anchor #nothing']);
    expect(check('[a](ignored.md)')).toEqual(['ignored.md: docs/ignored.md is ignored by git, so a clone does not have it']);
  });
});
