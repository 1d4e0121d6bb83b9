/** Which markdown files the docs tests read: the repository's own documentation, found on disk. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../plugins/helpers.js';

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(relative(ROOT, path));
  }
  return out;
}

/** README.md and docs/**\/*.md: the files whose TypeScript blocks must compile. */
export function guideFiles(): string[] {
  return ['README.md', ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md'))];
}

/** Every file whose relative links and anchors must resolve. */
export function linkedFiles(): string[] {
  const top = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].filter((f) => existsSync(join(ROOT, f)));
  return [
    ...top,
    ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md')),
    ...walk(join(ROOT, 'src'), (p) => p.endsWith('/README.md')),
  ];
}
