/**
 * Admin API entries for outgoing webhooks (a route table, mounted by ../admin/api.ts under /_sandbox):
 *
 *   GET  /_sandbox/webhooks                        { publicKey, interactionsEndpointUrl, eventsUrl, eventTypes, alsoGateway, userInstalls }
 *   PUT  /_sandbox/webhooks/interactions           { url: string | null, verify?, alsoGateway? }   (verified with PINGs)
 *   PUT  /_sandbox/webhooks/events                 { url: string | null, verify?, types? }
 *   POST /_sandbox/webhooks/faults                 { fault: bad-signature | stale-timestamp | clear, count?, ageSeconds? }
 *   GET  /_sandbox/webhooks/deliveries[?kind=]     delivery records, oldest first
 *   GET  /_sandbox/webhooks/deliveries/:id         one record
 *   POST /_sandbox/webhooks/deliveries/:id/redeliver   the same event body once more
 *   POST /_sandbox/webhooks/events                 { type, data? }  any event, unknown types included
 *   POST /_sandbox/app/install                     { guildId?, userId?, scopes? }   APPLICATION_AUTHORIZED
 *   POST /_sandbox/app/deauthorize                 { userId }                       APPLICATION_DEAUTHORIZED
 *
 * Entitlements granted with POST /_sandbox/entitlements reach the events URL as ENTITLEMENT_CREATE by themselves.
 * Event entries answer `{ delivery }` (null when no events URL takes the event); add `wait: ms` to get the
 * record once delivered or failed.
 */
import type { SandboxCore } from '../core.js';
import { bad, obj as objectBody, optNumber, optString, optStrings, type Json } from '../admin/fields.js';
import { param, type AdminReply, type AdminRoute } from '../admin/types.js';
import type { WebhookDelivery } from './webhooks.js';
import type { WebhookDeliveryRecord } from './contract.js';

function urlField(o: Json): string | null {
  const v = o.url;
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw bad('url must be a string, or null to clear it');
  return v;
}

/** `{ delivery }`, once it is delivered or failed when the body asks to wait (`wait: ms`, at most a minute). */
async function withWait(hooks: WebhookDelivery, record: WebhookDeliveryRecord | null, o: Json): Promise<AdminReply> {
  const wait = Math.min(optNumber(o, 'wait') ?? 0, 60_000);
  if (record !== null && wait > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([hooks.settled(record.id), new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
    clearTimeout(timer);
  }
  return { status: 201, body: { delivery: record } };
}

function settings(hooks: WebhookDelivery): AdminReply {
  return {
    status: 200,
    body: {
      publicKey: hooks.publicKey,
      interactionsEndpointUrl: hooks.interactionsEndpointUrl,
      eventsUrl: hooks.eventsUrl,
      eventTypes: hooks.eventTypes,
      alsoGateway: hooks.alsoGateway,
      userInstalls: hooks.userInstalls,
    },
  };
}

function deliveryFault(hooks: WebhookDelivery, o: Json): AdminReply {
  const count = optNumber(o, 'count') ?? 1;
  switch (o.fault) {
    case 'bad-signature':
      hooks.faults.badSignature(count);
      break;
    case 'stale-timestamp':
      hooks.faults.staleTimestamp(count, optNumber(o, 'ageSeconds') ?? 600);
      break;
    case 'clear':
      hooks.faults.clear();
      break;
    default:
      throw bad('fault must be one of bad-signature, stale-timestamp, clear');
  }
  return { status: 204 };
}

function install(hooks: WebhookDelivery, o: Json): Promise<AdminReply> {
  const guildId = optString(o, 'guildId');
  const userId = optString(o, 'userId');
  const scopes = optStrings(o, 'scopes');
  const record = hooks.install({
    ...(guildId !== undefined ? { guildId } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(scopes !== undefined ? { scopes } : {}),
  });
  return withWait(hooks, record, o);
}

/** The /_sandbox/webhooks/* and /_sandbox/app/* entries. */
export function webhookAdminRoutes(core: SandboxCore): AdminRoute[] {
  const hooks = core.delivery;
  return [
    { method: 'GET', path: '/webhooks', handler: () => settings(hooks) },
    {
      method: 'PUT',
      path: '/webhooks/interactions',
      handler: async (ctx) => {
        const o = objectBody(ctx.body, 'empty');
        await hooks.setInteractionsEndpoint(urlField(o), { verify: o.verify !== false });
        if (typeof o.alsoGateway === 'boolean') hooks.alsoGateway = o.alsoGateway;
        return { status: 204 };
      },
    },
    {
      method: 'PUT',
      path: '/webhooks/events',
      handler: async (ctx) => {
        const o = objectBody(ctx.body, 'empty');
        const types = optStrings(o, 'types');
        await hooks.setEventsEndpoint(urlField(o), { verify: o.verify !== false, ...(types !== undefined ? { types } : {}) });
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: '/webhooks/events',
      handler: (ctx) => {
        const o = objectBody(ctx.body, 'empty');
        const type = optString(o, 'type');
        if (type === undefined || !/^[A-Z_]{1,64}$/.test(type)) throw bad('type must be an event type name such as QUEST_USER_ENROLLMENT');
        return withWait(hooks, hooks.sendEvent(type, o.data), o);
      },
    },
    { method: 'POST', path: '/webhooks/faults', handler: (ctx) => deliveryFault(hooks, objectBody(ctx.body, 'empty')) },
    { method: 'GET', path: '/webhooks/deliveries', handler: () => ({ status: 200, body: hooks.deliveries() }) },
    {
      method: 'GET',
      path: '/webhooks/deliveries/:id',
      handler: (ctx) => {
        const id = param(ctx, 'id');
        const record = hooks.delivery(id);
        if (record === undefined) throw bad(`no delivery ${id}`);
        return { status: 200, body: record };
      },
    },
    {
      method: 'POST',
      path: '/webhooks/deliveries/:id/redeliver',
      handler: (ctx) => withWait(hooks, hooks.redeliver(param(ctx, 'id')), objectBody(ctx.body, 'empty')),
    },
    { method: 'POST', path: '/app/install', handler: (ctx) => install(hooks, objectBody(ctx.body, 'empty')) },
    {
      method: 'POST',
      path: '/app/deauthorize',
      handler: (ctx) => {
        const o = objectBody(ctx.body, 'empty');
        const userId = optString(o, 'userId');
        if (userId === undefined) throw bad('userId is required');
        return withWait(hooks, hooks.deauthorize(userId), o);
      },
    },
  ];
}
