/**
 * Keys taken from request bodies (`__proto__`, `constructor`, `prototype`) behave like any other key in the
 * sandbox: locale maps, option names, invocation options, modal values, headers. Over real sockets. A stream of
 * such bodies leaves Object.prototype (and the other built-ins) as they were, and the same bad command gets the
 * same 50035 tree before and after it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { HOSTILE_KEYS, prototypeSnapshot, restorePrototypes, type PrototypeSnapshot } from '../helpers/prototypes.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

/** A bad command with nothing hostile in it: its 50035 tree is the reference. */
const BAD_COMMAND =
  '{"name":"Bad Name","description":"","options":[{"type":3,"name":"k","description":"d","choices":[{"name":"a","value":1}]},{"type":99,"name":"x","description":"d"}]}';

/** A dictionary with every hostile key (JSON text: an object literal would set the prototype instead). */
function hostileDict(value: string): string {
  return `{${HOSTILE_KEYS.map((k) => `"${k}":${JSON.stringify(value)}`).join(',')}}`;
}

const HOSTILE_LOCALES = `{"name":"hostile","description":"d","name_localizations":${hostileDict('x')},"description_localizations":${hostileDict('y')},"options":[{"type":3,"name":"o","description":"d","name_localizations":${hostileDict('z')},"choices":[{"name":"c","value":"v","name_localizations":${hostileDict('w')}}]}]}`;

const HOSTILE_NAMES = {
  name: 'keys',
  description: 'Options named like prototype keys',
  options: HOSTILE_KEYS.map((k) => ({ type: 3, name: k, description: `the ${k} option` })),
};

let sb: Sandbox;
let gateway: RawGatewayClient;
let guildId: string;
let before: PrototypeSnapshot;
let global: string;

async function call(method: string, path: string, body?: string | object, headers?: Record<string, string>) {
  return api(sb.restUrl, method, path, { token: sb.botToken, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
}

async function admin(method: string, path: string, body?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sb.adminUrl}${path}`, { method, ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  before = prototypeSnapshot();
  const buckets = Object.fromEntries(
    ['commands.read', 'commands.create', 'commands.edit', 'commands.bulk', 'permissions.edit', 'interaction.callback', 'entitlements'].map((b) => [b, { limit: 1000, windowMs: 1000 }]),
  );
  sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 4 }, rest: { globalPerSecond: 10_000, buckets } });
  global = `/applications/${sb.applicationId}/commands`;
  guildId = sb.state.guildIds[0]!;
  ({ client: gateway } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 | 2 }));
});

afterAll(async () => {
  gateway?.terminate();
  await sb?.close();
});

afterEach(() => {
  // A regression must fail its own test, not every test after it in this process.
  restorePrototypes(before);
});

describe('error trees keyed by the request', () => {
  it('a locale map with __proto__, constructor and prototype gets those keys in its tree, as own keys', async () => {
    const r = await call('POST', global, HOSTILE_LOCALES);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(50035);
    const e = r.body.errors;
    for (const dict of [e.name_localizations, e.description_localizations, e.options['0'].name_localizations, e.options['0'].choices['0'].name_localizations]) {
      for (const key of HOSTILE_KEYS) {
        expect(Object.hasOwn(dict, key), key).toBe(true);
        expect(dict[key]._errors[0].code).toEqual(expect.any(String));
      }
    }
    expect(prototypeSnapshot()).toEqual(before);
  });

  it('after a stream of hostile bodies the same bad command gets the same tree, and no built-in gained a key', async () => {
    const reference = await call('POST', global, BAD_COMMAND);
    expect(reference.status).toBe(400);
    expect(JSON.stringify(reference.body)).toContain('_errors');

    const created = await call('POST', global, HOSTILE_NAMES);
    expect(created.status).toBe(201);
    const commandId = created.body.id as string;
    const bearer = sb.issueBearerToken(['applications.commands.permissions.update']);
    const nested = `{"__proto__":{"_errors":[{"code":"X","message":"polluted"}],"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}`;
    const stream: Array<() => Promise<unknown>> = [
      () => call('POST', global, HOSTILE_LOCALES),
      () => call('PATCH', `${global}/${commandId}`, `{"name_localizations":${hostileDict('x')},"description_localizations":${hostileDict('')}}`),
      () => call('PUT', `/applications/${sb.applicationId}/guilds/${guildId}/commands`, `[${HOSTILE_LOCALES},${nested}]`),
      () => call('POST', global, nested),
      () => call('POST', global, `{"name":"n","description":"d","options":[${nested}],"__proto__":{"name":"other"}}`),
      () => call('POST', global, `{"name":"n","description":"d","options":[{"type":1,"name":"s","description":"d","options":[{"type":3,"name":"o","description":"d","name_localizations":${hostileDict('Q')}}]}]}`),
      () => call('GET', `${global}?with_localizations=false`, undefined, { 'accept-language': '__proto__, constructor;q=0.9, prototype;q=0.8' }),
      () => call('GET', global, undefined, { 'x-discord-locale': 'constructor' }),
      () => api(sb.restUrl, 'PUT', `/applications/${sb.applicationId}/guilds/${guildId}/commands/${commandId}/permissions`, { bearer, body: `{"permissions":[${nested}],${nested.slice(1, -1)}}` }),
      () => call('POST', `/applications/${sb.applicationId}/entitlements`, nested),
      () => admin('POST', '/invoke', `{"name":"keys","guildId":"${guildId}","options":${hostileDict('v')}}`),
      () => admin('POST', '/invoke', `{"name":"keys","guildId":"${guildId}","options":${nested}}`),
      () => admin('POST', '/autocomplete', `{"name":"keys","guildId":"${guildId}","focused":"__proto__","options":{}}`),
      () => admin('POST', `/guilds/${guildId}/members`, nested),
      () => admin('POST', '/modal', `{"interactionId":"1","values":${nested}}`),
    ];
    for (let round = 0; round < 3; round++) for (const send of stream) await send();

    expect(prototypeSnapshot()).toEqual(before);
    expect(({} as Record<string, unknown>)._errors).toBeUndefined();
    const again = await call('POST', global, BAD_COMMAND);
    expect(again.status).toBe(400);
    expect(again.body).toEqual(reference.body);
  });
});

