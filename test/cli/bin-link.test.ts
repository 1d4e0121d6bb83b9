/**
 * The CLI run the ways an installed copy is run: through a symlink as node_modules/.bin/gatehouse is (npx and
 * `npm exec` go through the same link), and by its real path. Before the entry check compared real paths, the
 * symlinked run printed nothing and exited 0.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { runToEnd } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
delete env.VITEST;

async function help(entry: string): Promise<{ code: number | null; stdout: string }> {
  return runToEnd(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', entry, '--help'], { cwd: ROOT, env, timeoutMs: 60_000 });
}

describe('the gatehouse bin', () => {
  it('prints its usage when run through a symlink, as node_modules/.bin runs it', async () => {
    const link = join(dir, 'gatehouse');
    symlinkSync(join(ROOT, 'src', 'cli.ts'), link);
    const r = await help(link);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: gatehouse <verb>');
  }, 120_000);

  it('prints its usage when run by its real path', async () => {
    const r = await help(join(ROOT, 'src', 'cli.ts'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: gatehouse <verb>');
  }, 120_000);
});
