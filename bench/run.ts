/**
 * `npm run bench`: runs every `*.bench.ts` under bench/ (any depth), one process each, and passes their
 * output through: first ingest.bench.ts, the product path (frames from a socket through the Runtime to a
 * plugin, beside discord.js and the decode floor), which is the reference every optimisation is measured by;
 * then, in name order, the PART benchmarks (cache alone, decoder alone, REST client alone, sandbox send rate),
 * each of which says in its output that it measures a part. Each benchmark prints its own report and bounds
 * its own loops by count and time.
 *
 *   npm run bench                 all benchmarks
 *   npm run bench -- ingest       the product path only (add --quick for a small workload, --profile for where
 *                                 gatehouse's CPU goes, --redis for the Redis backend)
 *   npm run bench -- cache        only those whose path contains "cache"
 *   npm run bench -- rest-shared  the cost of a request under the shared (Redis) REST limits beside the per-process ones
 *   npm run bench -- --quick      small workloads (flags starting with -- are passed to every benchmark)
 *   npm run bench -- --no-record  leave docs/performance-results.md as it is
 *
 * A benchmark that exits non-zero makes the run exit 1 after the others have run. Each benchmark's report, as it
 * printed it, replaces that benchmark's section of docs/performance-results.md (bench/lib/results-file.ts), with
 * the command, commit, machine and load; except with --quick or --no-record, or when the benchmark failed.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentCommit, currentLoad, recordResults, resultsFile } from './lib/results-file.js';

const here = dirname(fileURLToPath(import.meta.url));

function findBenches(dir: string, depth = 0): string[] {
  if (depth > 4) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name === 'results' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findBenches(path, depth + 1));
    else if (name.endsWith('.bench.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('--'));
const passThrough = args.filter((a) => a.startsWith('--') && a !== '--no-record');
const record = !args.includes('--no-record') && !args.includes('--quick');
const root = join(here, '..');
const PRODUCT_PATH = 'ingest.bench.ts';
const benches = findBenches(here)
  .filter((file) => filters.length === 0 || filters.some((f) => relative(here, file).includes(f)))
  .sort((a, b) => Number(relative(here, b) === PRODUCT_PATH) - Number(relative(here, a) === PRODUCT_PATH));

if (benches.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ') || '(any)'} under ${relative(process.cwd(), here) || '.'}`);
  process.exit(1);
}

/** Run one benchmark in a process of its own, its output passed through and kept. */
function runBench(file: string): Promise<{ status: number | null; signal: string | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--conditions=gatehouse-source', '--import', 'tsx', file, ...passThrough], {
      stdio: ['inherit', 'pipe', 'inherit'],
      env: process.env,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    // Each benchmark bounds itself; this only stops one that hangs.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, output });
    });
  });
}

const failed: string[] = [];
const started = Date.now();
for (const file of benches) {
  const name = relative(here, file);
  console.log(`\n# ${name}${name === PRODUCT_PATH ? ' (the product path)' : ' (a part)'}`);
  const facts = { startedAt: new Date(), loadBefore: currentLoad(), commit: currentCommit(root) };
  const result = await runBench(file);
  if (result.status !== 0) {
    failed.push(`${name} (exit ${String(result.status ?? result.signal)})`);
    continue;
  }
  if (record) {
    const command = `npm run bench -- ${[name.replace(/\.bench\.ts$/, ''), ...passThrough].join(' ')}`;
    const seconds = (Date.now() - facts.startedAt.getTime()) / 1000;
    recordResults(resultsFile(root), name, { ...facts, command, seconds, loadAfter: currentLoad() }, result.output);
    console.log(`(report recorded in ${relative(process.cwd(), resultsFile(root)) || 'docs/performance-results.md'})`);
  }
}
console.log(`\n${benches.length - failed.length}/${benches.length} benchmarks finished in ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (failed.length > 0) {
  console.log(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
