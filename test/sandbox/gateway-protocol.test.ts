import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { inflateSync } from 'node:zlib';
import WebSocket from 'ws';
import { api, identified, RawGatewayClient, sleep } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await createSandbox(options);
  sandboxes.push(sb);
  return sb;
}

function client(url: string, options: ConstructorParameters<typeof RawGatewayClient>[1] = {}): RawGatewayClient {
  const c = new RawGatewayClient(url, options);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const props = { os: 'linux', browser: 'test', device: 'test' };

describe('gateway: hello, identify, ready', () => {
  it('sends HELLO first, ACKs heartbeats, and answers IDENTIFY with READY then one GUILD_CREATE per guild', async () => {
    const sb = await start({ seed: { guilds: 3, membersPerGuild: 4 }, gateway: { heartbeatIntervalMs: 30_000 } });
    const c = client(sb.gatewayUrl);
    const hello = await c.next();
    expect(hello).toMatchObject({ op: 10, s: null, t: null, d: { heartbeat_interval: 30_000 } });
    c.send({ op: 1, d: null });
    expect(await c.next((p) => p.op === 11)).toMatchObject({ op: 11, d: null });

    c.send({ op: 2, d: { token: sb.botToken, intents: 1, properties: props, shard: [0, 1] } });
    const ready = await c.nextDispatch('READY');
    const d = ready.d as Record<string, any>;
    expect(ready.s).toBe(1);
    expect(d.v).toBe(10);
    expect(d.user.id).toBe(sb.applicationId);
    expect(d.user.bot).toBe(true);
    expect(d.application.id).toBe(sb.applicationId);
    expect(d.shard).toEqual([0, 1]);
    expect(typeof d.session_id).toBe('string');
    expect(d.resume_gateway_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    expect(d.resume_gateway_url).not.toBe(sb.gatewayUrl);
    expect(d.guilds).toEqual(sb.state.guildIds.map((id) => ({ id, unavailable: true })));

    const creates = [];
    for (let i = 0; i < 3; i++) creates.push(await c.nextDispatch('GUILD_CREATE'));
    expect(creates.map((g) => (g.d as any).id).sort()).toEqual([...sb.state.guildIds].sort());
    expect(creates.map((g) => g.s)).toEqual([2, 3, 4]);
    const g0 = creates[0]!.d as Record<string, any>;
    expect(g0.member_count).toBe(5);
    expect(g0.unavailable).toBe(false);
    // Without GUILD_PRESENCES only the bot's own member is listed (reference §10.4).
    expect(g0.members.map((m: any) => m.user.id)).toEqual([sb.applicationId]);
    expect(g0.roles.find((r: any) => r.id === g0.id).name).toBe('@everyone');
  });

  it('lists every member in GUILD_CREATE with GUILD_PRESENCES for guilds at or under large_threshold', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 9 } });
    const { client: c } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 | 256, large_threshold: 50 });
    clients.push(c);
    const g = (await c.nextDispatch('GUILD_CREATE')).d as Record<string, any>;
    expect(g.large).toBe(false);
    expect(g.members).toHaveLength(10);
  });

  it('lists only the bot and members with a role or nickname in guilds over large_threshold (with GUILD_PRESENCES)', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 120 } });
    const { client: c } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 | 256, large_threshold: 50 });
    clients.push(c);
    const g = (await c.nextDispatch('GUILD_CREATE')).d as Record<string, any>;
    expect(g.large).toBe(true);
    expect(g.member_count).toBe(121);
    expect(g.members.length).toBeLessThan(121);
    expect(g.members.map((m: any) => m.user.id)).toContain(sb.applicationId);
    for (const m of g.members) if (m.user.id !== sb.applicationId) expect(m.roles.length > 0 || m.nick !== null).toBe(true);
  });

  it('answers op 31 with SOUNDBOARD_SOUNDS and op 43 with CHANNEL_INFO for its guilds', async () => {
    const sb = await start({ seed: { guilds: 1, channelsPerGuild: 3 } });
    const { client: c } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(c);
    const guildId = sb.state.guildIds[0]!;
    c.send({ op: 31, d: { guild_ids: [guildId, '1'] } });
    expect((await c.nextDispatch('SOUNDBOARD_SOUNDS')).d).toEqual({ guild_id: guildId, soundboard_sounds: [] });
    c.send({ op: 43, d: { guild_id: guildId, fields: ['status', 'voice_start_time'] } });
    const info = (await c.nextDispatch('CHANNEL_INFO')).d as any;
    expect(info.guild_id).toBe(guildId);
    expect(info.channels).toEqual([{ id: expect.any(String), status: null, voice_start_time: null }]);
  });

  it('compresses large payloads one by one for IDENTIFY compress: true without transport compression', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 30 } });
    const ws = new WebSocket(`${sb.gatewayUrl}?v=10&encoding=json`);
    const frames: Array<{ data: Buffer; binary: boolean }> = [];
    ws.on('message', (data: Buffer, binary) => frames.push({ data, binary }));
    await new Promise((r) => ws.once('open', r));
    await sleep(50);
    ws.send(JSON.stringify({ op: 2, d: { token: sb.botToken, intents: 1 | 256, properties: {}, compress: true } }));
    const deadline = Date.now() + 5000;
    while (frames.length < 3 && Date.now() < deadline) await sleep(10);
    ws.terminate();
    expect(frames[0]!.binary).toBe(false);
    const big = frames.slice(1).find((f) => f.binary);
    expect(big).toBeDefined();
    const payload = JSON.parse(inflateSync(big!.data).toString()) as { op: number; t: string };
    expect(payload.op).toBe(0);
  });

  it('does not send GUILD_CREATE without the GUILDS intent', async () => {
    const sb = await start({ seed: { guilds: 2 } });
    const { client: c } = await identified(sb.gatewayUrl, sb.botToken, { intents: 2 });
    clients.push(c);
    c.send({ op: 1, d: 1 });
    await c.next((p) => p.op === 11);
    expect(c.dispatches('GUILD_CREATE')).toHaveLength(0);
  });

  it('speaks zlib-stream: one deflate context per connection, Z_SYNC_FLUSH per message', async () => {
    const sb = await start({ seed: { guilds: 4, membersPerGuild: 50 } });
    const { client: c, ready } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 | 256 }, { compress: true });
    clients.push(c);
    expect(ready.t).toBe('READY');
    for (let i = 0; i < 4; i++) await c.nextDispatch('GUILD_CREATE');
    expect(c.inflateError).toBeNull();
    // Every message ended with the sync-flush suffix, so each frame was one message here.
    expect(c.frames).toBe(c.received.length);
  });

  it('splits compressed messages over several frames when maxFrameBytes is set', async () => {
    const sb = await start({ seed: { guilds: 2, membersPerGuild: 40 }, gateway: { maxFrameBytes: 64 } });
    const { client: c } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 | 256 }, { compress: true });
    clients.push(c);
    await c.nextDispatch('GUILD_CREATE');
    await c.nextDispatch('GUILD_CREATE');
    expect(c.inflateError).toBeNull();
    expect(c.frames).toBeGreaterThan(c.received.length * 2);
  });

  it('refuses encodings and compressions it does not speak at the handshake', async () => {
    const sb = await start();
    const c = client(sb.gatewayUrl, { query: { encoding: 'etf' } });
    await expect(c.opened).rejects.toThrow(/400/);
  });
});

