/**
 * The small state file a running `gatehouse sandbox` writes so that `gatehouse sandbox invoke` finds it
 * without flags: `<os.tmpdir()>/gatehouse-sandbox.json` by default, or GATEHOUSE_SANDBOX_STATE / --state-file.
 * It holds URLs and the pid, never a token.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SandboxStateFile {
  pid: number;
  adminUrl: string;
  restUrl: string;
  gatewayUrl: string;
  applicationId: string;
  startedAt: string;
}

/** What a running sandbox records about itself (URLs and ids; never a token). */
export function stateOf(sandbox: Pick<SandboxStateFile, 'adminUrl' | 'restUrl' | 'gatewayUrl' | 'applicationId'>): SandboxStateFile {
  return {
    pid: process.pid,
    adminUrl: sandbox.adminUrl,
    restUrl: sandbox.restUrl,
    gatewayUrl: sandbox.gatewayUrl,
    applicationId: sandbox.applicationId,
    startedAt: new Date().toISOString(),
  };
}

export function defaultStateFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GATEHOUSE_SANDBOX_STATE || join(tmpdir(), 'gatehouse-sandbox.json');
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
