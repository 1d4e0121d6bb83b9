/**
 * Talking to a running sandbox from the CLI: which one (the state file of this checkout, or --url), a line
 * saying so on every verb, admin calls, and waiting for what the bot does in answer.
 */
import type { CliIo } from './io.js';
import { defaultStateFilePath, processAlive, readStateFile } from '../sandbox/statefile.js';
import { str, type OptionSpec, type Values } from './args.js';
import { cli, runVerb } from './hint.js';

/** The options every verb that talks to a sandbox takes. */
export const TARGET_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  url: { type: 'string', value: 'ADMIN_URL', help: 'the sandbox admin URL (default: the sandbox of this checkout, from its state file)' },
  'state-file': { type: 'string', value: 'PATH', help: 'the state file to read (default: per checkout, or GATEHOUSE_SANDBOX_STATE)' },
};

export interface SandboxTarget {
  readonly adminUrl: string;
  /** `sandbox http://127.0.0.1:PORT/_sandbox (pid N, npm start in /path)`. */
  readonly description: string;
}

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

/** The sandbox to talk to, or null after saying why there is none. */
export function findSandbox(values: Values, io: CliIo, verb: string): SandboxTarget | null {
  const url = str(values, 'url');
  if (url !== undefined) {
    const adminUrl = url.replace(/\/+$/, '');
    return { adminUrl, description: `sandbox ${adminUrl} (--url)` };
  }
  const statePath = str(values, 'state-file') ?? defaultStateFilePath();
  const state = readStateFile(statePath);
  if (state === null || !processAlive(state.pid)) {
    io.err(
      `gatehouse ${verb}: no running sandbox for this checkout (state file ${statePath}). Start one with \`${runVerb('start')}\` (the bot on its own sandbox) or \`${cli('sandbox')}\`, or pass --url`,
    );
    return null;
  }
  const where = [`pid ${state.pid}`, state.by, state.checkout !== undefined ? `in ${state.checkout}` : undefined].filter((x) => x !== undefined).join(', ');
  return { adminUrl: state.adminUrl.replace(/\/+$/, ''), description: `sandbox ${state.adminUrl} (${where})` };
}

/** An admin API call; a non-2xx answer throws AdminError with the sandbox's message. */
export async function admin<T>(target: SandboxTarget, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${target.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed = text.length > 0 ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const e = parsed as { message?: string } | undefined;
    throw new AdminError(res.status, e?.message ?? `admin API answered ${res.status}`);
  }
  return parsed as T;
}

/** A REST request the sandbox answered (see src/sandbox/rest/journal.ts). */
export interface JournalEntry {
  seq: number;
  method: string;
  path: string;
  status: number;
  auth: 'bot' | 'bearer' | 'none';
  body?: unknown;
}

/** The journal position now, so that what comes after an action can be told apart. */
export async function journalMark(target: SandboxTarget): Promise<number> {
  return (await admin<{ last: number }>(target, 'GET', '/requests?after=999999999999')).last;
}

/**
 * What the bot sent after `mark`: polls until nothing new came for `quietMs` (or `waitMs` passed), then
 * returns the requests the bot made (its own token, or interaction callbacks and webhooks).
 */
export async function botRequestsAfter(target: SandboxTarget, mark: number, waitMs: number, quietMs = 700): Promise<JournalEntry[]> {
  const deadline = Date.now() + waitMs;
  let seen = mark;
  let quietSince = Date.now();
  let out: JournalEntry[] = [];
  while (Date.now() < deadline) {
    const { requests } = await admin<{ requests: JournalEntry[] }>(target, 'GET', `/requests?after=${mark}`);
    out = requests.filter((r) => r.auth !== 'bearer');
    const last = requests.at(-1)?.seq ?? mark;
    if (last !== seen) {
      seen = last;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) {
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return out;
}
