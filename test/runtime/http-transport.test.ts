/**
 * The HTTP transport as a bot owner runs it: the Runtime with transport "http" or "both" against the sandbox,
 * which signs every interaction and webhook event with its Ed25519 key and POSTs it to the runtime's endpoint
 * over a real socket, then records the answers. The same plugins answer as over the gateway.
 */
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type InteractionRecord, type Sandbox } from '../../src/sandbox/index.js';
import { loadConfig, type ConfigInput } from '../../src/runtime/config.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { LogSink } from '../helpers/log-sink.js';

const ROOT = resolve(import.meta.dirname, '../..');


async function newSandbox(): Promise<Sandbox> {
  return createSandbox({
    activities: true,
    seed: { guilds: 2, membersPerGuild: 20, seed: 7 },
    gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 },
    webhooks: { retryDelaysMs: [100, 200, 400] },
  });
}

const running: Runtime[] = [];

async function startBot(
  sandbox: Sandbox,
  plugins: string[],
  transport: 'gateway' | 'both' | 'http',
  overrides: ConfigInput = {},
): Promise<{ runtime: Runtime; logs: LogSink }> {
  const logs = new LogSink();
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: { plugins: { dirs: plugins }, http: { enabled: false }, transport, endpoint: { port: 0 }, ...overrides },
  });
  const runtime = new Runtime({
    config,
    sandbox,
    cwd: ROOT,
    log: createLogger({ level: 'debug', pretty: false, destination: logs }),
    gateway: { identifyWindowMs: 50, timing: { invalidSessionDelayMs: () => 60 } },
  });
  running.push(runtime);
  await runtime.start();
  return { runtime, logs };
}

async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((r) => r.stop({ graceMs: 1_000 })));
}

/** Wait (bounded) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What the user sees of an interaction, with the random parts (dice, ids, timestamps) masked. */
function seenByUser(record: InteractionRecord): unknown {
  const mask = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/\d+/g, '#') : v);
  const message = (m: Record<string, unknown> | null): unknown =>
    m === null ? null : { content: mask(m.content), flags: m.flags, components: m.components ?? [], embeds: m.embeds ?? [] };
  return {
    callbacks: record.callbacks.map((c) => ({
      type: c.type,
      data: c.data === undefined ? undefined : Object.fromEntries(Object.entries(c.data).map(([k, v]) => [k, k === 'content' ? mask(v) : v])),
    })),
    original: message(record.original),
    followups: record.followups.map((f) => message(f)),
  };
}

/** Every example plugin's commands, invoked the same way; the records once each one has settled. */
async function exampleScenario(sandbox: Sandbox, runtime: Runtime): Promise<Record<string, unknown>> {
  const guildId = sandbox.state.guildIds[0]!;
  const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
  const out: Record<string, unknown> = {};
  const settle = async (name: string, record: Promise<InteractionRecord>): Promise<void> => {
    const r = await record;
    await r.firstResponse(5_000);
    out[name] = seenByUser(r);
  };
  await settle('dice roll', sandbox.invoke({ name: 'dice', subcommand: ['roll'], options: { sides: 20, count: 3 }, guildId }));
  await settle('dice roll one', sandbox.invoke({ name: 'dice', subcommand: ['roll'], options: { sides: 6 }, guildId }));
  await settle('dice autocomplete', sandbox.autocomplete({ name: 'dice', subcommand: ['roll'], options: { sides: 1 }, focused: 'sides', guildId }));
  await settle('dice autocomplete empty', sandbox.autocomplete({ name: 'dice', subcommand: ['roll'], options: { sides: '' }, focused: 'sides', guildId }));
  await settle('profile', sandbox.invoke({ name: 'Show profile', type: 2, targetId: userId, guildId }));
  await settle('profile in DM', sandbox.invoke({ name: 'Show profile', type: 2, targetId: userId }));
  await settle('word count', sandbox.invoke({ name: 'Count words', type: 3, guildId }));
  await settle('perks before', sandbox.invoke({ name: 'perks', guildId, userId }));
  for (const skuId of sandbox.state.skuIds) sandbox.state.grantEntitlement({ skuId, userId, subscription: true });
  await until(async () => (await runtime.cache.entitlementsOf({ userId })).length === sandbox.state.skuIds.length, 'entitlements in the cache');
  await settle('perks after', sandbox.invoke({ name: 'perks', guildId, userId }));
  await settle('launch', sandbox.invoke({ name: 'launch', type: 4, guildId }));
  return out;
}