describe('option names and values keyed by the request', () => {
  it('options named __proto__, constructor and prototype are registered, listed and invoked like any other', async () => {
    const created = await call('POST', global, HOSTILE_NAMES);
    expect(created.status).toBeLessThan(300);
    const listed = (await call('GET', global)).body as Array<{ name: string; options?: Array<{ name: string }> }>;
    expect(listed.find((c) => c.name === 'keys')!.options!.map((o) => o.name)).toEqual([...HOSTILE_KEYS]);

    const r = await admin('POST', '/invoke', `{"name":"keys","guildId":"${guildId}","options":${hostileDict('value')}}`);
    expect(r.status).toBe(201);
    const options = r.body.payload.data.options as Array<{ name: string; type: number; value: unknown }>;
    expect(options).toEqual(HOSTILE_KEYS.map((name) => ({ name, type: 3, value: 'value' })));
  });

  it('an option not given is absent, whatever its name (no inherited value is taken for it)', async () => {
    await call('POST', global, HOSTILE_NAMES);
    const r = await admin('POST', '/invoke', `{"name":"keys","guildId":"${guildId}","options":{"prototype":"p"}}`);
    expect(r.status).toBe(201);
    expect(r.body.payload.data.options).toEqual([{ name: 'prototype', type: 3, value: 'p' }]);
  });

  it('an invocation naming an option the command does not have is refused, also for prototype keys', async () => {
    await call('POST', `${global}`, { name: 'plain', description: 'No options' });
    for (const key of HOSTILE_KEYS) {
      const r = await admin('POST', '/invoke', `{"name":"plain","guildId":"${guildId}","options":{"${key}":"v"}}`);
      expect(r.status, key).toBe(400);
      expect(r.body.message).toContain(`unknown option '${key}'`);
    }
  });

  it('a focused option named __proto__ autocompletes with an empty value when nothing was typed', async () => {
    await call('POST', global, { name: 'ac', description: 'Autocomplete', options: [{ type: 3, name: '__proto__', description: 'typed', autocomplete: true }] });
    const r = await admin('POST', '/autocomplete', `{"name":"ac","guildId":"${guildId}","focused":"__proto__"}`);
    expect(r.status).toBe(201);
    expect(r.body.payload.data.options).toEqual([{ name: '__proto__', type: 3, value: '', focused: true }]);
  });

  it('a message command target must be a message id, not a key', async () => {
    await call('POST', global, { name: 'Quote', type: 3 });
    const r = await admin('POST', '/invoke', `{"name":"Quote","type":3,"guildId":"${guildId}","targetId":"__proto__"}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/target/);
  });

  it('modal fields named after prototype keys are answered by their own values only', async () => {
    await call('POST', global, { name: 'form', description: 'Opens a modal' });
    const invoked = await admin('POST', '/invoke', `{"name":"form","guildId":"${guildId}"}`);
    const { id, token } = invoked.body.payload as { id: string; token: string };
    const modal = {
      type: 9,
      data: {
        custom_id: 'm',
        title: 'Form',
        components: HOSTILE_KEYS.map((k) => ({ type: 1, components: [{ type: 4, custom_id: k, label: k, style: 1, required: k !== 'prototype' }] })),
      },
    };
    expect((await api(sb.restUrl, 'POST', `/interactions/${id}/${token}/callback`, { body: modal })).status).toBe(204);

    // Nothing given: a required field named constructor is missing, not "answered" by Object.
    const missing = await admin('POST', '/modal', `{"interactionId":"${id}","values":{"__proto__":"a"}}`);
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("modal field 'constructor' is required");

    const ok = await admin('POST', '/modal', `{"interactionId":"${id}","values":{"__proto__":"a","constructor":"b"}}`);
    expect(ok.status).toBe(201);
    const rows = ok.body.payload.data.components as Array<{ components: Array<{ custom_id: string; value: string }> }>;
    expect(rows.map((r) => [r.components[0]!.custom_id, r.components[0]!.value])).toEqual([
      ['__proto__', 'a'],
      ['constructor', 'b'],
      ['prototype', ''],
    ]);

    const extra = await admin('POST', '/modal', `{"interactionId":"${id}","values":{"__proto__":"a","constructor":"b","toString":"c"}}`);
    expect(extra.status).toBe(400);
    expect(extra.body.message).toContain("no field 'toString'");
  });
});

describe('headers keyed against tables', () => {
  it('an Accept-Language or X-Discord-Locale naming a prototype key picks no localization', async () => {
    await call('POST', global, { name: 'loc', description: 'd', name_localizations: { de: 'ort' } });
    for (const headers of [{ 'accept-language': 'constructor' } as Record<string, string>, { 'accept-language': '__proto__' }, { 'x-discord-locale': 'toString' }, { 'accept-language': 'hasOwnProperty-XX' }]) {
      const r = await call('GET', global, undefined, headers);
      expect(r.status).toBe(200);
      const loc = (r.body as Array<Record<string, unknown>>).find((c) => c.name === 'loc')!;
      expect(loc.name_localized, JSON.stringify(headers)).toBeUndefined();
    }
    const de = await call('GET', global, undefined, { 'accept-language': 'de' });
    expect((de.body as Array<Record<string, unknown>>).find((c) => c.name === 'loc')!.name_localized).toBe('ort');
  });

  it('an attachment named like a prototype key gets the generic content type', async () => {
    await call('POST', global, { name: 'upload', description: 'd', options: [{ type: 11, name: 'file', description: 'f' }] });
    for (const name of ['x.constructor', 'x.__proto__', 'x.tostring']) {
      const r = await admin('POST', '/invoke', JSON.stringify({ name: 'upload', guildId, options: { file: name } }));
      expect(r.status).toBe(201);
      const attachments = r.body.payload.data.resolved.attachments as Record<string, { content_type: unknown }>;
      expect(Object.values(attachments)[0]!.content_type, name).toBe('application/octet-stream');
    }
  });
});
