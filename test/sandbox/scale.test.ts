/**
 * The 1,000 guilds x 1,000 members fixture works end to end (timings are measured in
 * bench/sandbox-throughput.bench.ts, never asserted here).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

describe('seeding 1,000 guilds x 1,000 members', () => {
  it('seeds deterministically, serves every GUILD_CREATE over zlib-stream, and answers op 8 with full member lists', async () => {
    const sb = await createSandbox({ seed: { guilds: 1000, membersPerGuild: 1000, seed: 7, eager: true }, gateway: { memberRequestWindowMs: 0 } });
    sandboxes.push(sb);
    expect(sb.state.guildIds).toHaveLength(1000);
    expect(new Set(sb.state.guildIds).size).toBe(1000);

    // Every guild's members can be materialized: a million members, distinct within each guild.
    let total = 0;
    for (const id of sb.state.guildIds) {
      const members = sb.state.memberIds(id);
      expect(members.length).toBe(1001);
      total += members.length;
    }
    expect(total).toBe(1_001_000);

    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 }, { compress: true });
    clients.push(client);
    for (let i = 0; i < 1000; i++) await client.nextDispatch('GUILD_CREATE', 20_000);
    expect(new Set(client.dispatches('GUILD_CREATE').map((p) => (p.d as any).id)).size).toBe(1000);

    const guildId = sb.state.guildIds[500]!;
    client.send({ op: 8, d: { guild_id: guildId, query: '', limit: 0, nonce: 'big' } });
    const a = (await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any;
    const b = (await client.nextDispatch('GUILD_MEMBERS_CHUNK')).d as any;
    expect([a.members.length, b.members.length]).toEqual([1000, 1]);
    expect(a.chunk_count).toBe(2);
    expect(client.inflateError).toBeNull();
  }, 120_000);

  it('is reproducible: the same seed gives the same ids', async () => {
    const one = await createSandbox({ seed: { guilds: 5, membersPerGuild: 20, seed: 42 } });
    const two = await createSandbox({ seed: { guilds: 5, membersPerGuild: 20, seed: 42 } });
    const other = await createSandbox({ seed: { guilds: 5, membersPerGuild: 20, seed: 43 } });
    sandboxes.push(one, two, other);
    expect(two.state.guildIds).toEqual(one.state.guildIds);
    expect(two.state.memberIds(two.state.guildIds[3]!)).toEqual(one.state.memberIds(one.state.guildIds[3]!));
    expect(other.state.guildIds).not.toEqual(one.state.guildIds);
  });
});
