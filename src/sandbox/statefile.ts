/**
 * The small state file a running sandbox (`gatehouse sandbox`, or `npm start` / `npm run dev` on the embedded
 * one) writes so that `gatehouse sandbox <verb>` finds it without flags. One file per checkout:
 * `<os.tmpdir()>/gatehouse-sandbox-<hash of the checkout's path>.json`, so two clones never talk to each
 * other's sandbox; GATEHOUSE_SANDBOX_STATE or --state-file name another. It holds URLs, the pid and where it
 * was started, never a token.
 *
 * Several sandboxes may run in one checkout (`npm start` in two terminals, a `gatehouse sandbox` beside a bot).
 * Each also keeps an entry of its own in `<state file>.d/`; the state file names the newest one that runs. When
 * that one stops, the file is pointed at the newest that still runs (or removed when none does), so stopping one
 * never hides the others from the verbs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export interface SandboxStateFile {
  pid: number;
  adminUrl: string;
  restUrl: string;
  gatewayUrl: string;
  applicationId: string;
  startedAt: string;
  /** The checkout (package root) it belongs to. */
  checkout?: string;
  /** What started it: `gatehouse sandbox`, `gatehouse start` or `gatehouse dev`. */
  by?: string;
}

/** The package root above `cwd` (the nearest folder with a package.json), else `cwd`. */
export function checkoutRoot(cwd: string = process.cwd()): string {
  let dir = resolve(cwd);
  for (let i = 0; i < 64; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return resolve(cwd);
}

/** What a running sandbox records about itself (URLs and ids; never a token). */
export function stateOf(
  sandbox: Pick<SandboxStateFile, 'adminUrl' | 'restUrl' | 'gatewayUrl' | 'applicationId'>,
  by = 'gatehouse sandbox',
  cwd: string = process.cwd(),
): SandboxStateFile {
  return {
    pid: process.pid,
    adminUrl: sandbox.adminUrl,
    restUrl: sandbox.restUrl,
    gatewayUrl: sandbox.gatewayUrl,
    applicationId: sandbox.applicationId,
    startedAt: new Date().toISOString(),
    checkout: checkoutRoot(cwd),
    by,
  };
}

export function defaultStateFilePath(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  if (env.GATEHOUSE_SANDBOX_STATE) return env.GATEHOUSE_SANDBOX_STATE;
  let root = checkoutRoot(cwd);
  try {
    root = realpathSync(root);
  } catch {
    // A path that cannot be resolved still names one checkout.
  }
  const id = createHash('sha256').update(root).digest('hex').slice(0, 12);
  return join(tmpdir(), `gatehouse-sandbox-${id}.json`);
}

/** Where the entries of the sandboxes of one state file live. */
export function stateEntriesDir(path: string): string {
  return `${path}.d`;
}

/** One entry per sandbox: its process and its port (two sandboxes of one process differ by port). */
function entryName(state: Pick<SandboxStateFile, 'pid' | 'adminUrl'>): string {
  let port = '0';
  try {
    port = new URL(state.adminUrl).port || '0';
  } catch {
    // An unreadable URL still makes one entry per process.
  }
  return `${state.pid}-${port}.json`;
}

/** Write whole or not at all: a verb reading meanwhile sees the old file or the new one, never half of one. */
function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, path);
}

/** Record a running sandbox: its own entry, and the state file naming it (the newest one). */
export function writeStateFile(path: string, state: SandboxStateFile): void {
  const text = `${JSON.stringify(state, null, 2)}\n`;
  const dir = stateEntriesDir(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeAtomically(join(dir, entryName(state)), text);
  writeAtomically(path, text);
}

function parseState(text: string): SandboxStateFile | null {
  try {
    const v = JSON.parse(text) as Partial<SandboxStateFile>;
    if (typeof v.adminUrl !== 'string' || typeof v.pid !== 'number') return null;
    return v as SandboxStateFile;
  } catch {
    return null;
  }
}

function readJson(path: string): SandboxStateFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  return parseState(text);
}

/**
 * The sandboxes of a state file whose processes still run, newest first. Entries of processes that ended
 * without removing theirs (killed, crashed) are removed on the way.
 */
export function runningSandboxes(path: string): SandboxStateFile[] {
  const dir = stateEntriesDir(path);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const live: SandboxStateFile[] = [];
  for (const name of names) {
    const state = readJson(join(dir, name));
    if (state !== null && processAlive(state.pid)) live.push(state);
    else rmSync(join(dir, name), { force: true });
  }
  return live.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
}

/**
 * The sandbox the verbs talk to: the one the state file names while its process runs, else the newest that
 * still runs. Null when there is none (or the file is not ours to read).
 */
export function readStateFile(path: string): SandboxStateFile | null {
  const named = readJson(path);
  if (named !== null && processAlive(named.pid)) return named;
  return runningSandboxes(path)[0] ?? named;
}

/**
 * A sandbox stops: its entry goes, and when the state file names it, the file names the newest sandbox still
 * running instead (or goes too). `who` is the process (every sandbox it recorded) or the sandbox's own state.
 */
export function removeStateFile(path: string, who: number | Pick<SandboxStateFile, 'pid' | 'adminUrl'> = process.pid): void {
  const pid = typeof who === 'number' ? who : who.pid;
  const mine = (s: SandboxStateFile): boolean => s.pid === pid && (typeof who === 'number' || s.adminUrl === who.adminUrl);
  const dir = stateEntriesDir(path);
  try {
    for (const name of readdirSync(dir)) {
      const state = readJson(join(dir, name));
      if (state !== null && mine(state)) rmSync(join(dir, name), { force: true });
    }
  } catch {
    // No entries (a file written before entries existed): the state file alone says what runs.
  }
  const named = readJson(path);
  if (named !== null && mine(named)) {
    const next = runningSandboxes(path).find((s) => !mine(s));
    if (next !== undefined) writeAtomically(path, `${JSON.stringify(next, null, 2)}\n`);
    else rmSync(path, { force: true });
  }
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (another sandbox runs) or already gone.
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
