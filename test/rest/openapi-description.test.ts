import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDescription, pathsList, type Method } from '../fixtures/openapi/description.js';

const root = new URL('../../', import.meta.url);
const read = (p: string): string => readFileSync(new URL(p, root), 'utf8');
const d = loadDescription();

describe('the pinned OpenAPI description (test/fixtures/openapi)', () => {
  it('is discord-api-spec at the exact version the README and package.json name', () => {
    const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies['discord-api-spec']).toBe(d.packageVersion);
    expect(d.packageVersion).toBe('10.0.266135');
    expect(d.specUpdate).toBe(266135);
    const readme = read('test/fixtures/openapi/README.md');
    expect(readme).toContain(`\`${d.packageVersion}\``);
    expect(readme).toContain(`**${d.specUpdate}**`);
  });

  it('parses the same operations from the Paths interface as the package lists in pathsList', async () => {
    const listed = new Set<string>();
    for (const [method, templates] of await pathsList()) for (const t of templates) listed.add(`${method} ${t}`);
    const parsed = new Set(d.operations().map((o) => `${o.method} ${o.template}`));
    expect([...listed].filter((x) => !parsed.has(x))).toEqual([]);
    expect([...parsed].filter((x) => !listed.has(x))).toEqual([]);
    expect(parsed.size).toBe(246);
  });

  it('checks every body, response and query parameter it has: nothing left as "anything"', () => {
    const unchecked: string[] = [];
    for (const op of d.operations()) {
      const specs = [op.requestBody, ...op.responses.values(), ...op.query.values()];
      for (const s of specs) for (const u of s?.unchecked ?? []) unchecked.push(`${op.method} ${op.template}: ${u}`);
    }
    expect(unchecked).toEqual([]);
  });

  it('holds every line of bot-operations.txt, by its exact template', () => {
    const lines = read('test/fixtures/openapi/bot-operations.txt').trim().split('\n');
    expect(lines).toHaveLength(165);
    expect(new Set(lines).size).toBe(lines.length);
    const missing = lines.filter((line) => {
      const [method, template] = line.split(' ') as [Method, string];
      return d.find(method, template)?.template !== template;
    });
    expect(missing).toEqual([]);
  });

  it('finds operations by template (param names free) or by concrete path, a literal before a param', () => {
    expect(d.find('get', '/channels/{channel_id}/messages/{message_id}')?.operationId).toBe('get_message');
    // The interaction webhook names its params after the application: same shape, same operation.
    expect(d.find('PATCH', '/webhooks/{application_id}/{interaction_token}/messages/@original')?.template).toBe(
      '/webhooks/{webhook_id}/{webhook_token}/messages/@original',
    );
    expect(d.find('GET', '/channels/1/messages/pins')?.template).toBe('/channels/{channel_id}/messages/pins');
    expect(d.find('GET', '/channels/1/messages/2')?.template).toBe('/channels/{channel_id}/messages/{message_id}');
    expect(d.find('GET', '/guilds/1/members/search?query=a')?.template).toBe('/guilds/{guild_id}/members/search');
    expect(d.find('DELETE', '/webhooks/1/t/messages/@original')?.template).toBe(
      '/webhooks/{webhook_id}/{webhook_token}/messages/@original',
    );
    expect(d.find('POST', '/oauth2/token')).toBeNull();
    expect(d.find('GET', '/applications/{application_id}/skus')).toBeNull();
    expect(d.find('PUT', '/channels/{channel_id}/messages')).toBeNull();
    expect(d.find('GET', '/channels//messages')).toBeNull();
  });

  it('checks request bodies strictly: a key the description lacks fails, named or inline, inside unions too', () => {
    const create = d.find('POST', '/channels/{channel_id}/messages')!;
    expect(create.requestBody).toMatchObject({ kind: 'named', typeNames: ['MessageCreateRequest'] });
    expect(d.validateRequestBody(create, { content: 'hi', embeds: [{ title: 'x', color: 0xff0000 }] })).toEqual({
      ok: true,
    });
    const typo = d.validateRequestBody(create, { content: 'hi', embeds: [{ title: 'x', colour: 1 }] });
    expect(typo).toEqual({ ok: false, issues: ['embeds.0: Unrecognized key: "colour"'] });

    const member = d.find('PATCH', '/guilds/1/members/2')!;
    expect(member.requestBody?.kind).toBe('inline');
    expect(
      d.validateRequestBody(member, { communication_disabled_until: '2030-01-01T00:00:00.000Z', roles: ['1'] }),
    ).toEqual({ ok: true });
    expect(d.validateRequestBody(member, { timeout: 60 })).toMatchObject({ ok: false });
    expect(d.validateRequestBody(member, { nick: 5 })).toMatchObject({ ok: false });

    const callback = d.find('POST', '/interactions/1/t/callback')!;
    expect(d.validateRequestBody(callback, { type: 4, data: { content: 'x' } })).toEqual({ ok: true });
    expect(d.validateRequestBody(callback, { type: 4, data: { content: 'x', bogus: 1 } })).toMatchObject({ ok: false });

    const pin = d.find('PUT', '/channels/1/messages/pins/2')!;
    expect(pin.requestBody).toBeNull();
    expect(d.validateRequestBody(pin, undefined)).toEqual({ ok: true });
    expect(d.validateRequestBody(pin, {})).toMatchObject({ ok: false });
  });

  it('checks responses loosely by default and strictly on request; statuses fall back to their range', () => {
    const get = d.find('GET', '/users/{user_id}')!;
    const user = {
      id: '1',
      username: 'a',
      avatar: null,
      discriminator: '0',
      public_flags: 0,
      flags: 0,
      global_name: null,
      primary_guild: null,
    };
    expect(d.validateResponse(get, 200, user)).toEqual({ ok: true });
    expect(d.validateResponse(get, 200, { ...user, not_in_the_description: 1 })).toEqual({ ok: true });
    expect(d.validateResponse(get, 200, { ...user, username: 5 })).toMatchObject({ ok: false });
    const strict = loadDescription({ strictResponses: true });
    expect(
      strict.validateResponse(strict.find('GET', '/users/1')!, 200, { ...user, not_in_the_description: 1 }),
    ).toMatchObject({ ok: false });

    expect(d.responseFor(get, 404)?.key).toBe('4XX');
    expect(d.responseFor(get, 429)?.key).toBe('429');
    expect(d.responseFor(get, 500)).toBeNull();
    expect(d.validateResponse(get, 404, { code: 10013, message: 'Unknown User' })).toEqual({ ok: true });
    const del = d.find('DELETE', '/channels/1/messages/2')!;
    expect(del.responses.get('204')?.kind).toBe('empty');
    expect(d.validateResponse(del, 204, undefined)).toEqual({ ok: true });
    expect(d.validateResponse(del, 204, { id: '2' })).toMatchObject({ ok: false });
    expect(d.validateResponse(del, 200, {})).toMatchObject({ ok: false });
  });

  it('checks query parameters: names, required ones, values typed from their wire strings', () => {
    const search = d.find('GET', '/guilds/{guild_id}/members/search')!;
    expect([...search.query.values()].map((q) => [q.name, q.required])).toEqual([
      ['limit', false],
      ['query', true],
    ]);
    expect(d.validateQuery(search, new URLSearchParams('query=ab&limit=5'))).toEqual({ ok: true });
    expect(d.validateQuery(search, new URLSearchParams('limit=x&sort=1'))).toEqual({
      ok: false,
      issues: [
        'query limit=x: not a number',
        'query sort: not a parameter of GET /guilds/{guild_id}/members/search',
        'query query: required',
      ],
    });
    const entitlements = d.find('GET', '/applications/{application_id}/entitlements')!;
    expect(d.validateQuery(entitlements, new URLSearchParams('sku_ids=1,2&exclude_ended=true'))).toEqual({ ok: true });
    expect(d.validateQuery(entitlements, new URLSearchParams('exclude_ended=yes'))).toMatchObject({ ok: false });
  });

  it('says which tokens an operation accepts', () => {
    expect(d.find('GET', '/users/@me/connections')).toMatchObject({
      acceptsBotToken: true,
      oauth2Scopes: ['connections'],
    });
    expect(d.find('GET', '/guilds/{guild_id}')).toMatchObject({ acceptsBotToken: true, oauth2Scopes: [] });
    expect(d.find('GET', '/users/@me/guilds/{guild_id}/member')).toMatchObject({
      acceptsBotToken: false,
      oauth2Scopes: ['guilds.members.read'],
    });
  });

  it("builds its strict copy because the package's setStrictObject cannot change schemas already built", async () => {
    const specifier: string = 'discord-api-spec/zod';
    const zod = (await import(specifier)) as {
      setStrictObject(strict: boolean): void;
      AccountResponseSchema: { safeParse(v: unknown): { success: boolean } };
    };
    zod.setStrictObject(true);
    try {
      expect(zod.AccountResponseSchema.safeParse({ id: '1', name: null, extra: 1 }).success).toBe(true);
    } finally {
      zod.setStrictObject(false);
    }
  });
});