describe('every example plugin answers over HTTP exactly as over the gateway', () => {
  afterEach(stopAll);

  let viaGateway: Record<string, unknown>;
  beforeAll(async () => {
    const overGateway = await newSandbox();
    try {
      const g = await startBot(overGateway, ['plugins'], 'gateway');
      viaGateway = await exampleScenario(overGateway, g.runtime);
      expect(overGateway.webhooks.deliveries()).toHaveLength(0);
    } finally {
      await stopAll();
      await overGateway.close();
    }
  });

  /** Every interaction was POSTed to the endpoint and answered with its initial response as the body. */
  async function allInline(sandbox: Sandbox, count: number): Promise<void> {
    const deliveries = sandbox.webhooks.deliveries({ kind: 'interaction' });
    expect(deliveries.length).toBe(count);
    for (const d of deliveries) expect((await sandbox.webhooks.settled(d.id)).answer).toEqual({ kind: 'inline', status: 200 });
  }

  it('transport "both": the same answers through the endpoint as through the gateway', async () => {
    const sandbox = await newSandbox();
    try {
      const { runtime } = await startBot(sandbox, ['plugins'], 'both');
      const viaHttp = await exampleScenario(sandbox, runtime);
      expect(viaHttp).toEqual(viaGateway);
      await allInline(sandbox, Object.keys(viaHttp).length);
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });

  it('transport "http": the same answers, but for what needs the member cache, which only the gateway fills', async () => {
    const sandbox = await newSandbox();
    try {
      const { runtime } = await startBot(sandbox, ['plugins'], 'http');
      const viaHttp = await exampleScenario(sandbox, runtime);
      const { profile, ...rest } = viaHttp;
      const { profile: _gatewayProfile, ...gatewayRest } = viaGateway;
      expect(rest).toEqual(gatewayRest);
      // No shard, so no member cache and no op 8: the plugin says so, privately, instead of failing.
      expect(profile).toMatchObject({ callbacks: [{ type: 4, data: { content: '<@#> is not in the member cache.', flags: 64 } }] });
      await allInline(sandbox, Object.keys(viaHttp).length);
      // No gateway at all in HTTP-only mode.
      expect(sandbox.counters.identifies).toBe(0);
      expect(runtime.parts.gateway).toBeNull();
      expect(runtime.readiness().ready).toBe(true);
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });
});

describe('initial responses of every kind travel as the HTTP body', () => {
  let sandbox: Sandbox;
  let runtime: Runtime;
  let guildId: string;
  beforeAll(async () => {
    sandbox = await newSandbox();
    guildId = sandbox.state.guildIds[0]!;
    ({ runtime } = await startBot(sandbox, ['test/fixtures/plugins/behaviour'], 'http'));
  });
  afterAll(async () => {
    await stopAll();
    await sandbox.close();
  });

  it('a modal (9) and an autocomplete result (8) are the body; 40 choices are cut to 25', async () => {
    const form = await sandbox.invoke({ name: 'form', guildId });
    expect((await form.firstResponse(5_000)).type).toBe(9);
    const many = await sandbox.autocomplete({ name: 'many', options: { pick: 'c' }, focused: 'pick', guildId });
    const answer = await many.firstResponse(5_000);
    expect(answer.type).toBe(8);
    expect((answer.data?.choices as unknown[]).length).toBe(25);
    for (const r of [form, many]) expect((await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(r.id)!.id)).answer).toEqual({ kind: 'inline', status: 200 });
  });

  it('a slow handler is deferred (5) in the HTTP body by the context, and its reply then fills @original over REST', async () => {
    const slow = await sandbox.invoke({ name: 'slow', guildId });
    // The fixture handler waits 400 ms; the runtime's deadline guard defers after 2 s: here 400 ms is fast enough.
    await until(() => slow.original !== null && slow.original.content === 'finally', 'the reply of /slow', 5_000);
    expect(slow.callbacks[0]?.type).toBe(4);
    // A handler that defers itself: the defer is the HTTP body, edits and follow-ups go through REST.
    const chatty = await sandbox.invoke({ name: 'chatty', guildId, options: { followups: 2 } });
    await until(() => chatty.original?.content === 'sent 2', 'the last edit of /chatty', 5_000);
    expect(chatty.callbacks).toEqual([{ type: 5, data: { flags: 64 } }]);
    expect(chatty.followups.map((f) => f.content)).toEqual(['follow-up 1', 'follow-up 2']);
    expect(sandbox.webhooks.deliveryOf(chatty.id)?.answer).toEqual({ kind: 'inline', status: 200 });
  });

  it('a handler that throws gets its ephemeral error message as the body', async () => {
    const crash = await sandbox.invoke({ name: 'crash', guildId });
    const first = await crash.firstResponse(5_000);
    expect(first.type).toBe(4);
    expect(first.data?.flags).toBe(64);
    expect(String(first.data?.content)).toMatch(/went wrong while running `\/crash`/);
  });

  it('the endpoint does not answer a request that fails verification, and no handler runs', async () => {
    const before = runtime.interactionsInFlight;
    sandbox.webhooks.faults.badSignature();
    const forged = await sandbox.invoke({ name: 'form', guildId });
    sandbox.webhooks.faults.staleTimestamp(1, 120);
    const stale = await sandbox.invoke({ name: 'form', guildId });
    for (const r of [forged, stale]) {
      const d = await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(r.id)!.id);
      expect(d.answer).toEqual({ kind: 'rejected', status: 401 });
      expect(r.callbacks).toEqual([]);
    }
    expect(runtime.interactionsInFlight).toBe(before);
    // Over the size limit: 413 before the signature is even looked at.
    const big = await fetch(`${runtime.endpoint!.url!}/interactions`, { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    // The endpoint stayed registered: it refused the forged request, as the service's security check wants.
    expect(sandbox.webhooks.interactionsEndpointUrl).not.toBeNull();
    const counts = [...runtime.endpointRequests.entries()];
    expect(counts.some(([k, n]) => k === '/interactions\tbad-signature\t401' && n >= 1)).toBe(true);
    expect(counts.some(([k, n]) => k === '/interactions\tstale\t401' && n >= 1)).toBe(true);
    expect(counts.some(([k, n]) => k === '/interactions\ttoo-large\t413' && n >= 1)).toBe(true);
  });
});

describe('handler deferral near the deadline', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await newSandbox();
  });
  afterAll(async () => {
    await stopAll();
    await sandbox.close();
  });

  it('an unanswered handler gets the deferred response as the HTTP body, with the flags its command declares', async () => {
    const logs = new LogSink();
    const config = loadConfig({
      cwd: ROOT,
      env: {},
      overrides: { plugins: { dirs: ['test/fixtures/plugins/behaviour', 'test/fixtures/plugins/once'] }, http: { enabled: false }, transport: 'http', endpoint: { port: 0 } },
    });
    // The guard defers after 100 ms here, so the fixture's 400 ms handler is deferred first.
    const runtime = new Runtime({ config, sandbox, cwd: ROOT, deferAfterMs: 100, log: createLogger({ level: 'silent', pretty: false, destination: logs }) });
    running.push(runtime);
    await runtime.start();
    const guildId = sandbox.state.guildIds[0]!;
    const slow = await sandbox.invoke({ name: 'slow', guildId });
    await until(() => slow.original?.content === 'finally', 'the reply of /slow');
    expect(slow.callbacks).toEqual([{ type: 5 }]);
    expect(sandbox.webhooks.deliveryOf(slow.id)?.answer).toEqual({ kind: 'inline', status: 200 });
    const private_ = await sandbox.invoke({ name: 'slow-private', guildId });
    await until(() => private_.original?.content === 'late and private', 'the reply of /slow-private');
    expect(private_.callbacks).toEqual([{ type: 5, data: { flags: 64 } }]);
    expect(private_.original?.flags).toBe(64);
  });
});

