/**
 * `gatehouse sandbox app ...` and `gatehouse sandbox webhooks ...`: the sandbox's outgoing webhooks from the
 * command line, against a running sandbox (its admin API; found through the state file or --url).
 *
 *   gatehouse sandbox webhooks [--interactions URL|off] [--events URL|off] [--types A,B] [--also-gateway|--no-also-gateway]
 *   gatehouse sandbox webhooks fault bad-signature|stale-timestamp|clear [--count N] [--age SECONDS]
 *   gatehouse sandbox webhooks deliveries
 *   gatehouse sandbox app install [--guild ID] [--user ID] [--scopes a,b]
 *   gatehouse sandbox app deauthorize --user ID
 *   gatehouse sandbox app entitle --sku ID (--user ID | --guild ID)
 */
import type { CliIo } from './io.js';
import { defaultStateFilePath, processAlive, readStateFile } from '../sandbox/statefile.js';

export const WEBHOOKS_USAGE = `       gatehouse sandbox webhooks [--interactions URL|off] [--events URL|off] [--types A,B]
                         [--also-gateway | --no-also-gateway]
       gatehouse sandbox webhooks fault bad-signature|stale-timestamp|clear [--count N] [--age SECONDS]
       gatehouse sandbox webhooks deliveries
       gatehouse sandbox app install [--guild ID] [--user ID] [--scopes a,b]
       gatehouse sandbox app deauthorize --user ID
       gatehouse sandbox app entitle --sku ID (--user ID | --guild ID)
         (each also takes --url ADMIN_URL and --state-file PATH)`;

class UsageError extends Error {}

const VALUE_FLAGS = new Set(['interactions', 'events', 'types', 'count', 'age', 'guild', 'user', 'scopes', 'sku', 'url', 'state-file', 'wait']);
const SWITCHES = new Set(['also-gateway', 'no-also-gateway', 'help']);

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

function parse(args: readonly string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (VALUE_FLAGS.has(name)) {
      const value = eq === -1 ? args[++i] : a.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else if (SWITCHES.has(name) && eq === -1) {
      flags.set(name, true);
    } else {
      throw new UsageError(`unknown flag --${name}`);
    }
  }
  return { positional, flags };
}

