/**
 * Admin API entries for outgoing webhooks (mounted by ../admin/api.ts under /_sandbox):
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
import type { WebhookDeliveryRecord } from './contract.js';

export interface AdminReply {
  status: number;
  body?: unknown;
}

function urlField(o: Json): string | null {
  const v = o.url;
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw bad('url must be a string, or null to clear it');
  return v;
}

/** The /_sandbox/webhooks/* and /_sandbox/app/* entries; null when the path is not one of them. */
export async function webhookAdmin(core: SandboxCore, method: string, parts: readonly string[], rawBody: unknown): Promise<AdminReply | null> {
  const hooks = core.delivery;
  const [a, b, c, d] = parts;
  const is = (m: string, n: number): boolean => method === m && parts.length === n;
  const withWait = async (record: WebhookDeliveryRecord | null, o: Json): Promise<AdminReply> => {
    const wait = Math.min(optNumber(o, 'wait') ?? 0, 60_000);
    if (record !== null && wait > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([hooks.settled(record.id), new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
    }
    return { status: 201, body: { delivery: record } };
  };

  if (a === 'webhooks') {
    if (is('GET', 1)) {
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
    if (b === 'interactions' && is('PUT', 2)) {
      const o = objectBody(rawBody, 'empty');
      await hooks.setInteractionsEndpoint(urlField(o), { verify: o.verify !== false });
      if (typeof o.alsoGateway === 'boolean') hooks.alsoGateway = o.alsoGateway;
      return { status: 204 };
    }
    if (b === 'events' && is('PUT', 2)) {
      const o = objectBody(rawBody, 'empty');
      const types = optStrings(o, 'types');
      await hooks.setEventsEndpoint(urlField(o), { verify: o.verify !== false, ...(types !== undefined ? { types } : {}) });
      return { status: 204 };
    }
    if (b === 'events' && is('POST', 2)) {
      const o = objectBody(rawBody, 'empty');
      const type = optString(o, 'type');
      if (type === undefined || !/^[A-Z_]{1,64}$/.test(type)) throw bad('type must be an event type name such as QUEST_USER_ENROLLMENT');
      return withWait(hooks.sendEvent(type, o.data), o);
    }
    if (b === 'faults' && is('POST', 2)) {
      const o = objectBody(rawBody, 'empty');
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
    if (b === 'deliveries') {
      if (is('GET', 2)) return { status: 200, body: hooks.deliveries() };
      const record = c !== undefined ? hooks.delivery(c) : undefined;
      if (is('GET', 3)) {
        if (record === undefined) throw bad(`no delivery ${c ?? ''}`);
        return { status: 200, body: record };
      }
      if (d === 'redeliver' && is('POST', 4)) return withWait(hooks.redeliver(c!), objectBody(rawBody, 'empty'));
    }
    return null;
  }
  if (a === 'app') {
    if (b === 'install' && is('POST', 2)) {
      const o = objectBody(rawBody, 'empty');
      const guildId = optString(o, 'guildId');
      const userId = optString(o, 'userId');
      const scopes = optStrings(o, 'scopes');
      const record = hooks.install({
        ...(guildId !== undefined ? { guildId } : {}),
        ...(userId !== undefined ? { userId } : {}),
        ...(scopes !== undefined ? { scopes } : {}),
      });
      return withWait(record, o);
    }
    if (b === 'deauthorize' && is('POST', 2)) {
      const o = objectBody(rawBody, 'empty');
      const userId = optString(o, 'userId');
      if (userId === undefined) throw bad('userId is required');
      return withWait(hooks.deauthorize(userId), o);
    }
  }
  return null;
}
