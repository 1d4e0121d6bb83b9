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
import { int, parseVerb, str, UsageError, type Values, type VerbSpec } from './args.js';
import { defaultStateFilePath, processAlive, readStateFile } from '../sandbox/statefile.js';

/** Where the running sandbox is: every verb here takes these. */
const TARGET = {
  url: { type: 'string', value: 'ADMIN_URL', help: 'the sandbox admin API (default: from the state file)' },
  'state-file': { type: 'string', value: 'PATH', help: 'the state file of the sandbox (default: per checkout)' },
} as const;

export const WEBHOOKS: VerbSpec = {
  verb: 'sandbox webhooks',
  summary: 'Show or set where the sandbox signs and posts interactions and webhook events.',
  options: {
    interactions: { type: 'string', value: 'URL|off', help: 'the interactions endpoint URL (off: over the gateway)' },
    events: { type: 'string', value: 'URL|off', help: 'the webhook events URL' },
    types: { type: 'string', value: 'A,B', help: 'the event types posted to the events URL' },
    'also-gateway': { type: 'boolean', help: 'interactions also go over the gateway' },
    'no-also-gateway': { type: 'boolean', help: 'interactions go over HTTP only' },
    ...TARGET,
  },
  notes: ['  gatehouse sandbox webhooks fault ...    gatehouse sandbox webhooks deliveries    (each takes --help)'],
};

export const WEBHOOKS_FAULT: VerbSpec = {
  verb: 'sandbox webhooks fault',
  args: 'bad-signature|stale-timestamp|clear',
  summary: 'Make the next deliveries go wrong on purpose (or clear the faults).',
  positionals: { min: 1, max: 1 },
  options: {
    count: { type: 'string', value: 'N', help: 'how many deliveries (default 1)' },
    age: { type: 'string', value: 'SECONDS', help: 'how stale the timestamp is (stale-timestamp)' },
    ...TARGET,
  },
};

export const WEBHOOKS_DELIVERIES: VerbSpec = {
  verb: 'sandbox webhooks deliveries',
  summary: 'List the signed deliveries the sandbox made, with their attempts and answers.',
  options: { ...TARGET },
};

export const APP_INSTALL: VerbSpec = {
  verb: 'sandbox app install',
  summary: 'A user or a guild installs the app (APPLICATION_AUTHORIZED by webhook).',
  options: {
    guild: { type: 'string', value: 'ID', id: true, help: 'the guild installing it' },
    user: { type: 'string', value: 'ID', id: true, help: 'the user installing it' },
    scopes: { type: 'string', value: 'a,b', help: 'the OAuth2 scopes granted' },
    ...TARGET,
  },
};

export const APP_DEAUTHORIZE: VerbSpec = {
  verb: 'sandbox app deauthorize',
  summary: 'A user removes the app (APPLICATION_DEAUTHORIZED by webhook).',
  options: { user: { type: 'string', value: 'ID', id: true, help: 'the user (required)' }, ...TARGET },
};

export const APP_ENTITLE: VerbSpec = {
  verb: 'sandbox app entitle',
  summary: 'Grant an entitlement to a user or a guild (ENTITLEMENT_CREATE).',
  options: {
    sku: { type: 'string', value: 'ID', id: true, help: 'the SKU (required)' },
    user: { type: 'string', value: 'ID', id: true, help: 'the user it belongs to' },
    guild: { type: 'string', value: 'ID', id: true, help: 'the guild it belongs to' },
    ...TARGET,
  },
};

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

function adminBase(values: Values): string | null {
  const url = str(values, 'url');
  if (url !== undefined) return url.replace(/\/+$/, '');
  const state = readStateFile(str(values, 'state-file') ?? defaultStateFilePath());
  if (state === null || !processAlive(state.pid)) return null;
  return state.adminUrl.replace(/\/+$/, '');
}

function failed(r: { status: number; body: unknown }): string {
  const e = r.body as { message?: string } | undefined;
  return e?.message ?? `the admin API answered ${r.status}`;
}

type Action = (base: string, values: Values, positionals: string[], io: CliIo) => Promise<number>;

/** Parse by the verb's table, find the sandbox, act; usage errors exit 2, an unreachable sandbox 1. */
function verb(spec: VerbSpec, action: Action): (args: string[], io: CliIo) => Promise<number> {
  return async (args, io) => {
    const parsed = parseVerb(spec, args, io);
    if (typeof parsed === 'number') return parsed;
    const base = adminBase(parsed.values);
    if (base === null) {
      io.err(`gatehouse ${spec.verb}: no running sandbox found; start one with 'gatehouse sandbox' or pass --url`);
      return 1;
    }
    try {
      return await action(base, parsed.values, parsed.positionals, io);
    } catch (err) {
      if (err instanceof UsageError) {
        io.err(`gatehouse ${spec.verb}: ${err.message}`);
        return 2;
      }
      io.err(`gatehouse ${spec.verb}: cannot reach the sandbox admin API at ${base} (${err instanceof Error ? err.message : String(err)})`);
      return 1;
    }
  };
}

