import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { identified, RawGatewayClient, sleep } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await createSandbox({ ...options, gateway: { identifyWindowMs: 0, ...options.gateway } });
  sandboxes.push(sb);
  return sb;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function connect(sb: Sandbox, compress = false, extra: Record<string, unknown> = {}) {
  const r = await identified(sb.gatewayUrl, sb.botToken, extra, { compress });
  clients.push(r.client);
  return r;
}

describe('gateway faults', () => {
  it('stopHeartbeatAcks: heartbeats stay unanswered on that connection only', async () => {
    const sb = await start({ seed: { guilds: 2 } });
    const a = await connect(sb, false, { shard: [0, 2] });
    const b = await connect(sb, false, { shard: [1, 2] });
    sb.faults.stopHeartbeatAcks(0);
    a.client.send({ op: 1, d: 1 });
    b.client.send({ op: 1, d: 1 });
    await b.client.next((p) => p.op === 11);
    await sleep(100);
    expect(a.client.received.filter((p) => p.op === 11)).toHaveLength(0);
  });

  it('reconnect: sends op 7 and closes the socket itself after the delay; the session stays resumable', async () => {
    const sb = await start({ gateway: { reconnectCloseDelayMs: 100 } });
    const { client, ready } = await connect(sb);
    sb.faults.reconnect(0);
    expect(await client.next((p) => p.op === 7)).toMatchObject({ op: 7, d: null });
    const closed = await client.closed;
    expect(closed.code).toBe(4000);
    const again = new RawGatewayClient((ready.d as any).resume_gateway_url);
    clients.push(again);
    await again.next((p) => p.op === 10);
    again.send({ op: 6, d: { token: sb.botToken, session_id: (ready.d as any).session_id, seq: 1 } });
    await again.nextDispatch('RESUMED');
  });

  it('invalidateSession(false) discards the session; (true) keeps it resumable', async () => {
    const sb = await start();
    const first = await connect(sb);
    sb.faults.invalidateSession(0, true);
    expect((await first.client.next((p) => p.op === 9)).d).toBe(true);
    first.client.close(4000);
    await first.client.closed;
    const resumer = new RawGatewayClient((first.ready.d as any).resume_gateway_url);
    clients.push(resumer);
    await resumer.next((p) => p.op === 10);
    resumer.send({ op: 6, d: { token: sb.botToken, session_id: (first.ready.d as any).session_id, seq: 1 } });
    await resumer.nextDispatch('RESUMED');

    sb.faults.invalidateSession(0, false);
    expect((await resumer.next((p) => p.op === 9)).d).toBe(false);
    resumer.close(4000);
    await resumer.closed;
    const late = new RawGatewayClient((first.ready.d as any).resume_gateway_url);
    clients.push(late);
    await late.next((p) => p.op === 10);
    late.send({ op: 6, d: { token: sb.botToken, session_id: (first.ready.d as any).session_id, seq: 2 } });
    expect((await late.next((p) => p.op === 9)).d).toBe(false);
  });

  it('invalidateSession(true) on a live session: nothing more on that socket, RESUME on the same socket replays exactly once', async () => {
    const sb = await start({ seed: { guilds: 1, membersPerGuild: 5 } });
    const guildId = sb.state.guildIds[0]!;
    const { client, ready } = await connect(sb);
    await client.nextDispatch('GUILD_CREATE');
    const before = sb.state.addMember(guildId, { username: 'before' });
    const seenBefore = await client.nextDispatch('GUILD_MEMBER_ADD');
    sb.faults.invalidateSession(0, true);
    expect((await client.next((p) => p.op === 9)).d).toBe(true);
    // Invalidated: these are buffered for the session, not sent on the socket.
    const during = [sb.state.addMember(guildId, { username: 'during1' }), sb.state.addMember(guildId, { username: 'during2' })];
    await sleep(100);
    expect(client.dispatches('GUILD_MEMBER_ADD').map((p) => (p.d as any).user.id)).toEqual([before]);
    // The socket is the main gateway URL (strictResumeUrl is on): RESUME of its own session is still accepted.
    client.send({ op: 6, d: { token: sb.botToken, session_id: (ready.d as any).session_id, seq: seenBefore.s } });
    await client.nextDispatch('RESUMED');
    const after = sb.state.addMember(guildId, { username: 'after' });
    await client.next((p) => p.op === 0 && p.t === 'GUILD_MEMBER_ADD' && (p.d as any).user.id === after);
    const adds = client.dispatches('GUILD_MEMBER_ADD');
    expect(adds.map((p) => (p.d as any).user.id)).toEqual([before, ...during, after]);
    // Sequence numbers are contiguous: nothing lost, nothing twice.
    const seqs = client.dispatches().map((p) => p.s!);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(sb.counters.resumes).toBe(1);
  });

  it('invalidateSession(true): other payloads on the invalidated socket are 4003, heartbeats still answered', async () => {
    const sb = await start({ seed: { guilds: 1 } });
    const { client } = await connect(sb);
    sb.faults.invalidateSession(0, true);
    await client.next((p) => p.op === 9);
    client.send({ op: 1, d: 2 });
    await client.next((p) => p.op === 11);
    client.send({ op: 8, d: { guild_id: sb.state.guildIds[0], query: '', limit: 0 } });
    expect((await client.closed).code).toBe(4003);
  });

  it('close: closes the newest connection of the shard with the given code and reports it', async () => {
    const sb = await start();
    const closes: Array<{ code: number; by: string }> = [];
    sb.gatewayEvents.on('close', (e) => closes.push({ code: e.code, by: e.by }));
    const { client } = await connect(sb);
    sb.faults.close(0, 4000);
    expect((await client.closed).code).toBe(4000);
    await sleep(20);
    expect(closes).toEqual([{ code: 4000, by: 'server' }]);
  });

  it('corruptFrame: compressed connections get bytes that do not inflate', async () => {
    const sb = await start();
    const { client } = await connect(sb, true);
    sb.faults.corruptFrame(0);
    const deadline = Date.now() + 3000;
    while (client.inflateError === null && Date.now() < deadline) await sleep(10);
    expect(client.inflateError).not.toBeNull();
  });

  it('corruptFrame: uncompressed connections get a frame that is not JSON', async () => {
    const sb = await start();
    const { client } = await connect(sb, false);
    sb.faults.corruptFrame(0);
    const bad = await client.next((p) => p.op === -1);
    expect(bad.t).toBe('UNPARSEABLE');
  });

  it('throws for a shard nobody is connected as', async () => {
    const sb = await start();
    expect(() => sb.faults.reconnect(3)).toThrow(/shard 3/);
  });

  it('reports connection, identify, resume, dispatch and close events', async () => {
    const sb = await start({ seed: { guilds: 1 } });
    const seen: string[] = [];
    sb.gatewayEvents.on('connection', (e) => seen.push(`connection:${e.path}`));
    sb.gatewayEvents.on('identify', (e) => seen.push(`identify:${e.shard.join('/')}`));
    sb.gatewayEvents.on('dispatch', (e) => seen.push(`dispatch:${e.t}:${e.s}`));
    sb.gatewayEvents.on('resume', (e) => seen.push(`resume:${e.seq}`));
    const { client, ready } = await connect(sb, false, { shard: [0, 1] });
    await client.nextDispatch('GUILD_CREATE');
    client.close(4000);
    await client.closed;
    const b = new RawGatewayClient((ready.d as any).resume_gateway_url);
    clients.push(b);
    await b.next((p) => p.op === 10);
    b.send({ op: 6, d: { token: sb.botToken, session_id: (ready.d as any).session_id, seq: 2 } });
    await b.nextDispatch('RESUMED');
    expect(seen).toEqual(['connection:gateway', 'identify:0/1', 'dispatch:READY:1', 'dispatch:GUILD_CREATE:2', 'connection:resume', 'resume:2', 'dispatch:RESUMED:3']);
  });
});
