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
import { admin, AdminError, findSandbox, TARGET_OPTIONS, type SandboxTarget } from './sandbox-client.js';

export const WEBHOOKS: VerbSpec = {
  verb: 'sandbox webhooks',
  summary: 'Show or set where the sandbox signs and posts interactions and webhook events.',
  options: {
    interactions: { type: 'string', value: 'URL|off', help: 'the interactions endpoint URL (off: over the gateway)' },
    events: { type: 'string', value: 'URL|off', help: 'the webhook events URL' },
    types: { type: 'string', value: 'A,B', help: 'the event types posted to the events URL' },
    'also-gateway': { type: 'boolean', help: 'interactions also go over the gateway' },
    'no-also-gateway': { type: 'boolean', help: 'interactions go over HTTP only' },
    ...TARGET_OPTIONS,
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
    ...TARGET_OPTIONS,
  },
};

export const WEBHOOKS_DELIVERIES: VerbSpec = {
  verb: 'sandbox webhooks deliveries',
  summary: 'List the signed deliveries the sandbox made, with their attempts and answers.',
  options: { ...TARGET_OPTIONS },
};

export const APP_INSTALL: VerbSpec = {
  verb: 'sandbox app install',
  summary: 'A user or a guild installs the app (APPLICATION_AUTHORIZED by webhook).',
  options: {
    guild: { type: 'string', value: 'ID', id: true, help: 'the guild installing it' },
    user: { type: 'string', value: 'ID', id: true, help: 'the user installing it' },
    scopes: { type: 'string', value: 'a,b', help: 'the OAuth2 scopes granted' },
    ...TARGET_OPTIONS,
  },
};

export const APP_DEAUTHORIZE: VerbSpec = {
  verb: 'sandbox app deauthorize',
  summary: 'A user removes the app (APPLICATION_DEAUTHORIZED by webhook).',
  options: { user: { type: 'string', value: 'ID', id: true, help: 'the user (required)' }, ...TARGET_OPTIONS },
};

export const APP_ENTITLE: VerbSpec = {
  verb: 'sandbox app entitle',
  summary: 'Grant an entitlement to a user or a guild (ENTITLEMENT_CREATE).',
  options: {
    sku: { type: 'string', value: 'ID', id: true, help: 'the SKU (required)' },
    user: { type: 'string', value: 'ID', id: true, help: 'the user it belongs to' },
    guild: { type: 'string', value: 'ID', id: true, help: 'the guild it belongs to' },
    ...TARGET_OPTIONS,
  },
};

