/**
 * Every TypeScript block in README.md compiles under the project's own compiler settings (tsconfig.json:
 * strict, noUnusedLocals, noUnusedParameters, ...), importing 'gatehouse' as a plugin does. A block that is
 * pasted into plugins/ must build with `npm run build`, as the Docker image does.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './plugins/helpers.js';
import { typescriptBlocks } from './helpers/markdown.js';

// Inside the package (so 'gatehouse' resolves as it does for plugins) but outside the type-checked folders.
const scratch = join(ROOT, '.gatehouse-tmp');
let dir: string | undefined;
afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('README', () => {
  it('has TypeScript blocks, and every one compiles under tsconfig.json', () => {
    const blocks = typescriptBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    mkdirSync(scratch, { recursive: true });
    dir = mkdtempSync(join(scratch, 'readme-'));
    const files = blocks.map((b) => {
      const file = join(dir!, `block-line-${b.line}.ts`);
      // A block without imports would be a script sharing one global scope with the others.
      writeFileSync(file, /^\s*(import|export)\s/m.test(b.code) ? b.code : `${b.code}\nexport {};\n`);
      return file;
    });
    const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
    const options = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
    expect(options.strict).toBe(true);
    expect(options.noUnusedParameters).toBe(true);
    const program = ts.createProgram(files, { ...options, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || files.includes(d.file.fileName))
      .map((d) => {
        const where = d.file === undefined ? '' : `${relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: `;
        return `${where}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
    expect(problems).toEqual([]);
  }, 120_000);
});
