/**
 * Memory that `npm run dev` keeps per plugin version (ES modules cannot be unloaded): 200 distinct edits of one
 * plugin, then 200 edits between two contents already loaded (which should add nothing). Heap and RSS are read
 * from the dev process's /metrics (no forced GC, so readings move by a MiB or two either way).
 *
 *   npx tsx bench/dev-reload-memory.ts
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = join(root, '.gatehouse-tmp', `dev-memory-${process.pid}`);
mkdirSync(dir, { recursive: true });
const plugin = (i: number): string =>
  `import { definePlugin } from 'gatehouse';\n// version ${i}\nconst pad = '${'x'.repeat(2_000)}';\n` +
  `export default definePlugin({ name: 'm', commands: [{ name: 'm', description: 'v${i} ' + pad.length, run: (ctx) => ctx.reply('v${i}') }] });\n`;
writeFileSync(join(dir, 'm.ts'), plugin(0));

const child = spawn('npm', ['run', 'dev'], {
  cwd: root,
  detached: true,
  env: { ...process.env, GATEHOUSE_PLUGIN_DIRS: dir, GATEHOUSE_HTTP_PORT: '0', LOG_LEVEL: 'info', GATEHOUSE_SANDBOX_STATE: join(dir, 'sandbox.json'), FORCE_COLOR: '0' },
});
let out = '';
child.stdout.on('data', (d: Buffer) => (out += d.toString()));
child.stderr.on('data', (d: Buffer) => (out += d.toString()));

async function waitFor(pattern: RegExp, from: number): Promise<void> {
  const started = Date.now();
  while (!pattern.test(out.slice(from))) {
    if (Date.now() - started > 30_000) throw new Error(`timed out waiting for ${String(pattern)}:\n${out.slice(from)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

try {
  await waitFor(/for changes/, 0);
  const port = /health and metrics on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1];
  const memory = async (): Promise<string> => {
    await new Promise((r) => setTimeout(r, 1_500));
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const mib = (name: string): string => (Number(new RegExp(`^gatehouse_${name} (\\S+)`, 'm').exec(text)![1]) / 1_048_576).toFixed(1);
    return `heap ${mib('nodejs_heap_size_used_bytes')} MiB, rss ${mib('process_resident_memory_bytes')} MiB`;
  };
  const save = async (i: number): Promise<void> => {
    const from = out.length;
    writeFileSync(join(dir, 'm.ts'), plugin(i));
    await waitFor(/live in \d+ ms/, from);
  };
  console.log(`start: ${await memory()}`);
  for (let i = 1; i <= 200; i++) {
    await save(i);
    if (i % 100 === 0) console.log(`${i} distinct versions: ${await memory()}`);
  }
  for (let i = 1; i <= 200; i++) await save(i % 2 === 0 ? 200 : 199);
  console.log(`then 200 edits between 2 versions already loaded: ${await memory()}`);
} finally {
  process.kill(-child.pid!, 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
