/**
 * The small state file a running sandbox (`gatehouse sandbox`, or `npm start` / `npm run dev` on the embedded
 * one) writes so that `gatehouse sandbox <verb>` finds it without flags. One file per checkout:
 * `<os.tmpdir()>/gatehouse-sandbox-<hash of the checkout's path>.json`, so two clones never talk to each
 * other's sandbox; GATEHOUSE_SANDBOX_STATE or --state-file name another. It holds URLs, the pid and where it
 * was started, never a token.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

export function writeStateFile(path: string, state: SandboxStateFile): void {
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** The state file, or null when there is none or it is not ours to read. */
export function readStateFile(path: string): SandboxStateFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const v = JSON.parse(text) as Partial<SandboxStateFile>;
    if (typeof v.adminUrl !== 'string' || typeof v.pid !== 'number') return null;
    return v as SandboxStateFile;
  } catch {
    return null;
  }
}

/** Remove the file if it still describes this process (another sandbox may have started since). */
export function removeStateFile(path: string, pid: number = process.pid): void {
  if (readStateFile(path)?.pid === pid) rmSync(path, { force: true });
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