describe('gateway and HTTP together (transport "both")', () => {
  let sandbox: Sandbox;
  let runtime: Runtime;
  let logs: LogSink;
  let guildId: string;
  beforeAll(async () => {
    sandbox = await newSandbox();
    guildId = sandbox.state.guildIds[0]!;
    ({ runtime, logs } = await startBot(sandbox, ['test/fixtures/plugins/once', 'plugins'], 'both'));
  });
  afterAll(async () => {
    await stopAll();
    await sandbox.close();
  });

  it('keeps its shards and takes interactions over HTTP', async () => {
    expect(runtime.gateway.shardIds.length).toBeGreaterThan(0);
    expect(sandbox.counters.identifies).toBeGreaterThan(0);
    const record = await sandbox.invoke({ name: 'once', guildId });
    expect((await record.firstResponse(5_000)).data?.content).toBe('handled');
    expect((await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(record.id)!.id)).answer).toEqual({ kind: 'inline', status: 200 });
  });

  it('handles an interaction that arrives both ways once, and answers it once', async () => {
    const { runs } = (await import('../fixtures/plugins/once/once.js')) as { runs: Map<string, number> };
    sandbox.webhooks.alsoGateway = true;
    try {
      const records: InteractionRecord[] = [];
      for (let i = 0; i < 5; i++) records.push(await sandbox.invoke({ name: 'once', guildId }));
      for (const r of records) {
        await r.firstResponse(5_000);
        await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(r.id)!.id);
      }
      // Both copies have arrived once the gateway one is logged as a repeat, or the HTTP one answered 202.
      await until(
        () => records.every((r) => logs.lines.some((l) => l.interaction === r.id && l.msg === 'interaction received again; already handled')),
        'the second copy of every interaction',
      );
      for (const r of records) {
        expect(runs.get(r.id)).toBe(1);
        expect(r.callbacks).toHaveLength(1);
      }
      expect(logs.lines.filter((l) => String(l.msg).includes('40060') || (l.err as { code?: number } | undefined)?.code === 40060)).toEqual([]);
    } finally {
      sandbox.webhooks.alsoGateway = false;
    }
  });

  it('gets an entitlement by gateway and by webhook, and plugins see it once', async () => {
    const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const skuId = sandbox.state.skuIds[0]!;
    const id = sandbox.state.grantEntitlement({ skuId, userId });
    const delivery = sandbox.webhooks.deliveries({ kind: 'event' }).find((d) => d.body.includes(id))!;
    expect((await sandbox.webhooks.settled(delivery.id)).state).toBe('delivered');
    await until(async () => runtime.cache.hasEntitlement({ userId, skuId }), 'the entitlement in the cache');
    await until(() => logs.lines.filter((l) => l.entitlementId === id && l.msg === 'entitlement granted').length >= 1, 'the premium plugin event');
    await new Promise((r) => setTimeout(r, 200));
    expect(logs.lines.filter((l) => l.entitlementId === id && l.msg === 'entitlement granted')).toHaveLength(1);
  });
});