function str(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

function int(p: Parsed, name: string, min: number): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}; got ${v}`);
  return n;
}

function list(v: string | undefined): string[] | undefined {
  return v?.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined };
}

interface DeliveryView {
  id: string;
  kind: string;
  subject: string;
  url: string;
  state: string;
  attempts: Array<{ status: number | null; fault?: string; error?: string }>;
  answer?: { kind: string; status: number; error?: string };
}

function describeDelivery(d: DeliveryView | null): string {
  if (d === null) return 'not sent: no webhook events URL takes this event (gatehouse sandbox webhooks --events URL)';
  const attempts = d.attempts.map((a) => `${a.status ?? a.error ?? 'no answer'}${a.fault !== undefined ? ` (${a.fault})` : ''}`).join(', ');
  const answer = d.answer !== undefined ? `; answer ${d.answer.kind}${d.answer.error !== undefined ? ` (${d.answer.error})` : ''}` : '';
  return `delivery ${d.id}: ${d.kind} ${d.subject} to ${d.url}: ${d.state} [${attempts || 'in flight'}]${answer}`;
}

function adminBase(p: Parsed): string | null {
  const url = str(p, 'url');
  if (url !== undefined) return url.replace(/\/+$/, '');
  const state = readStateFile(str(p, 'state-file') ?? defaultStateFilePath());
  if (state === null || !processAlive(state.pid)) return null;
  return state.adminUrl.replace(/\/+$/, '');
}

function failed(r: { status: number; body: unknown }): string {
  const e = r.body as { message?: string } | undefined;
  return e?.message ?? `the admin API answered ${r.status}`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const [group, ...rest] = args;
  let p: Parsed;
  try {
    p = parse(rest);
    if (p.flags.has('help')) {
      io.out(`usage: ${WEBHOOKS_USAGE.trimStart()}`);
      return 0;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox ${group ?? ''}: ${err.message}\n${WEBHOOKS_USAGE}`);
      return 2;
    }
    throw err;
  }
  const base = adminBase(p);
  if (base === null) {
    io.err(`gatehouse sandbox ${group ?? ''}: no running sandbox found; start one with 'gatehouse sandbox' or pass --url`);
    return 1;
  }
  try {
    return group === 'app' ? await app(base, p, io) : await webhooks(base, p, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox ${group ?? ''}: ${err.message}\n${WEBHOOKS_USAGE}`);
      return 2;
    }
    io.err(`gatehouse sandbox ${group ?? ''}: cannot reach the sandbox admin API at ${base} (${err instanceof Error ? err.message : String(err)})`);
    return 1;
  }
}

async function webhooks(base: string, p: Parsed, io: CliIo): Promise<number> {
  const [verb] = p.positional;
  if (verb === 'fault') {
    const fault = p.positional[1];
    if (fault !== 'bad-signature' && fault !== 'stale-timestamp' && fault !== 'clear') throw new UsageError('name the fault: bad-signature, stale-timestamp or clear');
    const count = int(p, 'count', 1);
    const age = int(p, 'age', 0);
    const r = await call(base, 'POST', '/webhooks/faults', { fault, ...(count !== undefined ? { count } : {}), ...(age !== undefined ? { ageSeconds: age } : {}) });
    if (r.status !== 204) {
      io.err(`gatehouse sandbox webhooks: ${failed(r)}`);
      return 1;
    }
    io.out(fault === 'clear' ? 'faults cleared' : `the next ${count ?? 1} deliveries: ${fault}`);
    return 0;
  }
  if (verb === 'deliveries') {
    const r = await call(base, 'GET', '/webhooks/deliveries');
    for (const d of r.body as DeliveryView[]) io.out(describeDelivery(d));
    return 0;
  }
  if (verb !== undefined) throw new UsageError(`unknown webhooks verb '${verb}'`);
  const off = (v: string): string | null => (/^(off|none)$/i.test(v) ? null : v);
  const interactions = str(p, 'interactions');
  if (interactions !== undefined || p.flags.has('also-gateway') || p.flags.has('no-also-gateway')) {
    const current = (await call(base, 'GET', '/webhooks')).body as { interactionsEndpointUrl: string | null };
    const body: Record<string, unknown> = { url: interactions !== undefined ? off(interactions) : current.interactionsEndpointUrl };
    if (p.flags.has('also-gateway')) body.alsoGateway = true;
    if (p.flags.has('no-also-gateway')) body.alsoGateway = false;
    const r = await call(base, 'PUT', '/webhooks/interactions', body);
    if (r.status !== 204) {
      io.err(`gatehouse sandbox webhooks: ${failed(r)}`);
      return 1;
    }
  }
  const events = str(p, 'events');
  const types = list(str(p, 'types'));
  if (events !== undefined || types !== undefined) {
    const current = (await call(base, 'GET', '/webhooks')).body as { eventsUrl: string | null };
    const r = await call(base, 'PUT', '/webhooks/events', { url: events !== undefined ? off(events) : current.eventsUrl, ...(types !== undefined ? { types } : {}) });
    if (r.status !== 204) {
      io.err(`gatehouse sandbox webhooks: ${failed(r)}`);
      return 1;
    }
  }
  const info = (await call(base, 'GET', '/webhooks')).body as {
    publicKey: string;
    interactionsEndpointUrl: string | null;
    eventsUrl: string | null;
    eventTypes: string[];
    alsoGateway: boolean;
  };
  io.out(`public key (verify_key):    ${info.publicKey}`);
  io.out(`interactions endpoint URL:  ${info.interactionsEndpointUrl ?? '(none: interactions go over the gateway)'}${info.alsoGateway ? ' (and over the gateway)' : ''}`);
  io.out(`webhook events URL:         ${info.eventsUrl ?? '(none)'}${info.eventTypes.length > 0 ? ` (${info.eventTypes.join(', ')})` : ''}`);
  return 0;
}

async function app(base: string, p: Parsed, io: CliIo): Promise<number> {
  const [verb] = p.positional;
  const user = str(p, 'user');
  const guild = str(p, 'guild');
  let r: { status: number; body: unknown };
  if (verb === 'install') {
    const scopes = list(str(p, 'scopes'));
    r = await call(base, 'POST', '/app/install', { ...(guild !== undefined ? { guildId: guild } : {}), ...(user !== undefined ? { userId: user } : {}), ...(scopes ? { scopes } : {}), wait: 5_000 });
  } else if (verb === 'deauthorize') {
    if (user === undefined) throw new UsageError('deauthorize needs --user ID');
    r = await call(base, 'POST', '/app/deauthorize', { userId: user, wait: 5_000 });
  } else if (verb === 'entitle') {
    const sku = str(p, 'sku');
    if (sku === undefined || (user === undefined) === (guild === undefined)) throw new UsageError('entitle needs --sku ID and one of --user ID or --guild ID');
    r = await call(base, 'POST', '/entitlements', { skuId: sku, ...(user !== undefined ? { userId: user } : { guildId: guild }) });
    if (r.status !== 201) {
      io.err(`gatehouse sandbox app: ${failed(r)}`);
      return 1;
    }
    io.out(`entitlement ${(r.body as { id: string }).id} granted: ENTITLEMENT_CREATE goes out by gateway, and by webhook when an events URL is set`);
    return 0;
  } else {
    throw new UsageError(verb === undefined ? 'name the app verb: install, deauthorize or entitle' : `unknown app verb '${verb}'`);
  }
  if (r.status !== 201) {
    io.err(`gatehouse sandbox app: ${failed(r)}`);
    return 1;
  }
  const delivery = (r.body as { delivery: DeliveryView | null }).delivery;
  io.out(describeDelivery(delivery));
  return delivery === null || delivery.state === 'delivered' ? 0 : 1;
}