describe('gateway: close codes', () => {
  async function closeCodeAfter(sb: Sandbox, payloads: unknown[], options: ConstructorParameters<typeof RawGatewayClient>[1] = {}): Promise<number> {
    const c = client(sb.gatewayUrl, options);
    await c.next((p) => p.op === 10);
    for (const p of payloads) c.send(p);
    return (await c.closed).code;
  }

  it('4004 for a bad token', async () => {
    const sb = await start();
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: 'nope', intents: 1, properties: props } }])).toBe(4004);
  });

  it('4004 for a token sent with the Bot prefix (IDENTIFY takes the raw token)', async () => {
    const sb = await start();
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: `Bot ${sb.botToken}`, intents: 1, properties: props } }])).toBe(4004);
  });

  it('4010 for an invalid shard', async () => {
    const sb = await start();
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1, properties: props, shard: [2, 2] } }])).toBe(4010);
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1, properties: props, shard: [0, 0] } }])).toBe(4010);
  });

  it('4011 when a shard would hold too many guilds', async () => {
    const sb = await start({ seed: { guilds: 3 }, gateway: { maxGuildsPerShard: 2 } });
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1, properties: props } }])).toBe(4011);
  });

  it('4013 for undefined intent bits, 4014 for privileged intents the app may not use', async () => {
    const sb = await start({ gateway: { allowedIntents: 1 } });
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1 << 17, properties: props } }])).toBe(4013);
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 'all', properties: props } }])).toBe(4013);
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1 | 2, properties: props } }])).toBe(4014);
  });

  it('4003 for a payload before IDENTIFY, 4005 for a second IDENTIFY', async () => {
    const sb = await start({ gateway: { identifyWindowMs: 0 } });
    expect(await closeCodeAfter(sb, [{ op: 8, d: { guild_id: '1', query: '', limit: 0 } }])).toBe(4003);
    const { client: c } = await identified(sb.gatewayUrl, sb.botToken);
    clients.push(c);
    c.identify(sb.botToken);
    expect((await c.closed).code).toBe(4005);
  });

  it('4001 for an unknown opcode, 4002 for invalid JSON and oversized payloads, 4012 for a bad version', async () => {
    const sb = await start();
    expect(await closeCodeAfter(sb, [{ op: 99, d: null }])).toBe(4001);
    expect(await closeCodeAfter(sb, [{ op: 1, d: 'soon' }])).toBe(4001);
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1, properties: props, large_threshold: 1000 } }])).toBe(4001);
    expect(await closeCodeAfter(sb, [{ op: 2, d: { token: sb.botToken, intents: 1 } }])).toBe(4001);
    expect(await closeCodeAfter(sb, ['{"op":1,'])).toBe(4002);
    expect(await closeCodeAfter(sb, [JSON.stringify({ op: 1, d: null, pad: 'x'.repeat(5000) })])).toBe(4002);
    const c = client(sb.gatewayUrl, { query: { v: '8' } });
    expect((await c.closed).code).toBe(4012);
  });

  it('closes with 4008 past the send limit (counting every payload, heartbeats included)', async () => {
    const sb = await start({ gateway: { sendLimit: { count: 5, windowMs: 60_000 } } });
    const c = client(sb.gatewayUrl);
    await c.next((p) => p.op === 10);
    for (let i = 0; i < 5; i++) c.send({ op: 1, d: null });
    for (let i = 0; i < 5; i++) await c.next((p) => p.op === 11);
    c.send({ op: 1, d: null });
    expect((await c.closed).code).toBe(4008);
  });

  it('counts in fixed windows from the connection open: a full window late in one and early in the next is fine', async () => {
    // A sliding window would close this connection (6 payloads within 1.5 s of a 2 s window); the fixed windows
    // [0, 2 s) and [2 s, 4 s) hold 3 each. Margins: the first burst is 1 s before the boundary, the second 0.5 s
    // after it and only ever later (client clocks start after the server's).
    const sb = await start({ gateway: { sendLimit: { count: 3, windowMs: 2_000 } } });
    const c = client(sb.gatewayUrl);
    await c.next((p) => p.op === 10);
    await sleep(1_000);
    for (let i = 0; i < 3; i++) c.send({ op: 1, d: null });
    await sleep(1_500);
    for (let i = 0; i < 3; i++) c.send({ op: 1, d: null });
    for (let i = 0; i < 6; i++) await c.next((p) => p.op === 11);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });

  it('closes with 4009 when heartbeats stop arriving', async () => {
    const sb = await start({ gateway: { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 300 } });
    const c = client(sb.gatewayUrl);
    await c.next((p) => p.op === 10);
    const closed = await c.closed;
    expect(closed.code).toBe(4009);
  });

  it('keeps a heartbeating connection open past the deadline', async () => {
    const sb = await start({ gateway: { heartbeatIntervalMs: 100, heartbeatTimeoutMs: 1000 } });
    const c = client(sb.gatewayUrl);
    await c.next((p) => p.op === 10);
    for (let i = 0; i < 15; i++) {
      c.send({ op: 1, d: null });
      await sleep(100);
    }
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });
});