describe('a late webhook copy of an entitlement event (transport "both")', () => {
  it('does not undo what a later gateway event did: an ended entitlement stays ended', async () => {
    // The CREATE's first webhook attempt is refused, so its copy comes 1.5 s later, after the end.
    const sandbox = await createSandbox({
      seed: { guilds: 1, membersPerGuild: 5, seed: 7 },
      gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 5_000 },
      webhooks: { retryDelaysMs: [1_500] },
    });
    try {
      const { runtime } = await startBot(sandbox, ['plugins'], 'both');
      const guildId = sandbox.state.guildIds[0]!;
      const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
      const skuId = sandbox.state.skuIds[0]!;
      sandbox.webhooks.faults.badSignature(1);
      const id = sandbox.state.grantEntitlement({ skuId, userId });
      await until(async () => runtime.cache.hasEntitlement({ userId, skuId }), 'the entitlement (by gateway)');
      sandbox.state.endEntitlement(id, new Date(Date.now() - 60_000));
      await until(async () => !(await runtime.cache.hasEntitlement({ userId, skuId })), 'the end (by gateway)');
      for (const d of sandbox.webhooks.deliveries({ kind: 'event' }).filter((r) => r.body.includes(id))) {
        expect((await sandbox.webhooks.settled(d.id)).state).toBe('delivered');
      }
      const create = sandbox.webhooks.deliveries({ kind: 'event' }).find((r) => r.body.includes(id) && r.body.includes('ENTITLEMENT_CREATE'))!;
      expect((await sandbox.webhooks.settled(create.id)).attempts.map((a) => a.status)).toEqual([401, 204]);
      // The handler runs after the 204: the URL's PING, the end and the late CREATE were all answered.
      await until(() => (runtime.endpointRequests.get('/events\tok\t204') ?? 0) >= 3, 'both event copies received');
      await new Promise((r) => setTimeout(r, 200));
      expect(await runtime.cache.hasEntitlement({ userId, skuId })).toBe(false);
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });
});

