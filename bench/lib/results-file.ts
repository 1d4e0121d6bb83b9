/**
 * docs/performance-results.md: the latest report of each benchmark, written by `npm run bench` itself, so that the
 * figures docs/performance.md cites always come with the command, commit, machine and load that produced them.
 *
 * Each benchmark has one section between markers of its own; a run replaces the sections of the benchmarks it ran
 * and leaves the others as they are. A run with --quick (a small workload, indicative only), a benchmark that
 * failed, or --no-record writes nothing there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

export const RESULTS_TITLE = '# Performance results';

const INTRO = `${RESULTS_TITLE}

The latest report of each benchmark, as it printed it, written by \`npm run bench\` (bench/lib/results-file.ts):
each section is replaced by the next full run of its benchmark, with the command, the commit, the machine and its
load. What the benchmarks measure and how to read them: [performance](performance.md).
`;

function start(name: string): string {
  return `<!-- bench:${name}:start -->`;
}
function end(name: string): string {
  return `<!-- bench:${name}:end -->`;
}

/** The names of the sections a results file holds, in order. */
export function sectionNames(doc: string): string[] {
  return [...doc.matchAll(/<!-- bench:([^:]+):start -->/g)].map((m) => m[1]!);
}

/** `doc` with the section of benchmark `name` set to `body` (appended when the file has none yet). */
export function withSection(doc: string, name: string, body: string): string {
  const section = `${start(name)}\n${body.trim()}\n${end(name)}`;
  const from = doc.indexOf(start(name));
  const to = doc.indexOf(end(name));
  if (from !== -1 && to > from) return doc.slice(0, from) + section + doc.slice(to + end(name).length);
  const base = doc.trim() === '' ? INTRO : doc;
  return `${base.trimEnd()}\n\n${section}\n`;
}

export interface RunFacts {
  /** As a reader types it: `npm run bench -- ingest --redis`. */
  readonly command: string;
  readonly startedAt: Date;
  readonly seconds: number;
  readonly loadBefore: number;
  readonly loadAfter: number;
  readonly commit: string;
}

/** The section a benchmark's run gets: what ran, where, and its report as printed. */
export function sectionBody(name: string, facts: RunFacts, output: string): string {
  const machine = `${cpus().length} x ${cpus()[0]?.model?.trim() ?? 'cpu'}, node ${process.version}`;
  const report = output.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '').trimEnd();
  return [
    `## ${name}`,
    '',
    `\`${facts.command}\`, at commit ${facts.commit}, ${facts.startedAt.toISOString().slice(0, 10)}; ${machine}; ` +
      `load average ${facts.loadBefore.toFixed(1)} at the start, ${facts.loadAfter.toFixed(1)} at the end; ${facts.seconds.toFixed(0)} s.`,
    '',
    '```text',
    report.replace(/```/g, "'''"),
    '```',
  ].join('\n');
}

/** The commit the checkout is at, marked when the tree has uncommitted changes (the figures are then not its). */
export function currentCommit(root: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** Record one benchmark's report in the results file. */
export function recordResults(file: string, name: string, facts: RunFacts, output: string): void {
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : '';
  writeFileSync(file, withSection(doc, name, sectionBody(name, facts, output)));
}

export function currentLoad(): number {
  return loadavg()[0]!;
}

export function resultsFile(root: string): string {
  return join(root, 'docs', 'performance-results.md');
}