describe('gateway: identify limits', () => {
  it('spaces identifies per max_concurrency bucket (shard_id % max_concurrency) and answers op 9 false over it', async () => {
    const sb = await start({ seed: { guilds: 4 }, gateway: { maxConcurrency: 2, identifyWindowMs: 1500 } });
    const rejected: string[] = [];
    sb.gatewayEvents.on('identifyRejected', (e) => rejected.push(`${e.shard[0]}:${e.reason}`));
    const a = await identified(sb.gatewayUrl, sb.botToken, { shard: [0, 4] });
    const b = await identified(sb.gatewayUrl, sb.botToken, { shard: [1, 4] });
    clients.push(a.client, b.client);
    // Shard 2 shares bucket 0 with shard 0: refused inside the window.
    const c = client(sb.gatewayUrl);
    await c.next((p) => p.op === 10);
    c.identify(sb.botToken, { shard: [2, 4] });
    const invalid = await c.next((p) => p.op === 9);
    expect(invalid.d).toBe(false);
    expect(rejected).toEqual(['2:max_concurrency']);
    await sleep(1600);
    const d = await identified(sb.gatewayUrl, sb.botToken, { shard: [2, 4] });
    clients.push(d.client);
    expect(sb.counters.identifies).toBe(3);
  });

  it('decrements session_start_limit.remaining per identify and reports max_concurrency', async () => {
    const sb = await start({ gateway: { sessionStartLimit: 10, maxConcurrency: 4, identifyWindowMs: 0 } });
    const before = await api(sb.restUrl, 'GET', '/gateway/bot', { token: sb.botToken });
    expect(before.body.session_start_limit).toMatchObject({ total: 10, remaining: 10, max_concurrency: 4 });
    expect(before.body.session_start_limit.reset_after).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) {
      const r = await identified(sb.gatewayUrl, sb.botToken);
      clients.push(r.client);
    }
    const after = await api(sb.restUrl, 'GET', '/gateway/bot', { token: sb.botToken });
    expect(after.body.session_start_limit.remaining).toBe(8);
  });

  it('refuses identifies once the session start budget is spent (4004: the service resets the token)', async () => {
    const sb = await start({ gateway: { sessionStartLimit: 1, identifyWindowMs: 0 } });
    const r = await identified(sb.gatewayUrl, sb.botToken);
    clients.push(r.client);
    const c = client(sb.gatewayUrl);
    await c.next((p) => p.op === 10);
    c.identify(sb.botToken);
    expect((await c.closed).code).toBe(4004);
  });
});

describe('gateway discovery over REST', () => {
  it('GET /gateway needs no auth; GET /gateway/bot needs a bot token', async () => {
    const sb = await start({ seed: { guilds: 2500 }, gateway: { recommendedShards: undefined } });
    const open = await api(sb.restUrl, 'GET', '/gateway');
    expect(open.status).toBe(200);
    expect(open.body).toEqual({ url: sb.gatewayUrl });
    const anon = await api(sb.restUrl, 'GET', '/gateway/bot');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ message: '401: Unauthorized', code: 0 });
    const bot = await api(sb.restUrl, 'GET', '/gateway/bot', { token: sb.botToken });
    expect(bot.status).toBe(200);
    expect(bot.body.url).toBe(sb.gatewayUrl);
    expect(bot.body.shards).toBe(3);
  });
});
