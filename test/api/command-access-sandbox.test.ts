/**
 * The sandbox and the runtime decide command access alike: over randomized command- and application-level
 * settings (channels, All Channels, users, roles, @everyone) and default_member_permissions, in channels and
 * their threads, the sandbox refuses exactly the invocations that the runtime's evaluation
 * (src/api/command-access.ts over what REST reads, as `gatehouse commands access` does) denies. The two are separate implementations (the sandbox never calls the
 * runtime's); this test holds them together.
 *
 * The sandbox's evaluation is src/sandbox/state/command-permissions.ts (evaluateCommandUse), written from
 * docs/protocol.md §15.6 on its own; before it, the sandbox read the command's settings or else the application's as
 * a whole, and 16 of these 200 invocations differed (an application-level channel setting ignored, mostly).
 */
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { afterEach, describe, expect, it } from 'vitest';
import { allChannelsId } from '../../src/api/command-access.js';
import { access } from '../../src/cli/commands-access.js';
import { RestClient } from '../../src/rest/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from '../sandbox/helpers.js';

const SCOPE = 'applications.commands.permissions.update';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('command access: the sandbox refuses exactly what canUseCommand denies', () => {
  it('over 200 randomized settings, members and channels', async () => {
    const sb: Sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 8, rolesPerGuild: 5, channelsPerGuild: 4 }, rest: { globalPerSecond: 10_000 }, gateway: { heartbeatIntervalMs: 600_000 } });
    cleanup.push(() => sb.close());
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    cleanup.push(() => (client as RawGatewayClient).terminate());
    const guildId = sb.state.guildIds[0]!;
    const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken });
    cleanup.push(() => rest.close());
    const dmps = [null, '0', String(P.KickMembers), String(P.ManageMessages | P.PinMessages)];
    const commands: Array<{ id: string; name: string }> = [];
    for (let i = 0; i < dmps.length; i++) {
      const r = await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/guilds/${guildId}/commands`, {
        token: sb.botToken,
        body: { name: `cmd${i}`, description: 'x', default_member_permissions: dmps[i] },
      });
      commands.push({ id: r.body.id, name: `cmd${i}` });
    }
    const guild = (await api(sb.restUrl, 'GET', `/guilds/${guildId}`, { token: sb.botToken })).body as { roles: Array<{ id: string }> };
    const channels = ((await api(sb.restUrl, 'GET', `/guilds/${guildId}/channels`, { token: sb.botToken })).body as Array<{ id: string; type: number }>).filter((c) => c.type === 0);
    // Invocations also happen in threads, which a channel's settings cover (settings name channels only).
    const threads = channels.slice(0, 2).map((c, i) => sb.state.channels.createThread(c.id, { name: `thread${i}` }).id as string);
    const places = [...channels.map((c) => c.id), ...threads];
    const members = sb.state.memberIds(guildId).filter((id) => id !== sb.applicationId);
    const roles = guild.roles.map((r) => r.id).filter((id) => id !== guildId);
    const rand = prng(29);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const settings = (): Array<{ id: string; type: number; permission: boolean }> => {
      const out = new Map<string, { id: string; type: number; permission: boolean }>();
      const n = 1 + Math.floor(rand() * 6);
      for (let k = 0; k < n; k++) {
        const kind = Math.floor(rand() * 5);
        const [id, type] =
          kind === 0 ? [pick(channels).id, 3] : kind === 1 ? [allChannelsId(guildId), 3] : kind === 2 ? [pick(members), 2] : kind === 3 ? [pick(roles), 1] : [guildId, 1];
        out.set(id, { id, type, permission: rand() < 0.5 });
      }
      return [...out.values()];
    };
    const put = async (target: string, permissions: unknown[]): Promise<void> => {
      const r = await api(sb.restUrl, 'PUT', `/applications/${sb.applicationId}/guilds/${guildId}/commands/${target}/permissions`, { bearer: sb.issueBearerToken([SCOPE]), body: { permissions } });
      expect(r.status).toBe(200);
    };
    const differences: string[] = [];
    for (let round = 0; round < 40; round++) {
      const command = pick(commands);
      await put(command.id, settings());
      await put(sb.applicationId, settings());
      for (let k = 0; k < 5; k++) {
        const userId = pick(members);
        const channelId = pick(places);
        const want = await access(rest, sb.applicationId, { command: command.name, guildId, userId, channelId });
        let got: boolean;
        try {
          await sb.invoke({ name: command.name, guildId, userId, channelId });
          await client.nextDispatch('INTERACTION_CREATE');
          got = true;
        } catch (err) {
          if (!/may not use|FORBIDDEN|permission/i.test(String(err))) throw err;
          got = false;
        }
        if (got !== want.result.allowed) differences.push(`round ${round}: ${command.name} user ${userId} channel ${channelId}: sandbox ${got ? 'allowed' : 'refused'}, runtime ${want.result.message}`);
      }
    }
    expect(differences).toEqual([]);
  }, 120_000);
});