export const webhooksFault = verb(WEBHOOKS_FAULT, async (base, values, positionals, io) => {
  const fault = positionals[0];
  if (fault !== 'bad-signature' && fault !== 'stale-timestamp' && fault !== 'clear') throw new UsageError('name the fault: bad-signature, stale-timestamp or clear');
  const count = int(values, 'count', 1);
  const age = int(values, 'age', 0);
  const r = await call(base, 'POST', '/webhooks/faults', { fault, ...(count !== undefined ? { count } : {}), ...(age !== undefined ? { ageSeconds: age } : {}) });
  if (r.status !== 204) {
    io.err(`gatehouse sandbox webhooks: ${failed(r)}`);
    return 1;
  }
  io.out(fault === 'clear' ? 'faults cleared' : `the next ${count ?? 1} deliveries: ${fault}`);
  return 0;
});

export const webhooksDeliveries = verb(WEBHOOKS_DELIVERIES, async (base, _values, _positionals, io) => {
  const r = await call(base, 'GET', '/webhooks/deliveries');
  for (const d of r.body as DeliveryView[]) io.out(describeDelivery(d));
  return 0;
});

export const webhooks = verb(WEBHOOKS, async (base, values, _positionals, io) => {
  const off = (v: string): string | null => (/^(off|none)$/i.test(v) ? null : v);
  const interactions = str(values, 'interactions');
  const alsoGateway = values['also-gateway'] === true;
  const noAlsoGateway = values['no-also-gateway'] === true;
  if (interactions !== undefined || alsoGateway || noAlsoGateway) {
    const current = (await call(base, 'GET', '/webhooks')).body as { interactionsEndpointUrl: string | null };
    const body: Record<string, unknown> = { url: interactions !== undefined ? off(interactions) : current.interactionsEndpointUrl };
    if (alsoGateway) body.alsoGateway = true;
    if (noAlsoGateway) body.alsoGateway = false;
    const r = await call(base, 'PUT', '/webhooks/interactions', body);
    if (r.status !== 204) {
      io.err(`gatehouse sandbox webhooks: ${failed(r)}`);
      return 1;
    }
  }
  const events = str(values, 'events');
  const types = list(str(values, 'types'));
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
});

async function delivered(r: { status: number; body: unknown }, io: CliIo): Promise<number> {
  if (r.status !== 201) {
    io.err(`gatehouse sandbox app: ${failed(r)}`);
    return 1;
  }
  const delivery = (r.body as { delivery: DeliveryView | null }).delivery;
  io.out(describeDelivery(delivery));
  return delivery === null || delivery.state === 'delivered' ? 0 : 1;
}

export const appInstall = verb(APP_INSTALL, async (base, values, _positionals, io) => {
  const user = str(values, 'user');
  const guild = str(values, 'guild');
  const scopes = list(str(values, 'scopes'));
  return delivered(await call(base, 'POST', '/app/install', { ...(guild !== undefined ? { guildId: guild } : {}), ...(user !== undefined ? { userId: user } : {}), ...(scopes ? { scopes } : {}), wait: 5_000 }), io);
});

export const appDeauthorize = verb(APP_DEAUTHORIZE, async (base, values, _positionals, io) => {
  const user = str(values, 'user');
  if (user === undefined) throw new UsageError('deauthorize needs --user ID');
  return delivered(await call(base, 'POST', '/app/deauthorize', { userId: user, wait: 5_000 }), io);
});

export const appEntitle = verb(APP_ENTITLE, async (base, values, _positionals, io) => {
  const user = str(values, 'user');
  const guild = str(values, 'guild');
  const sku = str(values, 'sku');
  if (sku === undefined || (user === undefined) === (guild === undefined)) throw new UsageError('entitle needs --sku ID and one of --user ID or --guild ID');
  const r = await call(base, 'POST', '/entitlements', { skuId: sku, ...(user !== undefined ? { userId: user } : { guildId: guild }) });
  if (r.status !== 201) {
    io.err(`gatehouse sandbox app: ${failed(r)}`);
    return 1;
  }
  io.out(`entitlement ${(r.body as { id: string }).id} granted: ENTITLEMENT_CREATE goes out by gateway, and by webhook when an events URL is set`);
  return 0;
});
