/**
 * `npm start` without a token runs the sandbox inside the bot's own process: hostile bodies sent to that
 * sandbox must not reach the bot's Object.prototype, its 50035 answers stay whole, and the bot keeps answering.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { prototypeSnapshot } from '../helpers/prototypes.js';
import { api } from '../sandbox/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const before = prototypeSnapshot();
let runtime: Runtime;

beforeAll(async () => {
  const config = loadConfig({
    cwd: ROOT,
    env: {},
    overrides: { plugins: { dirs: ['test/fixtures/plugins/hostile'] }, http: { enabled: false }, sandbox: { port: 0, guilds: 1, membersPerGuild: 3 } },
  });
  runtime = new Runtime({ config, cwd: ROOT, log: silentLogger(), gateway: { identifyWindowMs: 50 } });
  await runtime.start();
});

afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
});

describe('the embedded sandbox under hostile bodies', () => {
  it('leaves the bot process unpolluted, answers the same 50035 tree, and the bot keeps answering', async () => {
    const sb = runtime.sandbox!;
    expect(sb).not.toBeNull();
    const commands = `/applications/${sb.applicationId}/commands`;
    const call = (method: string, body?: string) => api(sb.restUrl, method, commands, { token: sb.botToken, ...(body !== undefined ? { body } : {}) });
    const bad = '{"name":"Bad Name","description":"","options":[{"type":3,"name":"k","description":"d","choices":[{"name":"a","value":1}]}]}';
    const reference = await call('POST', bad);
    expect(reference.status).toBe(400);

    const dict = '{"__proto__":"x","constructor":"y","prototype":"z"}';
    const nested = '{"__proto__":{"_errors":[{"code":"X","message":"polluted"}]},"constructor":{"prototype":{"polluted":true}}}';
    const keys = ((await call('GET')).body as Array<{ id: string; name: string }>).find((c) => c.name === 'keys')!;
    const guild = `/applications/${sb.applicationId}/guilds/${sb.state.guildIds[0]!}/commands`;
    // The embedded sandbox keeps the service's rate limits: a few requests of each kind, spread over routes.
    const hostile: Array<[string, string, string]> = [
      ['POST', commands, `{"name":"h","description":"d","name_localizations":${dict},"description_localizations":${dict},"options":[{"type":3,"name":"o","description":"d","name_localizations":${dict}}]}`],
      ['POST', commands, nested],
      ['PATCH', `${commands}/${keys.id}`, `{"name_localizations":${dict}}`],
      ['PATCH', `${commands}/${keys.id}`, `{"options":[{"type":3,"name":"__proto__","description":"d","name_localizations":${dict}}]}`],
      ['PATCH', `${commands}/${keys.id}`, nested],
      ['PUT', commands, `[${nested},{"name":"x","description":"d","name_localizations":${dict}}]`],
      ['PUT', guild, `[{"name":"x","description":"d","description_localizations":${dict}}]`],
      ['POST', guild, `{"name":"g","description":"d","options":[${nested}]}`],
    ];
    for (const [method, path, body] of hostile) {
      const r = await api(sb.restUrl, method, path, { token: sb.botToken, body });
      // Refused (400), or accepted with the unknown keys ignored (a PATCH of nothing the service knows).
      expect([200, 400], `${method} ${path} ${JSON.stringify(r.body)}`).toContain(r.status);
    }
    const after = ((await call('GET')).body as Array<{ id: string; name: string; options: Array<{ name: string }> }>).find((c) => c.id === keys.id)!;
    expect(after.options.map((o) => o.name)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(prototypeSnapshot()).toEqual(before);
    const again = await call('POST', bad);
    expect(again.body).toEqual(reference.body);

    // The plugin's command is untouched and still answers.
    const guildId = sb.state.guildIds[0]!;
    const record = await sb.invoke({ name: 'keys', guildId, options: JSON.parse('{"__proto__":"still here"}') as Record<string, string> });
    const first = await record.firstResponse(5_000);
    expect(JSON.parse(String(first.data?.content))).toMatchObject({ proto: 'still here', keys: ['__proto__'] });
  });
});
