/**
 * Acceptance: third-party clients (@discordjs/ws, @discordjs/rest) connect to the sandbox unchanged.
 */
import { REST, DiscordAPIError } from '@discordjs/rest';
import { CompressionMethod, WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { GatewayDispatchEvents, GatewayIntentBits, type GatewayDispatchPayload } from 'discord-api-types/v10';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

const sandboxes: Sandbox[] = [];
const managers: WebSocketManager[] = [];

afterEach(async () => {
  for (const m of managers.splice(0)) await m.destroy({ code: 1000 });
  for (const sb of sandboxes.splice(0)) await sb.close();
});

function restFor(sb: Sandbox): REST {
  // @discordjs/rest builds `${api}/v${version}${route}`.
  return new REST({ api: sb.restUrl.replace(/\/v10$/, ''), version: '10', retries: 1, timeout: 10_000 }).setToken(sb.botToken);
}

async function runManager(sb: Sandbox, compression: CompressionMethod, shardCount: number): Promise<{ ready: number; creates: Set<string> }> {
  const rest = restFor(sb);
  const manager = new WebSocketManager({
    token: sb.botToken,
    intents: GatewayIntentBits.Guilds | GatewayIntentBits.GuildMembers,
    rest,
    compression,
    shardCount,
  });
  managers.push(manager);
  const creates = new Set<string>();
  let ready = 0;
  const expected = sb.state.guildIds.length;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out: ${ready} READY, ${creates.size}/${expected} GUILD_CREATE`)), 15_000);
    manager.on(WebSocketShardEvents.Dispatch, (payload: GatewayDispatchPayload) => {
      if (payload.t === GatewayDispatchEvents.Ready) ready++;
      if (payload.t === GatewayDispatchEvents.GuildCreate) creates.add(payload.d.id);
      if (ready === shardCount && creates.size === expected) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await manager.connect();
  await done;
  return { ready, creates };
}

describe('@discordjs/ws against the sandbox', () => {
  it('connects with zlib-stream (node:zlib), gets READY and every seeded GUILD_CREATE', async () => {
    const sb = await createSandbox({ seed: { guilds: 6, membersPerGuild: 20 }, gateway: { identifyWindowMs: 50 } });
    sandboxes.push(sb);
    const { ready, creates } = await runManager(sb, CompressionMethod.ZlibNative, 1);
    expect(ready).toBe(1);
    expect([...creates].sort()).toEqual([...sb.state.guildIds].sort());
  });

  it('connects with zlib-stream (zlib-sync) over two shards, frames split', async () => {
    const sb = await createSandbox({ seed: { guilds: 8, membersPerGuild: 20 }, gateway: { identifyWindowMs: 50, maxFrameBytes: 512, maxConcurrency: 2 } });
    sandboxes.push(sb);
    const { ready, creates } = await runManager(sb, CompressionMethod.ZlibSync, 2);
    expect(ready).toBe(2);
    expect([...creates].sort()).toEqual([...sb.state.guildIds].sort());
  });
});

describe('@discordjs/rest against the sandbox', () => {
  it('does command CRUD and sees 201 / 200 / 204 as the spec says', async () => {
    const sb = await createSandbox();
    sandboxes.push(sb);
    const rest = restFor(sb);
    const statuses: number[] = [];
    rest.on('response', (_req, res) => statuses.push(res.status));
    const route = `/applications/${sb.applicationId}/commands` as const;

    const created = (await rest.post(route, { body: { name: 'roll', description: 'Roll a die' } })) as { id: string; version: string };
    const upserted = (await rest.post(route, { body: { name: 'roll', description: 'Roll some dice' } })) as { id: string; version: string };
    expect(upserted.id).toBe(created.id);
    expect(upserted.version).not.toBe(created.version);
    const edited = (await rest.patch(`${route}/${created.id}`, { body: { description: 'Roll!' } })) as { description: string };
    expect(edited.description).toBe('Roll!');
    const listed = (await rest.get(route)) as Array<{ id: string }>;
    expect(listed.map((c) => c.id)).toEqual([created.id]);
    await rest.delete(`${route}/${created.id}`);
    const bulk = (await rest.put(route, { body: [{ name: 'ping', description: 'Pong' }] })) as unknown[];
    expect(bulk).toHaveLength(1);
    expect(statuses).toEqual([201, 200, 200, 200, 204, 200]);

    const err = await rest.get(`${route}/${created.id}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect((err as DiscordAPIError).status).toBe(404);
    expect((err as DiscordAPIError).code).toBe(10063);
  });

  it('reports the service error tree for an invalid command (50035)', async () => {
    const sb = await createSandbox();
    sandboxes.push(sb);
    const rest = restFor(sb);
    const err = (await rest
      .post(`/applications/${sb.applicationId}/commands`, { body: { name: 'ok', description: 'fine', options: [{ type: 3, name: 'Bad', description: 'x' }] } })
      .catch((e: unknown) => e)) as DiscordAPIError;
    expect(err.status).toBe(400);
    expect(err.code).toBe(50035);
    // The service's code and message; the validator's precise reason rides along in sandbox_detail.
    expect(err.rawError).toMatchObject({
      errors: {
        options: {
          '0': {
            name: {
              _errors: [
                {
                  code: 'APPLICATION_COMMAND_INVALID_NAME',
                  message: 'Command name is invalid',
                  sandbox_detail: { code: 'APPLICATION_COMMAND_NAME_LOWERCASE', message: expect.stringContaining('lowercase') },
                },
              ],
            },
          },
        },
      },
    });
    expect(err.message).toContain('options[0].name[APPLICATION_COMMAND_INVALID_NAME]: Command name is invalid');
  });

  it('waits out a bucket from the headers instead of failing', async () => {
    const sb = await createSandbox({ rest: { buckets: { 'commands.read': { limit: 2, windowMs: 300 } } } });
    sandboxes.push(sb);
    const rest = restFor(sb);
    const rateLimited: number[] = [];
    rest.on('rateLimited', (info) => rateLimited.push(info.limit));
    for (let i = 0; i < 5; i++) await rest.get(`/applications/${sb.applicationId}/commands`);
    expect(rateLimited.length).toBeGreaterThan(0);
    expect(rateLimited[0]).toBe(2);
    expect(sb.counters.rest429s).toBe(0);
  });
});
