/**
 * Routes a user's OAuth2 token reaches, through gatehouse's REST client against the sandbox: connections, the
 * user's role connection for the app (read, set, validated, removed) and the user's own entitlements, each with
 * the scope it needs, and refused to the bot token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  RestClient,
  bearerAuth,
  deleteCurrentUserRoleConnection,
  getCurrentUserConnections,
  getCurrentUserRoleConnection,
  listCurrentUserEntitlements,
  updateCurrentUserRoleConnection,
} from '../../src/rest/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

const sandboxes: Sandbox[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function start() {
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 4, skus: 3 }, rest: { buckets: { 'users.oauth2': { limit: 50, windowMs: 1_000 } } } });
  sandboxes.push(sb);
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const user = sb.state.memberIds(sb.state.guildIds[0]!).filter((id) => id !== sb.applicationId)[3]!;
  return { sb, rest, user };
}

async function refusal(p: Promise<unknown>): Promise<[number, number | null]> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return [(err as ApiError).status, (err as ApiError).code];
}

describe('OAuth2-user routes', () => {
  it('connections: [] with the connections scope (and for the bot), 401 without it', async () => {
    const { sb, rest, user } = await start();
    expect(await getCurrentUserConnections(rest, { auth: bearerAuth(sb.issueBearerToken(['connections'], user)) })).toEqual([]);
    expect(await getCurrentUserConnections(rest)).toEqual([]);
    expect(await refusal(getCurrentUserConnections(rest, { auth: bearerAuth(sb.issueBearerToken(['identify'], user)) }))).toEqual([401, 0]);
  });

  it('role connection: empty at first, set with PUT, validated, removed with DELETE; per user', async () => {
    const { sb, rest, user } = await start();
    const token = sb.issueBearerToken(['role_connections.write'], user);
    const app = sb.applicationId;
    expect(await getCurrentUserRoleConnection(rest, app, token)).toEqual({ platform_username: null, metadata: {} });
    const set = await updateCurrentUserRoleConnection(rest, app, token, { platform_name: 'Chess', platform_username: 'knight42', metadata: { elo: '1800', verified: '1' } });
    expect(set).toEqual({ platform_name: 'Chess', platform_username: 'knight42', metadata: { elo: '1800', verified: '1' } });
    expect(await getCurrentUserRoleConnection(rest, app, token)).toEqual(set);
    const other = sb.state.memberIds(sb.state.guildIds[0]!).filter((id) => id !== sb.applicationId && id !== user)[0]!;
    expect(await getCurrentUserRoleConnection(rest, app, sb.issueBearerToken(['role_connections.write'], other))).toEqual({ platform_username: null, metadata: {} });
    const bad = await updateCurrentUserRoleConnection(rest, app, token, { platform_name: 'x'.repeat(51), metadata: { elo: 'y'.repeat(101), 'Bad Key': '1' } }).catch((e: unknown) => e as ApiError);
    expect(bad).toBeInstanceOf(ApiError);
    expect((bad as ApiError).fieldErrors.map((e) => e.path).sort()).toEqual(['metadata.Bad Key', 'metadata.elo', 'platform_name']);
    expect(await getCurrentUserRoleConnection(rest, app, token)).toEqual(set);
    await deleteCurrentUserRoleConnection(rest, app, token);
    expect(await getCurrentUserRoleConnection(rest, app, token)).toEqual({ platform_username: null, metadata: {} });
    expect(await refusal(getCurrentUserRoleConnection(rest, app, sb.issueBearerToken(['identify'], user)))).toEqual([401, 0]);
    expect(await refusal(getCurrentUserRoleConnection(rest, '100000000000000001', token))).toEqual([403, 20012]);
    const bot = await fetch(`${sb.restUrl}/users/@me/applications/${app}/role-connection`, { headers: { authorization: `Bot ${sb.botToken}` } });
    expect(bot.status).toBe(403);
  });

  it("the user's entitlements of the app, filtered by SKU; the bot is refused", async () => {
    const { sb, rest, user } = await start();
    const [durable, subscription] = sb.state.skuIds as [string, string];
    const a = sb.state.grantEntitlement({ skuId: durable, userId: user });
    const b = sb.state.grantEntitlement({ skuId: subscription, userId: user });
    const deleted = sb.state.grantEntitlement({ skuId: subscription, userId: user });
    sb.state.deleteEntitlement(deleted);
    sb.state.grantEntitlement({ skuId: durable, guildId: sb.state.guildIds[0]! });
    const token = sb.issueBearerToken(['identify', 'applications.entitlements'], user);
    expect((await listCurrentUserEntitlements(rest, sb.applicationId, token)).map((e) => e.id).sort()).toEqual([a, b].sort());
    expect((await listCurrentUserEntitlements(rest, sb.applicationId, token, { sku_ids: [subscription] })).map((e) => e.id)).toEqual([b]);
    const bot = await fetch(`${sb.restUrl}/users/@me/applications/${sb.applicationId}/entitlements`, { headers: { authorization: `Bot ${sb.botToken}` } });
    expect([bot.status, ((await bot.json()) as { code: number }).code]).toEqual([403, 20001]);
  });
});
