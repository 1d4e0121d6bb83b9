import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { api } from './helpers.js';

const sandboxes: Sandbox[] = [];

async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  // Roomy buckets: these tests are about command semantics, not rate limits.
  const buckets = Object.fromEntries(
    ['commands.read', 'commands.create', 'commands.edit', 'commands.delete', 'commands.bulk', 'permissions.read', 'permissions.edit', 'applications.me'].map((b) => [b, { limit: 1000, windowMs: 1000 }]),
  );
  const sb = await createSandbox({ ...options, rest: { globalPerSecond: 10_000, buckets, ...options.rest } });
  sandboxes.push(sb);
  return sb;
}

afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

function client(sb: Sandbox) {
  const global = `/applications/${sb.applicationId}/commands`;
  const guild = (id: string): string => `/applications/${sb.applicationId}/guilds/${id}/commands`;
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api(sb.restUrl, method, path, { token: sb.botToken, body, ...(headers ? { headers } : {}) });
  return { global, guild, call };
}

describe('command create: upsert by name within type and scope', () => {
  it('201 for a new name, 200 for the same name (same id), version kept when nothing changed', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const a = await call('POST', global, { name: 'roll', description: 'Roll a die' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ name: 'roll', type: 1, application_id: sb.applicationId, description: 'Roll a die', nsfw: false, default_member_permissions: null });
    expect(a.body.guild_id).toBeUndefined();
    const same = await call('POST', global, { name: 'roll', description: 'Roll a die' });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(a.body.id);
    expect(same.body.version).toBe(a.body.version);
    const changed = await call('POST', global, { name: 'roll', description: 'Roll two dice' });
    expect(changed.status).toBe(200);
    expect(changed.body.id).toBe(a.body.id);
    expect(changed.body.version).not.toBe(a.body.version);
    expect(BigInt(changed.body.version)).toBeGreaterThan(BigInt(a.body.version));
    expect(sb.counters.commandCreates).toBe(1);
    expect(sb.counters.commandWrites).toBe(3);
  });

  it('the same name with another type is another command; guild and global scopes are separate', async () => {
    const sb = await start();
    const { global, guild, call } = client(sb);
    const slash = await call('POST', global, { name: 'info', description: 'Info' });
    const user = await call('POST', global, { name: 'info', type: 2 });
    expect(user.status).toBe(201);
    expect(user.body.id).not.toBe(slash.body.id);
    expect(user.body.description).toBe('');
    const inGuild = await call('POST', guild(sb.state.guildIds[0]!), { name: 'info', description: 'Info here' });
    expect(inGuild.status).toBe(201);
    expect(inGuild.body.guild_id).toBe(sb.state.guildIds[0]);
    expect((await call('GET', global)).body).toHaveLength(2);
    expect((await call('GET', guild(sb.state.guildIds[0]!))).body).toHaveLength(1);
    expect((await call('GET', guild(sb.state.guildIds[1]!))).body).toHaveLength(0);
  });

  it('answers 50035 with the nested errors tree for an invalid command', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const r = await call('POST', global, {
      name: 'cfg',
      description: 'x',
      options: [{ type: 1, name: 'set', description: 'Set', options: [{ type: 3, name: 'key', description: 'k', choices: [{ name: 'a', value: 1 }] }] }],
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(50035);
    expect(r.body.message).toBe('Invalid Form Body');
    const leaf = r.body.errors.options['0'].options['0'].choices['0'].value._errors;
    expect(leaf[0].code).toEqual(expect.any(String));
    expect(leaf[0].message).toEqual(expect.any(String));
    // Nothing was stored.
    expect((await call('GET', global)).body).toEqual([]);
  });

  it('rejects a guild entry point and a body that is not an object', async () => {
    const sb = await start();
    const { global, guild, call } = client(sb);
    const ep = await call('POST', guild(sb.state.guildIds[0]!), { name: 'launch', type: 4, description: 'x' });
    expect(ep.status).toBe(400);
    expect(ep.body.code).toBe(50035);
    const notObject = await call('POST', global, [1, 2]);
    expect(notObject.status).toBe(400);
    expect(notObject.body.code).toBe(50035);
  });
});