function list(v: string | undefined): string[] | undefined {
  return v?.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
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

type Action = (target: SandboxTarget, values: Values, positionals: string[], io: CliIo) => Promise<number>;

/** Parse by the verb's table, find the sandbox, act; usage errors exit 2, a refusal or an unreachable sandbox 1. */
function verb(spec: VerbSpec, action: Action): (args: string[], io: CliIo) => Promise<number> {
  return async (args, io) => {
    const parsed = parseVerb(spec, args, io);
    if (typeof parsed === 'number') return parsed;
    const target = findSandbox(parsed.values, io, spec.verb);
    if (target === null) return 1;
    try {
      return await action(target, parsed.values, parsed.positionals, io);
    } catch (err) {
      if (err instanceof UsageError) {
        io.err(`gatehouse ${spec.verb}: ${err.message}`);
        return 2;
      }
      if (err instanceof AdminError) {
        io.err(`gatehouse ${spec.verb}: ${err.message}`);
        return 1;
      }
      io.err(`gatehouse ${spec.verb}: cannot reach the sandbox admin API at ${target.adminUrl} (${err instanceof Error ? err.message : String(err)})`);
      return 1;
    }
  };
}

export const webhooksFault = verb(WEBHOOKS_FAULT, async (target, values, positionals, io) => {
  const fault = positionals[0];
  if (fault !== 'bad-signature' && fault !== 'stale-timestamp' && fault !== 'clear') throw new UsageError('name the fault: bad-signature, stale-timestamp or clear');
  const count = int(values, 'count', 1);
  const age = int(values, 'age', 0);
  await admin(target, 'POST', '/webhooks/faults', { fault, ...(count !== undefined ? { count } : {}), ...(age !== undefined ? { ageSeconds: age } : {}) });
  io.out(fault === 'clear' ? 'faults cleared' : `the next ${count ?? 1} deliveries: ${fault}`);
  return 0;
});

export const webhooksDeliveries = verb(WEBHOOKS_DELIVERIES, async (target, _values, _positionals, io) => {
  for (const d of await admin<DeliveryView[]>(target, 'GET', '/webhooks/deliveries')) io.out(describeDelivery(d));
  return 0;
});

export const webhooks = verb(WEBHOOKS, async (target, values, _positionals, io) => {
  const off = (v: string): string | null => (/^(off|none)$/i.test(v) ? null : v);
  const interactions = str(values, 'interactions');
  const alsoGateway = values['also-gateway'] === true;
  const noAlsoGateway = values['no-also-gateway'] === true;
  if (interactions !== undefined || alsoGateway || noAlsoGateway) {
    const current = await admin<{ interactionsEndpointUrl: string | null }>(target, 'GET', '/webhooks');
    const body: Record<string, unknown> = { url: interactions !== undefined ? off(interactions) : current.interactionsEndpointUrl };
    if (alsoGateway) body.alsoGateway = true;
    if (noAlsoGateway) body.alsoGateway = false;
    await admin(target, 'PUT', '/webhooks/interactions', body);
  }
  const events = str(values, 'events');
  const types = list(str(values, 'types'));
  if (events !== undefined || types !== undefined) {
    const current = await admin<{ eventsUrl: string | null }>(target, 'GET', '/webhooks');
    await admin(target, 'PUT', '/webhooks/events', { url: events !== undefined ? off(events) : current.eventsUrl, ...(types !== undefined ? { types } : {}) });
  }
  const info = await admin<{
    publicKey: string;
    interactionsEndpointUrl: string | null;
    eventsUrl: string | null;
    eventTypes: string[];
    alsoGateway: boolean;
  }>(target, 'GET', '/webhooks');
  io.out(`public key (verify_key):    ${info.publicKey}`);
  io.out(`interactions endpoint URL:  ${info.interactionsEndpointUrl ?? '(none: interactions go over the gateway)'}${info.alsoGateway ? ' (and over the gateway)' : ''}`);
  io.out(`webhook events URL:         ${info.eventsUrl ?? '(none)'}${info.eventTypes.length > 0 ? ` (${info.eventTypes.join(', ')})` : ''}`);
  return 0;
});

function delivered(answer: { delivery: DeliveryView | null }, io: CliIo): number {
  const delivery = answer.delivery;
  io.out(describeDelivery(delivery));
  return delivery === null || delivery.state === 'delivered' ? 0 : 1;
}

export const appInstall = verb(APP_INSTALL, async (target, values, _positionals, io) => {
  const user = str(values, 'user');
  const guild = str(values, 'guild');
  const scopes = list(str(values, 'scopes'));
  return delivered(await admin(target, 'POST', '/app/install', { ...(guild !== undefined ? { guildId: guild } : {}), ...(user !== undefined ? { userId: user } : {}), ...(scopes ? { scopes } : {}), wait: 5_000 }), io);
});

export const appDeauthorize = verb(APP_DEAUTHORIZE, async (target, values, _positionals, io) => {
  const user = str(values, 'user');
  if (user === undefined) throw new UsageError('deauthorize needs --user ID');
  return delivered(await admin(target, 'POST', '/app/deauthorize', { userId: user, wait: 5_000 }), io);
});

export const appEntitle = verb(APP_ENTITLE, async (target, values, _positionals, io) => {
  const user = str(values, 'user');
  const guild = str(values, 'guild');
  const sku = str(values, 'sku');
  if (sku === undefined || (user === undefined) === (guild === undefined)) throw new UsageError('entitle needs --sku ID and one of --user ID or --guild ID');
  const granted = await admin<{ id: string }>(target, 'POST', '/entitlements', { skuId: sku, ...(user !== undefined ? { userId: user } : { guildId: guild }) });
  io.out(`entitlement ${granted.id} granted: ENTITLEMENT_CREATE goes out by gateway, and by webhook when an events URL is set`);
  return 0;
});
