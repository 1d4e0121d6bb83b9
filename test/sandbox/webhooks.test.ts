/**
 * The sandbox's outgoing webhooks against small receivers on real sockets: signatures that verify with the
 * published `verify_key`, URL verification by signed PINGs (and an invalid-signature probe), the body of webhook
 * events, retries with backoff, the security check that removes a URL accepting forged requests, and the admin
 * API entries.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { checkSignature, ed25519PublicKey } from '../../src/transports/http/index.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver that records requests and answers with `respond`. */
async function receiver(respond: (r: Received, n: number) => { status: number; body?: string; type?: string }): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      got.push(r);
      const out = respond(r, got.length);
      res.writeHead(out.status, out.body !== undefined ? { 'content-type': out.type ?? 'application/json' } : {});
      res.end(out.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function verifies(sandbox: Sandbox, r: Received): boolean {
  const key = ed25519PublicKey(sandbox.webhooks.publicKey);
  return checkSignature(key, r.headers['x-signature-ed25519'] as string, r.headers['x-signature-timestamp'] as string, Buffer.from(r.body)) === 'valid';
}

/** Answers like a correct app: 401 to a bad signature, PONG / 204 to PINGs, `event` status to events. */
function correctApp(sandbox: Sandbox, eventStatus: (n: number) => number = () => 204) {
  return (r: Received, n: number) => {
    if (!verifies(sandbox, r)) return { status: 401, body: '{"message":"bad signature"}' };
    const body = JSON.parse(r.body) as { type: number; id?: string };
    // Interactions have an id; webhook event bodies do not.
    if (body.id === undefined) return { status: body.type === 0 ? 204 : eventStatus(n) };
    return body.type === 1 ? { status: 200, body: '{"type":1}' } : { status: 202 };
  };
}

describe('sandbox webhooks', () => {
  let sandbox: Sandbox;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 3 }, webhooks: { retryDelaysMs: [50, 100] } });
  });
  afterEach(async () => {
    await sandbox.webhooks.setInteractionsEndpoint(null);
    await sandbox.webhooks.setEventsEndpoint(null, { types: [] });
    sandbox.webhooks.faults.clear();
    await Promise.all(closers.splice(0).map((c) => c()));
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('publishes its public key as verify_key and the endpoint URL on the application', async () => {
    const app = (await (await fetch(`${sandbox.restUrl}/applications/@me`, { headers: { authorization: `Bot ${sandbox.botToken}` } })).json()) as Record<string, unknown>;
    expect(app.verify_key).toBe(sandbox.webhooks.publicKey);
    expect(app.verify_key).toMatch(/^[0-9a-f]{64}$/);
    expect(app.interactions_endpoint_url).toBeNull();
    const app2 = await receiver(correctApp(sandbox));
    closers.push(app2.close);
    await sandbox.webhooks.setInteractionsEndpoint(app2.url);
    const after = (await (await fetch(`${sandbox.restUrl}/applications/@me`, { headers: { authorization: `Bot ${sandbox.botToken}` } })).json()) as Record<string, unknown>;
    expect(after.interactions_endpoint_url).toBe(app2.url);
  });

  it('verifies an interactions endpoint with a signed PING and an invalid-signature probe', async () => {
    const good = await receiver(correctApp(sandbox));
    closers.push(good.close);
    await sandbox.webhooks.setInteractionsEndpoint(good.url);
    expect(good.got).toHaveLength(2);
    expect(JSON.parse(good.got[0]!.body)).toMatchObject({ type: 1, application_id: sandbox.applicationId, version: 1 });
    expect(verifies(sandbox, good.got[0]!)).toBe(true);
    expect(verifies(sandbox, good.got[1]!)).toBe(false);

    // An app that answers everything, forged requests included, is not accepted.
    const naive = await receiver(() => ({ status: 200, body: '{"type":1}' }));
    closers.push(naive.close);
    await expect(sandbox.webhooks.setInteractionsEndpoint(naive.url)).rejects.toThrow(/invalid signature was answered 200, not 401/);
    // A PONG needs a JSON content type.
    const plain = await receiver((r) => (verifies(sandbox, r) ? { status: 200, body: '{"type":1}', type: 'text/plain' } : { status: 401 }));
    closers.push(plain.close);
    await expect(sandbox.webhooks.setInteractionsEndpoint(plain.url)).rejects.toThrow(/Content-Type/);
    await expect(sandbox.webhooks.setInteractionsEndpoint('http://127.0.0.1:1/nothing')).rejects.toThrow(/could not be verified/);
    expect(sandbox.webhooks.interactionsEndpointUrl).toBe(good.url);
  });

  it('sends webhook events with the documented body, signed, and retries until a 2xx', async () => {
    const app = await receiver(correctApp(sandbox, (n) => (n <= 3 ? 500 : 204)));
    closers.push(app.close);
    await sandbox.webhooks.setEventsEndpoint(app.url);
    expect(app.got.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { version: 1, application_id: sandbox.applicationId, type: 0 },
      { version: 1, application_id: sandbox.applicationId, type: 0 },
    ]);
    const userId = sandbox.state.memberIds(sandbox.state.guildIds[0]!)[1]!;
    const delivery = sandbox.webhooks.install({ userId })!;
    const done = await sandbox.webhooks.settled(delivery.id);
    expect(done.state).toBe('delivered');
    expect(done.attempts.map((a) => a.status)).toEqual([500, 204]);
    const sent = app.got.slice(2);
    expect(sent).toHaveLength(2);
    for (const r of sent) expect(verifies(sandbox, r)).toBe(true);
    // Every attempt sends the same bytes.
    expect(sent[0]!.body).toBe(sent[1]!.body);
    const body = JSON.parse(sent[0]!.body) as { version: number; type: number; event: { type: string; timestamp: string; data: Record<string, unknown> } };
    expect(body).toMatchObject({ version: 1, type: 1, application_id: sandbox.applicationId });
    expect(body.event.type).toBe('APPLICATION_AUTHORIZED');
    expect(body.event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(body.event.data).toMatchObject({ integration_type: 1, scopes: ['applications.commands'], user: { id: userId } });
    expect(sandbox.webhooks.userInstalls).toContain(userId);
  });

  it('gives up after the last retry', async () => {
    const app = await receiver((r) => (JSON.parse(r.body).type === 0 && verifies(sandbox, r) ? { status: 204 } : verifies(sandbox, r) ? { status: 503 } : { status: 401 }));
    closers.push(app.close);
    await sandbox.webhooks.setEventsEndpoint(app.url);
    const done = await sandbox.webhooks.settled(sandbox.webhooks.sendEvent('SOMETHING')!.id);
    expect(done.state).toBe('failed');
    expect(done.attempts.map((a) => a.status)).toEqual([503, 503, 503]);
  });

  it('sends only subscribed event types, and entitlement events from the store', async () => {
    const app = await receiver(correctApp(sandbox));
    closers.push(app.close);
    await sandbox.webhooks.setEventsEndpoint(app.url, { types: ['ENTITLEMENT_CREATE'] });
    expect(sandbox.webhooks.install({})).toBeNull();
    const guildId = sandbox.state.guildIds[0]!;
    const id = sandbox.state.grantEntitlement({ skuId: sandbox.state.skuIds[0]!, guildId });
    const delivery = sandbox.webhooks.deliveries({ kind: 'event' }).at(-1)!;
    await sandbox.webhooks.settled(delivery.id);
    expect(JSON.parse(delivery.body)).toMatchObject({ event: { type: 'ENTITLEMENT_CREATE', data: { id, guild_id: guildId } } });
  });

  it('removes a URL whose app accepts a forged request, as the service does', async () => {
    const honest = await receiver(correctApp(sandbox));
    closers.push(honest.close);
    await sandbox.webhooks.setEventsEndpoint(honest.url);
    sandbox.webhooks.faults.badSignature();
    const refused = await sandbox.webhooks.settled(sandbox.webhooks.sendEvent('A_B')!.id);
    expect(refused.attempts.map((a) => [a.fault ?? null, a.status])).toEqual([
      ['bad-signature', 401],
      [null, 204],
    ]);
    expect(sandbox.webhooks.eventsUrl).toBe(honest.url);

    let acceptAll = false;
    const careless = await receiver((r) => (acceptAll || verifies(sandbox, r) ? { status: 204 } : { status: 401 }));
    closers.push(careless.close);
    await sandbox.webhooks.setEventsEndpoint(careless.url);
    acceptAll = true;
    sandbox.webhooks.faults.badSignature();
    await sandbox.webhooks.settled(sandbox.webhooks.sendEvent('A_B')!.id);
    expect(sandbox.webhooks.eventsUrl).toBeNull();
  });

  it('admin API: URLs, install and deauthorize, faults, deliveries, redelivery', async () => {
    const app = await receiver(correctApp(sandbox));
    closers.push(app.close);
    const admin = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
      const res = await fetch(`${sandbox.adminUrl}${path}`, {
        method,
        ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
    };
    expect((await admin('PUT', '/webhooks/events', { url: app.url })).status).toBe(204);
    expect((await admin('PUT', '/webhooks/interactions', { url: 'http://127.0.0.1:1/x' })).status).toBe(400);
    const info = (await admin('GET', '/webhooks')).body as Record<string, unknown>;
    expect(info).toMatchObject({ publicKey: sandbox.webhooks.publicKey, eventsUrl: app.url, interactionsEndpointUrl: null });

    const guildId = sandbox.state.guildIds[0]!;
    const installed = await admin('POST', '/app/install', { guildId, wait: 2_000 });
    expect(installed.status).toBe(201);
    const record = (installed.body as { delivery: { id: string; state: string; body: string } }).delivery;
    expect(record.state).toBe('delivered');
    expect(JSON.parse(record.body)).toMatchObject({ event: { data: { integration_type: 0, guild: { id: guildId } } } });

    const stranger = sandbox.state.memberIds(guildId)[2]!;
    expect((await admin('POST', '/app/deauthorize', { userId: stranger })).status).toBe(409);
    await admin('POST', '/app/install', { userId: stranger, wait: 2_000 });
    const gone = await admin('POST', '/app/deauthorize', { userId: stranger, wait: 2_000 });
    expect(JSON.parse((gone.body as { delivery: { body: string } }).delivery.body)).toMatchObject({ event: { type: 'APPLICATION_DEAUTHORIZED', data: { user: { id: stranger } } } });

    expect((await admin('POST', '/webhooks/faults', { fault: 'stale-timestamp', count: 1, ageSeconds: 3600 })).status).toBe(204);
    const raw = await admin('POST', '/webhooks/events', { type: 'QUEST_USER_ENROLLMENT', wait: 2_000 });
    const rawRecord = (raw.body as { delivery: { id: string; attempts: Array<{ fault?: string; status: number }> } }).delivery;
    expect(rawRecord.attempts.map((a) => [a.fault ?? null, a.status])).toEqual([
      ['stale-timestamp', 204],
    ]);
    const again = await admin('POST', `/webhooks/deliveries/${rawRecord.id}/redeliver`, { wait: 2_000 });
    expect(JSON.parse((again.body as { delivery: { body: string } }).delivery.body)).toEqual(JSON.parse(sandbox.webhooks.delivery(rawRecord.id)!.body));
    const list = (await admin('GET', '/webhooks/deliveries')).body as unknown[];
    expect(list.length).toBe(sandbox.webhooks.deliveries().length);
  });
});