describe('webhook events', () => {
  let sandbox: Sandbox;
  let runtime: Runtime;
  let guildId: string;
  let listener: typeof import('../fixtures/plugins/webhooks/listener.js');
  beforeAll(async () => {
    sandbox = await newSandbox();
    guildId = sandbox.state.guildIds[0]!;
    ({ runtime } = await startBot(sandbox, ['test/fixtures/plugins/webhooks'], 'http'));
    listener = await import('../fixtures/plugins/webhooks/listener.js');
  });
  afterAll(async () => {
    await stopAll();
    await sandbox.close();
  });
  afterEach(() => {
    listener.seen.length = 0;
  });

  const of = (event: string): unknown[] => listener.seen.filter((s) => s.event === event).map((s) => s.payload);

  it('the runtime registered its events URL with the sandbox (a signed PING answered 204)', () => {
    expect(sandbox.webhooks.eventsUrl).toBe(`${runtime.endpoint!.url!}/events`);
  });

  it('delivers an install to a user and to a guild, and a deauthorization, with user, scopes and guild', async () => {
    const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const user = sandbox.webhooks.install({ userId })!;
    const guild = sandbox.webhooks.install({ guildId })!;
    for (const d of [user, guild]) expect((await sandbox.webhooks.settled(d.id)).attempts.map((a) => a.status)).toEqual([204]);
    await until(() => of('applicationAuthorized').length === 2, 'two authorizations');
    const [toUser, toGuild] = of('applicationAuthorized') as Array<Record<string, unknown>>;
    expect(toUser).toMatchObject({ integration_type: 1, scopes: ['applications.commands'], user: { id: userId } });
    expect(typeof toUser!.timestamp).toBe('string');
    expect(toUser!.guild).toBeUndefined();
    expect(toGuild).toMatchObject({ integration_type: 0, scopes: ['applications.commands', 'bot'], guild: { id: guildId } });

    const gone = sandbox.webhooks.deauthorize(userId)!;
    await sandbox.webhooks.settled(gone.id);
    await until(() => of('applicationDeauthorized').length === 1, 'the deauthorization');
    expect(of('applicationDeauthorized')[0]).toMatchObject({ user: { id: userId } });
    // Every event also arrives raw.
    expect((of('webhookEvent') as Array<{ type: string }>).map((e) => e.type)).toEqual([
      'APPLICATION_AUTHORIZED',
      'APPLICATION_AUTHORIZED',
      'APPLICATION_DEAUTHORIZED',
    ]);
  });

  it('an entitlement granted reaches the cache and plugins by webhook (no gateway in this mode)', async () => {
    const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const skuId = sandbox.state.skuIds[0]!;
    expect(await runtime.cache.hasEntitlement({ userId, skuId })).toBe(false);
    const id = sandbox.state.grantEntitlement({ skuId, userId });
    await until(async () => runtime.cache.hasEntitlement({ userId, skuId }), 'the entitlement in the cache');
    await until(() => of('entitlementCreate').length === 1, 'the plugin event');
    expect(of('entitlementCreate')[0]).toMatchObject({ id, sku_id: skuId, user_id: userId });
  });

  it('a repeated delivery changes nothing: the same event applied once', async () => {
    const userId = sandbox.state.memberIds(guildId).find((id) => id !== runtime.applicationId)!;
    const skuId = sandbox.state.skuIds[1]!;
    sandbox.state.grantEntitlement({ skuId, userId });
    await until(() => of('entitlementCreate').length === 1, 'the first delivery');
    const first = sandbox.webhooks.deliveries({ kind: 'event' }).at(-1)!;
    const sizes = await runtime.cache.sizes();
    const again = sandbox.webhooks.redeliver(first.id);
    expect((await sandbox.webhooks.settled(again.id)).attempts.map((a) => a.status)).toEqual([204]);
    const install = sandbox.webhooks.install({ userId })!;
    await sandbox.webhooks.settled(install.id);
    const twice = sandbox.webhooks.redeliver(install.id);
    await sandbox.webhooks.settled(twice.id);
    await until(() => of('applicationAuthorized').length === 1, 'the install');
    await new Promise((r) => setTimeout(r, 200));
    expect(of('entitlementCreate')).toHaveLength(1);
    expect(of('applicationAuthorized')).toHaveLength(1);
    expect(await runtime.cache.sizes()).toEqual(sizes);
  });

  it('answers 204 before plugin handlers run', async () => {
    let open!: () => void;
    listener.gate.wait = new Promise<void>((r) => (open = r));
    try {
      const d = sandbox.webhooks.install({})!;
      const settled = await sandbox.webhooks.settled(d.id);
      expect(settled.state).toBe('delivered');
      expect(settled.attempts.map((a) => a.status)).toEqual([204]);
      // The handler is still waiting on the gate: the answer did not wait for it.
      expect(of('applicationAuthorized')).toHaveLength(0);
      open();
      await until(() => of('applicationAuthorized').length === 1, 'the handler after the gate opened');
    } finally {
      listener.gate.wait = null;
    }
  });

  it('passes unknown event types on raw', async () => {
    const d = sandbox.webhooks.sendEvent('QUEST_USER_ENROLLMENT', { quest_id: '1' })!;
    await sandbox.webhooks.settled(d.id);
    await until(() => of('webhookEvent').length === 1, 'the raw event');
    expect(of('webhookEvent')[0]).toMatchObject({ type: 'QUEST_USER_ENROLLMENT', data: { quest_id: '1' } });
  });

  it('refuses a forged or stale event with 401; the service then sends it again and it is applied once', async () => {
    sandbox.webhooks.faults.badSignature();
    sandbox.webhooks.faults.staleTimestamp();
    const d = sandbox.webhooks.sendEvent('SOMETHING_NEW', { n: 1 })!;
    const settled = await sandbox.webhooks.settled(d.id);
    expect(settled.attempts.map((a) => [a.fault ?? null, a.status])).toEqual([
      ['bad-signature', 401],
      ['stale-timestamp', 401],
      [null, 204],
    ]);
    await until(() => of('webhookEvent').length === 1, 'the event');
    expect(sandbox.webhooks.eventsUrl).not.toBeNull();
  });
});

