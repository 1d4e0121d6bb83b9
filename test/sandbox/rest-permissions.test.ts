import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

const SCOPE = 'applications.commands.permissions.update';

async function setup() {
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 6, rolesPerGuild: 6 }, rest: { globalPerSecond: 10_000 } });
  sandboxes.push(sb);
  const guildId = sb.state.guildIds[0]!;
  const cmd = (await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, { token: sb.botToken, body: { name: 'ban', description: 'Ban someone' } })).body;
  const path = `/applications/${sb.applicationId}/guilds/${guildId}/commands/${cmd.id}/permissions`;
  return { sb, guildId, cmd, path };
}

describe('command permissions: who may edit', () => {
  it('a bot token gets 403 with code 20001', async () => {
    const { sb, path } = await setup();
    const r = await api(sb.restUrl, 'PUT', path, { token: sb.botToken, body: { permissions: [] } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: 'Bots cannot use this endpoint', code: 20001 });
  });

  it('a bearer token without applications.commands.permissions.update is refused', async () => {
    const { sb, path } = await setup();
    const bearer = sb.issueBearerToken(['identify', 'applications.commands.update']);
    const r = await api(sb.restUrl, 'PUT', path, { bearer, body: { permissions: [] } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(50001);
  });

  it("the user's permissions count: without MANAGE_GUILD and MANAGE_ROLES the edit is 403 / 50013", async () => {
    const { sb, guildId, path } = await setup();
    const plain = sb.state.memberIds(guildId).find((id, i) => i > 2 && id !== sb.applicationId)!;
    const bearer = sb.issueBearerToken([SCOPE], plain);
    const r = await api(sb.restUrl, 'PUT', path, { bearer, body: { permissions: [] } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: 'Missing Permissions', code: 50013 });
    // The moderator (MANAGE_GUILD + MANAGE_ROLES) may.
    const moderator = sb.state.memberIds(guildId)[2]!;
    const ok = await api(sb.restUrl, 'PUT', path, { bearer: sb.issueBearerToken([SCOPE], moderator), body: { permissions: [] } });
    expect(ok.status).toBe(200);
  });
});

describe('command permissions: edit and read', () => {
  it('replaces the overwrites, accepts the @everyone and all-channels constants, and fires the gateway event', async () => {
    const { sb, guildId, cmd, path } = await setup();
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    clients.push(client);
    const bearer = sb.issueBearerToken([SCOPE]);
    const guild = (await client.nextDispatch('GUILD_CREATE')).d as any;
    const role = guild.roles.find((r: any) => r.name === 'Moderator').id;
    const channel = guild.channels[0].id;
    const user = sb.state.memberIds(guildId)[3]!;
    const allChannels = (BigInt(guildId) - 1n).toString();
    const permissions = [
      { id: guildId, type: 1, permission: false },
      { id: role, type: 1, permission: true },
      { id: user, type: 2, permission: true },
      { id: channel, type: 3, permission: true },
      { id: allChannels, type: 3, permission: false },
    ];
    const r = await api(sb.restUrl, 'PUT', path, { bearer, body: { permissions } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: cmd.id, application_id: sb.applicationId, guild_id: guildId, permissions });
    const event = await client.nextDispatch('APPLICATION_COMMAND_PERMISSIONS_UPDATE');
    expect(event.d).toEqual(r.body);

    const one = await api(sb.restUrl, 'GET', path, { token: sb.botToken });
    expect(one.body).toEqual(r.body);
    const all = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/guilds/${guildId}/commands/permissions`, { token: sb.botToken });
    expect(all.body).toEqual([r.body]);

    // PUT replaces: a shorter list is the whole new list.
    const shorter = await api(sb.restUrl, 'PUT', path, { bearer, body: { permissions: [{ id: user, type: 2, permission: false }] } });
    expect(shorter.body.permissions).toHaveLength(1);
  });

  it('takes the application id as the target: the default for commands without their own overwrites', async () => {
    const { sb, guildId } = await setup();
    const path = `/applications/${sb.applicationId}/guilds/${guildId}/commands/${sb.applicationId}/permissions`;
    const r = await api(sb.restUrl, 'PUT', path, { bearer: sb.issueBearerToken([SCOPE]), body: { permissions: [{ id: guildId, type: 1, permission: false }] } });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(sb.applicationId);
  });

  it('allows at most 100 overwrites and validates each target', async () => {
    const { sb, guildId, path } = await setup();
    const bearer = sb.issueBearerToken([SCOPE]);
    const user = sb.state.memberIds(guildId)[3]!;
    const tooMany = Array.from({ length: 101 }, () => ({ id: user, type: 2, permission: true }));
    const r1 = await api(sb.restUrl, 'PUT', path, { bearer, body: { permissions: tooMany } });
    expect(r1.status).toBe(400);
    expect(r1.body.code).toBe(50035);
    expect(r1.body.errors.permissions._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');
    const hundred = await api(sb.restUrl, 'PUT', path, { bearer, body: { permissions: tooMany.slice(0, 100) } });
    expect(hundred.status).toBe(200);

    const bad = await api(sb.restUrl, 'PUT', path, {
      bearer,
      body: {
        permissions: [
          { id: '123456789012345678', type: 1, permission: true },
          { id: user, type: 4, permission: true },
          { id: '123456789012345678', type: 3, permission: 'yes' },
          { id: sb.state.guildIds[1], type: 3, permission: true },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors.permissions).sort()).toEqual(['0', '1', '2', '3']);
    expect(bad.body.errors.permissions['0'].id).toBeDefined();
    expect(bad.body.errors.permissions['1'].type).toBeDefined();
    expect(bad.body.errors.permissions['2'].permission).toBeDefined();
  });

  it('unknown command -> 10063; no overwrites yet -> 10066', async () => {
    const { sb, guildId, path } = await setup();
    const unknown = `/applications/${sb.applicationId}/guilds/${guildId}/commands/123456789012345678/permissions`;
    expect((await api(sb.restUrl, 'PUT', unknown, { bearer: sb.issueBearerToken([SCOPE]), body: { permissions: [] } })).body.code).toBe(10063);
    const none = await api(sb.restUrl, 'GET', path, { token: sb.botToken });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe(10066);
  });

  it('deleting a command deletes its permissions (a new command of that name starts without)', async () => {
    const { sb, guildId, cmd, path } = await setup();
    await api(sb.restUrl, 'PUT', path, { bearer: sb.issueBearerToken([SCOPE]), body: { permissions: [{ id: guildId, type: 1, permission: false }] } });
    await api(sb.restUrl, 'DELETE', `/applications/${sb.applicationId}/commands/${cmd.id}`, { token: sb.botToken });
    const all = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/guilds/${guildId}/commands/permissions`, { token: sb.botToken });
    expect(all.body).toEqual([]);
  });

  it('renaming a command drops its permissions', async () => {
    const { sb, guildId, cmd, path } = await setup();
    await api(sb.restUrl, 'PUT', path, { bearer: sb.issueBearerToken([SCOPE]), body: { permissions: [{ id: guildId, type: 1, permission: false }] } });
    await api(sb.restUrl, 'PATCH', `/applications/${sb.applicationId}/commands/${cmd.id}`, { token: sb.botToken, body: { description: 'still ban' } });
    expect((await api(sb.restUrl, 'GET', path, { token: sb.botToken })).status).toBe(200);
    await api(sb.restUrl, 'PATCH', `/applications/${sb.applicationId}/commands/${cmd.id}`, { token: sb.botToken, body: { name: 'kick' } });
    expect((await api(sb.restUrl, 'GET', path, { token: sb.botToken })).body.code).toBe(10066);
  });

  it('batch edit (PUT .../commands/permissions) is disabled: 405', async () => {
    const { sb, guildId } = await setup();
    const r = await api(sb.restUrl, 'PUT', `/applications/${sb.applicationId}/guilds/${guildId}/commands/permissions`, {
      bearer: sb.issueBearerToken([SCOPE]),
      body: [{ id: '1', permissions: [] }],
    });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ message: '405: Method Not Allowed', code: 0 });
  });
});