describe("50035 in the service's words (src/sandbox/command-errors.ts lists the sources)", () => {
  const detail = { code: expect.any(String), message: expect.any(String) };

  it('names, lengths, missing fields, option order and counts', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const bad = async (body: unknown): Promise<any> => {
      const r = await call('POST', global, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(50035);
      return r.body.errors;
    };
    expect(await bad({ name: 'two words', description: 'x' })).toEqual({
      name: { _errors: [{ code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid', sandbox_detail: { code: 'STRING_TYPE_REGEX', message: expect.stringContaining('U+0020') } }] },
    });
    expect((await bad({ name: 'ok', description: 'x', options: [{ type: 3, name: 'Upper', description: 'x' }] })).options['0'].name._errors[0]).toMatchObject({
      code: 'APPLICATION_COMMAND_INVALID_NAME',
      message: 'Command name is invalid',
      sandbox_detail: { code: 'APPLICATION_COMMAND_NAME_LOWERCASE' },
    });
    expect(await bad({ name: 'ok' })).toEqual({ description: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required', sandbox_detail: detail }] } });
    expect((await bad({ name: 'ok', description: 'x'.repeat(101) })).description._errors[0]).toMatchObject({ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' });
    const many = Array.from({ length: 26 }, (_, i) => ({ type: 3, name: `o${i}`, description: 'x' }));
    expect((await bad({ name: 'ok', description: 'x', options: many })).options._errors[0]).toMatchObject({ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' });
    const order = await bad({ name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'x' }, { type: 3, name: 'b', description: 'x', required: true }] });
    expect(order).toEqual({
      options: { '1': { _errors: [{ code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', message: 'Required options must be placed before non-required options', sandbox_detail: detail }] } },
    });
    const mixed = await bad({ name: 'ok', description: 'x', options: [{ type: 1, name: 'sub', description: 'x' }, { type: 3, name: 'plain', description: 'x' }] });
    expect(mixed.options._errors[0]).toMatchObject({ code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', message: 'Sub-command and sub-command group option types are mutually exclusive to all other types' });
    expect((await bad({ name: 'ok', description: 'x', type: 9 })).type._errors[0]).toMatchObject({ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (1, 2, 3, 4).' });
    expect((await bad({ name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'x', required: 'yes' }] })).options['0'].required._errors[0]).toMatchObject({
      code: 'BOOLEAN_TYPE_CONVERT',
      message: 'Must be either true or false.',
    });
    const huge = Array.from({ length: 25 }, (_, i) => ({ type: 3, name: `opt${i}`, description: 'd'.repeat(100), choices: Array.from({ length: 3 }, (_, j) => ({ name: `c${j}`, value: 'v'.repeat(100) })) }));
    expect(await bad({ name: 'big', description: 'x', options: huge })).toEqual({ _errors: [{ code: 'APPLICATION_COMMAND_TOO_LARGE', message: 'Command exceeds maximum size (8000)', sandbox_detail: detail }] });
    // Where the service's wording is unknown, the validator's own code and message are sent unchanged.
    const auto = await bad({ name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'x', autocomplete: true, choices: [{ name: 'a', value: 'a' }] }] });
    expect(auto.options['0'].autocomplete._errors[0].code).toBe('APPLICATION_COMMAND_AUTOCOMPLETE_WITH_CHOICES');
    expect(auto.options['0'].autocomplete._errors[0].sandbox_detail).toBeUndefined();
  });

  it('a bulk overwrite with a duplicate name is refused on the list item', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const r = await call('PUT', global, [{ name: 'dup', description: 'A' }, { name: 'dup', description: 'B' }]);
    expect(r.body.errors).toEqual({ '1': { _errors: [{ code: 'APPLICATION_COMMANDS_DUPLICATE_NAME', message: 'Application command names must be unique', sandbox_detail: detail }] } });
  });
});

describe('command edit and delete', () => {
  it('PATCH replaces only the given fields, wholly; version changes only on a real change', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const c = (await call('POST', global, {
      name: 'greet',
      description: 'Say hi',
      name_localizations: { de: 'gruss' },
      options: [{ type: 3, name: 'who', description: 'Who', required: true }, { type: 5, name: 'loud', description: 'Loud?' }],
    })).body;
    const edited = await call('PATCH', `${global}/${c.id}`, { options: [{ type: 4, name: 'times', description: 'How often' }] });
    expect(edited.status).toBe(200);
    expect(edited.body.options.map((o: any) => o.name)).toEqual(['times']);
    expect(edited.body.description).toBe('Say hi');
    expect(edited.body.name_localizations).toEqual({ de: 'gruss' });
    expect(edited.body.version).not.toBe(c.version);
    const cleared = await call('PATCH', `${global}/${c.id}`, { name_localizations: null });
    expect(cleared.body.name_localizations).toBeNull();
    const noop = await call('PATCH', `${global}/${c.id}`, { description: 'Say hi' });
    expect(noop.body.version).toBe(cleared.body.version);
    // type cannot change through PATCH.
    const typed = await call('PATCH', `${global}/${c.id}`, { type: 2 });
    expect(typed.body.type).toBe(1);
  });

  it('PATCH of contexts alone carries dm_permission along (it follows contexts)', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const c = (await call('POST', global, { name: 'dm', description: 'D' })).body;
    expect(c).toMatchObject({ contexts: null, dm_permission: true });
    const guildOnly = await call('PATCH', `${global}/${c.id}`, { contexts: [0] });
    expect(guildOnly.body).toMatchObject({ contexts: [0], dm_permission: false });
    const everywhere = await call('PATCH', `${global}/${c.id}`, { contexts: [0, 1, 2] });
    expect(everywhere.body).toMatchObject({ contexts: [0, 1, 2], dm_permission: true });
  });

  it('PATCH validates the result, refuses a name taken by another command, and 404s unknown ids', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const a = (await call('POST', global, { name: 'alpha', description: 'A' })).body;
    await call('POST', global, { name: 'beta', description: 'B' });
    const bad = await call('PATCH', `${global}/${a.id}`, { description: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(50035);
    expect(bad.body.errors.description).toBeDefined();
    const clash = await call('PATCH', `${global}/${a.id}`, { name: 'beta' });
    expect(clash.status).toBe(400);
    expect(clash.body.code).toBe(40041);
    const unknown = await call('PATCH', `${global}/1234567890123456789`, { description: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Unknown application command', code: 10063 });
  });

  it('DELETE answers 204 and the command is gone', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const a = (await call('POST', global, { name: 'gone', description: 'Bye' })).body;
    const del = await call('DELETE', `${global}/${a.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await call('GET', `${global}/${a.id}`)).status).toBe(404);
    expect((await call('DELETE', `${global}/${a.id}`)).body.code).toBe(10063);
  });
});

describe('bulk overwrite', () => {
  it('matches by (type, name) or by id, keeps ids, drops what is missing, and answers 200 with the list', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const keep = (await call('POST', global, { name: 'keep', description: 'Keep' })).body;
    const renameMe = (await call('POST', global, { name: 'old-name', description: 'Rename me' })).body;
    const drop = (await call('POST', global, { name: 'drop', description: 'Drop' })).body;
    const r = await call('PUT', global, [
      { name: 'keep', description: 'Keep' },
      { id: renameMe.id, name: 'new-name', description: 'Renamed' },
      { name: 'fresh', description: 'New' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.map((c: any) => c.name)).toEqual(['keep', 'new-name', 'fresh']);
    expect(r.body[0].id).toBe(keep.id);
    expect(r.body[0].version).toBe(keep.version);
    expect(r.body[1].id).toBe(renameMe.id);
    expect(r.body[2].id).not.toBe(drop.id);
    const listed = (await call('GET', global)).body.map((c: any) => c.name).sort();
    expect(listed).toEqual(['fresh', 'keep', 'new-name']);
    expect((await call('GET', `${global}/${drop.id}`)).status).toBe(404);
    expect(sb.counters.commandCreates).toBe(4);
  });

  it('an empty list clears the scope; an id from elsewhere is refused', async () => {
    const sb = await start();
    const { global, guild, call } = client(sb);
    const g = (await call('POST', guild(sb.state.guildIds[0]!), { name: 'local', description: 'L' })).body;
    await call('POST', global, { name: 'a', description: 'A' });
    const foreign = await call('PUT', global, [{ id: g.id, name: 'a', description: 'A' }]);
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe(50035);
    expect(foreign.body.errors['0'].id).toBeDefined();
    const cleared = await call('PUT', global, []);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual([]);
    expect((await call('GET', global)).body).toEqual([]);
  });

  it('an item naming an id keeps that command even when an earlier item has the command\'s old name', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    const a = (await call('POST', global, { name: 'a', description: 'A' })).body;
    const r = await call('PUT', global, [
      { name: 'a', description: 'A new command under the old name' },
      { id: a.id, name: 'b', description: 'A renamed' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body[1].id).toBe(a.id);
    expect(r.body[1].name).toBe('b');
    expect(r.body[0].id).not.toBe(a.id);
    expect(sb.counters.commandCreates).toBe(2);
  });

  it('guild items may carry integration_types, contexts and dm_permission (spec 4.2 lists them, with defaults)', async () => {
    const sb = await start();
    const { guild, call } = client(sb);
    const g = guild(sb.state.guildIds[0]!);
    const put = await call('PUT', g, [
      { name: 'a', description: 'A', integration_types: [0], contexts: [0, 1, 2], dm_permission: true },
      { name: 'b', description: 'B' },
    ]);
    expect(put.status).toBe(200);
    // Global-only settings: a guild command does not keep them.
    expect(put.body[0]).not.toHaveProperty('contexts');
    expect(put.body[0]).not.toHaveProperty('integration_types');
    // The create and edit bodies of a guild command do not name them: ignored, like any unknown field.
    expect((await call('POST', g, { name: 'c', description: 'C', contexts: [0] })).status).toBe(201);
    expect((await call('PATCH', `${g}/${put.body[1].id}`, { dm_permission: false })).status).toBe(200);
    // Their shape is still checked.
    const bad = await call('PUT', g, [{ name: 'a', description: 'A', contexts: [7] }]);
    expect(bad.status).toBe(400);
    expect(bad.body.errors['0'].contexts['0']).toBeDefined();
  });

  it('validates the whole list (duplicate names, per-item errors) before changing anything', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    await call('POST', global, { name: 'stay', description: 'Stay' });
    const r = await call('PUT', global, [{ name: 'dup', description: 'A' }, { name: 'dup', description: 'B' }]);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(50035);
    expect(r.body.errors['1']).toBeDefined();
    expect((await call('GET', global)).body.map((c: any) => c.name)).toEqual(['stay']);
  });
});

describe('limits', () => {
  it('per-type counts per scope: the 16th global USER command is refused with 30032', async () => {
    const sb = await start();
    const { global, guild, call } = client(sb);
    for (let i = 0; i < 15; i++) expect((await call('POST', global, { name: `User ${i}`, type: 2 })).status).toBe(201);
    const over = await call('POST', global, { name: 'User 15', type: 2 });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ message: 'Maximum number of application commands reached (15)', code: 30032 });
    // Other types and other scopes have their own counts.
    expect((await call('POST', global, { name: 'Msg', type: 3 })).status).toBe(201);
    expect((await call('POST', guild(sb.state.guildIds[0]!), { name: 'User 15', type: 2 })).status).toBe(201);
    // Upserting an existing name is not a new command.
    expect((await call('POST', global, { name: 'User 3', type: 2 })).status).toBe(200);
  });

  it('daily creates per scope: past the budget creates get 30034, updates still work, bulk counts only new ones', async () => {
    const sb = await start({ rest: { dailyCommandCreates: 3 } });
    const { global, guild, call } = client(sb);
    for (const n of ['a', 'b', 'c']) expect((await call('POST', global, { name: n, description: n })).status).toBe(201);
    const over = await call('POST', global, { name: 'd', description: 'd' });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ message: 'Max number of daily application command creates has been reached (3)', code: 30034 });
    expect((await call('POST', global, { name: 'a', description: 'changed' })).status).toBe(200);
    // Bulk with only existing commands is fine; one new one is over the budget, and nothing changes.
    expect((await call('PUT', global, [{ name: 'a', description: 'a' }, { name: 'b', description: 'b' }, { name: 'c', description: 'c' }])).status).toBe(200);
    const bulkOver = await call('PUT', global, [{ name: 'a', description: 'a' }, { name: 'z', description: 'z' }]);
    expect(bulkOver.status).toBe(400);
    expect(bulkOver.body.code).toBe(30034);
    expect((await call('GET', global)).body).toHaveLength(3);
    // Each guild has its own budget.
    expect((await call('POST', guild(sb.state.guildIds[0]!), { name: 'd', description: 'd' })).status).toBe(201);
  });

  it('deleting does not give creates back', async () => {
    const sb = await start({ rest: { dailyCommandCreates: 1 } });
    const { global, call } = client(sb);
    const a = (await call('POST', global, { name: 'a', description: 'a' })).body;
    await call('DELETE', `${global}/${a.id}`);
    expect((await call('POST', global, { name: 'a', description: 'a' })).body.code).toBe(30034);
  });
});

describe('localization', () => {
  const localized = {
    name: 'hello',
    description: 'Say hello',
    name_localizations: { de: 'hallo', 'en-US': 'howdy', 'es-ES': 'hola' },
    description_localizations: { de: 'Hallo sagen', 'es-ES': 'Saluda' },
  };

  it('lists name_localized / description_localized for the requester locale instead of the dictionaries', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    await call('POST', global, localized);
    const de = (await call('GET', global, undefined, { 'x-discord-locale': 'de' })).body[0];
    expect(de.name_localized).toBe('hallo');
    expect(de.description_localized).toBe('Hallo sagen');
    expect(de.name_localizations).toBeUndefined();
    expect(de.description_localizations).toBeUndefined();
    const fromAccept = (await call('GET', global, undefined, { 'accept-language': 'es-419,es;q=0.9' })).body[0];
    expect(fromAccept.name_localized).toBe('hola');
    const gb = (await call('GET', global, undefined, { 'x-discord-locale': 'en-GB' })).body[0];
    expect(gb.name_localized).toBe('howdy');
    expect(gb.description_localized).toBeUndefined();
    const none = (await call('GET', global)).body[0];
    expect(none.name_localized).toBeUndefined();
    expect(none.name_localizations).toBeUndefined();
  });

  it('returns the full dictionaries with with_localizations=true', async () => {
    const sb = await start();
    const { global, call } = client(sb);
    await call('POST', global, localized);
    const full = (await call('GET', `${global}?with_localizations=true`, undefined, { 'x-discord-locale': 'de' })).body[0];
    expect(full.name_localizations).toEqual(localized.name_localizations);
    expect(full.description_localizations).toEqual(localized.description_localizations);
    expect(full.name_localized).toBeUndefined();
  });
});

describe('access', () => {
  it('refuses another application id (20012), a guild without the app (50001), and no token (401)', async () => {
    const sb = await start();
    const { call } = client(sb);
    const other = await call('GET', '/applications/111111111111111111/commands');
    expect(other.status).toBe(403);
    expect(other.body.code).toBe(20012);
    const guild = await call('POST', `/applications/${sb.applicationId}/guilds/111111111111111111/commands`, { name: 'x', description: 'x' });
    expect(guild.status).toBe(403);
    expect(guild.body).toEqual({ message: 'Missing Access', code: 50001 });
    const anon = await api(sb.restUrl, 'GET', `/applications/${sb.applicationId}/commands`);
    expect(anon.status).toBe(401);
  });

  it('accepts the app client-credentials token; writes need applications.commands.update', async () => {
    const sb = await start();
    const basic = Buffer.from(`${sb.clientId}:${sb.clientSecret}`).toString('base64');
    const token = async (scope: string): Promise<string> => {
      const r = await api(sb.restUrl, 'POST', '/oauth2/token', {
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&scope=${encodeURIComponent(scope)}`,
      });
      return r.body.access_token as string;
    };
    const path = `/applications/${sb.applicationId}/commands`;
    const readOnly = await token('identify');
    expect((await api(sb.restUrl, 'GET', path, { bearer: readOnly })).status).toBe(200);
    expect((await api(sb.restUrl, 'POST', path, { bearer: readOnly, body: { name: 'x', description: 'x' } })).status).toBe(403);
    const writer = await token('applications.commands.update');
    expect((await api(sb.restUrl, 'POST', path, { bearer: writer, body: { name: 'x', description: 'x' } })).status).toBe(201);
  });
});

describe('activities', () => {
  it('with Activities: EMBEDDED flag and an automatic global entry point "Launch" with handler 2', async () => {
    const sb = await start({ activities: true });
    const app = await api(sb.restUrl, 'GET', '/applications/@me', { token: sb.botToken });
    expect(app.status).toBe(200);
    expect(app.body.id).toBe(sb.applicationId);
    expect(app.body.flags & (1 << 17)).toBe(1 << 17);
    const list = (await client(sb).call('GET', `/applications/${sb.applicationId}/commands`)).body;
    expect(list).toEqual([expect.objectContaining({ name: 'Launch', type: 4, handler: 2 })]);
    // It can be customized (upsert by name) and deleted; a second entry point is over the count.
    const { global, call } = client(sb);
    expect((await call('POST', global, { name: 'Launch', type: 4, description: 'Play', handler: 1 })).status).toBe(200);
    expect((await call('POST', global, { name: 'Other', type: 4, description: 'x', handler: 2 })).body.code).toBe(30032);
    expect((await call('DELETE', `${global}/${list[0].id}`)).status).toBe(204);
  });

  it('without Activities: no EMBEDDED flag, no entry point, and handler is refused', async () => {
    const sb = await start();
    const app = await api(sb.restUrl, 'GET', '/applications/@me', { token: sb.botToken });
    expect(app.body.flags & (1 << 17)).toBe(0);
    const { global, call } = client(sb);
    expect((await call('GET', global)).body).toEqual([]);
    const r = await call('POST', global, { name: 'Launch', type: 4, description: 'x', handler: 2 });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(50035);
  });
});