describe('shutdown', () => {
  it('answers the interactions in flight, then closes the endpoint and takes its URLs back from the sandbox', async () => {
    const sandbox = await newSandbox();
    try {
      const { runtime } = await startBot(sandbox, ['test/fixtures/plugins/behaviour'], 'http');
      const url = runtime.endpoint!.url!;
      const guildId = sandbox.state.guildIds[0]!;
      const slow = await sandbox.invoke({ name: 'slow', guildId });
      // Let the request reach the endpoint, then stop while the handler still waits.
      await until(() => runtime.interactionsInFlight === 1, 'the interaction in flight');
      await runtime.stop({ graceMs: 5_000 });
      expect((await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(slow.id)!.id)).answer).toEqual({ kind: 'inline', status: 200 });
      expect(slow.callbacks[0]?.data?.content).toBe('finally');
      expect(sandbox.webhooks.interactionsEndpointUrl).toBeNull();
      expect(sandbox.webhooks.eventsUrl).toBeNull();
      await expect(fetch(`${url}/interactions`, { method: 'POST', body: '{}' })).rejects.toThrow();
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });
});

describe('shutdown past the grace period', () => {
  it('releases an exchange whose handler outlives the grace with 202 before the connections close', async () => {
    const sandbox = await newSandbox();
    try {
      const { runtime } = await startBot(sandbox, ['test/fixtures/plugins/behaviour'], 'http');
      const guildId = sandbox.state.guildIds[0]!;
      const slow = await sandbox.invoke({ name: 'slow', guildId });
      await until(() => runtime.interactionsInFlight === 1, 'the interaction in flight');
      // The handler needs 400 ms and the exchange's deadline is 2.5 s: the stop releases it, well before either.
      await runtime.stop({ graceMs: 50 });
      const settled = await sandbox.webhooks.settled(sandbox.webhooks.deliveryOf(slow.id)!.id);
      expect(settled.answer).toEqual({ kind: 'callback', status: 202 });
    } finally {
      await stopAll();
      await sandbox.close();
    }
  });
});

describe('startup', () => {
  it('names the endpoint keys when the port is taken, and leaves nothing running', async () => {
    const sandbox = await newSandbox();
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startBot(sandbox, ['plugins'], 'http', { endpoint: { port } })).rejects.toThrow(
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\): check endpoint\\.host / endpoint\\.port`),
      );
      expect(running.at(-1)!.state).toBe('stopped');
      expect(sandbox.webhooks.interactionsEndpointUrl).toBeNull();
    } finally {
      await stopAll();
      await new Promise<void>((r) => blocker.close(() => r()));
      await sandbox.close();
    }
  });
});
