/**
 * `gatehouse check`: offline (no token: none is set here, and nothing listens), it loads the plugins,
 * type-checks the TypeScript ones and validates all commands together; exit 0 for the examples, 1 with the
 * file and the field (or line) for broken ones.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli.js';
import { ROOT } from '../plugins/helpers.js';

// Broken TypeScript lives outside test/ (the project's own type-check must not see it) but inside the
// package, where `import 'gatehouse'` resolves. Removed after the run.
const scratch = join(ROOT, '.gatehouse-tmp');
let dir: string;
const saved = { ...process.env };

beforeAll(() => {
  mkdirSync(scratch, { recursive: true });
  dir = mkdtempSync(join(scratch, 'check-'));
  writeFileSync(
    join(dir, 'typo.ts'),
    [
      "import { definePlugin, defineSubcommand } from 'gatehouse';",
      '',
      'export default definePlugin({',
      "  name: 'typo',",
      '  commands: [{',
      "    name: 'dice', description: 'Dice',",
      '    options: [defineSubcommand({',
      "      type: 1, name: 'roll', description: 'Roll',",
      "      options: [{ type: 4, name: 'sides', description: 'Sides', required: true }],",
      '      async run(ctx) { await ctx.reply(ctx.options.sides.toUpperCase()); },',
      '    })],',
      '  }],',
      '});',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'fields.js'), "export default { name: 'fields', commands: [{ name: 'x', description: '' }] };\n");
  delete process.env.DISCORD_TOKEN;
  delete process.env.DISCORD_API_URL;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  process.env = saved;
});

function io(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(...l.split('\n')), err: (l) => errors.push(...l.split('\n')) };
}

async function check(dirs: string): Promise<{ code: number; lines: string[]; errors: string[] }> {
  process.env.GATEHOUSE_PLUGIN_DIRS = dirs;
  const out = io();
  const code = await main(['check'], out);
  return { code, ...out };
}

describe('gatehouse check', () => {
  it('exits 0 for the example plugins, type-checked', async () => {
    const r = await check('plugins');
    expect(r.errors).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.lines.filter((l) => l.startsWith('ok   ')).length).toBe(6);
    expect(r.lines.at(-1)).toBe('6 plugin files checked; 6 TypeScript files type-checked: no problems');
  }, 240_000);

  it('exits 1 naming the file and the field, or the line, of every problem', async () => {
    const rel = relative(ROOT, dir);
    const r = await check(`${rel},test/fixtures/plugins/mixed`);
    expect(r.code).toBe(1);
    const text = r.lines.join('\n');
    // A type error, with line and column.
    expect(text).toContain(`  ${rel}/typo.ts: 10:58: TS2339: Property 'toUpperCase' does not exist on type 'number'.`);
    // A command that does not validate: the field inside the plugin.
    expect(text).toContain(`  ${rel}/fields.js: commands[0].description: `);
    // A module that does not load: its fields.
    expect(text).toContain('  test/fixtures/plugins/mixed/b-broken.js: comands: unknown key; did you mean "commands"?');
    expect(text).toContain('  test/fixtures/plugins/mixed/c-invalid.ts: commands[0].name: ');
    expect(r.lines).toContain('ok   test/fixtures/plugins/mixed/a-good.ts (plugin "good": 1 command)');
    expect(r.errors.at(-1)).toMatch(/^5 plugin files checked; 3 TypeScript files type-checked: 4 problems$/);
  }, 240_000);
});
