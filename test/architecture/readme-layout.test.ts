/**
 * The layout in docs/architecture.md (moved there from README) matches the tree: every directory under src/ is
 * listed, and every path listed exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';

/** The code block that follows the "Layout." paragraph of docs/architecture.md. */
function layoutBlock(readme: string): string {
  const at = readme.indexOf('\nLayout.');
  if (at === -1) throw new Error('docs/architecture.md has no "Layout." paragraph');
  const open = readme.indexOf('```\n', at);
  const close = readme.indexOf('```\n', open + 4);
  if (open === -1 || close === -1) throw new Error('the layout paragraph is not followed by a code block');
  return readme.slice(open + 4, close);
}

export function mentionedPaths(block: string): string[] {
  return [...block.matchAll(/(?:^|[\s,(])((?:src|plugins|bench)(?:\/[\w.-]+)*\/?)(?=[\s,)]|$)/gm)].map((m) => m[1]!);
}

function directories(dir: string, rel: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!statSync(join(dir, name)).isDirectory()) continue;
    out.push(`${rel}/${name}/`, ...directories(join(dir, name), `${rel}/${name}`));
  }
  return out;
}

const block = layoutBlock(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
const mentioned = mentionedPaths(block);

describe("docs/architecture.md's layout", () => {
  it('lists paths (the parser finds them)', () => {
    expect(mentioned).toContain('src/cli.ts');
    expect(mentioned).toContain('src/cache/memory/');
    expect(mentionedPaths('src/a/ and (src/b.ts), plugins/')).toEqual(['src/a/', 'src/b.ts', 'plugins/']);
  });

  it('mentions every directory under src/', () => {
    const missing = directories(join(ROOT, 'src'), 'src').filter((d) => !mentioned.includes(d));
    expect(missing, 'directories the layout does not list').toEqual([]);
  });

  it('mentions only paths that exist', () => {
    const gone = mentioned.filter((p) => !existsSync(join(ROOT, p)) || (p.endsWith('/') && !statSync(join(ROOT, p)).isDirectory()));
    expect(gone, 'paths in the layout that are not in the tree').toEqual([]);
  });
});
