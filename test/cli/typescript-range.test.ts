/**
 * `gatehouse check` type-checks with a TypeScript whose compiler API it knows; TypeScript 7 (the native
 * compiler) exports only its version, and the check crashed on it (`Cannot read properties of undefined
 * (reading 'ES2022')`). Outside the range it says so in one line that names the range. The range is the one
 * package.json declares as the optional peer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_TYPESCRIPT, unsupportedTypeScript } from '../../src/cli/typecheck-plugins.js';
import { ROOT } from '../plugins/helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };

describe('the supported TypeScript', () => {
  it('is the optional peer range of package.json', () => {
    expect(pkg.peerDependencies.typescript).toBe(SUPPORTED_TYPESCRIPT);
    expect(pkg.peerDependenciesMeta.typescript?.optional).toBe(true);
  });

  it('includes the TypeScript this repository builds with', () => {
    expect(unsupportedTypeScript(ts)).toBeNull();
  });

  it('refuses TypeScript 7 as its package exports it, and an old one, in one line naming the range', () => {
    // What `import('typescript')` gives for typescript@7.0.2: a version, no compiler API.
    const seven = { version: '7.0.2', versionMajorMinor: '7.0' };
    for (const installed of [seven, { ...ts, version: '4.9.5' }]) {
      const line = unsupportedTypeScript(installed);
      expect(line).toContain(`typescript ${installed.version} is installed`);
      expect(line).toContain(SUPPORTED_TYPESCRIPT);
      expect(line).not.toContain('\n');
    }
  });
});
