/**
 * Summary of a sampling heap profile (V8's HeapProfiler.startSampling with the objects that were collected
 * counted too, so it sums what was allocated, not what stayed): bytes by allocating function.
 */
import { readFileSync } from 'node:fs';

interface AllocNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: AllocNode[];
}
export interface AllocProfile {
  head: AllocNode;
}

export function readAllocProfile(path: string): AllocProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as AllocProfile;
}

/** Total bytes sampled and the heaviest allocating functions (self bytes). Walks iteratively: trees can be deep. */
export function allocationsByFunction(profile: AllocProfile, limit = 15): { total: number; top: Array<{ name: string; url: string; bytes: number }> } {
  const byFn = new Map<string, { name: string; url: string; bytes: number }>();
  let total = 0;
  const stack: AllocNode[] = [profile.head];
  while (stack.length > 0) {
    const n = stack.pop()!;
    total += n.selfSize;
    if (n.selfSize > 0) {
      const key = `${n.callFrame.functionName}@${n.callFrame.url}`;
      const entry = byFn.get(key) ?? { name: n.callFrame.functionName || '(anonymous)', url: n.callFrame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/'), bytes: 0 };
      entry.bytes += n.selfSize;
      byFn.set(key, entry);
    }
    for (const c of n.children) stack.push(c);
  }
  return { total, top: [...byFn.values()].sort((a, b) => b.bytes - a.bytes).slice(0, limit) };
}
