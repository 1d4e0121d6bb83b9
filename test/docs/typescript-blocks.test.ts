/**
 * Every TypeScript block of README.md and docs/**\/*.md compiles under the project's own compiler settings
 * (tsconfig.json: strict, noUnusedLocals, noUnusedParameters, ...), importing 'gatehouse' as a plugin does, so
 * that a block pasted into plugins/ builds as the Docker image builds it.
 *
 * Info strings: `ts` (or `typescript`) compiles as a module of its own; `ts file=plugins/hello.ts` is written at
 * that path beside the other blocks of the same page, so that a later block (`ts file=test/hello.test.ts`) imports
 * it as a reader's project would; `ts fragment` marks a block that is deliberately not a whole module (a
 * continuation of the block before it, an excerpt). Fragments are not compiled; they are counted per page
 * below, so that marking a block a fragment is a decision this file records, never a silent escape.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { codeBlocks, type CodeBlock } from '../helpers/markdown.js';
import { guideFiles } from './files.js';

/** Blocks marked `ts fragment`, per page: change this with the page, saying why in the commit. */
const FRAGMENTS: Readonly<Record<string, number>> = {};

/** Entry points the guides import that package.json does not export yet, resolved to their sources. */
const PENDING_ENTRY_POINTS: Readonly<Record<string, string>> = {
  'gatehouse/testing': 'src/testing/index.ts',
  'gatehouse/sandbox': 'src/sandbox/index.ts',
};

const TS_LANGS = new Set(['ts', 'typescript', 'mts', 'tsx']);

// Inside the package (so 'gatehouse' resolves as it does for plugins) but outside the type-checked folders.
const scratch = join(ROOT, '.gatehouse-tmp');
let dir: string | undefined;
afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

interface Found {
  readonly page: string;
  readonly block: CodeBlock;
}

function problemsOf(found: readonly Found[]): string[] {
  return found.flatMap(({ page, block }) =>
    block.attributes
      .filter((a) => a !== 'fragment' && !/^file=[\w./-]+\.m?tsx?$/.test(a))
      .map((a) => `${page}:${block.line}: unknown attribute "${a}" in \`\`\`${block.info} (fragment, file=PATH.ts)`),
  );
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  const exported = new Set(Object.keys(pkg.exports ?? {}).map((k) => k.replace(/^\./, 'gatehouse')));
  const paths: Record<string, string[]> = {};
  for (const [specifier, file] of Object.entries(PENDING_ENTRY_POINTS)) {
    if (!exported.has(specifier) && existsSync(join(ROOT, file))) paths[specifier] = [file];
  }
  return { ...options, noEmit: true, ...(Object.keys(paths).length > 0 ? { baseUrl: ROOT, paths } : {}) };
}

describe('TypeScript blocks of README.md and docs/', () => {
  const found: Found[] = guideFiles().flatMap((page) =>
    codeBlocks(readFileSync(join(ROOT, page), 'utf8'))
      .filter((b) => TS_LANGS.has(b.lang))
      .map((block) => ({ page, block })),
  );

  it('are marked with known attributes only, and the fragments are the ones this test lists', () => {
    expect(problemsOf(found)).toEqual([]);
    const fragments: Record<string, number> = {};
    for (const { page, block } of found) if (block.attributes.includes('fragment')) fragments[page] = (fragments[page] ?? 0) + 1;
    expect(fragments).toEqual(FRAGMENTS);
  });

  it('compile under tsconfig.json, the plugin examples of README and docs/plugins.md among them', () => {
    const readme = found.filter((f) => f.page === 'README.md');
    expect(readme.length).toBeGreaterThanOrEqual(2);
    expect(readme.some((f) => f.block.code.includes("name: 'hello'"))).toBe(true);
    expect(found.some((f) => f.page === 'docs/plugins.md' && f.block.code.includes("name: 'greeter'"))).toBe(true);
    mkdirSync(scratch, { recursive: true });
    dir = mkdtempSync(join(scratch, 'docs-'));
    const files = found
      .filter(({ block }) => !block.attributes.includes('fragment'))
      .map(({ page, block }) => {
        const named = block.attributes.find((a) => a.startsWith('file='))?.slice('file='.length);
        const file = join(dir!, page.replace(/[^\w]+/g, '_'), named ?? `block-line-${block.line}.ts`);
        mkdirSync(dirname(file), { recursive: true });
        // A block without imports would be a script sharing one global scope with the others.
        writeFileSync(file, /^\s*(import|export)\s/m.test(block.code) ? block.code : `${block.code}\nexport {};\n`);
        return { file, where: `${page}:${block.line}` };
      });
    const options = compilerOptions();
    expect(options.strict).toBe(true);
    expect(options.noUnusedParameters).toBe(true);
    const program = ts.createProgram(
      files.map((f) => f.file),
      options,
    );
    const byFile = new Map(files.map((f) => [f.file, f.where]));
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || byFile.has(d.file.fileName))
      .map((d) => {
        if (d.file === undefined) return `TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
        const line = d.file.getLineAndCharacterOfPosition(d.start ?? 0).line;
        const [page, first] = byFile.get(d.file.fileName)!.split(':');
        return `${page}:${Number(first) + line} (${relative(dir!, d.file.fileName)}): TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
    expect(problems).toEqual([]);
  }, 300_000);

  it('the marking check can fail', () => {
    const block = (info: string): Found => ({ page: 'x.md', block: { ...codeBlocks(`\`\`\`${info}\nlet a = 1;\n\`\`\`\n`)[0]! } });
    expect(problemsOf([block('ts fragment'), block('ts file=plugins/a.ts')])).toEqual([]);
    expect(problemsOf([block('ts fragmnet')])).toEqual(['x.md:2: unknown attribute "fragmnet" in ```ts fragmnet (fragment, file=PATH.ts)']);
  });
});
